"""Steps that call the user's function on each element: ``map``, ``filter`` and
``take_while``.

The function runs once per element, as in TensorFlow, on the element as
tensors; each step yields one-row chunks, which ``batch`` joins with one
``concatenate`` per batch. What the function returns is known when the step is
built (:func:`output_spec`), as TensorFlow learns it by tracing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..engine import TensorSpec, array_of, convert_to_tensor, dtypes, nest
from .step import UNKNOWN_CARDINALITY, Chunk, Step, UnaryStep, one_row
from .structure import call_with_element, leaf_arrays, normalize, spec_of, trace

__all__ = ["Filter", "Map", "TakeWhile", "check_predicate", "output_spec"]


def output_spec(fn: Callable, dataset: Step) -> Any:
    """The spec of what ``fn`` returns for the elements of ``dataset``.

    It is traced on two sample elements (:func:`~tapemagic.data.structure.trace`);
    where samples of a guessed size fail (a dimension of unknown size that must
    be 784 to reshape), ``fn`` is called on the first element instead, and the
    output's dimensions are all left unknown.

    Raises:
        Exception: whatever ``fn`` raises, when no guess was involved.

    Example:
        >>> from tapemagic.data import Dataset
        >>> output_spec(lambda x: x > 2, Dataset.range(3))
        TensorSpec(shape=(), dtype=tf.bool, name=None)
    """
    spec = dataset.element_spec
    try:
        return trace(fn, spec)
    except Exception:
        unknown = any(
            s.shape.rank is None or None in s.shape for s in nest.flatten(spec)
        )
        first = next(dataset._rows(), None) if unknown else None
        if first is None:
            raise  # not a guess that went wrong: the function fails
    element = dataset._element(first)
    returned = spec_of(normalize(call_with_element(fn, element), True))
    return nest.map_structure(
        lambda s: TensorSpec([None] * s.shape.rank, s.dtype, s.name), returned
    )


def check_predicate(returned: Any) -> None:
    """Refuse a predicate whose output spec is not a scalar bool.

    Raises:
        ValueError: for any other spec.

    Example:
        >>> check_predicate(TensorSpec([], dtypes.bool))
    """
    if not (
        isinstance(returned, TensorSpec)
        and returned.dtype == dtypes.bool
        and returned.shape.rank == 0
    ):
        raise ValueError(
            "Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
            f"tensor, but its return type is {returned!r}."
        )


class Map(UnaryStep):
    """``fn`` of each element; ``spec`` is what it returns (:func:`output_spec`).

    Example:
        >>> from tapemagic.data import Dataset
        >>> list(Dataset.range(3).map(lambda x: x * 2).as_numpy_iterator())
        [np.int64(0), np.int64(2), np.int64(4)]
    """

    def __init__(self, input_dataset: Step, fn: Callable, spec: Any) -> None:
        super().__init__(input_dataset, spec)
        self._fn = fn
        self._leaf_count = len(nest.flatten(spec))

    def _chunks(self) -> Iterator[Chunk]:
        source = self._input
        for row in source._rows():
            out = normalize(call_with_element(self._fn, source._element(row)), True)
            leaves = leaf_arrays(out)
            if len(leaves) != self._leaf_count:
                raise ValueError(
                    f"The map function returned {out!r}, whose structure differs "
                    f"from what it returned when the dataset was built: "
                    f"{self._element_spec!r}. Return the same structure for every "
                    "element."
                )
            yield tuple(leaf[None] for leaf in leaves)


class Filter(UnaryStep):
    """The elements for which ``predicate`` returns True.

    Example:
        >>> from tapemagic.data import Dataset
        >>> list(Dataset.range(4).filter(lambda x: x > 1).as_numpy_iterator())
        [np.int64(2), np.int64(3)]
    """

    def __init__(self, input_dataset: Step, predicate: Callable) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _chunks(self) -> Iterator[Chunk]:
        source = self._input
        for row in source._rows():
            keep = call_with_element(self._predicate, source._element(row))
            if bool(array_of(convert_to_tensor(keep))):
                yield tuple(one_row(leaf) for leaf in row)

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class TakeWhile(UnaryStep):
    """The elements up to the first for which ``predicate`` is False.

    Example:
        >>> from tapemagic.data import Dataset
        >>> list(Dataset.range(9).take_while(lambda x: x < 2).as_numpy_iterator())
        [np.int64(0), np.int64(1)]
    """

    def __init__(self, input_dataset: Step, predicate: Callable) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _chunks(self) -> Iterator[Chunk]:
        source = self._input
        for row in source._rows():
            keep = call_with_element(self._predicate, source._element(row))
            if not bool(array_of(convert_to_tensor(keep))):
                return
            yield tuple(one_row(leaf) for leaf in row)

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY
