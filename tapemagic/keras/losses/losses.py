"""Losses by name: ``get("mse")``, ``get("SparseCategoricalCrossentropy")``.

The losses themselves are in :mod:`.regression` and :mod:`.probabilistic`;
``compile(loss="...")`` and ``keras.losses.get`` look them up here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .loss import Loss
from .probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    categorical_crossentropy,
    sparse_categorical_crossentropy,
)
from .regression import (
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)

__all__ = ["get"]

_FUNCTIONS: dict[str, Callable] = {
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
    "mean_squared_error": mean_squared_error,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "msle": mean_squared_logarithmic_error,
    "MSLE": mean_squared_logarithmic_error,
}
_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        SparseCategoricalCrossentropy,
        CategoricalCrossentropy,
        BinaryCrossentropy,
        MeanSquaredError,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
    )
}


def get(identifier: Any) -> Any:
    """A loss from a function name ("mse"), a class name, or a loss/callable.

    Raises:
        ValueError: for an unknown name or a value that is not callable.

    Example:
        >>> get("mse") is mean_squared_error
        True
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        known = ", ".join(sorted(set(_FUNCTIONS) | set(_CLASSES)))
        raise ValueError(
            f"Could not interpret loss identifier: {identifier!r}. Known names: "
            f"{known}."
        )
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret loss identifier: {identifier!r}. Pass a name such as "
        "'sparse_categorical_crossentropy', a Loss, or a function (y_true, y_pred)."
    )
