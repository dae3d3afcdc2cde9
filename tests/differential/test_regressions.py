"""Differences the programs against TensorFlow found, each kept as a plain test.

Every expected string, value, ``None`` and error class here is what
tensorflow-cpu 2.21.0 printed for the same code (run under TensorFlow, then
pinned); these tests need no TensorFlow. docs/RELIABILITY.md lists them.
"""

from __future__ import annotations

import warnings

import pytest

import tapemagic.tf as tf


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # watching an integer warns, as in TF
        yield


def test_an_integer_target_is_its_own_gradient():
    v0 = tf.constant(3)
    b = tf.constant([True, False])
    with tf.GradientTape(persistent=True) as tape:
        v1 = tf.negative(v0)
    assert repr(tape.gradient(v0, [v0, v1])) == (
        "[<tf.Tensor: shape=(), dtype=int32, numpy=1>, None]"
    )
    seeded = tape.gradient(v0, v0, output_gradients=tf.constant(5))
    assert repr(seeded) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(tape.gradient(b, b)) == (
        "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True,  True])>"
    )
    assert repr(tape.gradient([v0, v0], v0)) == (
        "<tf.Tensor: shape=(), dtype=int32, numpy=2>"
    )
    zero = tape.gradient(v1, v0, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert repr(zero) == "<tf.Tensor: shape=(), dtype=int32, numpy=0>"
