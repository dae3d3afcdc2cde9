"""Softmax, log-softmax and the cross entropies.

softmax, log_softmax and the two softmax cross entropies are primitives, computed
in forms that stay finite at extreme logits (+-1000), as are their gradients;
the sigmoid cross entropies and ``l2_loss`` are composed of other ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..namespace import register_helper
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs, convert_to_tensor
from ._util import float_tensor
from .activations import relu
from .math import abs as _abs
from .math import add, exp, log1p, negative, square, where
from .reduce import reduce_sum

__all__ = [
    "l2_loss",
    "log_softmax",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits",
]


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
    x = float_tensor(logits, "softmax")
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
    x = float_tensor(logits, "log_softmax")
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
    x = float_tensor(logits, "sparse_softmax_cross_entropy_with_logits")
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
    x = float_tensor(t, "l2_loss")
    return reduce_sum(square(x)) * 0.5


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
    float_tensor(x, "weighted_cross_entropy_with_logits")
    log_weight = 1 + (pos_weight - 1) * z
    softplus_part = log1p(exp(negative(_abs(x)))) + relu(negative(x))
    return add((1 - z) * x, log_weight * softplus_part)
