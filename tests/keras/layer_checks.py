"""A finite-difference gradient check for layers, on float64 inputs and weights."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tapemagic.tf as tf


def assert_gradients_match_finite_differences(
    fn: Callable[[Any], Any],
    x: np.ndarray,
    variables: list,
    *,
    directions: int = 3,
    step: float = 1e-6,
    seed: int = 0,
) -> None:
    """Check the tape's gradients of ``sum(fn(x) * r)`` (``r`` random) with
    respect to ``x`` and ``variables`` against central differences along random
    directions (all of them moved together), in float64.

    Args:
        fn: the layer's computation, e.g. ``lambda t: layer(t, training=True)``.
        x: the input (float64).
        variables: the weights to differentiate (float64); left as they were.
        directions: how many random directions to check.
        step: the finite-difference step.
        seed: seeds the weighting ``r`` and the directions.
    """
    rng = np.random.default_rng(seed)
    x = np.asarray(x, np.float64)
    r = rng.standard_normal(tuple(fn(x).shape))
    source = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(source)
        loss = tf.reduce_sum(fn(source) * r)
    grads = tape.gradient(loss, [source, *variables])
    assert all(g is not None for g in grads), grads
    base = [v.numpy() for v in variables]

    def loss_at(t: float, dx: np.ndarray, dvs: list) -> float:
        for v, b, d in zip(variables, base, dvs):
            v.assign(b + t * d)
        return float(np.sum(fn(x + t * dx).numpy() * r))

    try:
        for _ in range(directions):
            dx = rng.standard_normal(x.shape)
            dvs = [rng.standard_normal(b.shape) for b in base]
            numeric = (loss_at(step, dx, dvs) - loss_at(-step, dx, dvs)) / (2 * step)
            analytic = sum(
                float(np.sum(g.numpy() * d)) for g, d in zip(grads, [dx, *dvs])
            )
            assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    finally:
        for v, b in zip(variables, base):
            v.assign(b)


def assert_second_order_matches_finite_differences(
    fn: Callable[[Any], Any],
    x: np.ndarray,
    variables: list,
    *,
    step: float = 1e-6,
    seed: int = 0,
) -> None:
    """Check second derivatives through nested tapes, in float64.

    ``h = sum_i <grad_i, u_i>`` contracts the first-order gradients of ``sum(fn(x)
    * r)`` (with respect to ``x`` and ``variables``) with random ``u``; its
    gradient from an outer tape (a Hessian-vector product) is checked against
    central differences of ``h`` along a random direction. A None from the outer
    tape counts as zeros, but not every one of them may be None.

    Args:
        fn: the layer's computation.
        x: the input (float64).
        variables: the weights to differentiate (float64); left as they were.
        step: the finite-difference step.
        seed: seeds ``r``, ``u`` and the direction.
    """
    rng = np.random.default_rng(seed)
    x = np.asarray(x, np.float64)
    r = rng.standard_normal(tuple(fn(x).shape))
    base = [v.numpy() for v in variables]
    us = [rng.standard_normal(x.shape)] + [rng.standard_normal(b.shape) for b in base]

    def contracted(point: np.ndarray, outer: Any = None) -> tuple:
        source = tf.constant(point)
        if outer is not None:
            outer.watch(source)
        with tf.GradientTape() as inner:
            inner.watch(source)
            loss = tf.reduce_sum(fn(source) * r)
        grads = inner.gradient(loss, [source, *variables])
        h = sum(tf.reduce_sum(g * u) for g, u in zip(grads, us) if g is not None)
        return source, h

    with tf.GradientTape() as outer:
        source, h = contracted(x, outer)
    second = outer.gradient(h, [source, *variables])
    assert any(g is not None for g in second), "no second derivative at all"
    second = [np.zeros(u.shape) if g is None else g.numpy() for g, u in zip(second, us)]
    dx = rng.standard_normal(x.shape)
    dvs = [rng.standard_normal(b.shape) for b in base]

    def h_at(t: float) -> float:
        for v, b, d in zip(variables, base, dvs):
            v.assign(b + t * d)
        return float(contracted(x + t * dx)[1])

    try:
        numeric = (h_at(step) - h_at(-step)) / (2 * step)
        analytic = sum(float(np.sum(g * d)) for g, d in zip(second, [dx, *dvs]))
        assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-7)
    finally:
        for v, b in zip(variables, base):
            v.assign(b)
