"""Regression losses: squared, absolute, percentage and squared-log errors.

Each function returns one loss per example (the mean over the last axis); each
class is the same function in a :class:`~.loss.LossFunctionWrapper`, reduced
over the batch.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops.math import abs as _abs
from ...engine.ops.math import log, maximum, square
from ...engine.ops.reduce import reduce_mean
from ...engine.tensor import Tensor, convert_to_tensor
from .. import backend
from .loss import Loss, LossFunctionWrapper, _convert, squeeze_or_expand_to_same_rank

__all__ = [
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
]


def mean_squared_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(square(y_true - y_pred), axis=-1)``: one loss per example.

    Example:
        >>> mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]]).numpy()
        array([0.5], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(abs(y_true - y_pred), axis=-1)``: one loss per example.

    Example:
        >>> mean_absolute_error([[0.0, 1.0]], [[1.0, 1.0]]).numpy()
        array([0.5], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return reduce_mean(_abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Tensor:
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``.

    A label of 0 is replaced by epsilon (1e-7) in the denominator, so its error
    is huge rather than infinite, as in Keras.

    Example:
        >>> mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 5.0]]).numpy()
        array([37.5], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    diff = _abs((y_true - y_pred) / maximum(_abs(y_true), backend.epsilon()))
    return 100.0 * reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), -1)``.

    Example:
        >>> mean_squared_logarithmic_error([[0.0]], [[1.718282]]).numpy().round(4)
        array([1.], dtype=float32)
    """
    y_pred = convert_to_tensor(y_pred)
    y_true = _convert(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    eps = backend.epsilon()
    first_log = log(maximum(y_pred, eps) + 1.0)
    second_log = log(maximum(y_true, eps) + 1.0)
    return reduce_mean(square(first_log - second_log), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error


class MeanSquaredError(LossFunctionWrapper):
    """Mean of the squared errors (``mean(square(y_true - y_pred))``).

    Example:
        >>> y_true, y_pred = [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]
        >>> MeanSquaredError()(y_true, y_pred).numpy()
        np.float32(0.5)
    """

    def __init__(
        self,
        reduction: Any = "sum_over_batch_size",
        name: str = "mean_squared_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            mean_squared_error, name=name, reduction=reduction, dtype=dtype
        )

    def get_config(self) -> dict:
        return Loss.get_config(self)


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of the absolute errors (``mean(abs(y_true - y_pred))``).

    Example:
        >>> MeanAbsoluteError()([[0.0, 2.0]], [[1.0, 1.0]]).numpy()
        np.float32(1.0)
    """

    def __init__(
        self,
        reduction: Any = "sum_over_batch_size",
        name: str = "mean_absolute_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            mean_absolute_error, name=name, reduction=reduction, dtype=dtype
        )

    def get_config(self) -> dict:
        return Loss.get_config(self)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """Mean of the absolute percentage errors.

    Example:
        >>> MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 5.0]]).numpy()
        np.float32(37.5)
    """

    def __init__(
        self,
        reduction: Any = "sum_over_batch_size",
        name: str = "mean_absolute_percentage_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            mean_absolute_percentage_error, name=name, reduction=reduction, dtype=dtype
        )

    def get_config(self) -> dict:
        return Loss.get_config(self)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """Mean of the squared differences of ``log(1 + x)``.

    Example:
        >>> MeanSquaredLogarithmicError()([[0.0]], [[1.718282]]).numpy().round(4)
        np.float32(1.0)
    """

    def __init__(
        self,
        reduction: Any = "sum_over_batch_size",
        name: str = "mean_squared_logarithmic_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            mean_squared_logarithmic_error, name=name, reduction=reduction, dtype=dtype
        )

    def get_config(self) -> dict:
        return Loss.get_config(self)
