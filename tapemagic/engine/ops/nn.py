"""Neural-network ops: activations, softmax and cross entropies, convolution, pooling.

Kinks follow TensorFlow: ``relu'(0) = 0``, ``leaky_relu'(0) = alpha``,
``elu'(0) = 1``. Softmax, log-softmax, softplus and the cross entropies are
computed in forms that stay finite at extreme logits (+-1000), and so are their
gradients.

Convolution is one im2col ``matmul`` per call (a strided window view of the
padded input, no Python loop over pixels). Its two gradients are ops too
(``conv2d_backprop_input`` and ``conv2d_backprop_filter``), whose own VJPs are
again convolutions and backprops, so second derivatives work. These three ops
treat every axis before the last four as a leading (batch) axis and broadcast
those between their two inputs, which is how batched cotangents pass through
them. Pooling follows the same pattern.
"""

from __future__ import annotations

import math as _pymath
import numbers
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import dtypes
from ..errors import InvalidArgumentError
from ..namespace import register_helper
from ..op import apply, defop
from ..tensor import Tensor, Variable, convert_inputs, convert_to_tensor
from .linalg import clip_by_norm
from .math import abs as _abs
from .math import (
    add,
    cast,
    exp,
    log1p,
    maximum,
    multiply,
    negative,
    rsqrt,
    sigmoid,
    square,
    stop_gradient,
    subtract,
    tanh,
    where,
)
from .reduce import reduce_mean, reduce_sum
from .shape import concat, gather, reshape, squeeze, transpose

__all__ = [
    "avg_pool2d",
    "batch_normalization",
    "bias_add",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "conv2d_transpose",
    "dropout",
    "elu",
    "embedding_lookup",
    "erf",
    "gelu",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "max_pool2d",
    "moments",
    "relu",
    "relu6",
    "relu_grad",
    "selu",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "swish",
    "weighted_cross_entropy_with_logits",
]


def _float_tensor(value: Any, op_name: str) -> Tensor:
    x = convert_to_tensor(value)
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name}. Cast it "
            "first: tf.cast(x, tf.float32)."
        )
    return x


# -- activations ------------------------------------------------------------------

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
        lambda ns, gg, r, out, g: ns.unbroadcast(
            ns.relu_grad(out, gg), ns.shape(g), ns.nb(gg, r)
        ),
    ),
)
_relu = defop(
    "relu",
    lambda x: np.maximum(x, np.zeros((), x.dtype)),
    lambda ns, g, out, x: (ns.relu_grad(out, g),),
    saves=("out",),
)


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


# NOTE: TensorFlow's Relu6Grad passes g only strictly inside (0, 6): 0 at both kinks.
_relu6 = defop(
    "relu6",
    lambda x: np.clip(x, 0, 6).astype(x.dtype, copy=False),
    lambda ns, g, out, x: (
        ns.where(ns.logical_and(ns.greater(x, 0), ns.less(x, 6)), g, 0),
    ),
)


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
_leaky_relu = defop(
    "leaky_relu",
    lambda x, *, alpha: np.where(x > 0, x, x * np.asarray(alpha, x.dtype)),
    lambda ns, g, out, x, *, alpha: (ns.where(ns.greater(x, 0), g, g * alpha),),
)


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


# NOTE: elu'(0) = 1, as in TensorFlow (EluGrad: out < 0 ? g * (out + 1) : g).
_elu = defop(
    "elu",
    lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    lambda ns, g, out, x: (ns.where(ns.less(out, 0), g * (out + 1), g),),
)


def elu(features: Any, name: str | None = None) -> Tensor:
    """Exponential linear unit: ``x`` if ``x > 0`` else ``exp(x) - 1``.

    The gradient at 0 is 1, as in TensorFlow.

    Args:
        features: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Raises:
        TypeError: if ``features`` is not floating point.

    Example:
        >>> elu([-1.0, 0.0, 2.0]).numpy().round(4)
        array([-0.6321,  0.    ,  2.    ], dtype=float32)
    """
    return _elu(_float_tensor(features, "elu"))


# NumPy scalars, not Python floats: they convert to a float64 tensor's dtype at
# full precision (a Python float would pass through float32 first).
_SELU_SCALE = np.float64(1.0507009873554804934193349852946)
_SELU_ALPHA = np.float64(1.6732632423543772848170429916717)
# The VJP's constants as Python floats, which (unlike NumPy scalars) keep a
# float32 array float32 in the array namespace.
_SELU_SCALE_FLOAT = float(_SELU_SCALE)
_SELU_SCALE_ALPHA_FLOAT = float(_SELU_SCALE * _SELU_ALPHA)

# SeluGrad: out < 0 ? g * (out + scale * alpha) : g * scale (so scale at 0).
_selu = defop(
    "selu",
    lambda x: np.where(
        x > 0, _SELU_SCALE * x, (_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(x, 0))
    ).astype(x.dtype, copy=False),
    lambda ns, g, out, x: (
        ns.where(
            ns.less(out, 0),
            g * (out + _SELU_SCALE_ALPHA_FLOAT),
            g * _SELU_SCALE_FLOAT,
        ),
    ),
)


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
        TypeError: if ``features`` is not floating point.

    Example:
        >>> selu([0.0, 1.0]).numpy()
        array([0.      , 1.050701], dtype=float32)
    """
    return _selu(_float_tensor(features, "selu"))


def _softplus_forward(x: np.ndarray) -> np.ndarray:
    # log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): exp never overflows.
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


# A primitive: composing max(x, 0) + log1p(exp(-|x|)) would give the wrong slope at
# 0 (maximum and abs have their own kink conventions); d/dx softplus = sigmoid.
_softplus = defop(
    "softplus", _softplus_forward, lambda ns, g, out, x: (g * ns.sigmoid(x),)
)


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
        TypeError: if ``features`` is not floating point.

    Example:
        >>> softplus([0.0, 100.0]).numpy()
        array([  0.6931472, 100.       ], dtype=float32)
    """
    return _softplus(_float_tensor(features, "softplus"))


def softsign(features: Any, name: str | None = None) -> Tensor:
    """``features / (abs(features) + 1)``; the gradient is ``1 / (1 + |x|)^2``.

    Args:
        features: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> softsign([-3.0, 1.0]).numpy()
        array([-0.75,  0.5 ], dtype=float32)
    """
    x = _float_tensor(features, "softsign")
    return x / (_abs(x) + 1)


def silu(features: Any, beta: float = 1.0, name: str | None = None) -> Tensor:
    """SiLU / swish: ``features * sigmoid(beta * features)``.

    Args:
        features: a floating-point tensor.
        beta: the slope inside the sigmoid.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> silu([0.0, 2.0]).numpy()
        array([0.      , 1.761594], dtype=float32)
    """
    x = _float_tensor(features, "silu")
    return x * sigmoid(x * np.float64(beta))


swish = silu


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
    return np.where(np.isnan(wide), wide, np.sign(wide) * value).astype(x.dtype)


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)  # a Python float: see _SELU_SCALE
_erf = defop(
    "erf",
    _erf_forward,
    # d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
    lambda ns, g, out, x: (g * _TWO_OVER_SQRT_PI * ns.exp(-ns.square(x)),),
)


def erf(x: Any, name: str | None = None) -> Tensor:
    """The Gauss error function, accurate to a few ulp in float64.

    Args:
        x: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Raises:
        TypeError: if ``x`` is not floating point.

    Example:
        >>> erf([0.0, 1.0]).numpy()
        array([0.       , 0.8427008], dtype=float32)
    """
    return _erf(_float_tensor(x, "erf"))


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """Gaussian error linear unit, composed as ``tf.nn.gelu`` composes it.

    Exact: ``0.5 * x * (1 + erf(x / sqrt(2)))``. With ``approximate=True``:
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))``.

    Args:
        features: a floating-point tensor.
        approximate: use the tanh approximation.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> gelu([-1.0, 0.0, 1.0]).numpy()
        array([-0.15865526,  0.        ,  0.8413447 ], dtype=float32)
    """
    x = _float_tensor(features, "gelu")
    half = np.float64(0.5)
    if approximate:
        cube = np.float64(0.044715) * x * x * x
        return half * x * (1.0 + tanh(np.float64(0.7978845608028654) * (x + cube)))
    return half * x * (1.0 + erf(x * np.float64(0.7071067811865476)))


# -- softmax and cross entropies -------------------------------------------------------


def _softmax_forward(x: np.ndarray, *, axis: int) -> np.ndarray:
    # Shift by the max: exp never overflows, and the largest term is exactly 1.
    # initial: an empty axis gives an empty result, as in TensorFlow.
    e = np.exp(x - np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf))
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


def _log_softmax_forward(x: np.ndarray, *, axis: int) -> np.ndarray:
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))


# axis is stored counted from the end, so it also names the axis of a cotangent
# with leading batch axes.
_softmax = defop(
    "softmax",
    _softmax_forward,
    # J^T g for softmax: out * (g - <g, out>)
    lambda ns, g, out, x, *, axis: (
        out * (g - ns.reduce_sum(g * out, axes=(ns.ndim(g) + axis,), keepdims=True)),
    ),
    saves=("out",),
)

# A primitive, not x - logsumexp(x): the VJP g - softmax * sum(g) never forms
# exp(large) or 0 * inf.
_log_softmax = defop(
    "log_softmax",
    _log_softmax_forward,
    # J^T g for log_softmax: g - softmax * sum(g), the softmax exp(out)
    lambda ns, g, out, x, *, axis: (
        g - ns.exp(out) * ns.reduce_sum(g, axes=(ns.ndim(g) + axis,), keepdims=True),
    ),
    saves=("out",),
)


def _axis_from_end(axis: Any, ndim: int, op_name: str) -> int:
    axis = -1 if axis is None else int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{op_name}: axis {axis} is out of range for a tensor of rank {ndim}; use "
            f"an axis in [{-ndim}, {ndim}).",
            op=op_name,
        )
    return axis % ndim - ndim


def softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """``exp(logits) / reduce_sum(exp(logits), axis)``, stable for any logits.

    Args:
        logits: a floating-point tensor of rank >= 1.
        axis: the axis to normalize over (default the last).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        Probabilities of the input's shape and dtype.

    Raises:
        TypeError: if ``logits`` is not floating point.
        InvalidArgumentError: if ``axis`` is out of range.

    Example:
        >>> softmax([1000.0, 1000.0]).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    x = _float_tensor(logits, "softmax")
    return apply(_softmax.op, (x,), {"axis": _axis_from_end(axis, x.ndim, "softmax")})


def log_softmax(
    logits: Any, axis: int | None = None, name: str | None = None
) -> Tensor:
    """``logits - log(reduce_sum(exp(logits), axis))``, stable for any logits.

    Args:
        logits: a floating-point tensor of rank >= 1.
        axis: the axis to normalize over (default the last).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        Log-probabilities of the input's shape and dtype.

    Raises:
        TypeError: if ``logits`` is not floating point.
        InvalidArgumentError: if ``axis`` is out of range.

    Example:
        >>> log_softmax([0.0, -1000.0]).numpy()
        array([    0., -1000.], dtype=float32)
    """
    x = _float_tensor(logits, "log_softmax")
    return apply(
        _log_softmax.op, (x,), {"axis": _axis_from_end(axis, x.ndim, "log_softmax")}
    )


def _softmax_xent_forward(labels: np.ndarray, logits: np.ndarray, *, axis: int):
    # sum(labels * (logsumexp(logits) - logits)), shifted by the max as TF's kernel.
    shifted = logits - np.max(logits, axis=axis, keepdims=True)
    lse = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return np.sum(labels * (lse - shifted), axis=axis)


def _class_axis(ns: Any, g: Any, axis: int) -> Any:
    """``g`` (one loss per example) with a size-1 class axis at ``axis`` (< 0)."""
    gshape = ns.shape(g)
    at = len(gshape) + axis + 1
    return ns.reshape(g, shape=gshape[:at] + (1,) + gshape[at:])


# TensorFlow's kernel and _SoftmaxCrossEntropyWithLogitsGrad: d/dlogits is
# softmax - labels (the true derivative when each row of labels sums to 1, and
# what TensorFlow returns even when it does not); d/dlabels is -log_softmax.
_softmax_xent = defop(
    "softmax_cross_entropy_with_logits",
    _softmax_xent_forward,
    (
        lambda ns, g, out, labels, logits, *, axis: (
            _class_axis(ns, g, axis) * -ns.log_softmax(logits, axis=axis)
        ),
        lambda ns, g, out, labels, logits, *, axis: (
            _class_axis(ns, g, axis) * (ns.softmax(logits, axis=axis) - labels)
        ),
    ),
    saves=("labels", "logits"),
)


def softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, axis: int = -1, name: str | None = None
) -> Tensor:
    """Cross entropy between a distribution ``labels`` and ``softmax(logits)``.

    Per example: ``-reduce_sum(labels * log_softmax(logits, axis), axis)``,
    finite at extreme logits. Gradients flow to both ``labels`` and ``logits``
    (TensorFlow 2's version); the logits' gradient is ``softmax(logits) - labels``,
    as TensorFlow computes it.

    Args:
        labels: class probabilities, same shape and dtype as ``logits``.
        logits: unnormalized log-probabilities.
        axis: the class axis (default the last).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The loss per example: ``logits``' shape without ``axis``.

    Raises:
        InvalidArgumentError: if the shapes differ or ``axis`` is out of range.

    Example:
        >>> softmax_cross_entropy_with_logits([0.0, 1.0], [1000.0, -1000.0]).numpy()
        np.float32(2000.0)
    """
    y, x = convert_inputs((labels, logits))
    if y._value.shape != x._value.shape:
        raise InvalidArgumentError(
            f"logits and labels must be broadcastable: logits_size="
            f"{list(x._value.shape)} labels_size={list(y._value.shape)}. Give labels "
            "the logits' shape (one probability per class), or use "
            "sparse_softmax_cross_entropy_with_logits for class indices.",
            op="softmax_cross_entropy_with_logits",
        )
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"softmax_cross_entropy_with_logits needs floating-point logits, got "
            f"{x.dtype.name}. Cast them first: tf.cast(logits, tf.float32)."
        )
    a = _axis_from_end(axis, x.ndim, "softmax_cross_entropy_with_logits")
    return apply(_softmax_xent.op, (y, x), {"axis": a})


def _sparse_xent_forward(labels: np.ndarray, logits: np.ndarray) -> np.ndarray:
    shifted = logits - np.maximum.reduce(
        logits, axis=-1, keepdims=True, initial=-np.inf
    )
    lse = np.log(np.add.reduce(np.exp(shifted), axis=-1))
    # shifted[..., label] for every example, as one fancy index over the rows
    rows = shifted.reshape(labels.size, shifted.shape[-1])
    picked = rows[np.arange(rows.shape[0]), labels.ravel()].reshape(labels.shape)
    return lse - picked


def _minus_one_hot_tensors(probs: Tensor, labels: np.ndarray) -> Tensor:
    classes = probs._value.shape[-1]
    return probs - Tensor(np.eye(classes, dtype=probs._value.dtype)[labels])


def _minus_one_hot_arrays(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    # In place, on the fresh softmax: one fancy index instead of an identity
    # matrix and a subtraction.
    rows = probs.reshape(labels.size, probs.shape[-1])
    rows[np.arange(labels.size), labels.ravel()] -= 1
    return probs


# probs - one_hot(labels), for a fresh `probs` (the arrays' is changed in place)
register_helper("minus_one_hot", _minus_one_hot_tensors, _minus_one_hot_arrays)


def _sparse_xent_vjp_logits(ns, g, out, labels, logits):
    # softmax - one_hot(labels); the one-hot is a constant (labels are integers).
    probs = ns.softmax(logits, axis=-1)
    return _class_axis(ns, g, -1) * ns.minus_one_hot(probs, ns.value(labels))


# Integer labels have no gradient (None), as in TensorFlow.
_sparse_xent = defop(
    "sparse_softmax_cross_entropy_with_logits",
    _sparse_xent_forward,
    (None, _sparse_xent_vjp_logits),
    same_dtype=False,
    saves=("labels", "logits"),
)


def sparse_softmax_cross_entropy_with_logits(
    labels: Any, logits: Any, name: str | None = None
) -> Tensor:
    """Cross entropy of ``softmax(logits)`` against integer class indices.

    Per example: ``logsumexp(logits) - logits[label]``, finite at extreme
    logits. The gradient for ``logits`` is ``softmax(logits) - one_hot(labels)``;
    ``labels`` (integers) get ``None``.

    Args:
        labels: int32 or int64 class indices of shape ``logits.shape[:-1]``, each
            in ``[0, num_classes)``.
        logits: floating-point tensor of shape ``[..., num_classes]``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The loss per example, of shape ``labels.shape``.

    Raises:
        TypeError: if ``labels`` is not an integer tensor.
        ValueError: if the ranks or shapes do not fit.
        InvalidArgumentError: if a label is outside ``[0, num_classes)``.

    Example:
        >>> sparse_softmax_cross_entropy_with_logits([0], [[1000.0, -1000.0]]).numpy()
        array([0.], dtype=float32)
    """
    x = _float_tensor(logits, "sparse_softmax_cross_entropy_with_logits")
    y = convert_to_tensor(labels)
    if y._value.dtype.kind not in "iu":
        raise TypeError(
            f"labels must be integer class indices (int32 or int64), got "
            f"{y.dtype.name}. For one-hot or probability labels use "
            "softmax_cross_entropy_with_logits."
        )
    if y.ndim != x.ndim - 1:
        raise ValueError(
            f"Rank mismatch: Rank of labels (received {y.ndim}) should equal rank of "
            f"logits minus 1 (received {x.ndim})."
        )
    if y._value.shape != x._value.shape[:-1]:
        raise ValueError(
            f"Shape mismatch: The shape of labels (received {y._value.shape}) should "
            f"equal the shape of logits except for the last dimension (received "
            f"{x._value.shape})."
        )
    classes = x._value.shape[-1]
    labels = y._value
    # One reduction checks both bounds: as unsigned, negative labels are huge.
    unsigned = labels.view(labels.dtype.str.replace("i", "u"))
    if labels.size and unsigned.max() >= classes:
        bad = (labels < 0) | (labels >= classes)
        raise InvalidArgumentError(
            f"Received a label value of {int(y._value[bad].flat[0])} which is outside "
            f"the valid range of [0, {classes}). Label values: "
            f"{' '.join(str(v) for v in y._value.ravel()[:20])}",
            op="sparse_softmax_cross_entropy_with_logits",
        )
    return apply(_sparse_xent.op, (y, x), {})


def sigmoid_cross_entropy_with_logits(
    labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """Elementwise logistic loss, TensorFlow's stable form.

    ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits ``x`` and labels ``z``,
    composed exactly as TensorFlow composes it, so values and gradients (including
    ``sigmoid(0) - z`` at ``x = 0``) match and stay finite at +-1000.

    Args:
        labels: targets in [0, 1], same shape as ``logits``.
        logits: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The loss per element.

    Raises:
        ValueError: if the shapes differ.

    Example:
        >>> sigmoid_cross_entropy_with_logits(labels=[1.0], logits=[0.0]).numpy()
        array([0.6931472], dtype=float32)
    """
    z, x = convert_inputs((labels, logits))
    if z._value.shape != x._value.shape:
        raise ValueError(
            f"logits and labels must have the same shape ({x._value.shape} vs "
            f"{z._value.shape})."
        )
    positive = x >= 0
    relu_logits = where(positive, x, 0)
    neg_abs_logits = where(positive, -x, x)
    return add(relu_logits - x * z, log1p(exp(neg_abs_logits)))


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """``sum(t ** 2) / 2``; the gradient is ``t``.

    Args:
        t: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A scalar of ``t``'s dtype.

    Example:
        >>> l2_loss([1.0, 2.0]).numpy()
        np.float32(2.5)
    """
    x = _float_tensor(t, "l2_loss")
    return reduce_sum(square(x)) * 0.5


def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """Add a 1-D ``bias`` along the channel axis of ``value``.

    Args:
        value: a tensor of rank >= 2.
        bias: a 1-D tensor, one entry per channel.
        data_format: None or ``'N...C'`` (channels last), or ``'NC...'``
            (channels second).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``value + bias`` broadcast along the channel axis.

    Raises:
        InvalidArgumentError: if the ranks or sizes do not fit.
        ValueError: for an unknown ``data_format``.

    Example:
        >>> bias_add([[1.0, 2.0]], [10.0, 20.0]).numpy()
        array([[11., 22.]], dtype=float32)
    """
    x, b = convert_inputs((value, bias))
    channels_last = data_format is None or data_format.endswith("C")
    if not channels_last and not data_format.startswith("NC"):
        raise ValueError(
            f"data_format must be None, 'N...C' (e.g. 'NHWC') or 'NC...' (e.g. "
            f"'NCHW'), got data_format={data_format!r}."
        )
    channels_first = not channels_last
    if x.ndim < 2:
        raise InvalidArgumentError(
            f"Input tensor must be at least 2D: {list(x._value.shape)}.", op="bias_add"
        )
    if b.ndim != 1:
        raise InvalidArgumentError(
            f"Biases must be 1D: {list(b._value.shape)}.", op="bias_add"
        )
    axis = 1 if channels_first else -1
    channels = x._value.shape[axis]
    if b._value.shape[0] != channels:
        raise InvalidArgumentError(
            f"Must provide as many biases as the channel dimension of the input "
            f"tensor: {list(b._value.shape)} vs. {list(x._value.shape)}.",
            op="bias_add",
        )
    if channels_first:
        b = reshape(b, (channels,) + (1,) * (x.ndim - 2))
    return add(x, b)


def moments(
    x: Any,
    axes: Any,
    shift: Any = None,
    keepdims: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """Mean and (population) variance of ``x`` over ``axes``.

    Composed as TensorFlow composes it: the variance is the mean of
    ``squared_difference(x, stop_gradient(mean))``. First derivatives are the
    usual ones; second derivatives of the variance miss the term through the mean,
    exactly as in TensorFlow.

    Args:
        x: a floating-point tensor.
        axes: the axes to reduce (an int or a list).
        shift: ignored, as in TensorFlow 2.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``(mean, variance)``.

    Example:
        >>> mean, variance = moments([1.0, 2.0, 3.0, 6.0], axes=[0])
        >>> float(mean), float(variance)
        (3.0, 3.5)
    """
    x = _float_tensor(x, "moments")
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(
        square(subtract(x, stop_gradient(mean))), axes, keepdims=True
    )
    if not keepdims:
        mean = squeeze(mean, axes)
        variance = squeeze(variance, axes)
    return mean, variance


_DROPOUT_RNG = np.random.default_rng()


def dropout(
    x: Any,
    rate: Any,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Zero each element with probability ``rate``; scale the rest by ``1/(1-rate)``.

    Composed as ``x * scale * keep_mask``, so the gradient is ``scale`` where kept
    and 0 where dropped. ``rate=0`` returns ``x`` itself. The random draws are
    NumPy's (a ``seed`` makes them repeatable), so masks differ from TensorFlow's.

    Args:
        x: a floating-point tensor.
        rate: the drop probability, in [0, 1).
        noise_shape: the shape of the keep/drop mask, broadcastable to ``x``
            (e.g. ``[N, 1, 1, C]`` keeps or drops whole channels).
        seed: makes the mask repeatable.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        ValueError: if ``rate`` is not in [0, 1) or ``x`` is not floating point.

    Example:
        >>> y = dropout([1.0, 1.0, 1.0, 1.0], rate=0.5, seed=0)
        >>> sorted(set(y.numpy().tolist()) - {0.0})
        [2.0]
    """
    t = convert_to_tensor(x)
    if t._value.dtype.kind != "f":
        raise ValueError(
            f"x has to be a floating point tensor since it's going to be scaled. Got "
            f"a {t.dtype.name} tensor instead; cast it with tf.cast(x, tf.float32)."
        )
    if isinstance(rate, Tensor):
        rate = float(rate._value)
    if not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
        raise ValueError(
            f"rate must be a scalar tensor or a float in the range [0, 1), got "
            f"rate={rate!r}."
        )
    if rate == 0:
        return t
    shape = (
        t._value.shape if noise_shape is None else tuple(int(d) for d in noise_shape)
    )
    rng = _DROPOUT_RNG if seed is None else np.random.default_rng(seed)
    keep = rng.random(shape) >= rate
    scaled = multiply(t, np.asarray(1.0 / (1.0 - rate), t._value.dtype))
    return multiply(scaled, Tensor(keep.astype(t._value.dtype)))


# -- convolution: shared NumPy helpers ------------------------------------------------


def _spatial_pair(name: str, value: Any, data_format: str) -> tuple[int, int]:
    """``strides``/``dilations``/``ksize``: an int or a list of 1, 2 or 4 ints."""
    if isinstance(value, Tensor):
        value = value._value.tolist()
    items = [int(value)] if isinstance(value, (int, np.integer)) else list(value)
    if len(items) == 1:
        h = w = int(items[0])
    elif len(items) == 2:
        h, w = (int(v) for v in items)
    elif len(items) == 4:
        if data_format == "NHWC":
            outer, (h, w) = (items[0], items[3]), (int(items[1]), int(items[2]))
        else:
            outer, (h, w) = (items[0], items[1]), (int(items[2]), int(items[3]))
        if tuple(outer) != (1, 1):
            raise InvalidArgumentError(
                f"{name} in the batch and depth dimensions must be 1, got {name}="
                f"{items!r} for data_format {data_format!r}.",
                op=name,
            )
    else:
        raise ValueError(
            f"{name} should be of length 1, 2 or 4 but was {len(items)} "
            f"({name}={value!r})."
        )
    if h < 1 or w < 1:
        raise ValueError(f"{name} must be positive integers, got {name}={value!r}.")
    return h, w


def _padding_amounts(
    padding: Any,
    in_hw: tuple[int, int],
    k_hw: tuple[int, int],
    strides: tuple[int, int],
    dilations: tuple[int, int],
    data_format: str,
    allow_explicit: bool = True,
) -> tuple[int, int, int, int]:
    """``(top, bottom, left, right)`` zero padding, as TensorFlow computes it."""
    if isinstance(padding, str):
        if padding == "VALID":
            pads = [0, 0, 0, 0]
        elif padding == "SAME":
            # TensorFlow: out = ceil(in / stride); the padding needed to reach it is
            # split with the extra row/column (if odd) at the end.
            pads = []
            for n, k, s, d in zip(in_hw, k_hw, strides, dilations):
                out = -(-n // s)
                total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
                pads += [total // 2, total - total // 2]
        else:
            raise ValueError(
                f"padding must be 'SAME' or 'VALID' (upper case)"
                f"{' or a list of explicit paddings' if allow_explicit else ''}, got "
                f"padding={padding!r}."
            )
    elif allow_explicit and isinstance(padding, (list, tuple)):
        try:
            pairs = [[int(a) for a in pair] for pair in padding]
        except (TypeError, ValueError):
            pairs = []
        if len(pairs) != 4 or any(len(p) != 2 or min(p) < 0 for p in pairs):
            raise ValueError(
                f"explicit padding must be 4 pairs of non-negative ints, one per "
                f"dimension, got padding={padding!r}."
            )
        outer = (0, 3) if data_format == "NHWC" else (0, 1)
        inner = (1, 2) if data_format == "NHWC" else (2, 3)
        if any(pairs[i] != [0, 0] for i in outer):
            raise ValueError(
                f"explicit padding of the batch and channel dimensions must be 0, got "
                f"padding={padding!r}."
            )
        pads = pairs[inner[0]] + pairs[inner[1]]
    else:
        raise ValueError(
            f"padding must be 'SAME' or 'VALID'"
            f"{' or a list of explicit paddings' if allow_explicit else ''}, got "
            f"padding={padding!r}."
        )
    for i, (n, k, s, d) in enumerate(zip(in_hw, k_hw, strides, dilations)):
        effective = (k - 1) * d + 1
        numerator = n + pads[2 * i] + pads[2 * i + 1] - effective + s
        if numerator < 0 and -(-numerator // s) < 0:
            raise InvalidArgumentError(
                f"Computed output size would be negative: {-(-numerator // s)} "
                f"[input_size: {n}, effective_filter_size: {effective}, stride: {s}]. "
                "Use a smaller filter or padding='SAME'.",
                op="conv2d",
            )
    return tuple(pads)  # type: ignore[return-value]


def _pad_hw(x: np.ndarray, pads: tuple, value: Any = 0) -> np.ndarray:
    top, bottom, left, right = pads
    if not (top or bottom or left or right):
        return x
    width = [(0, 0)] * (x.ndim - 3) + [(top, bottom), (left, right), (0, 0)]
    return np.pad(x, width, constant_values=value)


def _out_hw(padded_hw: tuple, k_hw: tuple, strides: tuple, dilations: tuple) -> tuple:
    return tuple(
        max((n - (k - 1) * d - 1) // s + 1, 0)
        for n, k, s, d in zip(padded_hw, k_hw, strides, dilations)
    )


def _windows(xp: np.ndarray, k_hw: tuple, strides: tuple, dilations: tuple,
             out_hw: tuple) -> np.ndarray:  # fmt: skip
    """A read-only view ``(..., Ho, Wo, kh, kw, C)`` of the windows of ``xp``."""
    sh, sw = strides
    dh, dw = dilations
    *lead, _, _, c = xp.shape
    st = xp.strides
    return as_strided(
        xp,
        shape=(*lead, *out_hw, *k_hw, c),
        strides=(*st[:-3], st[-3] * sh, st[-2] * sw, st[-3] * dh, st[-2] * dw, st[-1]),
        writeable=False,
    )


def _scatter_windows(cols: np.ndarray, padded_hw: tuple, strides: tuple,
                     dilations: tuple) -> np.ndarray:  # fmt: skip
    """The adjoint of ``_windows``: sum ``cols`` (M, Ho, Wo, kh, kw, C) into the
    padded input (M, Hp, Wp, C), overlapping windows adding up. One bincount."""
    m, ho, wo, kh, kw, c = cols.shape
    hp, wp = padded_hw
    rows = np.arange(ho)[:, None] * strides[0] + np.arange(kh)[None, :] * dilations[0]
    columns = (
        np.arange(wo)[:, None] * strides[1] + np.arange(kw)[None, :] * dilations[1]
    )
    spatial = rows[:, None, :, None] * wp + columns[None, :, None, :]
    flat = (
        np.arange(m)[:, None, None, None, None, None] * (hp * wp)
        + spatial[None, :, :, :, :, None]
    ) * c + np.arange(c)
    total = np.bincount(flat.ravel(), weights=cols.ravel(), minlength=m * hp * wp * c)
    return total.reshape(m, hp, wp, c).astype(cols.dtype, copy=False)


def _im2col(x: np.ndarray, k_hw: tuple, strides: tuple, dilations: tuple,
            pads: tuple, out_hw: tuple | None = None) -> np.ndarray:  # fmt: skip
    """``x`` (P..., N, H, W, C) as patches (P..., N*Ho*Wo, kh*kw*C)."""
    xp = _pad_hw(x, pads)
    if out_hw is None:
        out_hw = _out_hw(xp.shape[-3:-1], k_hw, strides, dilations)
    win = _windows(xp, k_hw, strides, dilations, out_hw)
    n = x.shape[-4]
    return win.reshape(
        x.shape[:-4] + (n * out_hw[0] * out_hw[1], k_hw[0] * k_hw[1] * x.shape[-1])
    )


def _conv_core(x, w, *, strides, dilations, pads):
    # x: Px + (N, H, W, Ci); w: Pw + (kh, kw, Ci, Co) -> P + (N, Ho, Wo, Co)
    kh, kw, ci, co = w.shape[-4:]
    padded = (x.shape[-3] + pads[0] + pads[1], x.shape[-2] + pads[2] + pads[3])
    out_hw = _out_hw(padded, (kh, kw), strides, dilations)
    cols = _im2col(x, (kh, kw), strides, dilations, pads, out_hw)
    out = np.matmul(cols, w.reshape(w.shape[:-4] + (kh * kw * ci, co)))
    return out.reshape(out.shape[:-2] + (x.shape[-4], *out_hw, co))


def _input_grad_core(g, w, *, in_hw, strides, dilations, pads):
    # g: Pg + (N, Ho, Wo, Co); w: Pw + (kh, kw, Ci, Co) -> P + (N, H, W, Ci)
    kh, kw, ci, co = w.shape[-4:]
    n, ho, wo = g.shape[-4:-1]
    gm = g.reshape(g.shape[:-4] + (n * ho * wo, co))
    wm = w.reshape(w.shape[:-4] + (kh * kw * ci, co))
    cols = np.matmul(gm, np.swapaxes(wm, -1, -2))
    prefix = cols.shape[:-2]
    padded = (in_hw[0] + pads[0] + pads[1], in_hw[1] + pads[2] + pads[3])
    xp = _scatter_windows(
        cols.reshape(-1, ho, wo, kh, kw, ci), padded, strides, dilations
    )
    x = xp[:, pads[0] : pads[0] + in_hw[0], pads[2] : pads[2] + in_hw[1], :]
    return np.ascontiguousarray(x).reshape(prefix + (n, *in_hw, ci))


def _filter_grad_core(x, g, *, k_hw, strides, dilations, pads):
    # x: Px + (N, H, W, Ci); g: Pg + (N, Ho, Wo, Co) -> P + (kh, kw, Ci, Co)
    ci, co = x.shape[-1], g.shape[-1]
    ho, wo = g.shape[-3:-1]
    cols = _im2col(x, k_hw, strides, dilations, pads, (ho, wo))
    gm = g.reshape(g.shape[:-4] + (g.shape[-4] * ho * wo, co))
    out = np.matmul(np.swapaxes(cols, -1, -2), gm)
    return out.reshape(out.shape[:-2] + (*k_hw, ci, co))


# -- convolution: the three ops ------------------------------------------------------
# Each takes two inputs whose last four axes are the natural ones and whose earlier
# axes broadcast (NumPy rules); the output has the broadcast leading axes. A VJP
# result therefore has batch + broadcast axes, and `unbroadcast` sums it back to
# the input's shape.


# The VJPs of all three are again convolutions and backprops (each op is linear
# in each input): the adjoint of the convolution in x is conv2d_backprop_input,
# in w conv2d_backprop_filter, and so on around.
def _conv2d_vjp_x(ns, g, out, x, w, *, strides, dilations, pads):
    gx = ns.conv2d_backprop_input(
        g, w, in_hw=ns.shape(x)[-3:-1], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gx, ns.shape(x), ns.nb(g, out))


def _conv2d_vjp_w(ns, g, out, x, w, *, strides, dilations, pads):
    gw = ns.conv2d_backprop_filter(
        x, g, k_hw=ns.shape(w)[-4:-2], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gw, ns.shape(w), ns.nb(g, out))


_conv2d = defop("conv2d", _conv_core, (_conv2d_vjp_x, _conv2d_vjp_w))


def _input_vjp_g(ns, c, out, g, w, *, in_hw, strides, dilations, pads):
    gg = ns.conv2d(c, w, strides=strides, dilations=dilations, pads=pads)
    return ns.unbroadcast(gg, ns.shape(g), ns.nb(c, out))


def _input_vjp_w(ns, c, out, g, w, *, in_hw, strides, dilations, pads):
    gw = ns.conv2d_backprop_filter(
        c, g, k_hw=ns.shape(w)[-4:-2], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gw, ns.shape(w), ns.nb(c, out))


_backprop_input = defop(
    "conv2d_backprop_input", _input_grad_core, (_input_vjp_g, _input_vjp_w)
)


def _filter_vjp_x(ns, c, out, x, g, *, k_hw, strides, dilations, pads):
    gx = ns.conv2d_backprop_input(
        g, c, in_hw=ns.shape(x)[-3:-1], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gx, ns.shape(x), ns.nb(c, out))


def _filter_vjp_g(ns, c, out, x, g, *, k_hw, strides, dilations, pads):
    gg = ns.conv2d(x, c, strides=strides, dilations=dilations, pads=pads)
    return ns.unbroadcast(gg, ns.shape(g), ns.nb(c, out))


_backprop_filter = defop(
    "conv2d_backprop_filter", _filter_grad_core, (_filter_vjp_x, _filter_vjp_g)
)


def _conv2d_backprop_input(g, w, in_hw, strides, dilations, pads) -> Tensor:
    params = {"in_hw": tuple(in_hw), "strides": strides, "dilations": dilations,
              "pads": pads}  # fmt: skip
    return apply(_backprop_input.op, (g, w), params)


def _conv2d_backprop_filter(x, g, k_hw, strides, dilations, pads) -> Tensor:
    params = {"k_hw": tuple(k_hw), "strides": strides, "dilations": dilations,
              "pads": pads}  # fmt: skip
    return apply(_backprop_filter.op, (x, g), params)


def _check_data_format(data_format: str) -> str:
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(
            f"data_format must be 'NHWC' or 'NCHW', got data_format={data_format!r}."
        )
    return data_format


def _to_nhwc(x: Tensor, data_format: str) -> Tensor:
    if data_format == "NHWC":
        return x
    r = x.ndim
    return transpose(x, tuple(range(r - 3)) + (r - 2, r - 1, r - 3))


def _from_nhwc(x: Tensor, data_format: str) -> Tensor:
    if data_format == "NHWC":
        return x
    r = x.ndim
    return transpose(x, tuple(range(r - 3)) + (r - 1, r - 3, r - 2))


def _check_filters(w: Tensor, op_name: str) -> None:
    if w.ndim != 4:
        raise ValueError(
            f"{op_name}: filters must have rank 4 [filter_height, filter_width, "
            f"in_channels, out_channels], got shape {list(w._value.shape)}."
        )


def _check_input(x: Tensor, op_name: str, what: str = "input") -> None:
    if x.ndim < 4:
        raise ValueError(
            f"{op_name}: {what} must have rank >= 4 (batch, height, width, channels),"
            f" got shape {list(x._value.shape)}. Add a batch axis with "
            "tf.expand_dims(x, 0)."
        )


def _conv_params(padding, data_format, strides, dilations, in_hw, k_hw) -> dict:
    fmt = _check_data_format(data_format)
    s = _spatial_pair("strides", strides, fmt)
    d = _spatial_pair("dilations", 1 if dilations is None else dilations, fmt)
    pads = _padding_amounts(padding, tuple(in_hw), tuple(k_hw), s, d, fmt)
    return {"strides": s, "dilations": d, "pads": pads}


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """2-D convolution (cross-correlation, as in TensorFlow) of images with filters.

    ``out[n, i, j, o] = sum_{di, dj, c} in[n, s*i + d*di, s*j + d*dj, c] *
    filters[di, dj, c, o]`` after zero padding. ``'SAME'`` pads exactly as
    TensorFlow does (the odd extra row/column at the end), so outputs match.

    Args:
        input: ``[batch..., H, W, C]`` (NHWC) or ``[batch..., C, H, W]`` (NCHW);
            axes before the last three are batch axes.
        filters: ``[kh, kw, C, out_channels]``.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``'SAME'``, ``'VALID'`` or explicit pairs
            ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` (NHWC order).
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        dilations: an int or a list of 1, 2 or 4 ints (default 1).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The convolved images, in ``data_format`` layout.

    Raises:
        ValueError: for a bad ``padding``, ``data_format``, ``strides`` or
            ``dilations``, wrong ranks, or if the input's channels differ from
            ``filters``' in_channels.
        InvalidArgumentError: if the output size would be negative.

    Example:
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> conv2d(x, np.ones((2, 2, 1, 1)), 1, "VALID").numpy()[0, :, :, 0]
        array([[ 8., 12.],
               [20., 24.]])
    """
    x, w = convert_inputs((input, filters))
    fmt = _check_data_format(data_format)
    _check_input(x, "conv2d")
    _check_filters(w, "conv2d")
    x = _to_nhwc(x, fmt)
    if x._value.shape[-1] != w._value.shape[2]:
        raise ValueError(
            f"conv2d: input has {x._value.shape[-1]} channels but filters expect "
            f"{w._value.shape[2]} (input shape {list(x._value.shape)}, filters shape "
            f"{list(w._value.shape)}); filters' third axis must equal the input's "
            "channel axis."
        )
    params = _conv_params(
        padding, fmt, strides, dilations, x._value.shape[-3:-1], w._value.shape[:2]
    )
    lead = x._value.shape[:-3]
    folded = reshape(x, (-1,) + x._value.shape[-3:]) if len(lead) != 1 else x
    out = apply(_conv2d.op, (folded, w), params)
    if len(lead) != 1:
        out = reshape(out, lead + out._value.shape[-3:])
    return _from_nhwc(out, fmt)


def _static_sizes(value: Any, what: str) -> tuple[int, ...]:
    if isinstance(value, Tensor):
        value = value._value.tolist()
    try:
        return tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{what} must be a list of ints, got {value!r}.") from None


def conv2d_backprop_input(
    input_sizes: Any,
    filters: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input.

    Args:
        input_sizes: the input's shape, 4 ints in ``data_format`` layout.
        filters: ``[kh, kw, in_channels, out_channels]``.
        out_backprop: the gradient of the convolution's output.
        strides: as in ``conv2d``.
        padding: as in ``conv2d``.
        data_format: ``'NHWC'`` or ``'NCHW'``.
        dilations: as in ``conv2d``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``input_sizes``.

    Raises:
        ValueError: for bad arguments or shapes that do not fit together.

    Example:
        >>> g = np.ones((1, 2, 2, 1))
        >>> conv2d_backprop_input([1, 3, 3, 1], np.ones((2, 2, 1, 1)), g, 1,
        ...                       "VALID").numpy()[0, :, :, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    w, g = convert_inputs((filters, out_backprop))
    fmt = _check_data_format(data_format)
    sizes = _static_sizes(input_sizes, "input_sizes")
    _check_filters(w, "conv2d_backprop_input")
    _check_input(g, "conv2d_backprop_input", "out_backprop")
    if len(sizes) != 4:
        raise ValueError(f"input_sizes must have 4 entries, got {list(sizes)}.")
    g = _to_nhwc(g, fmt)
    n, h, wd, c = sizes if fmt == "NHWC" else (sizes[0], sizes[2], sizes[3], sizes[1])
    kh, kw, ci, co = w._value.shape
    params = _conv_params(padding, fmt, strides, dilations, (h, wd), (kh, kw))
    padded = (h + params["pads"][0] + params["pads"][1],
              wd + params["pads"][2] + params["pads"][3])  # fmt: skip
    expected = (
        n,
        *_out_hw(padded, (kh, kw), params["strides"], params["dilations"]),
        co,
    )
    if c != ci or g._value.shape != expected:
        raise ValueError(
            f"conv2d_backprop_input: out_backprop has shape {list(g._value.shape)} "
            f"(NHWC) but a convolution of an input of shape {[n, h, wd, c]} with "
            f"filters {list(w._value.shape)} gives {list(expected)}; check "
            "input_sizes, strides and padding."
        )
    out = _conv2d_backprop_input(g, w, (h, wd), **params)
    return _from_nhwc(out, fmt)


def conv2d_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its filters.

    Args:
        input: the convolution's input.
        filter_sizes: the filters' shape ``[kh, kw, in_channels, out_channels]``.
        out_backprop: the gradient of the convolution's output.
        strides: as in ``conv2d``.
        padding: as in ``conv2d``.
        data_format: ``'NHWC'`` or ``'NCHW'``.
        dilations: as in ``conv2d``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``filter_sizes``.

    Raises:
        ValueError: for bad arguments or shapes that do not fit together.

    Example:
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> conv2d_backprop_filter(x, [2, 2, 1, 1], np.ones((1, 2, 2, 1)), 1,
        ...                        "VALID").numpy()[:, :, 0, 0]
        array([[ 8., 12.],
               [20., 24.]])
    """
    x, g = convert_inputs((input, out_backprop))
    fmt = _check_data_format(data_format)
    sizes = _static_sizes(filter_sizes, "filter_sizes")
    _check_input(x, "conv2d_backprop_filter")
    _check_input(g, "conv2d_backprop_filter", "out_backprop")
    if len(sizes) != 4:
        raise ValueError(f"filter_sizes must have 4 entries, got {list(sizes)}.")
    x, g = _to_nhwc(x, fmt), _to_nhwc(g, fmt)
    kh, kw, ci, co = sizes
    params = _conv_params(
        padding, fmt, strides, dilations, x._value.shape[1:3], (kh, kw)
    )
    n, h, wd, c = x._value.shape
    padded = (h + params["pads"][0] + params["pads"][1],
              wd + params["pads"][2] + params["pads"][3])  # fmt: skip
    expected = (
        n,
        *_out_hw(padded, (kh, kw), params["strides"], params["dilations"]),
        co,
    )
    if c != ci or g._value.shape != expected:
        raise ValueError(
            f"conv2d_backprop_filter: out_backprop has shape {list(g._value.shape)} "
            f"(NHWC) but a convolution of an input of shape {[n, h, wd, c]} with "
            f"filters {list(sizes)} gives {list(expected)}; check filter_sizes, "
            "strides and padding."
        )
    return _conv2d_backprop_filter(x, g, (kh, kw), **params)


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Transposed convolution: the gradient of ``conv2d`` applied to ``input``.

    Args:
        input: ``[N, H, W, in_channels]`` (NHWC).
        filters: ``[kh, kw, output_channels, in_channels]``.
        output_shape: the output's shape, 4 ints.
        strides: as in ``conv2d``.
        padding: ``'SAME'`` or ``'VALID'`` (or explicit pairs).
        data_format: ``'NHWC'`` or ``'NCHW'``.
        dilations: as in ``conv2d``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``output_shape``.

    Raises:
        ValueError: if the shapes do not fit together.

    Example:
        >>> conv2d_transpose(np.ones((1, 1, 1, 1)), np.ones((2, 2, 1, 1)),
        ...                  [1, 2, 2, 1], 2).numpy()[0, :, :, 0]
        array([[1., 1.],
               [1., 1.]])
    """
    return conv2d_backprop_input(
        output_shape, filters, input, strides, padding, data_format, dilations
    )


# -- pooling ------------------------------------------------------------------------


def _pool_setup(x: np.ndarray, ksize, strides, pads):
    padded = (x.shape[-3] + pads[0] + pads[1], x.shape[-2] + pads[2] + pads[3])
    return padded, _out_hw(padded, ksize, strides, (1, 1))


def _lowest(dtype: np.dtype) -> Any:
    # Padding that never wins a maximum.
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _max_pool_forward(x, *, ksize, strides, pads):
    _, out_hw = _pool_setup(x, ksize, strides, pads)
    win = _windows(_pad_hw(x, pads, _lowest(x.dtype)), ksize, strides, (1, 1), out_hw)
    return win.max(axis=(-3, -2))


def _max_pool_argmax(x: np.ndarray, ksize, strides, pads) -> np.ndarray:
    """Flat index into the padded input of each window's maximum.

    The first maximum in row-major window order wins a tie, as in TensorFlow's
    MaxPoolGrad; a pixel that is the maximum of several windows gets each of
    their gradients.
    """
    padded, (ho, wo) = _pool_setup(x, ksize, strides, pads)
    xp = _pad_hw(x, pads, _lowest(x.dtype))
    win = _windows(xp, ksize, strides, (1, 1), (ho, wo))
    n, c = x.shape[0], x.shape[-1]
    kh, kw = ksize
    best = win.reshape(n, ho, wo, kh * kw, c).argmax(axis=3)
    row = np.arange(ho)[None, :, None, None] * strides[0] + best // kw
    col = np.arange(wo)[None, None, :, None] * strides[1] + best % kw
    image = np.arange(n)[:, None, None, None]
    return ((image * padded[0] + row) * padded[1] + col) * c + np.arange(c)


def _max_pool_grad_forward(x, g, *, ksize, strides, pads):
    # Scatter g (batch... + pooled shape) onto each window's argmax; one bincount.
    index = _max_pool_argmax(x, ksize, strides, pads).ravel()
    padded, _ = _pool_setup(x, ksize, strides, pads)
    size = x.shape[0] * padded[0] * padded[1] * x.shape[-1]
    batch = g.shape[: g.ndim - 4]
    count = int(np.prod(batch, dtype=np.int64))
    flat = (np.arange(count)[:, None] * size + index[None, :]).ravel()
    total = np.bincount(flat, weights=g.reshape(-1), minlength=count * size)
    full = total.reshape(count, x.shape[0], *padded, x.shape[-1])
    top, left = pads[0], pads[2]
    crop = full[:, :, top : top + x.shape[1], left : left + x.shape[2], :]
    return np.ascontiguousarray(crop).reshape(batch + x.shape).astype(g.dtype)


def _max_pool_grad_grad_forward(x, c, *, ksize, strides, pads):
    # Gather c (batch... + input shape) at each window's argmax.
    index = _max_pool_argmax(x, ksize, strides, pads)
    batch = c.shape[: c.ndim - 4]
    padded = _pad_hw(c, pads).reshape(batch + (-1,))
    return padded[..., index]


def _max_pool_vjp(ns, g, out, x, *, ksize, strides, pads):
    # g goes to each window's maximum
    return (ns.max_pool_grad(x, g, ksize=ksize, strides=strides, pads=pads),)


_max_pool = defop("max_pool2d", _max_pool_forward, _max_pool_vjp)

# The position of a maximum is piecewise constant in x: the gradient ops pass
# nothing back to x (None), and are linear in their second input.
_max_pool_grad = defop(
    "max_pool_grad",
    _max_pool_grad_forward,
    (None, lambda ns, c, out, x, g, **params: ns.max_pool_grad_grad(x, c, **params)),
)
_max_pool_grad_grad = defop(
    "max_pool_grad_grad",
    _max_pool_grad_grad_forward,
    (None, lambda ns, d, out, x, c, **params: ns.max_pool_grad(x, d, **params)),
)


def _avg_counts(in_hw, ksize, strides, pads, dtype) -> np.ndarray:
    # How many real (unpadded) pixels each window covers: TensorFlow's average
    # excludes the padding.
    ones = np.ones((1, *in_hw, 1), dtype=dtype)
    padded, out_hw = _pool_setup(ones, ksize, strides, pads)
    win = _windows(_pad_hw(ones, pads), ksize, strides, (1, 1), out_hw)
    return win.sum(axis=(-3, -2))[0]  # (Ho, Wo, 1)


def _avg_pool_forward(x, *, ksize, strides, pads):
    _, out_hw = _pool_setup(x, ksize, strides, pads)
    win = _windows(_pad_hw(x, pads), ksize, strides, (1, 1), out_hw)
    counts = _avg_counts(x.shape[-3:-1], ksize, strides, pads, x.dtype)
    return (win.sum(axis=(-3, -2)) / counts).astype(x.dtype, copy=False)


def _avg_pool_grad_forward(g, *, in_hw, ksize, strides, pads):
    # The adjoint of the average: spread g / count over each window.
    ho, wo, c = g.shape[-3:]
    counts = _avg_counts(in_hw, ksize, strides, pads, g.dtype)
    share = (g / counts).reshape(-1, ho, wo, 1, 1, c)
    cols = np.broadcast_to(share, share.shape[:3] + tuple(ksize) + (c,))
    padded = (in_hw[0] + pads[0] + pads[1], in_hw[1] + pads[2] + pads[3])
    full = _scatter_windows(cols, padded, strides, (1, 1))
    crop = full[:, pads[0] : pads[0] + in_hw[0], pads[2] : pads[2] + in_hw[1], :]
    return np.ascontiguousarray(crop).reshape(g.shape[:-3] + (*in_hw, c))


def _avg_pool_vjp(ns, g, out, x, *, ksize, strides, pads):
    return (
        ns.avg_pool_grad(
            g, in_hw=ns.shape(x)[-3:-1], ksize=ksize, strides=strides, pads=pads
        ),
    )


# Linear: each op's VJP is the other.
_avg_pool = defop("avg_pool2d", _avg_pool_forward, _avg_pool_vjp)
_avg_pool_grad = defop(
    "avg_pool_grad",
    _avg_pool_grad_forward,
    lambda ns, c, out, g, *, in_hw, ksize, strides, pads: (
        ns.avg_pool2d(c, ksize=ksize, strides=strides, pads=pads),
    ),
)


def _pool(op, input, ksize, strides, padding, data_format, op_name) -> Tensor:
    x = convert_to_tensor(input)
    if op is _avg_pool.op:
        x = _float_tensor(x, op_name)
    fmt = _check_data_format(data_format)
    if x.ndim != 4:
        raise ValueError(
            f"{op_name}: input must have rank 4, got shape {list(x._value.shape)}."
        )
    x = _to_nhwc(x, fmt)
    k = _spatial_pair("ksize", ksize, fmt)
    s = _spatial_pair("strides", strides, fmt)
    pads = _padding_amounts(
        padding, x._value.shape[1:3], k, s, (1, 1), fmt, allow_explicit=False
    )
    out = apply(op, (x,), {"ksize": k, "strides": s, "pads": pads})
    return _from_nhwc(out, fmt)


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """The maximum of each window; the gradient goes to the window's maximum.

    On a tie, the first maximum in the window (row-major) gets the gradient, as in
    TensorFlow. ``'SAME'`` padding never wins (it counts as -inf).

    Args:
        input: ``[N, H, W, C]`` (NHWC) or ``[N, C, H, W]`` (NCHW).
        ksize: the window size: an int or a list of 1, 2 or 4 ints.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``'SAME'`` or ``'VALID'``.
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The pooled tensor.

    Raises:
        ValueError: for a bad ``padding``, ``data_format``, ``ksize`` or rank.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> max_pool2d(x, 2, 2, "VALID").numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]])
    """
    return _pool(
        _max_pool.op, input, ksize, strides, padding, data_format, "max_pool2d"
    )


def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """The mean of each window; ``'SAME'`` padding is left out of the mean.

    Args:
        input: ``[N, H, W, C]`` (NHWC) or ``[N, C, H, W]`` (NCHW).
        ksize: the window size: an int or a list of 1, 2 or 4 ints.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``'SAME'`` or ``'VALID'``.
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The pooled tensor.

    Raises:
        ValueError: for a bad ``padding``, ``data_format``, ``ksize`` or rank.

    Example:
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> avg_pool2d(x, 2, 2, "SAME").numpy()[0, :, :, 0]
        array([[2. , 3.5],
               [6.5, 8. ]])
    """
    return _pool(
        _avg_pool.op, input, ksize, strides, padding, data_format, "avg_pool2d"
    )


# -- log_sigmoid, l2_normalize, batch normalization, embeddings (composed) ------------


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """``log(sigmoid(x))``, computed as ``-softplus(-x)`` (as in TensorFlow).

    Stable at both ends: ``log_sigmoid(-1000.)`` is -1000 with gradient 1, and
    ``log_sigmoid(1000.)`` is 0 with gradient 0. The gradient is
    ``sigmoid(-x)``.

    Args:
        x: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        TypeError: if ``x`` is not floating point.

    Example:
        >>> log_sigmoid([-1000.0, 0.0]).numpy()
        array([-1.000000e+03, -6.931472e-01], dtype=float32)
    """
    t = _float_tensor(x, "log_sigmoid")
    return negative(_softplus(negative(t)))


def l2_normalize(
    x: Any,
    axis: Any = None,
    epsilon: float = 1e-12,
    name: str | None = None,
    dim: Any = None,
) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``: unit L2 norm along ``axis``.

    Composed as TensorFlow composes it (``x * rsqrt(maximum(square_sum,
    epsilon))``), so a zero slice stays zero with a finite gradient
    (``1 / sqrt(epsilon)``).

    Args:
        x: a floating-point tensor.
        axis: the axis or axes to normalize over (default all).
        epsilon: the lower bound for the sum of squares.
        name: ignored; accepted for TensorFlow compatibility.
        dim: the deprecated name of ``axis``.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        TypeError: if ``x`` is not floating point.

    Example:
        >>> l2_normalize([3.0, 4.0]).numpy()
        array([0.6, 0.8], dtype=float32)
        >>> l2_normalize([[3.0], [4.0]], 1).numpy()
        array([[1.],
               [1.]], dtype=float32)
    """
    t = _float_tensor(x, "l2_normalize")
    if axis is None:
        axis = dim
    square_sum = reduce_sum(square(t), axis, keepdims=True)
    return multiply(t, rsqrt(maximum(square_sum, epsilon)))


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: float,
    name: str | None = None,
) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``.

    Composed as TensorFlow composes it: ``inv = rsqrt(variance + eps) * scale``,
    then ``x * inv + (offset - mean * inv)``; all of ``x``, ``mean``,
    ``variance``, ``offset`` and ``scale`` get gradients. Statistics broadcast
    against ``x`` (e.g. the output of :func:`moments` with ``keepdims``).

    Args:
        x: a floating-point tensor.
        mean: the mean to subtract.
        variance: the variance to divide by (its square root).
        offset: the shift (beta), or None.
        scale: the scale (gamma), or None.
        variance_epsilon: a small float added to the variance.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The normalized tensor, of ``x``'s dtype.

    Raises:
        TypeError: if ``x`` is not floating point.

    Example:
        >>> batch_normalization([1.0, 3.0], 2.0, 1.0, 10.0, 2.0, 0.0).numpy()
        array([ 8., 12.], dtype=float32)
    """
    t = _float_tensor(x, "batch_normalization")
    inv = rsqrt(add(variance, variance_epsilon))
    if scale is not None:
        inv = multiply(inv, scale)
    shift = negative(mean * inv) if offset is None else subtract(offset, mean * inv)
    return add(t * cast(inv, t.dtype), cast(shift, t.dtype))


def weighted_cross_entropy_with_logits(
    labels: Any, logits: Any, pos_weight: Any, name: str | None = None
) -> Tensor:
    """Logistic loss with the positive term weighted by ``pos_weight``.

    ``labels * -log(sigmoid(logits)) * pos_weight + (1 - labels) *
    -log(1 - sigmoid(logits))``, in TensorFlow's stable form: with ``l = 1 +
    (pos_weight - 1) * labels``, ``(1 - labels) * logits + l * (log1p(exp(-|logits|))
    + relu(-logits))``. Finite at +-1000; ``pos_weight`` gets a gradient too.

    Args:
        labels: targets in [0, 1], the shape and dtype of ``logits``.
        logits: a floating-point tensor.
        pos_weight: the weight of the positive examples (a scalar or a tensor
            that broadcasts).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The loss per element.

    Raises:
        ValueError: if ``labels`` and ``logits`` have different shapes.

    Example:
        >>> weighted_cross_entropy_with_logits([1.0, 0.0], [0.0, 0.0], 3.0).numpy()
        array([2.0794415, 0.6931472], dtype=float32)
    """
    z, x = convert_inputs((labels, logits))
    if z._value.shape != x._value.shape:
        raise ValueError(
            f"logits and labels must have the same shape ({list(x._value.shape)} vs "
            f"{list(z._value.shape)})."
        )
    _float_tensor(x, "weighted_cross_entropy_with_logits")
    log_weight = 1 + (pos_weight - 1) * z
    softplus_part = log1p(exp(negative(_abs(x)))) + relu(negative(x))
    return add((1 - z) * x, log_weight * softplus_part)


def embedding_lookup(
    params: Any, ids: Any, max_norm: Any = None, name: str | None = None
) -> Tensor:
    """The rows of ``params`` at ``ids``: ``gather(params, ids)``.

    The gradient is dense (TensorFlow returns ``IndexedSlices`` with the same
    values): each row gets the sum of the gradients of its lookups. A list of
    shards is looked up as their concatenation along axis 0, which is
    TensorFlow 2's "div" partitioning for shards of the sizes it produces.

    Args:
        params: the embedding matrix (a tensor, Variable, array or nested list),
            or a list of shards (tensors, Variables or arrays).
        ids: int32 or int64 row indices of any shape.
        max_norm: if given, each looked-up embedding is clipped to this L2 norm
            (``clip_by_norm`` over its axes, as in TensorFlow).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
        ValueError: if ``params`` is an empty list.
        InvalidArgumentError: if an id is out of range.
        TypeError: if ``ids`` are not integers.

    Example:
        >>> embedding_lookup([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[2], [0]]).numpy()
        array([[[4., 5.]],
        <BLANKLINE>
               [[0., 1.]]], dtype=float32)
    """
    table = params
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError(
                "embedding_lookup: params is an empty list; give the embedding "
                "matrix, or a list of its shards."
            )
        # a list of tensors or arrays is a list of shards; nested numbers are one
        # matrix
        if all(isinstance(p, (Tensor, Variable, np.ndarray)) for p in params):
            table = params[0] if len(params) == 1 else concat(list(params), axis=0)
    rows = gather(table, ids)
    if max_norm is None:
        return rows
    ids_rank = convert_to_tensor(ids).ndim
    return clip_by_norm(rows, max_norm, axes=list(range(ids_rank, rows.ndim)))
