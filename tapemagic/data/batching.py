"""Batching steps: ``batch``, ``padded_batch`` and ``unbatch``.

``batch`` cuts its batches out of the input's chunks: whole batches inside one
chunk are one reshape of a slice (no copy), so batches of a sliced source are
views of its arrays; a batch that straddles chunks (the one-row chunks of
``map``, or the passes of ``repeat``) is joined with one ``concatenate``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..engine import TensorSpec, array_of, convert_to_tensor, nest
from ..engine.errors import DataLossError, InvalidArgumentError
from .step import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Chunk,
    Step,
    UnaryStep,
    cut,
)
from .structure import flatten_up_to

__all__ = ["Batch", "PaddedBatch", "Unbatch", "join"]


class Batch(UnaryStep):
    """``batch_size`` consecutive elements stacked into one.

    Example:
        >>> from tapemagic.data import Dataset
        >>> [b.tolist() for b in Dataset.range(5).batch(2).as_numpy_iterator()]
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, input_dataset: Step, size: int, drop: bool) -> None:
        batch = size if drop else None
        spec = nest.map_structure(
            lambda s: TensorSpec(
                None if s.shape.rank is None else [batch, *s.shape], s.dtype, s.name
            ),
            input_dataset.element_spec,
        )
        super().__init__(input_dataset, spec)
        self._batch_size, self._drop = size, drop

    def _chunks(self) -> Iterator[Chunk]:
        size = self._batch_size
        pending: list[Chunk] = []  # rows of the batch being filled
        have = 0
        for chunk in self._input._chunks():
            rows, start = len(chunk[0]), 0
            if pending:
                start = min(size - have, rows)
                pending.append(cut(chunk, 0, start))
                have += start
                if have < size:
                    continue
                yield tuple(array[None] for array in join(pending))
                pending, have = [], 0
            full = (rows - start) // size
            if full:
                # whole batches straight from the chunk: a reshape, no copy
                block = cut(chunk, start, start + full * size)
                yield tuple(a.reshape((full, size, *a.shape[1:])) for a in block)
                start += full * size
            if start < rows:
                pending, have = [cut(chunk, start, rows)], rows - start
        if pending and not self._drop:
            yield tuple(array[None] for array in join(pending))

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop else -(-n // self._batch_size)


def join(chunks: list[Chunk]) -> Chunk:
    """Rows of several chunks as one chunk; elements must agree in shape.

    Raises:
        InvalidArgumentError: if two elements differ in shape.

    Example:
        >>> join([(np.arange(2),), (np.arange(3),)])
        (array([0, 1, 0, 1, 2]),)
    """
    if len(chunks) == 1:
        return chunks[0]
    joined = []
    for leaf in zip(*chunks):
        shapes = {array.shape[1:] for array in leaf}
        if len(shapes) > 1:
            first, other = (
                leaf[0].shape[1:],
                next(a.shape[1:] for a in leaf if a.shape[1:] != leaf[0].shape[1:]),
            )
            raise InvalidArgumentError(
                "Cannot add tensor to the batch: number of elements does not "
                f"match. Shapes are: [tensor]: {list(other)}, [batch]: "
                f"{list(first)}. Every element of a batch needs the same shape: "
                "pad or resize the elements in a map before batch()."
            )
        joined.append(np.concatenate(leaf))
    return tuple(joined)


class PaddedBatch(Batch):
    """A batch of elements of different shapes, each padded to a common shape.

    Raises:
        ValueError: if a padded shape does not fit its component's shape.
        DataLossError: (while iterating) if an element is larger than its
            padded shape.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(3).padded_batch(2).element_spec
        TensorSpec(shape=(None,), dtype=tf.int64, name=None)
    """

    def __init__(
        self,
        input_dataset: Step,
        size: int,
        drop: bool,
        padded_shapes: Any,
        padding_values: Any,
    ) -> None:
        spec = input_dataset.element_spec
        leaves: list[TensorSpec] = nest.flatten(spec)
        if padded_shapes is None:
            shapes = [s.shape for s in leaves]
        else:
            given = flatten_up_to(spec, padded_shapes)
            shapes = [TensorSpec(_minus_one_as_none(shape)).shape for shape in given]
        for shape, leaf in zip(shapes, leaves):
            if shape.rank is None or (
                leaf.shape.rank is not None and shape.rank != leaf.shape.rank
            ):
                raise ValueError(
                    f"The padded shape {shape} is not compatible with the shape "
                    f"{leaf.shape} of the corresponding input component. Give one "
                    "size per dimension, None to pad to the longest in the batch."
                )
        if padding_values is None:
            values = [0] * len(leaves)
        elif len(leaves) == 1:
            values = [padding_values]
        else:
            values = flatten_up_to(spec, padding_values)
        super().__init__(input_dataset, size, drop)
        self._element_spec = nest.pack_sequence_as(
            spec,
            [
                TensorSpec([size if drop else None, *shape], leaf.dtype, leaf.name)
                for shape, leaf in zip(shapes, leaves)
            ],
        )
        self._shapes = shapes
        self._values = [
            np.asarray(array_of(convert_to_tensor(v, leaf.dtype)))
            for v, leaf in zip(values, leaves)
        ]
        # fixed shapes with nothing to pad: a plain batch, slices and all
        self._plain = all(
            shape.is_fully_defined() and tuple(shape) == tuple(leaf.shape)
            for shape, leaf in zip(shapes, leaves)
        )

    def _chunks(self) -> Iterator[Chunk]:
        if self._plain:
            yield from super()._chunks()
            return
        rows: list[tuple[Any, ...]] = []
        for row in self._input._rows():
            rows.append(row)
            if len(rows) == self._batch_size:
                yield self._pad(rows)
                rows = []
        if rows and not self._drop:
            yield self._pad(rows)

    def _pad(self, rows: list[tuple[Any, ...]]) -> Chunk:
        """One batch of ``rows``, each component padded to one shape."""
        batch = []
        for j, (shape, value) in enumerate(zip(self._shapes, self._values)):
            parts = [np.asarray(row[j]) for row in rows]
            longest = np.max([part.shape for part in parts], axis=0, initial=0)
            target = [
                int(n) if size is None else size for size, n in zip(shape, longest)
            ]
            if any(p.shape[d] > n for p in parts for d, n in enumerate(target)):
                raise DataLossError(
                    "Attempted to pad to a smaller size than the input element. "
                    f"An element of shape {max(p.shape for p in parts)} does not "
                    f"fit the padded shape {shape}: give a larger padded shape, "
                    "or None to pad to the longest element."
                )
            out = np.full((len(parts), *target), value, dtype=parts[0].dtype)
            for i, part in enumerate(parts):
                out[(i, *(slice(0, n) for n in part.shape))] = part
            batch.append(out[None])
        return tuple(batch)


def _minus_one_as_none(shape: Any) -> Any:
    # in a padded shape, -1 (like None) means "the longest in the batch"
    if isinstance(shape, (list, tuple)):
        return [None if dim == -1 else dim for dim in shape]
    return shape


class Unbatch(UnaryStep):
    """Each element split along its first dimension: the inverse of batch.

    Raises:
        ValueError: if a component is a scalar, or components' first
            dimensions differ.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(4).batch(2, drop_remainder=True).unbatch().cardinality()
        <tf.Tensor: shape=(), dtype=int64, numpy=4>
    """

    def __init__(self, input_dataset: Step) -> None:
        leaves = nest.flatten(input_dataset.element_spec)
        if any(s.shape.rank == 0 for s in leaves):
            raise ValueError("Cannot unbatch an input with scalar components.")
        firsts = {s.shape[0] for s in leaves if s.shape.rank} - {None}
        if len(firsts) > 1:
            raise ValueError(_mismatched_rows(sorted(firsts)))
        spec = nest.map_structure(
            lambda s: TensorSpec(
                None if s.shape.rank is None else s.shape[1:], s.dtype, s.name
            ),
            input_dataset.element_spec,
        )
        super().__init__(input_dataset, spec)
        # the rows per input element, when every component's shape fixes it
        known = all(s.shape.rank and s.shape[0] is not None for s in leaves)
        self._rows_each = firsts.pop() if known else None

    def _chunks(self) -> Iterator[Chunk]:
        for element in self._input._rows():
            rows = {len(array) for array in element}
            if len(rows) > 1:
                raise InvalidArgumentError(_mismatched_rows(sorted(rows)))
            if rows != {0}:
                yield element

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return n
        return UNKNOWN_CARDINALITY if self._rows_each is None else n * self._rows_each


def _mismatched_rows(rows: list[int]) -> str:
    return (
        "`unbatch()` is only supported for datasets of elements whose components "
        f"have a matching leading dimension. Encountered both {rows[0]} and "
        f"{rows[1]}."
    )
