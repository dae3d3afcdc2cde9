"""Case rows for the elementwise ops in tapemagic/engine/ops/math.py."""

from __future__ import annotations

import numpy as np

from tapemagic.engine.ops import math as M

from .gradcheck import Case, broadcast_shapes, shape_and_broadcastable, unary_shapes


def _positive(rng, shape):
    return rng.uniform(0.5, 2.0, size=shape)


def _away_from_zero(rng, shape):
    # |x| in [0.3, 2]: keeps finite differences off kinks at 0
    return rng.uniform(0.3, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def _unit_interval(rng, shape):
    return rng.uniform(-0.8, 0.8, size=shape)


def _distinct_pair(rng, shape):
    # values on a grid spaced 0.5 apart with jitter: ties and near-ties are avoided
    return rng.permutation(np.arange(int(np.prod(shape))) * 0.5)[
        : int(np.prod(shape))
    ].reshape(shape) + rng.uniform(0, 0.1, size=shape)


UNARY = unary_shapes()
BINARY = broadcast_shapes(2)

CASES = [
    Case("add", M.add, BINARY),
    Case("subtract", M.subtract, BINARY),
    Case("multiply", M.multiply, BINARY),
    Case("truediv", M.truediv, BINARY, domain=_away_from_zero, tol=1e-5),
    Case("divide_no_nan", M.divide_no_nan, BINARY, domain=_away_from_zero, tol=1e-5),
    Case("floordiv", M.floordiv, BINARY, domain=_away_from_zero, differentiable=False),
    Case("mod", M.mod, BINARY, domain=_positive, smooth=False, tol=1e-5),
    Case("pow", M.pow, BINARY, domain=_positive, tol=1e-5),
    Case("maximum", M.maximum, BINARY, domain=_distinct_pair, smooth=False),
    Case("minimum", M.minimum, BINARY, domain=_distinct_pair, smooth=False),
    Case("negative", M.negative, UNARY),
    Case("abs", M.abs, UNARY, domain=_away_from_zero),
    Case("sign", M.sign, UNARY, domain=_away_from_zero, smooth=False),
    Case("square", M.square, UNARY),
    Case("sqrt", M.sqrt, UNARY, domain=_positive, tol=1e-5),
    Case("rsqrt", M.rsqrt, UNARY, domain=_positive, tol=1e-5),
    Case("reciprocal", M.reciprocal, UNARY, domain=_away_from_zero, tol=1e-5),
    # the gradient primitives: y (the output) and g away from 0, where their
    # kernels switch to 0
    *[
        Case(name, getattr(M, name), BINARY, domain=_away_from_zero, tol=1e-5)
        for name in ("sqrt_grad", "rsqrt_grad", "reciprocal_grad")
    ],
    Case("exp", M.exp, UNARY),
    Case("expm1", M.expm1, UNARY),
    Case("log", M.log, UNARY, domain=_positive, tol=1e-5),
    Case("log1p", M.log1p, UNARY, domain=_positive),
    Case("sin", M.sin, UNARY),
    Case("cos", M.cos, UNARY),
    Case("tan", M.tan, UNARY, domain=_unit_interval),
    Case("asin", M.asin, UNARY, domain=_unit_interval, tol=1e-5),
    Case("acos", M.acos, UNARY, domain=_unit_interval, tol=1e-5),
    Case("atan", M.atan, UNARY),
    Case("sinh", M.sinh, UNARY),
    Case("cosh", M.cosh, UNARY),
    Case("tanh", M.tanh, UNARY),
    Case("tanh_grad", M.tanh_grad, BINARY),
    Case("sigmoid_grad", M.sigmoid_grad, BINARY),
    Case("sigmoid", M.sigmoid, UNARY),
    Case("identity", M.identity, UNARY),
    Case("round", M.round, UNARY, differentiable=False),
    Case("floor", M.floor, UNARY, differentiable=False),
    Case("ceil", M.ceil, UNARY, differentiable=False),
    Case("stop_gradient", M.stop_gradient, UNARY, differentiable=False),
    Case("equal", M.equal, BINARY, differentiable=False),
    Case("not_equal", M.not_equal, BINARY, differentiable=False),
    Case("less", M.less, BINARY, differentiable=False),
    Case("less_equal", M.less_equal, BINARY, differentiable=False),
    Case("greater", M.greater, BINARY, differentiable=False),
    Case("greater_equal", M.greater_equal, BINARY, differentiable=False),
    # tf.where(condition) alone: the coordinates of the true elements
    Case(
        "where_indices",
        lambda x: M.where(M.greater(x, 0.0)),
        UNARY,
        differentiable=False,
    ),
    Case(
        "logical_and",
        lambda x, y: M.logical_and(x > 0, y > 0),
        BINARY,
        differentiable=False,
    ),
    Case(
        "logical_or",
        lambda x, y: M.logical_or(x > 0, y > 0),
        BINARY,
        differentiable=False,
    ),
    Case(
        "logical_xor",
        lambda x, y: M.logical_xor(x > 0, y > 0),
        BINARY,
        differentiable=False,
    ),
    Case("logical_not", lambda x: M.logical_not(x > 0), UNARY, differentiable=False),
    Case("is_nan", M.is_nan, UNARY, differentiable=False),
    Case("is_inf", M.is_inf, UNARY, differentiable=False),
    Case("is_finite", M.is_finite, UNARY, differentiable=False),
    Case("where", lambda x, y: M.where(x > y, x * y, y), BINARY, domain=_distinct_pair),
    # float64 -> float32 -> float64: linear, so a large step is exact up to rounding
    Case(
        "cast",
        lambda x: M.cast(M.cast(x, "float32"), "float64") * 3.0,
        UNARY,
        eps=1e-2,
        tol=1e-4,
    ),
    Case(
        "clip_by_value",
        lambda t, lo: M.clip_by_value(t, lo, lo + 1.0),
        shape_and_broadcastable(),
        domain=_distinct_pair,
        smooth=False,
    ),
]


def _above_one(rng, shape):
    # acosh is defined for x >= 1 and steep at 1
    return rng.uniform(1.2, 3.0, size=shape)


CASES += [
    # _away_from_zero keeps both coordinates off 0, so never near the origin
    Case("atan2", M.atan2, BINARY, domain=_away_from_zero, tol=1e-5),
    Case("asinh", M.asinh, UNARY, domain=(-3.0, 3.0)),
    Case("acosh", M.acosh, UNARY, domain=_above_one, tol=1e-5),
    Case("atanh", M.atanh, UNARY, domain=_unit_interval, tol=1e-5),
]
