"""The steps of an input pipeline, and the chunks they pass each other.

A dataset is a chain of steps. Each step reads its input in *chunks*: the flat
leaves of consecutive elements (in ``tf.nest`` order) stacked along a new first
axis, as NumPy arrays that are never written to. A step provides its chunks, its
cardinality and, when its rows can be read in any order, its size and a gather
of rows by index (what ``shuffle`` of a source uses).

:class:`Step` knows nothing of ``tf.data.Dataset``'s methods: the steps are
defined in the modules beside this one, and :mod:`tapemagic.data.dataset` makes
each of them a ``Dataset`` under TensorFlow's class name. A window, a dataset
inside an element, travels as a one-row object array holding a step.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..engine import convert_to_tensor, nest

__all__ = [
    "BLOCK",
    "INFINITE_CARDINALITY",
    "INT64_MAX",
    "UNKNOWN_CARDINALITY",
    "Chunk",
    "Step",
    "UnaryStep",
    "cut",
    "frozen",
    "numpy_value",
    "one_row",
]

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

# A chunk: the flat leaves of consecutive elements, each with a leading row axis.
Chunk = tuple[np.ndarray, ...]

# Rows a shuffle gathers at a time from a source, and a range computes at a time.
BLOCK = 4096
INT64_MAX = np.iinfo(np.int64).max


class Step:
    """One step of a pipeline: its element spec, and the hooks a step provides.

    Example:
        >>> from tapemagic.data import Dataset
        >>> isinstance(Dataset.range(3).batch(2), Step)
        True
    """

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec

    @property
    def element_spec(self) -> Any:
        """The structure of an element, with a ``tf.TensorSpec`` per tensor.

        Example:
            >>> from tapemagic.data import Dataset
            >>> Dataset.from_tensor_slices({"x": [[1.0, 2.0]]}).element_spec
            {'x': TensorSpec(shape=(2,), dtype=tf.float32, name=None)}
        """
        return self._element_spec

    # -- what each step provides -------------------------------------------------
    def _chunks(self) -> Iterator[Chunk]:
        """The elements in chunks of one or more rows (never empty)."""
        raise NotImplementedError(f"{type(self).__name__} must define _chunks().")

    def _cardinality(self) -> int:
        """The number of elements, or INFINITE / UNKNOWN (every step defines it)."""
        raise NotImplementedError(f"{type(self).__name__} must define _cardinality().")

    def _size(self) -> int | None:
        """The number of elements when rows can be gathered in any order."""
        return None

    def _gather(self, indices: np.ndarray) -> Chunk:
        """The rows at ``indices``: steps whose ``_size`` is not None define it."""
        raise NotImplementedError(
            f"{type(self).__name__} has a _size but no _gather(); define both."
        )

    # -- what the steps after it read ----------------------------------------------
    def _rows(self) -> Iterator[tuple[Any, ...]]:
        """Each element's flat leaves, one element at a time."""
        for chunk in self._chunks():
            for i in builtins.range(len(chunk[0])):
                yield tuple(array[i] for array in chunk)

    def _element(self, leaves: tuple[Any, ...]) -> Any:
        # datasets (windows) stay as they are; everything else becomes a tensor
        return nest.pack_sequence_as(
            self._element_spec,
            [
                leaf if isinstance(leaf, Step) else convert_to_tensor(leaf)
                for leaf in leaves
            ],
        )


class UnaryStep(Step):
    """A step that reads one input; its element spec is the input's unless given.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(4).take(2).element_spec
        TensorSpec(shape=(), dtype=tf.int64, name=None)
    """

    def __init__(self, input_dataset: Step, spec: Any = None) -> None:
        super().__init__(input_dataset.element_spec if spec is None else spec)
        self._input = input_dataset

    def _cardinality(self) -> int:
        return self._input._cardinality()


def cut(chunk: Chunk, start: int, stop: int) -> Chunk:
    """Rows ``start`` to ``stop`` of a chunk: a slice of each leaf, no copy.

    Example:
        >>> cut((np.arange(5), np.arange(10).reshape(5, 2)), 1, 3)
        (array([1, 2]), array([[2, 3],
               [4, 5]]))
    """
    return tuple(array[start:stop] for array in chunk)


def frozen(array: np.ndarray) -> np.ndarray:
    """A read-only array the caller cannot change behind the dataset's back.

    Example:
        >>> frozen(np.arange(3)).flags.writeable
        False
    """
    if array.flags.writeable:
        array = array.copy()
        array.flags.writeable = False
    return array


def one_row(leaf: Any) -> np.ndarray:
    """A one-row chunk leaf holding ``leaf`` (a NumPy value, or a dataset).

    Example:
        >>> one_row(np.int64(3))
        array([3])
    """
    if isinstance(leaf, Step):
        row = np.empty(1, dtype=object)
        row[0] = leaf
        return row
    return np.expand_dims(leaf, 0)


def numpy_value(leaf: Any) -> Any:
    """A row's leaf as the user gets it: a NumPy scalar, or a copy of the array.

    Rows of a chunk are NumPy scalars or read-only views, so arrays are copied.

    Example:
        >>> numpy_value(np.arange(3)[1:])
        array([1, 2])
        >>> numpy_value(np.array(7))
        np.int64(7)
    """
    if isinstance(leaf, np.ndarray):
        return leaf[()] if leaf.ndim == 0 else leaf.copy()
    return leaf
