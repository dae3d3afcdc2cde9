"""Case rows for the reductions in tapemagic/engine/ops/reduce.py.

Each row draws a shape, then (through ``extra``) the axes to reduce (None, one
int or a list, negative ones included) and ``keepdims``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapemagic.engine.ops import math as M
from tapemagic.engine.ops import reduce as R
from tapemagic.engine.ops import reductions as RS
from tapemagic.engine.ops import scan as SC

from .gradcheck import Case, unary_shapes


def draw_axis(data, ndim: int):
    """None, an int or a list of distinct ints (maybe negative) for rank ``ndim``."""
    if ndim == 0:
        return data.draw(st.sampled_from([None, []]), label="axis")
    one = st.integers(-ndim, ndim - 1)
    many = st.lists(one, max_size=ndim, unique_by=lambda a: a % ndim)
    return data.draw(st.one_of(st.none(), one, many), label="axis")


def _axis_and_keepdims(data, shapes) -> tuple:
    return draw_axis(data, len(shapes[0])), data.draw(st.booleans(), label="keepdims")


def _nonempty_axis_and_keepdims(data, shapes) -> tuple:
    axis = draw_axis(data, len(shapes[0]))
    return (None if axis == [] else axis), data.draw(st.booleans(), label="keepdims")


def _one_axis(data, shapes) -> tuple:
    ndim = len(shapes[0])
    return (data.draw(st.integers(-ndim, ndim - 1), label="axis"),)


def _distinct(rng, shape):
    # a shuffled grid 0.5 apart with a little jitter: no ties, no near-ties
    n = int(np.prod(shape))
    grid = rng.permutation(n) * 0.5 - n * 0.25
    return grid.reshape(shape) + rng.uniform(0, 0.1, size=shape)


def _away_from_zero(rng, shape):
    return rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def _with_zeros(rng, shape):
    # about a third of the elements are exactly 0: one or several per group
    values = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return np.where(rng.uniform(size=shape) < 0.35, 0.0, values)


def _reduction(fn):
    return lambda x, axis, keepdims: fn(x, axis=axis, keepdims=keepdims)


def _prod_of_others(x, axis):
    # the primitive behind reduce_prod's VJP, applied directly
    axes = R._reduction_axes(axis, x._value.ndim, "prod_of_others")
    return R._prod_of_others(x, axes=axes)


ANY = unary_shapes(0, 3)
NONEMPTY_AXIS = unary_shapes(1, 3)

CASES = [
    Case("reduce_sum", _reduction(R.reduce_sum), ANY, extra=_axis_and_keepdims),
    Case("reduce_mean", _reduction(R.reduce_mean), ANY, extra=_axis_and_keepdims),
    Case(
        "reduce_max",
        _reduction(R.reduce_max),
        ANY,
        domain=_distinct,
        extra=_axis_and_keepdims,
    ),
    Case(
        "reduce_min",
        _reduction(R.reduce_min),
        ANY,
        domain=_distinct,
        extra=_axis_and_keepdims,
    ),
    Case(
        "reduce_prod",
        _reduction(R.reduce_prod),
        ANY,
        domain=_away_from_zero,
        extra=_axis_and_keepdims,
        tol=1e-5,
    ),
    # exact zeros in the input: first order only (the second divides by x)
    Case(
        "reduce_prod",
        _reduction(R.reduce_prod),
        unary_shapes(1, 3),
        domain=_with_zeros,
        extra=_axis_and_keepdims,
        smooth=False,
        tol=1e-5,
        name="reduce_prod_with_zeros",
    ),
    Case(
        "prod_of_others",
        _prod_of_others,
        ANY,
        domain=_away_from_zero,
        extra=lambda data, shapes: (draw_axis(data, len(shapes[0])),),
        tol=1e-5,
    ),
    Case(
        "reduce_logsumexp",
        _reduction(R.reduce_logsumexp),
        ANY,
        extra=_axis_and_keepdims,
        tol=1e-5,
    ),
    # far from 0: logsumexp must not overflow, in the value or the gradient
    Case(
        "reduce_logsumexp",
        _reduction(R.reduce_logsumexp),
        ANY,
        domain=(400.0, 404.0),
        extra=_axis_and_keepdims,
        tol=1e-5,
        name="reduce_logsumexp_large",
    ),
    Case(
        "reduce_mean",
        _reduction(RS.reduce_variance),
        ANY,
        extra=_axis_and_keepdims,
        tol=1e-5,
        name="reduce_variance",
    ),
    Case(
        "reduce_mean",
        _reduction(RS.reduce_std),
        # groups of 2 or more distinct values: the deviation is never 0
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4).map(
            lambda s: (s,)
        ),
        domain=_distinct,
        extra=_nonempty_axis_and_keepdims,
        tol=1e-5,
        name="reduce_std",
    ),
    Case(
        "argmax",
        lambda x, axis: R.argmax(x, axis=axis),
        NONEMPTY_AXIS,
        domain=_distinct,
        extra=_one_axis,
        differentiable=False,
    ),
    Case(
        "argmin",
        lambda x, axis: R.argmin(x, axis=axis),
        NONEMPTY_AXIS,
        domain=_distinct,
        extra=_one_axis,
        differentiable=False,
    ),
    Case(
        "reduce_any",
        lambda x, axis, keepdims: R.reduce_any(M.greater(x, 0.0), axis, keepdims),
        ANY,
        extra=_axis_and_keepdims,
        differentiable=False,
    ),
    Case(
        "reduce_all",
        lambda x, axis, keepdims: R.reduce_all(M.greater(x, 0.0), axis, keepdims),
        ANY,
        extra=_axis_and_keepdims,
        differentiable=False,
    ),
]


def _scan_args(data, shapes) -> tuple:
    ndim = len(shapes[0])
    axis = data.draw(st.integers(-ndim, ndim - 1), label="axis")
    exclusive = data.draw(st.booleans(), label="exclusive")
    return axis, exclusive, data.draw(st.booleans(), label="reverse")


def _scan(fn):
    return lambda x, axis, exclusive, reverse: fn(x, axis, exclusive, reverse)


CASES += [
    Case("cumsum", _scan(SC.cumsum), NONEMPTY_AXIS, extra=_scan_args),
    Case(
        "cumprod",
        _scan(SC.cumprod),
        NONEMPTY_AXIS,
        domain=_away_from_zero,
        extra=_scan_args,
        tol=1e-5,
    ),
    # exact zeros: the gradient is exact (first order; see cumprod's docstring)
    Case(
        "cumprod",
        _scan(SC.cumprod),
        NONEMPTY_AXIS,
        domain=_with_zeros,
        extra=_scan_args,
        smooth=False,
        tol=1e-5,
        name="cumprod_with_zeros",
    ),
    Case(
        "reduce_euclidean_norm",
        _reduction(R.reduce_euclidean_norm),
        ANY,
        domain=_away_from_zero,
        extra=_nonempty_axis_and_keepdims,
        tol=1e-5,
        name="reduce_euclidean_norm",
    ),
]
