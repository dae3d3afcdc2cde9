"""Regression metrics: running means of absolute, squared, percentage and
squared-log errors, and the root of the mean squared error.

Each is the running mean of the loss function of the same name
(:mod:`tapemagic.keras.losses.regression`), one value per example.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Tensor, array_of
from ..losses.regression import (
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from .base import numpy_dtype, squeeze_or_expand, values_of
from .reduction import Mean, MeanMetricWrapper

__all__ = [
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "RootMeanSquaredError",
]


class MeanSquaredError(MeanMetricWrapper):
    """The mean of ``mean(square(y_true - y_pred), axis=-1)`` over the examples.

    Example:
        >>> m = MeanSquaredError()
        >>> float(m([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]))
        0.5
    """

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(mean_squared_error, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of ``mean(abs(y_true - y_pred), axis=-1)`` over the examples.

    Example:
        >>> m = MeanAbsoluteError()
        >>> m.update_state([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]])
        >>> float(m.result())
        0.5
    """

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(mean_absolute_error, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """The mean absolute error as a percentage of the label (0 counts as 1e-7).

    Example:
        >>> float(MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 5.0]]))
        37.5
    """

    def __init__(
        self, name: str = "mean_absolute_percentage_error", dtype: Any = None
    ) -> None:
        super().__init__(mean_absolute_percentage_error, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """The mean squared difference of ``log(1 + max(x, 1e-7))``.

    Example:
        >>> round(float(MeanSquaredLogarithmicError()([[0.0]], [[1.718282]])), 4)
        1.0
    """

    def __init__(
        self, name: str = "mean_squared_logarithmic_error", dtype: Any = None
    ) -> None:
        super().__init__(mean_squared_logarithmic_error, name=name, dtype=dtype)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class RootMeanSquaredError(Mean):
    """``sqrt`` of the running mean of the squared errors.

    Each example's squared errors are averaged first, so a weight counts per
    example.

    Example:
        >>> m = RootMeanSquaredError()
        >>> m.update_state([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]])
        >>> round(float(m.result()), 4)
        0.7071
    """

    def __init__(
        self, name: str = "root_mean_squared_error", dtype: Any = None
    ) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the squared errors of this batch."""
        np_dtype = numpy_dtype(self.dtype)
        y_true, y_pred = squeeze_or_expand(
            values_of(y_true, np_dtype), values_of(y_pred, np_dtype)
        )
        super().update_state(np.square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> Tensor:
        return Tensor(np.sqrt(array_of(super().result())))
