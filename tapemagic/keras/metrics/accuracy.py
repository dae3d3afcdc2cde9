"""Accuracy metrics: how often predictions match labels.

Each function gives 1.0 or 0.0 per example (floatx), computed on the values of
its inputs; each class is the running mean of its function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Tensor
from .. import backend
from .base import numpy_dtype, squeeze_or_expand, values_of
from .reduction import MeanMetricWrapper

__all__ = [
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "SparseCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "sparse_categorical_accuracy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]


def _matches(equal: np.ndarray) -> Tensor:
    return Tensor(equal.astype(numpy_dtype(backend.floatx())))


def accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``y_pred`` equals ``y_true`` exactly, elementwise.

    Example:
        >>> accuracy([1, 2], [1, 3]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_pred = values_of(y_pred)
    y_true = values_of(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand(y_true, y_pred)
    return _matches(y_true == y_pred)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    """1.0 where ``y_pred > threshold`` matches the 0/1 label, elementwise.

    Example:
        >>> binary_accuracy([[1.0], [0.0]], [[0.7], [0.6]]).numpy()
        array([[1.],
               [0.]], dtype=float32)
    """
    y_pred = values_of(y_pred)
    y_true = values_of(y_true)
    y_true, y_pred = squeeze_or_expand(y_true, y_pred)
    return _matches(y_true == (y_pred > threshold).astype(y_true.dtype))


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``argmax(y_pred)`` equals ``argmax(y_true)`` (one-hot labels).

    Ties go to the first class, as ``argmax`` does.

    Example:
        >>> categorical_accuracy([[0, 1], [1, 0]], [[0.1, 0.9], [0.2, 0.8]]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_true = np.argmax(values_of(y_true), axis=-1)
    y_pred = np.argmax(values_of(y_pred), axis=-1)
    return _matches(y_true == y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``argmax(y_pred)`` equals the integer label, else 0.0.

    Example:
        >>> sparse_categorical_accuracy([1, 0], [[0.1, 0.9], [0.2, 0.8]]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_pred = values_of(y_pred)
    y_true = values_of(y_true, y_pred.dtype)
    if y_true.ndim == y_pred.ndim and y_true.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    predicted = np.argmax(y_pred, axis=-1).astype(y_true.dtype)
    return _matches(y_true == predicted)


def _in_top_k(targets: np.ndarray, predictions: np.ndarray, k: int) -> np.ndarray:
    """``tf.math.in_top_k``: fewer than ``k`` classes score strictly higher.

    So classes tied at the boundary all count as in the top k; a target out of
    range or with a non-finite score never does.
    """
    rows = np.arange(predictions.shape[0])
    valid = (targets >= 0) & (targets < predictions.shape[-1])
    score = predictions[rows, np.where(valid, targets, 0)]
    higher = np.count_nonzero(predictions > score[:, None], axis=-1)
    return valid & np.isfinite(score) & (higher < k)


def _top_k_matches(y_true: np.ndarray, y_pred: np.ndarray, k: int) -> Tensor:
    """In-top-k of integer labels against scores; the labels' shape is kept."""
    shape = y_true.shape
    if y_pred.ndim > 2:
        y_pred = y_pred.reshape(-1, y_pred.shape[-1])
    return _matches(_in_top_k(y_true.reshape(-1), y_pred, k).reshape(shape))


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """1.0 where the one-hot label's class is among the ``k`` highest scores.

    Example:
        >>> top_k_categorical_accuracy(
        ...     [[0, 0, 1], [0, 1, 0]], [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]], k=2
        ... ).numpy()
        array([0., 1.], dtype=float32)
    """
    y_pred = values_of(y_pred)
    labels = np.argmax(values_of(y_true, y_pred.dtype), axis=-1)
    return _top_k_matches(labels, y_pred, k)


def sparse_top_k_categorical_accuracy(
    y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False
) -> Tensor:
    """1.0 where the integer label is among the ``k`` highest-scoring classes.

    Args:
        y_true: integer labels.
        y_pred: scores per class, or with ``from_sorted_ids=True`` class ids
            sorted from the best (only the first ``k`` are read).
        k: how many of the best classes count.
        from_sorted_ids: whether ``y_pred`` holds sorted class ids.

    Example:
        >>> sparse_top_k_categorical_accuracy(
        ...     [2, 1], [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]], k=2
        ... ).numpy()
        array([0., 1.], dtype=float32)
    """
    y_pred = values_of(y_pred)
    labels = values_of(y_true, y_pred.dtype if from_sorted_ids else np.int32)
    if not from_sorted_ids:
        return _top_k_matches(labels, y_pred, k)
    shape = labels.shape
    ids = y_pred.reshape(-1, y_pred.shape[-1])[:, :k]
    found = np.any(labels.reshape(-1, 1) == ids, axis=1)
    return _matches(found.reshape(shape))


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly.

    Example:
        >>> float(Accuracy()([1, 2], [1, 3]))
        0.5
    """

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches the 0/1 label.

    Example:
        >>> float(BinaryAccuracy()([[1.0], [0.0]], [[0.7], [0.6]]))
        0.5
    """

    def __init__(
        self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5
    ) -> None:
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "threshold": self.threshold}


class CategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` equals ``argmax`` of the one-hot label.

    Example:
        >>> float(CategoricalAccuracy()([[0, 1]], [[0.3, 0.7]]))
        1.0
    """

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` equals the integer label.

    Example:
        >>> m = SparseCategoricalAccuracy()
        >>> m.update_state([2, 1], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]])
        >>> float(m.result())
        0.5
    """

    def __init__(
        self, name: str = "sparse_categorical_accuracy", dtype: Any = None
    ) -> None:
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot label's class is among the ``k`` highest scores.

    Example:
        >>> m = TopKCategoricalAccuracy(k=1)
        >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]))
        0.5
    """

    def __init__(
        self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None
    ) -> None:
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer label is among the ``k`` highest-scoring classes.

    Example:
        >>> m = SparseTopKCategoricalAccuracy(k=1)
        >>> float(m([2, 1], [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]))
        0.5
    """

    def __init__(
        self,
        k: int = 5,
        name: str = "sparse_top_k_categorical_accuracy",
        dtype: Any = None,
        from_sorted_ids: bool = False,
    ) -> None:
        super().__init__(
            sparse_top_k_categorical_accuracy,
            name=name,
            dtype=dtype,
            k=k,
            from_sorted_ids=from_sorted_ids,
        )
        self.k = k
        self.from_sorted_ids = from_sorted_ids

    def get_config(self) -> dict:
        config = {"name": self.name, "dtype": self.dtype, "k": self.k}
        if self.from_sorted_ids:
            config["from_sorted_ids"] = True
        return config
