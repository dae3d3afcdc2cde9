"""Steps that read several datasets: ``zip`` side by side, ``concatenate`` one
after the other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..engine import nest
from .step import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Chunk, Step, cut

__all__ = ["Concatenate", "Zip"]


class Zip(Step):
    """Elements of several datasets side by side, until the shortest ends.

    Raises:
        TypeError: for a list, or something other than a dataset.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.zip((Dataset.range(3), Dataset.range(5))).cardinality().numpy()
        np.int64(3)
    """

    def __init__(self, datasets: Any) -> None:
        _check_zip_input(datasets)
        self._inputs: list[Step] = nest.flatten(datasets)
        spec = nest.pack_sequence_as(datasets, [d.element_spec for d in self._inputs])
        super().__init__(spec)

    def _chunks(self) -> Iterator[Chunk]:
        # Cut every input's chunks to the shortest, so rows stay aligned.
        streams = [d._chunks() for d in self._inputs]
        current: list[Chunk] = [()] * len(streams)
        offsets = [0] * len(streams)
        while True:
            for j, stream in enumerate(streams):
                if not current[j] or offsets[j] == len(current[j][0]):
                    chunk = next(stream, None)
                    if chunk is None:
                        return
                    current[j], offsets[j] = chunk, 0
            rows = min(len(c[0]) - o for c, o in zip(current, offsets))
            out: list[np.ndarray] = []
            for j, chunk in enumerate(current):
                out.extend(cut(chunk, offsets[j], offsets[j] + rows))
                offsets[j] += rows
            yield tuple(out)

    def _cardinality(self) -> int:
        counts = [d._cardinality() for d in self._inputs]
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        finite = [n for n in counts if n >= 0]
        return min(finite) if finite else INFINITE_CARDINALITY


def _check_zip_input(datasets: Any) -> None:
    if isinstance(datasets, Step):
        return
    if isinstance(datasets, list):
        raise TypeError(
            "Invalid input to `zip`. Inputs are expected to be (nested) structures "
            "of `tf.data.Dataset` objects. Python `list` is not supported and you "
            "should use `tuple` instead."
        )
    if isinstance(datasets, dict):
        items = list(datasets.values())
    elif isinstance(datasets, tuple):
        items = list(datasets)
    else:
        raise TypeError(
            "Invalid input to `zip`. Inputs are expected to be (nested) structures "
            "of `tf.data.Dataset` objects but encountered object of type "
            f"{type(datasets)}."
        )
    for item in items:
        _check_zip_input(item)


class Concatenate(Step):
    """The elements of ``first``, then those of ``second``.

    Raises:
        TypeError: if the elements differ in structure or dtype.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(2).concatenate(Dataset.range(3)).cardinality().numpy()
        np.int64(5)
    """

    def __init__(self, first: Step, second: Step) -> None:
        a, b = first.element_spec, second.element_spec
        merged = _common_spec(a, b)
        if merged is None:
            raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs.   {b!r}")
        super().__init__(merged)
        self._first, self._second = first, second

    def _chunks(self) -> Iterator[Chunk]:
        yield from self._first._chunks()
        yield from self._second._chunks()

    def _cardinality(self) -> int:
        counts = (self._first._cardinality(), self._second._cardinality())
        if INFINITE_CARDINALITY in counts:
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        return sum(counts)


def _common_spec(a: Any, b: Any) -> Any:
    """The spec both elements fit (shapes widened), or None if they can't."""
    if _structure_key(a) != _structure_key(b):
        return None
    merged = [
        x.most_specific_common_supertype([y])
        for x, y in zip(nest.flatten(a), nest.flatten(b))
    ]
    if any(spec is None for spec in merged):
        return None
    return nest.pack_sequence_as(a, merged)


def _structure_key(spec: Any) -> Any:
    if isinstance(spec, dict):
        return ("dict", tuple(sorted((k, _structure_key(v)) for k, v in spec.items())))
    if isinstance(spec, tuple):
        return (type(spec), tuple(_structure_key(item) for item in spec))
    return "leaf"
