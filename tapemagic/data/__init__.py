"""``tf.data`` on tapemagic's engine: ``Dataset`` input pipelines, on NumPy.

``tapemagic.tf.data`` is this package. It imports the engine alone, so keras can
build on it (``model.fit`` of a dataset) and the engine knows nothing of it.
"""

from . import experimental
from .dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    DatasetSpec,
    OwnedIterator,
)

# What ``iter(dataset)`` returns, under TensorFlow's name for its base class.
Iterator = OwnedIterator

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "Iterator",
    "OwnedIterator",
    "experimental",
]
