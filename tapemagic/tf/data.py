"""``tf.data``: input pipelines (:mod:`tapemagic.data`)."""

from ..data import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    DatasetSpec,
    Iterator,
    experimental,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "Iterator",
    "experimental",
]
