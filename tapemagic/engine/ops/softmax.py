"""Softmax, log-softmax and the softmax cross entropies: primitives, computed
in forms that stay finite at extreme logits (+-1000), as are their gradients.

(The sigmoid cross entropies and ``l2_loss``, composed of other ops, are in
``nn``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..accepts import NN_FLOATING, Accepts
from ..eager_tensor import constant_of
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..namespace import register_helper
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs, convert_to_tensor
from . import creation as _creation

__all__ = [
    "log_softmax",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_xent_backprop",
    "sparse_softmax_cross_entropy_with_logits",
]


def _max_along(x: np.ndarray, axis: int) -> np.ndarray:
    """The max over ``axis``, kept as a size-1 axis; -inf over an empty axis.

    A short last axis (ten classes) is reduced in Fortran order: NumPy reduces
    a contiguous axis of a few elements one row at a time, several times slower
    than across the rows, and a max is the same whichever order it is taken in.
    """
    if axis in (-1, x.ndim - 1) and x.ndim > 1 and x.shape[-1] <= 32:
        x = np.asfortranarray(x)
    # initial: an empty axis gives an empty result, as in TensorFlow.
    return np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf)


def _softmax_forward(x: np.ndarray, *, axis: int) -> np.ndarray:
    # Shift by the max: exp never overflows, and the largest term is exactly 1.
    e = np.exp(x - _max_along(x, axis))
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


def _log_softmax_forward(x: np.ndarray, *, axis: int) -> np.ndarray:
    shifted = x - _max_along(x, axis)
    return shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))


def _softmax_vjp(ns: Any, g: Any, out: Any, axis: int) -> Any:
    # J^T g for softmax: out * (g - <g, out>)
    return out * (g - ns.reduce_sum(g * out, axes=(ns.ndim(g) + axis,), keepdims=True))


# axis is stored counted from the end, so it also names the axis of a cotangent
# with leading batch axes.
_softmax = defop(
    "softmax",
    _softmax_forward,
    lambda ns, g, out, x, *, axis: (_softmax_vjp(ns, g, out, axis),),
    saves=("out",),
    accepts=NN_FLOATING,
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
    accepts=NN_FLOATING.for_op("LogSoftmax"),
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


@tf_export("tf.nn")
def softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """``exp(logits) / reduce_sum(exp(logits), axis)``, stable for any logits.

    Args:
        logits: a floating-point tensor of rank >= 1.
        axis: the axis to normalize over (default the last).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        Probabilities of the input's shape and dtype.

    Raises:
        InvalidArgumentError: if ``logits`` is not floating point.
        InvalidArgumentError: if ``axis`` is out of range.

    Example:
        >>> softmax([1000.0, 1000.0]).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    x = convert_to_tensor(logits)
    _softmax.op.accepts.check(x)
    return apply(_softmax.op, (x,), {"axis": _axis_from_end(axis, x.ndim, "softmax")})


@tf_export("tf.nn")
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
        InvalidArgumentError: if ``logits`` is not floating point.
        InvalidArgumentError: if ``axis`` is out of range.

    Example:
        >>> log_softmax([0.0, -1000.0]).numpy()
        array([    0., -1000.], dtype=float32)
    """
    x = convert_to_tensor(logits)
    _log_softmax.op.accepts.check(x)
    return apply(
        _log_softmax.op, (x,), {"axis": _axis_from_end(axis, x.ndim, "log_softmax")}
    )


# The exponentials and their sums of the last softmax cross entropy (dense or
# sparse) computed on arrays of at most _KEPT_BYTES, with its logits and class
# axis: its gradient's softmax is their quotient, as TensorFlow's kernels
# return the backprop with the loss, so a training step computes the softmax
# once. Holding the logits keeps their id from being reused while the entry
# stands.
_LAST_EXP: tuple = (None, 0, None, None)
_KEPT_BYTES = 1 << 20


def _exponentials(logits: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """``logits`` shifted by their max along ``axis``, and the exponentials'
    sums (kept for the gradient's softmax: see :data:`_LAST_EXP`)."""
    global _LAST_EXP
    shifted = logits - _max_along(logits, axis)
    e = np.exp(shifted)
    sums = np.add.reduce(e, axis=axis, keepdims=True)
    if e.nbytes <= _KEPT_BYTES:
        _LAST_EXP = (logits, axis, e, sums)
    return shifted, sums


def _kept_softmax(logits: np.ndarray, axis: int) -> np.ndarray:
    """``softmax(logits)`` along ``axis`` as a fresh array: the same bits as
    :func:`_softmax_forward`, from the last cross entropy's exponentials when
    it kept those of these logits."""
    kept, kept_axis, e, sums = _LAST_EXP
    if kept is logits and kept_axis == axis:
        return e / sums
    return _softmax_forward(logits, axis=axis)


def _softmax_xent_forward(labels: np.ndarray, logits: np.ndarray, *, axis: int):
    # sum(labels * (logsumexp(logits) - logits)), shifted by the max as TF's kernel.
    if not logits.shape[axis]:  # no classes: a loss of 0, as TensorFlow's
        return np.zeros(np.delete(logits.shape, axis), logits.dtype)
    shifted, sums = _exponentials(logits, axis)
    return np.add.reduce(labels * (np.log(sums) - shifted), axis=axis)


def _softmax_xent_backprop_forward(labels: np.ndarray, logits: np.ndarray, *,
                                   axis: int) -> np.ndarray:  # fmt: skip
    r = _kept_softmax(logits, axis)
    r -= labels
    return r


def _class_axis(ns: Any, g: Any, axis: int) -> Any:
    """``g`` (one loss per example) with a size-1 class axis at ``axis`` (< 0)."""
    gshape = ns.shape(g)
    at = len(gshape) + axis + 1
    return ns.reshape(g, shape=gshape[:at] + (1,) + gshape[at:])


def _zero_loss_gradient(ns: Any, gg: Any, r: Any) -> Any:
    # zeros for every element of r (the loss's gradient when only the backprop
    # output is differentiated, broadcast over the classes)
    return ns.constant(
        np.zeros(ns.shape(gg)[: ns.nb(gg, r)] + ns.shape(r), ns.dtype(gg))
    )


# The backprop output of TensorFlow's kernel, softmax(logits) - labels, as a
# primitive whose VJP is the one TensorFlow gives that output: it passes the
# logits the softmax's Jacobian plus the loss's gradient (zeros here) times the
# backprop, and the labels those zeros times -log_softmax(logits). So a second
# derivative treats the labels as constant (zeros, not the -1 of the true
# derivative), and is NaN where the labels or logits are not finite, as in
# TensorFlow.
softmax_xent_backprop = defop(
    "softmax_xent_backprop",
    _softmax_xent_backprop_forward,
    (
        lambda ns, gg, r, labels, logits, *, axis: (
            _zero_loss_gradient(ns, gg, r) * -ns.log_softmax(logits, axis=axis)
        ),
        lambda ns, gg, r, labels, logits, *, axis: (
            _zero_loss_gradient(ns, gg, r) * r
            + _softmax_vjp(ns, gg, ns.softmax(logits, axis=axis), axis)
        ),
    ),
    saves={"labels": ("logits",), "logits": ("r", "logits")},
)

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
            _class_axis(ns, g, axis)
            * ns.softmax_xent_backprop(labels, logits, axis=axis)
        ),
    ),
    saves=("labels", "logits"),
    accepts=Accepts(NN_FLOATING.allowed, op="SoftmaxCrossEntropyWithLogits", input=1),
)


@tf_export("tf.nn")
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
    _softmax_xent.op.accepts.check(x)
    if y._value.shape != x._value.shape:
        raise InvalidArgumentError(
            f"logits and labels must be broadcastable: logits_size="
            f"{list(x._value.shape)} labels_size={list(y._value.shape)}. Give labels "
            "the logits' shape (one probability per class), or use "
            "sparse_softmax_cross_entropy_with_logits for class indices.",
            op="softmax_cross_entropy_with_logits",
        )
    a = _axis_from_end(axis, x.ndim, "softmax_cross_entropy_with_logits")
    return apply(_softmax_xent.op, (y, x), {"axis": a})


def _sparse_xent_forward(labels: np.ndarray, logits: np.ndarray) -> np.ndarray:
    shifted, sums = _exponentials(logits, -1)
    lse = np.log(sums.reshape(sums.shape[:-1]))
    # shifted[..., label] for every example, as one fancy index over the rows
    rows = shifted.reshape(labels.size, shifted.shape[-1])
    picked = rows[np.arange(rows.shape[0]), labels.ravel()].reshape(labels.shape)
    return lse - picked


def _minus_one_hot_tensors(probs: Tensor, labels: Tensor) -> Tensor:
    # The one-hot as an op on the labels tensor, so that what reads the ops (a
    # tf.function's trace) sees it follow the labels.
    dtype = probs._value.dtype
    hot = _creation._one_hot(
        labels,
        constant_of(np.ones((), dtype)),
        constant_of(np.zeros((), dtype)),
        depth=probs._value.shape[-1],
        axis=-1,
    )
    return probs - hot


def _minus_one_hot_arrays(probs: np.ndarray, labels: Any) -> np.ndarray:
    # In place, on the fresh softmax: one fancy index instead of an identity
    # matrix and a subtraction.
    rows = probs.reshape(labels.size, probs.shape[-1])
    rows[np.arange(labels.size), labels.ravel()] -= 1
    return probs


# probs - one_hot(labels), for a fresh `probs` (the arrays' is changed in place)
register_helper("minus_one_hot", _minus_one_hot_tensors, _minus_one_hot_arrays)


def _xent_softmax_tensors(logits: Tensor) -> Tensor:
    return _softmax(logits, axis=-1)


def _xent_softmax_arrays(logits: np.ndarray) -> np.ndarray:
    # A fresh array: minus_one_hot changes it in place.
    return _kept_softmax(logits, -1)


# softmax(logits) over the last axis, for the sparse cross entropy's gradient
register_helper("xent_softmax", _xent_softmax_tensors, _xent_softmax_arrays)


def _sparse_xent_vjp_logits(ns, g, out, labels, logits):
    # softmax - one_hot(labels); the one-hot is a constant (labels are integers).
    probs = ns.xent_softmax(logits)
    return _class_axis(ns, g, -1) * ns.minus_one_hot(probs, labels)


# Integer labels have no gradient (None), as in TensorFlow.
_sparse_xent = defop(
    "sparse_softmax_cross_entropy_with_logits",
    _sparse_xent_forward,
    (None, _sparse_xent_vjp_logits),
    same_dtype=False,
    saves=("labels", "logits"),
    accepts=Accepts(
        NN_FLOATING.allowed, op="SparseSoftmaxCrossEntropyWithLogits", input=1
    ),
)


@tf_export("tf.nn")
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
    x = convert_to_tensor(logits)
    _sparse_xent.op.accepts.check(x)
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
    global _LABELS_CHECKED
    if _LABELS_CHECKED[0] is y and _LABELS_CHECKED[1] == classes:
        # The same labels as the last call (a full-batch training loop): a
        # tensor never changes, so they are still in range.
        return apply(_sparse_xent.op, (y, x), {})
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
    _LABELS_CHECKED = (y, classes)
    return apply(_sparse_xent.op, (y, x), {})


# The labels tensor the sparse cross entropy last found in range, and for how
# many classes.
_LABELS_CHECKED: tuple = (None, 0)
