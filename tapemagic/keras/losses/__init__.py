"""Keras 3 losses: classes (``SparseCategoricalCrossentropy()``) and functions.

The ``Loss`` base class, the reductions and ``LossFunctionWrapper`` are in
:mod:`.loss`; the regression losses in :mod:`.regression`, the cross entropies
in :mod:`.probabilistic`, and ``get`` (a loss by name) in :mod:`.losses`.
"""

from .loss import Loss, LossFunctionWrapper, squeeze_or_expand_to_same_rank
from .losses import get
from .probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    categorical_crossentropy,
    sparse_categorical_crossentropy,
)
from .regression import (
    MAE,
    MAPE,
    MSE,
    MSLE,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
)

__all__ = [
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "Loss",
    "LossFunctionWrapper",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "SparseCategoricalCrossentropy",
    "binary_crossentropy",
    "categorical_crossentropy",
    "get",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "sparse_categorical_crossentropy",
    "squeeze_or_expand_to_same_rank",
]
