"""The transcendental functions: exp, log and their kin, the trigonometric and
hyperbolic functions and their inverses, and sigmoid, each with the gradient
TensorFlow gives (``tanh`` and ``sigmoid`` through gradient primitives, as its
``TanhGrad`` and ``SigmoidGrad``). ``math`` re-exports them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..accepts import FLOATING
from ..op import defop

__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "cos",
    "cosh",
    "exp",
    "expm1",
    "log",
    "log1p",
    "sigmoid",
    "sigmoid_grad",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "tanh_grad",
]


exp = defop(
    "exp",
    np.exp,
    lambda ns, g, out, x: (g * out,),
    saves=("out",),
    singular="value",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("exp",),
)
expm1 = defop(
    "expm1",
    np.expm1,
    lambda ns, g, out, x: (g * (out + 1),),
    singular="value",
    accepts=FLOATING,
    tf=("tf.math",),
    numpy=("expm1",),
)
log = defop(
    "log",
    np.log,
    # g * reciprocal(x), as TensorFlow's: 0 where g is 0, also at x = 0
    lambda ns, g, out, x: (g * ns.reciprocal(x),),
    saves=("x",),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf.math",),
    numpy=("log",),
)
log1p = defop(
    "log1p",
    np.log1p,
    lambda ns, g, out, x: (g * ns.reciprocal(1 + x),),
    saves=("x",),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf.math",),
    numpy=("log1p",),
)
# sin' = cos, cos' = -sin
sin = defop(
    "sin",
    np.sin,
    lambda ns, g, out, x: (g * ns.cos(x),),
    saves=("x",),
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("sin",),
)
cos = defop(
    "cos",
    np.cos,
    lambda ns, g, out, x: (-g * ns.sin(x),),
    saves=("x",),
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("cos",),
)
# tan' = 1 + tan^2
tan = defop(
    "tan",
    np.tan,
    lambda ns, g, out, x: (g * (1 + out * out),),
    singular="value",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("tan",),
)
# asin' = 1 / sqrt(1 - x^2), as TensorFlow composes it (reciprocal of sqrt):
# their zero checks make a second derivative 0 where g is 0, also at |x| >= 1
asin = defop(
    "asin",
    np.arcsin,
    lambda ns, g, out, x: (g * ns.reciprocal(ns.sqrt(1 - ns.square(x))),),
    saves=("x",),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("arcsin",),
)
acos = defop(
    "acos",
    np.arccos,
    lambda ns, g, out, x: (-g * ns.reciprocal(ns.sqrt(1 - ns.square(x))),),
    saves=("x",),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("arccos",),
)
atan = defop(
    "atan",
    np.arctan,
    lambda ns, g, out, x: (g / (1 + x * x),),
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("arctan",),
)
sinh = defop(
    "sinh",
    np.sinh,
    lambda ns, g, out, x: (g * ns.cosh(x),),
    singular="value",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("sinh",),
)
cosh = defop(
    "cosh",
    np.cosh,
    lambda ns, g, out, x: (g * ns.sinh(x),),
    singular="value",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("cosh",),
)
# TensorFlow's TanhGrad and SigmoidGrad: their gradients as one primitive each, so
# a backward sweep runs one op where the composition would run three or four.
# Their own VJPs are compositions (needed only for second derivatives).
tanh_grad = defop(
    "tanh_grad",
    lambda out, g: g * (1 - out * out),
    (
        lambda ns, gg, r, out, g: ns.unbroadcast(-2 * gg * g * out, out, r),
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.tanh_grad(out, gg), g, r),
    ),
    saves={"out": ("out", "g"), "g": ("out",)},
)
# tanh' = 1 - tanh^2: reuse the forward output
tanh = defop(
    "tanh",
    np.tanh,
    lambda ns, g, out, x: (ns.tanh_grad(out, g),),
    saves=("out",),
    accepts=FLOATING,
    tf=("tf", "tf.math", "tf.nn"),
    numpy=("tanh",),
)
# The inverse hyperbolic functions are primitives: NumPy's forms are accurate near
# 0 and at large |x|, where log(x + sqrt(x^2 +- 1)) loses digits. Their VJPs are
# TensorFlow's, written with the output where that is cheaper.
asinh = defop(
    "asinh",
    np.arcsinh,
    lambda ns, g, out, x: (g / ns.cosh(out),),
    accepts=FLOATING,
    tf=("tf", "tf.math"),
)
# NOTE: acosh'(1) = 1 / sinh(0) = inf, as in TensorFlow.
acosh = defop(
    "acosh",
    np.arccosh,
    lambda ns, g, out, x: (g / ns.sinh(out),),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
)
atanh = defop(
    "atanh",
    np.arctanh,
    lambda ns, g, out, x: (g * ns.reciprocal(1 - x * x),),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
)


def _sigmoid_forward(x: np.ndarray) -> np.ndarray:
    # Stable for large |x|: exp never overflows.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _sigmoid_grad_grad(gb: Any, out: Any) -> Any:
    return gb - 2.0 * gb * out


sigmoid_grad = defop(
    "sigmoid_grad",
    lambda out, g: g * out * (1 - out),
    (
        # TensorFlow's SigmoidGradGrad, gb - 2 gb out with gb = gg * g: NaN (not
        # inf) where gb is infinite, as there
        lambda ns, gg, r, out, g: ns.unbroadcast(
            _sigmoid_grad_grad(gg * g, out), out, r
        ),
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.sigmoid_grad(out, gg), g, r),
    ),
    saves={"out": ("out", "g"), "g": ("out",)},
)
# sigmoid' = sigmoid (1 - sigmoid): reuse the forward output
sigmoid = defop(
    "sigmoid",
    _sigmoid_forward,
    lambda ns, g, out, x: (ns.sigmoid_grad(out, g),),
    saves=("out",),
    accepts=FLOATING,
    tf=("tf", "tf.math", "tf.nn"),
)
