"""Cross entropies: sparse, categorical and binary, with probabilities or logits.

They follow Keras 3's TensorFlow backend step by step. With
``from_logits=True`` they use tf.nn's stable cross entropies; with
``from_logits=False`` they clip probabilities to ``[epsilon, 1 - epsilon]``
(epsilon 1e-7) before the log, except for the output of a Keras ``softmax`` or
``sigmoid`` activation, whose logits are used instead (as Keras does), so a
saturated output layer still gives a finite loss and a useful gradient.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...engine.ops import nn as _nn
from ...engine.ops.math import cast, clip_by_value, log
from ...engine.ops.reduce import reduce_mean, reduce_sum
from ...engine.ops.shape import squeeze
from ...engine.tensor import Tensor, convert_to_tensor
from .. import backend
from ..activations import _cached_logits
from .loss import LossFunctionWrapper, _convert

__all__ = [
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
    "binary_crossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
]


def _get_logits(output: Tensor, from_logits: bool, op_type: str, fn_name: str):
    """The logits behind a Keras softmax/sigmoid output, as Keras' ``_get_logits``."""
    logits = _cached_logits(output)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was '
            f"produced by a {op_type} activation and thus does not represent logits. "
            "Was this intended?",
            UserWarning,
            stacklevel=4,
        )
    return logits, True


def _check_same_shape(target: Tensor, output: Tensor) -> None:
    if target.ndim != output.ndim:
        raise ValueError(
            "Arguments `target` and `output` must have the same rank (ndim). "
            f"Received: target.shape={tuple(target.shape)}, "
            f"output.shape={tuple(output.shape)}"
        )
    if tuple(target.shape) != tuple(output.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. Received: "
            f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}"
        )


def sparse_categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    ignore_class: int | None = None,
    axis: int = -1,
) -> Tensor:
    """Cross entropy against integer class labels: one loss per example.

    With probabilities (``from_logits=False``) they are clipped to
    ``[1e-7, 1 - 1e-7]`` and their log is fed to
    ``tf.nn.sparse_softmax_cross_entropy_with_logits``, as Keras does; with
    logits that function is used directly.

    Args:
        y_true: class indices, shape ``(N,)`` or ``(N, 1)`` (floats are truncated).
        y_pred: probabilities or logits, shape ``(N, num_classes)``.
        from_logits: whether ``y_pred`` holds logits.
        ignore_class: not supported (must be None).
        axis: the class axis; only the last one is supported.

    Returns:
        The loss of each example, shape ``(N,)``.

    Raises:
        ValueError: for mismatched shapes or another ``axis``.

    Example:
        >>> sparse_categorical_crossentropy([1], [[0.5, 0.5]]).numpy().round(4)
        array([0.6931], dtype=float32)
    """
    if ignore_class is not None:
        raise NotImplementedError(
            "sparse_categorical_crossentropy(ignore_class=...) is not supported by "
            "tapemagic. Drop those examples, or pass sample_weight=0 for them."
        )
    y_true = convert_to_tensor(y_true)
    y_pred = convert_to_tensor(y_pred)
    if y_true.ndim == y_pred.ndim and y_true.ndim and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    return _sparse_categorical_crossentropy(y_true, y_pred, from_logits, axis)


def _sparse_categorical_crossentropy(target, output, from_logits, axis) -> Tensor:
    if axis != -1 and axis != output.ndim - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _get_logits(
        output, from_logits, "Softmax", "sparse_categorical_crossentropy"
    )
    target = cast(target, "int64")
    if target.ndim == output.ndim and target.ndim and target.shape[-1] == 1:
        target = squeeze(target, -1)
    if output.ndim < 1:
        raise ValueError(
            "Argument `output` must be at least rank 1. Received: "
            f"output.shape={tuple(output.shape)}"
        )
    if target.ndim != output.ndim - 1:
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
            f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}. "
            "Sparse labels are class indices, one per example; for one-hot labels "
            "use categorical_crossentropy."
        )
    if tuple(target.shape) != tuple(output.shape[:-1]):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape up until the "
            f"last dimension: target.shape={tuple(target.shape)}, "
            f"output.shape={tuple(output.shape)}"
        )
    if not from_logits:
        eps = backend.epsilon()
        output = log(clip_by_value(output, eps, 1 - eps))
    return _nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


def categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    """Cross entropy against one-hot (or probability) labels: one loss per example.

    With probabilities, each row of ``y_pred`` is first divided by its sum, then
    clipped to ``[1e-7, 1 - 1e-7]``: ``-sum(y_true * log(y_pred), axis)``.

    Args:
        y_true: one-hot labels, the shape of ``y_pred``.
        y_pred: probabilities or logits.
        from_logits: whether ``y_pred`` holds logits.
        label_smoothing: in [0, 1]: labels become
            ``y_true * (1 - s) + s / num_classes``.
        axis: the class axis.

    Returns:
        The loss of each example.

    Raises:
        ValueError: if ``axis`` is a bool or the shapes differ.

    Example:
        >>> categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]]).numpy().round(4)
        array([0.6931], dtype=float32)
    """
    if isinstance(axis, bool):
        raise ValueError(
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )
    y_pred = convert_to_tensor(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    if y_pred.ndim and y_pred.shape[-1] == 1:
        warnings.warn(
            "In loss categorical_crossentropy, expected y_pred.shape to be "
            "(batch_size, num_classes) with num_classes > 1. Received: "
            f"y_pred.shape={tuple(y_pred.shape)}. Consider using "
            "'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=2,
        )
    if label_smoothing:
        num_classes = y_true.shape[-1]
        y_true = y_true * (1.0 - label_smoothing) + (label_smoothing / num_classes)
    return _categorical_crossentropy(y_true, y_pred, from_logits, axis)


def _categorical_crossentropy(target, output, from_logits, axis) -> Tensor:
    if target.ndim < 1:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. Received: "
            f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}"
        )
    _check_same_shape(target, output)
    output, from_logits = _get_logits(
        output, from_logits, "Softmax", "categorical_crossentropy"
    )
    if from_logits:
        return _nn.softmax_cross_entropy_with_logits(
            labels=target, logits=output, axis=axis
        )
    # each row of probabilities is made to sum to 1 before the log
    output = output / reduce_sum(output, axis, keepdims=True)
    eps = backend.epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    return -reduce_sum(target * log(output), axis)


def binary_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Tensor:
    """Binary cross entropy, averaged over the last axis: one loss per example.

    With probabilities they are clipped to ``[1e-7, 1 - 1e-7]``:
    ``-(y log p + (1 - y) log(1 - p))``; with logits
    ``tf.nn.sigmoid_cross_entropy_with_logits`` is used.

    Args:
        y_true: labels in [0, 1], the shape of ``y_pred``.
        y_pred: probabilities or logits.
        from_logits: whether ``y_pred`` holds logits.
        label_smoothing: in [0, 1]: labels become ``y_true * (1 - s) + s / 2``.
        axis: the axis averaged over.

    Returns:
        The loss of each example.

    Raises:
        ValueError: if the shapes differ.

    Example:
        >>> binary_crossentropy([[1.0]], [[0.0]], from_logits=True).numpy().round(4)
        array([0.6931], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_mean(_binary_crossentropy(y_true, y_pred, from_logits), axis=axis)


def _binary_crossentropy(target, output, from_logits) -> Tensor:
    _check_same_shape(target, output)
    output, from_logits = _get_logits(
        output, from_logits, "Sigmoid", "binary_crossentropy"
    )
    if from_logits:
        return _nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = backend.epsilon()
    output = clip_by_value(output, eps, 1.0 - eps)
    bce = target * log(output)
    bce = bce + (1 - target) * log(1 - output)
    return -bce


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross entropy against integer class labels, averaged over the batch.

    Args:
        from_logits: whether predictions are logits (recommended: give the last
            Dense layer no activation and pass ``from_logits=True``).
        ignore_class: not supported (must be None).
        reduction: see :class:`Loss`.
        name: default "sparse_categorical_crossentropy".
        dtype: default floatx.

    Example:
        >>> loss = SparseCategoricalCrossentropy(from_logits=True)
        >>> loss([0, 1], [[2.0, 0.0], [0.0, 2.0]]).numpy().round(4)
        np.float32(0.1269)
    """

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: Any = "sum_over_batch_size",
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            sparse_categorical_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross entropy against one-hot labels, averaged over the batch.

    Args:
        from_logits: whether predictions are logits.
        label_smoothing: see :func:`categorical_crossentropy`.
        axis: the class axis.
        reduction: see :class:`Loss`.
        name: default "categorical_crossentropy".
        dtype: default floatx.

    Example:
        >>> loss = CategoricalCrossentropy()
        >>> loss([[0.0, 1.0]], [[0.2, 0.8]]).numpy().round(4)
        np.float32(0.2231)
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            categorical_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class BinaryCrossentropy(LossFunctionWrapper):
    """Binary cross entropy, averaged over the last axis and then the batch.

    Args:
        from_logits: whether predictions are logits.
        label_smoothing: see :func:`binary_crossentropy`.
        axis: the axis averaged per example.
        reduction: see :class:`Loss`.
        name: default "binary_crossentropy".
        dtype: default floatx.

    Example:
        >>> BinaryCrossentropy()([[1.0], [0.0]], [[0.8], [0.2]]).numpy().round(4)
        np.float32(0.2231)
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = "sum_over_batch_size",
        name: str = "binary_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            binary_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
