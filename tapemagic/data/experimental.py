"""``tf.data.experimental``: the names course code still reaches for there."""

from __future__ import annotations

from ..engine import Tensor
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()``: the number of elements, -1 if infinite, -2 if
    unknown.

    Example:
        >>> cardinality(Dataset.range(10).repeat()).numpy()
        np.int64(-1)
    """
    return dataset.cardinality()
