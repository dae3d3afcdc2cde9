"""Keras 3 losses: classes (``SparseCategoricalCrossentropy()``) and functions.

The ``Loss`` base class and the reductions are in :mod:`.loss`; the losses
themselves, their functions and ``get`` in :mod:`.losses`.
"""

from .loss import Loss, squeeze_or_expand_to_same_rank
from .losses import (
    MAE,
    MSE,
    BinaryCrossentropy,
    CategoricalCrossentropy,
    LossFunctionWrapper,
    MeanAbsoluteError,
    MeanSquaredError,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    categorical_crossentropy,
    get,
    mae,
    mean_absolute_error,
    mean_squared_error,
    mse,
    sparse_categorical_crossentropy,
)

__all__ = [
    "MAE",
    "MSE",
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "Loss",
    "LossFunctionWrapper",
    "MeanAbsoluteError",
    "MeanSquaredError",
    "SparseCategoricalCrossentropy",
    "binary_crossentropy",
    "categorical_crossentropy",
    "get",
    "mae",
    "mean_absolute_error",
    "mean_squared_error",
    "mse",
    "sparse_categorical_crossentropy",
    "squeeze_or_expand_to_same_rank",
]
