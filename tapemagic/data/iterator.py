"""Iterating a dataset: its elements as tensors, or as NumPy values.

This is the pipeline's edge, where rows of chunks become elements in the
element's structure (tuples stay tuples, dicts stay dicts).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..engine import nest
from .step import Step, numpy_value

__all__ = ["OwnedIterator", "numpy_iterator"]


class OwnedIterator:
    """What ``iter(dataset)`` returns: the dataset's elements, as tensors.

    Example:
        >>> from tapemagic.data import Dataset
        >>> it = iter(Dataset.range(2))
        >>> it.get_next().numpy(), next(it).numpy()
        (np.int64(0), np.int64(1))
    """

    def __init__(self, dataset: Step) -> None:
        self._dataset = dataset
        self._rows = dataset._rows()

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def __next__(self) -> Any:
        return self._dataset._element(next(self._rows))

    def get_next(self) -> Any:
        """The next element; raises StopIteration at the end.

        Example:
            >>> from tapemagic.data import Dataset
            >>> iter(Dataset.range(3).skip(2)).get_next().numpy()
            np.int64(2)
        """
        return next(self)

    next = __next__


def numpy_iterator(dataset: Step) -> Iterator[Any]:
    """What ``as_numpy_iterator()`` returns: the elements as NumPy values.

    Scalars come as NumPy scalars (``np.int64(3)``), the rest as copies of the
    arrays.

    Example:
        >>> from tapemagic.data import Dataset
        >>> next(numpy_iterator(Dataset.from_tensor_slices({"a": [1, 2]})))
        {'a': np.int32(1)}
    """
    return _NumpyIterator(dataset)


class _NumpyIterator:
    def __init__(self, dataset: Step) -> None:
        self._spec = dataset.element_spec
        self._rows = dataset._rows()

    def __iter__(self) -> _NumpyIterator:
        return self

    def __next__(self) -> Any:
        leaves = [numpy_value(leaf) for leaf in next(self._rows)]
        return nest.pack_sequence_as(self._spec, leaves)

    def __repr__(self) -> str:
        return f"NumpyIterator(iterator={self._rows!r})"
