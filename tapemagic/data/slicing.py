"""Steps that pass their input's chunks on, whole or cut, never looking at the
values: ``take``, ``skip``, ``shard``, ``repeat``, ``prefetch`` and ``cache``.

Cutting a chunk is a slice of each leaf, so these steps copy nothing. ``take``,
``skip`` and ``prefetch`` of a source still gather rows by index, so a shuffle
after them draws from the source's arrays directly.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .step import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Chunk,
    Step,
    UnaryStep,
    cut,
)

__all__ = ["Cache", "Prefetch", "Repeat", "Shard", "Skip", "Take"]


class Repeat(UnaryStep):
    """The input ``count`` times over, or forever for a negative ``count``.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(2).repeat(3).cardinality().numpy()
        np.int64(6)
    """

    def __init__(self, input_dataset: Step, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _chunks(self) -> Iterator[Chunk]:
        passes = 0
        while self._count < 0 or passes < self._count:
            empty = True
            for chunk in self._input._chunks():
                empty = False
                yield chunk
            if empty:
                return  # forever of nothing is nothing
            passes += 1

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0:
            return INFINITE_CARDINALITY
        return n if n < 0 else n * self._count


class Take(UnaryStep):
    """The first ``count`` elements (all of them for a negative ``count``).

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(10).take(3).cardinality().numpy()
        np.int64(3)
    """

    def __init__(self, input_dataset: Step, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _chunks(self) -> Iterator[Chunk]:
        left = self._count
        if left < 0:
            yield from self._input._chunks()
            return
        if left == 0:
            return
        for chunk in self._input._chunks():
            rows = len(chunk[0])
            if rows >= left:
                yield cut(chunk, 0, left)
                return
            yield chunk
            left -= rows

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._count < 0 or n == UNKNOWN_CARDINALITY:
            return n
        return self._count if n == INFINITE_CARDINALITY else min(n, self._count)

    def _size(self) -> int | None:
        size = self._input._size()
        if size is None or self._count < 0:
            return size
        return min(size, self._count)

    def _gather(self, indices: np.ndarray) -> Chunk:
        return self._input._gather(indices)


class Skip(UnaryStep):
    """All but the first ``count`` elements (none for a negative ``count``).

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(10).skip(3).cardinality().numpy()
        np.int64(7)
    """

    def __init__(self, input_dataset: Step, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _chunks(self) -> Iterator[Chunk]:
        left = self._count
        if left < 0:
            return
        for chunk in self._input._chunks():
            rows = len(chunk[0])
            if rows <= left:
                left -= rows
                continue
            yield cut(chunk, left, rows) if left else chunk
            left = 0

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)

    def _size(self) -> int | None:
        size = self._input._size()
        if size is None:
            return None
        return 0 if self._count < 0 else max(0, size - self._count)

    def _gather(self, indices: np.ndarray) -> Chunk:
        return self._input._gather(indices + self._count)


class Shard(UnaryStep):
    """Every ``shards``-th element, starting at ``index``: one strided slice of
    each chunk.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(7).shard(3, 0).cardinality().numpy()
        np.int64(3)
    """

    def __init__(self, input_dataset: Step, shards: int, index: int) -> None:
        super().__init__(input_dataset)
        self._shards, self._index = shards, index

    def _chunks(self) -> Iterator[Chunk]:
        position = 0  # of the chunk's first row in the input
        for chunk in self._input._chunks():
            rows = len(chunk[0])
            offset = (self._index - position) % self._shards
            if offset < rows:
                yield tuple(array[offset :: self._shards] for array in chunk)
            position += rows

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._shards + (1 if self._index < n % self._shards else 0)


class Prefetch(UnaryStep):
    """The input unchanged: one thread has nothing to prefetch.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(3).prefetch(1).cardinality().numpy()
        np.int64(3)
    """

    def _chunks(self) -> Iterator[Chunk]:
        return self._input._chunks()

    def _size(self) -> int | None:
        return self._input._size()

    def _gather(self, indices: np.ndarray) -> Chunk:
        return self._input._gather(indices)


class Cache(UnaryStep):
    """The input's chunks, kept in memory after the first complete pass.

    Example:
        >>> from tapemagic.data import Dataset
        >>> ds = Dataset.range(3).shuffle(3).cache()
        >>> list(ds.as_numpy_iterator()) == list(ds.as_numpy_iterator())
        True
    """

    def __init__(self, input_dataset: Step) -> None:
        super().__init__(input_dataset)
        self._kept: list[Chunk] | None = None

    def _chunks(self) -> Iterator[Chunk]:
        if self._kept is not None:
            yield from self._kept
            return
        kept = []
        for chunk in self._input._chunks():
            kept.append(chunk)
            yield chunk
        self._kept = kept  # only a complete pass is kept
