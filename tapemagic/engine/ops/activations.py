"""Activations that are primitives: relu and its kin, softplus and erf.

(The activations composed of other ops, such as gelu, are in ``nn``.)

Kinks follow TensorFlow: ``relu'(0) = 0``, ``leaky_relu'(0) = alpha``,
``elu'(0) = 1``. Softplus is computed in a form that stays finite at extreme
inputs (+-1000), and so is its gradient.
"""

from __future__ import annotations

import math as _pymath
from typing import Any

import numpy as np

from .. import dtypes
from ..accepts import FLOATING, NN_FLOATING, REAL_FLOATING, RELU6, Accepts
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, convert_to_tensor
from .elementary import _sigmoid_forward
from .math import cast

__all__ = [
    "elu",
    "elu_grad",
    "erf",
    "leaky_relu",
    "leaky_relu_grad",
    "relu",
    "relu6",
    "relu6_grad",
    "relu_grad",
    "selu",
    "selu_grad",
    "silu",
    "softplus",
]


# NOTE: relu'(0) = 0, as in TensorFlow. Its ReluGrad kernel multiplies g by the
# mask (out > 0), so NaN or Inf in g stays NaN where masked, as here; a multiply is
# also many times faster than np.where on a random mask.
relu_grad = defop(
    "relu_grad",
    lambda out, g: g * (out > 0),
    (
        # piecewise constant in out: zeros, as TensorFlow's ReluGradGrad gives
        lambda ns, gg, r, out, g: ns.constant(
            np.zeros(ns.shape(gg)[: ns.nb(gg, r)] + ns.shape(out), ns.dtype(out))
        ),
        # linear in g
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.relu_grad(out, gg), g, r),
    ),
    saves={"out": (), "g": ("out",)},
)
_relu = defop(
    "relu",
    lambda x: np.maximum(x, np.zeros((), x.dtype)),
    lambda ns, g, out, x: (ns.relu_grad(out, g),),
    saves=("out",),
    accepts=Accepts(f"{RELU6.allowed}, qint8"),
)


@tf_export("tf.nn")
def relu(features: Any, name: str | None = None) -> Tensor:
    """Rectified linear unit: ``max(features, 0)``. The gradient at 0 is 0.

    Args:
        features: a numeric tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> relu([-1.0, 0.0, 2.0]).numpy()
        array([0., 0., 2.], dtype=float32)
    """
    return _relu(features)


# NOTE: relu6'(0) = relu6'(6) = 0, as in TensorFlow: its Relu6Grad kernel
# multiplies g by the mask 0 < out < 6 of the output (so NaN or Inf in g stays NaN
# where masked, as in relu_grad).
relu6_grad = defop(
    "relu6_grad",
    lambda out, g: g * ((out > 0) & (out < 6)),
    (
        # piecewise constant in out: zeros, as TensorFlow's Relu6GradGrad gives
        lambda ns, gg, r, out, g: ns.constant(
            np.zeros(ns.shape(gg)[: ns.nb(gg, r)] + ns.shape(out), ns.dtype(out))
        ),
        # linear in g
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.relu6_grad(out, gg), g, r),
    ),
    saves={"out": (), "g": ("out",)},
)
_relu6 = defop(
    "relu6",
    lambda x: np.clip(x, 0, 6).astype(x.dtype, copy=False),
    lambda ns, g, out, x: (ns.relu6_grad(out, g),),
    saves=("out",),
    accepts=RELU6,
)


@tf_export("tf.nn")
def relu6(features: Any, name: str | None = None) -> Tensor:
    """``min(max(features, 0), 6)``. The gradient is 0 at 0 and at 6.

    Args:
        features: a numeric tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> relu6([-1.0, 3.0, 9.0]).numpy()
        array([0., 3., 6.], dtype=float32)
    """
    return _relu6(features)


# NOTE: leaky_relu'(0) = alpha, as in TensorFlow (LeakyReluGrad: x > 0 ? g : g*alpha).
leaky_relu_grad = defop(
    "leaky_relu_grad",
    lambda x, g, *, alpha: np.where(x > 0, g, g * alpha),
    (
        # piecewise constant in x: zeros, as TensorFlow's LeakyReluGradGrad gives
        lambda ns, gg, r, x, g, *, alpha: ns.constant(
            np.zeros(ns.shape(gg)[: ns.nb(gg, r)] + ns.shape(x), ns.dtype(x))
        ),
        # linear in g
        lambda ns, gg, r, x, g, *, alpha: ns.unbroadcast(
            ns.leaky_relu_grad(x, gg, alpha=alpha), g, r
        ),
    ),
    saves={"x": (), "g": ("x",)},
)
_leaky_relu = defop(
    "leaky_relu",
    lambda x, *, alpha: np.where(x > 0, x, x * np.asarray(alpha, x.dtype)),
    lambda ns, g, out, x, *, alpha: (ns.leaky_relu_grad(x, g, alpha=alpha),),
    saves=("x",),
    accepts=NN_FLOATING,
)


@tf_export("tf.nn")
def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """``features`` where positive, else ``alpha * features``.

    The gradient at 0 is ``alpha``, as in TensorFlow. Integer inputs are cast to
    float32 first, as TensorFlow does.

    Args:
        features: a numeric tensor.
        alpha: the slope for negative inputs.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A floating-point tensor of the input's shape.

    Example:
        >>> leaky_relu([-1.0, 2.0]).numpy()
        array([-0.2,  2. ], dtype=float32)
    """
    x = convert_to_tensor(features)
    if x._value.dtype.kind in "iu":
        x = cast(x, dtypes.float32)
    if isinstance(alpha, Tensor):
        alpha = float(alpha._value)
    # TensorFlow keeps alpha as a float32 attribute, also for float64 features.
    return apply(_leaky_relu.op, (x,), {"alpha": float(np.float32(alpha))})


# NOTE: elu'(0) = 1, as in TensorFlow (EluGrad: out < 0 ? g * (out + 1) : g),
# a primitive with TensorFlow's EluGradGrad: the composition
# where(out < 0, g * (out + 1), g) would give a NaN second derivative in g at an
# infinite out (its untaken branch's 0 times inf).
elu_grad = defop(
    "elu_grad",
    lambda out, g: np.where(out < 0, (out + 1) * g, g),
    (
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.where(out < 0, gg * g, 0), out, r),
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.elu_grad(out, gg), g, r),
    ),
    saves={"out": ("out", "g"), "g": ("out",)},
)
# exp(x) - 1, not expm1, as TensorFlow's kernel: elu(-1e-5) is -1.0013580e-05 in
# float32, and elu(x) of a tiny negative x is 0, so its second derivative is 0.
_elu = defop(
    "elu",
    lambda x: np.where(x < 0, np.exp(np.minimum(x, 0)) - 1, x),
    lambda ns, g, out, x: (ns.elu_grad(out, g),),
    saves=("out",),
    accepts=NN_FLOATING,
)


@tf_export("tf.nn")
def elu(features: Any, name: str | None = None) -> Tensor:
    """Exponential linear unit: ``x`` if ``x > 0`` else ``exp(x) - 1``.

    The gradient at 0 is 1, as in TensorFlow.

    Args:
        features: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Raises:
        InvalidArgumentError: if ``features`` is not floating point.

    Example:
        >>> elu([-1.0, 0.0, 2.0]).numpy().round(4)
        array([-0.6321,  0.    ,  2.    ], dtype=float32)
    """
    return _elu(features)


# NumPy scalars, not Python floats: they convert to a float64 tensor's dtype at
# full precision (a Python float would pass through float32 first).
_SELU_SCALE = np.float64(1.0507009873554804934193349852946)
# scale * alpha (alpha = 1.6732632423543772848170429916717) as TensorFlow's
# literal, one ulp above the product of the two float64 constants
_SELU_SCALE_ALPHA = np.float64(1.7580993408473768599402175208123)
# The VJP's constants as Python floats, which (unlike NumPy scalars) keep a
# float32 array float32 in the array namespace.
_SELU_SCALE_FLOAT = float(_SELU_SCALE)
_SELU_SCALE_ALPHA_FLOAT = float(_SELU_SCALE_ALPHA)


def _selu_forward(x: np.ndarray) -> np.ndarray:
    # As TensorFlow's kernel: in the input's dtype, with exp(x) - 1 (see elu).
    scale = np.asarray(_SELU_SCALE, x.dtype)
    scale_alpha = np.asarray(_SELU_SCALE_ALPHA, x.dtype)
    return np.where(x < 0, scale_alpha * (np.exp(np.minimum(x, 0)) - 1), scale * x)


# TensorFlow's SeluGrad (out < 0 ? g * (out + scale * alpha) : g * scale, so
# scale at 0) as a primitive, with its SeluGradGrad (see elu_grad).
selu_grad = defop(
    "selu_grad",
    lambda out, g: np.where(
        out < 0, g * (out + _SELU_SCALE_ALPHA_FLOAT), g * _SELU_SCALE_FLOAT
    ),
    (
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.where(out < 0, gg * g, 0), out, r),
        lambda ns, gg, r, out, g: ns.unbroadcast(ns.selu_grad(out, gg), g, r),
    ),
    saves={"out": ("out", "g"), "g": ("out",)},
)
_selu = defop(
    "selu",
    _selu_forward,
    lambda ns, g, out, x: (ns.selu_grad(out, g),),
    saves=("out",),
    accepts=NN_FLOATING,
)


@tf_export("tf.nn")
def selu(features: Any, name: str | None = None) -> Tensor:
    """Scaled ELU: ``scale * x`` if ``x > 0`` else ``scale * alpha * (exp(x) - 1)``.

    Uses TensorFlow's constants (scale 1.0507..., alpha 1.6732...); the gradient
    at 0 is ``scale``.

    Args:
        features: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Raises:
        InvalidArgumentError: if ``features`` is not floating point.

    Example:
        >>> selu([0.0, 1.0]).numpy()
        array([0.      , 1.050701], dtype=float32)
    """
    return _selu(features)


def _softplus_forward(x: np.ndarray) -> np.ndarray:
    # log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): exp never overflows.
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


# A primitive: composing max(x, 0) + log1p(exp(-|x|)) would give the wrong slope at
# 0 (maximum and abs have their own kink conventions); d/dx softplus = sigmoid.
_softplus = defop(
    "softplus",
    _softplus_forward,
    lambda ns, g, out, x: (g * ns.sigmoid(x),),
    accepts=NN_FLOATING,
)


@tf_export("tf.math", "tf.nn")
def softplus(features: Any, name: str | None = None) -> Tensor:
    """``log(exp(features) + 1)``, stable for large ``|features|``.

    ``softplus(100.)`` is 100 with gradient 1; ``softplus(-100.)`` is about
    ``exp(-100)`` with gradient about 0; the gradient is ``sigmoid(features)``.

    Args:
        features: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Raises:
        InvalidArgumentError: if ``features`` is not floating point.

    Example:
        >>> softplus([0.0, 100.0]).numpy()
        array([  0.6931472, 100.       ], dtype=float32)
    """
    return _softplus(features)


def _erf_forward(x: np.ndarray) -> np.ndarray:
    # erf(x) = 2/sqrt(pi) exp(-x^2) sum_n x (2x^2)^n / (1*3*...*(2n+1)). Every term is
    # positive, so the sum has no cancellation and is accurate to a few ulp. Past
    # |x| = 6, erf(x) rounds to +-1 in float64. The loop runs over terms (at most
    # about 100), each step one NumPy call over all elements.
    wide = np.asarray(x, dtype=np.float64)
    a = np.minimum(np.abs(np.where(np.isnan(wide), 0.0, wide)), 6.0)
    two_a2 = 2.0 * a * a
    term = a.copy()
    total = a.copy()
    for n in range(1, 200):
        term = term * two_a2 / (2 * n + 1)
        total += term
        if np.all(term <= 1e-17 * total):
            break
    value = np.minimum(total * np.exp(-a * a) * (2.0 / np.sqrt(np.pi)), 1.0)
    # copysign, not sign: erf(-0.) is -0., as TensorFlow's
    return np.where(np.isnan(wide), wide, np.copysign(value, wide)).astype(x.dtype)


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)  # a Python float: see _SELU_SCALE
_erf = defop(
    "erf",
    _erf_forward,
    # d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
    lambda ns, g, out, x: (g * _TWO_OVER_SQRT_PI * ns.exp(-ns.square(x)),),
    accepts=REAL_FLOATING,
)


@tf_export("tf.math")
def erf(x: Any, name: str | None = None) -> Tensor:
    """The Gauss error function, accurate to a few ulp in float64.

    Args:
        x: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Raises:
        InvalidArgumentError: if ``x`` is not floating point.

    Example:
        >>> erf([0.0, 1.0]).numpy()
        array([0.       , 0.8427008], dtype=float32)
    """
    return _erf(x)


# A primitive with TensorFlow's custom gradient, g * s * (1 + beta x (1 - s))
# with s = sigmoid(beta x): the composition x * sigmoid(beta x) would add two
# infinite terms of opposite signs at an infinite cotangent (NaN for x < 0).
_silu = defop(
    "silu",
    lambda x, *, beta: x * _sigmoid_forward(beta * x),
    lambda ns, g, out, x, *, beta: (g * _silu_slope(ns, x, beta),),
    saves=("x",),
    accepts=FLOATING.for_op("Sigmoid"),  # TensorFlow's silu refuses as its sigmoid
)


def _silu_slope(ns: Any, x: Any, beta: float) -> Any:
    s = ns.sigmoid(beta * x)
    return s * (1.0 + (beta * x) * (1.0 - s))


@tf_export("tf.nn", "tf.nn:swish")
def silu(features: Any, beta: float = 1.0, name: str | None = None) -> Tensor:
    """SiLU / swish: ``features * sigmoid(beta * features)``.

    Its gradient is TensorFlow's, ``g * s * (1 + beta * x * (1 - s))`` with
    ``s = sigmoid(beta * x)``.

    Args:
        features: a floating-point tensor.
        beta: the slope inside the sigmoid (a number).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> silu([0.0, 2.0]).numpy()
        array([0.      , 1.761594], dtype=float32)
    """
    x = convert_to_tensor(features)
    if isinstance(beta, Tensor):
        beta = float(beta._value)
    return apply(_silu.op, (x,), {"beta": float(beta)})
