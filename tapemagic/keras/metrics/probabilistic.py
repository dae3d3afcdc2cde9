"""Probabilistic metrics: running means of the cross entropies.

Each is the running mean of the loss function of the same name
(:mod:`tapemagic.keras.losses.probabilistic`), with the same options.
"""

from __future__ import annotations

from typing import Any

from ..losses.probabilistic import (
    binary_crossentropy,
    categorical_crossentropy,
    sparse_categorical_crossentropy,
)
from .reduction import MeanMetricWrapper

__all__ = [
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "SparseCategoricalCrossentropy",
]


class BinaryCrossentropy(MeanMetricWrapper):
    """The running mean of the binary cross entropy of each example.

    Args:
        name: the metric's name.
        dtype: the metric's dtype.
        from_logits: whether predictions are logits.
        label_smoothing: labels become ``y * (1 - s) + s / 2``.

    Example:
        >>> m = BinaryCrossentropy()
        >>> round(float(m([[1.0], [0.0]], [[0.8], [0.2]])), 4)
        0.2231
    """

    def __init__(
        self,
        name: str = "binary_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0,
    ) -> None:
        super().__init__(
            binary_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "label_smoothing": self.label_smoothing,
        }


class CategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of the cross entropy against one-hot labels.

    Args:
        name: the metric's name.
        dtype: the metric's dtype.
        from_logits: whether predictions are logits.
        label_smoothing: labels become ``y * (1 - s) + s / num_classes``.
        axis: the class axis.

    Example:
        >>> m = CategoricalCrossentropy()
        >>> round(float(m([[0.0, 1.0]], [[0.2, 0.8]])), 4)
        0.2231
    """

    def __init__(
        self,
        name: str = "categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0,
        axis: int = -1,
    ) -> None:
        super().__init__(
            categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "label_smoothing": self.label_smoothing,
            "axis": self.axis,
        }


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The running mean of the cross entropy against integer labels.

    Args:
        name: the metric's name.
        dtype: the metric's dtype.
        from_logits: whether predictions are logits.
        ignore_class: not supported (must be None).
        axis: the class axis (the last).

    Example:
        >>> m = SparseCategoricalCrossentropy(from_logits=True)
        >>> round(float(m([0, 1], [[2.0, 0.0], [0.0, 2.0]])), 4)
        0.1269
    """

    def __init__(
        self,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        ignore_class: int | None = None,
        axis: int = -1,
    ) -> None:
        super().__init__(
            sparse_categorical_crossentropy,
            name=name,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "ignore_class": self.ignore_class,
            "axis": self.axis,
        }
