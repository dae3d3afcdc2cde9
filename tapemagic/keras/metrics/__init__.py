"""Keras 3 metrics: running values kept in non-trainable variables.

``update_state`` adds a batch, ``result()`` returns the value so far,
``reset_state()`` starts again; calling a metric does the first two. The base
class is in :mod:`.base`; sums and means (and ``MeanMetricWrapper``) in
:mod:`.reduction`; the accuracies in :mod:`.accuracy`; the regression errors
in :mod:`.regression`; the cross entropies in :mod:`.probabilistic`; the
confusion-matrix metrics (``Precision``, ``Recall``, ``AUC``...) in
:mod:`.confusion`, counting with :mod:`.confusion_matrix`. ``get`` finds a
metric by name, as ``compile(metrics=[...])`` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from .. import backend
from ..losses.probabilistic import (
    binary_crossentropy,
    categorical_crossentropy,
    sparse_categorical_crossentropy,
)
from ..losses.regression import (
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from .accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from .base import Metric
from .confusion import (
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from .probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
)
from .reduction import Mean, MeanMetricWrapper, Sum
from .regression import (
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    RootMeanSquaredError,
)

__all__ = [
    "AUC",
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "FalseNegatives",
    "FalsePositives",
    "Mean",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Metric",
    "Precision",
    "Recall",
    "RootMeanSquaredError",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "Sum",
    "TopKCategoricalAccuracy",
    "TrueNegatives",
    "TruePositives",
    "accuracy",
    "binary_accuracy",
    "binary_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "get",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]

_CLASSES = (
    Metric,
    Mean,
    Sum,
    MeanMetricWrapper,
    MeanSquaredError,
    RootMeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
)
# Keras 3's names: each class by its name and in snake case ("auc",
# "mean_absolute_error"), and the short names of the regression errors and the
# binary cross entropy ("mae", "MSE", "bce"...). "rmse" and "acc" are not names
# of Keras 3 metrics ("acc" works in compile(), which picks an accuracy).
_BY_NAME: dict[str, type] = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({backend._to_snake_case(cls.__name__): cls for cls in _CLASSES})
for _short, _cls in (
    ("bce", BinaryCrossentropy),
    ("mse", MeanSquaredError),
    ("mae", MeanAbsoluteError),
    ("mape", MeanAbsolutePercentageError),
    ("msle", MeanSquaredLogarithmicError),
):
    _BY_NAME[_short] = _BY_NAME[_short.upper()] = _cls


def get(identifier: Any) -> Any:
    """A metric from a name ("mae", "AUC", "mean_squared_error"), a class, an
    instance or a function; None gives None.

    A name or a class gives a new instance; a function is returned as it is.

    Raises:
        ValueError: for an unknown name or a value that is not callable.

    Example:
        >>> type(get("mae")).__name__, get("mae").name
        ('MeanAbsoluteError', 'mean_absolute_error')
    """
    if identifier is None:
        return None
    found = _BY_NAME.get(identifier) if isinstance(identifier, str) else identifier
    if found is not None and callable(found):
        return found() if inspect.isclass(found) else found
    message = f"Could not interpret metric identifier: {identifier}"
    if identifier == "rmse":
        message += ". Use 'root_mean_squared_error' or RootMeanSquaredError()."
    elif isinstance(identifier, str):
        known = ", ".join(sorted(k for k in _BY_NAME if k.islower()))
        message += f". Known names: {known}."
    else:
        message += ". Pass a name such as 'mae', a Metric or a function."
    raise ValueError(message)
