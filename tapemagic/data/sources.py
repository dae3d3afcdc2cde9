"""Where a pipeline's elements come from: slices, one element, a range, a generator.

Sources hand out their arrays whole: a sliced source is one chunk, so the steps
after it (``batch``, ``take``) cut what they need out of it without a copy, and
``shuffle`` gathers its rows by index. The arrays are read-only copies, so the
caller cannot change a dataset behind its back.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..engine import Tensor, TensorSpec, Variable, array_of, nest
from ..engine.errors import InvalidArgumentError
from .step import (
    BLOCK,
    INFINITE_CARDINALITY,
    INT64_MAX,
    UNKNOWN_CARDINALITY,
    Chunk,
    Step,
    frozen,
)
from .structure import flatten_up_to, leaf_arrays, normalize, spec_of

__all__ = [
    "Generator",
    "Range",
    "TensorSlices",
    "Tensors",
    "generator_signature",
    "slices_of",
    "tensors_of",
]


def slices_of(tensors: Any) -> tuple[Any, Chunk]:
    """The element spec and arrays of ``from_tensor_slices(tensors)``.

    Raises:
        ValueError: for a scalar, an empty structure, or first dimensions
            that differ.

    Example:
        >>> slices_of(([1, 2], [[3, 4], [5, 6]]))[0]
        (TensorSpec(shape=(), dtype=tf.int32, name=None), \
TensorSpec(shape=(2,), dtype=tf.int32, name=None))
    """
    element = normalize(tensors)
    arrays = tuple(frozen(a) for a in leaf_arrays(element))
    rows = None
    for array in arrays:
        if array.ndim == 0:
            raise ValueError(
                "Unbatching a tensor is only supported for rank >= 1. "
                "from_tensor_slices slices along the first dimension; use "
                "Dataset.from_tensors for a single element."
            )
        if rows is not None and array.shape[0] != rows:
            raise ValueError(
                f"Dimensions {rows} and {array.shape[0]} are not compatible: "
                "every component needs the same number of rows."
            )
        rows = array.shape[0]
    spec = nest.pack_sequence_as(
        element,
        [
            TensorSpec(array.shape[1:], tensor.dtype)
            for array, tensor in zip(arrays, nest.flatten(element))
        ],
    )
    return spec, arrays


def tensors_of(tensors: Any) -> tuple[Any, Chunk]:
    """The element spec and arrays of ``from_tensors(tensors)``.

    Example:
        >>> tensors_of([1, 2, 3])
        (TensorSpec(shape=(3,), dtype=tf.int32, name=None), \
(array([1, 2, 3], dtype=int32),))
    """
    element = normalize(tensors)
    return spec_of(element), tuple(frozen(a) for a in leaf_arrays(element))


class TensorSlices(Step):
    """The rows of some arrays: one chunk, gathered by index for a shuffle.

    Example:
        >>> spec, arrays = slices_of([1, 2, 3])
        >>> TensorSlices(spec, arrays)._cardinality()
        3
    """

    def __init__(self, spec: Any, arrays: Chunk) -> None:
        super().__init__(spec)
        self._arrays = arrays

    def _chunks(self) -> Iterator[Chunk]:
        if len(self._arrays[0]):
            yield self._arrays

    def _cardinality(self) -> int:
        return len(self._arrays[0])

    def _size(self) -> int:
        return len(self._arrays[0])

    def _gather(self, indices: np.ndarray) -> Chunk:
        return tuple(array[indices] for array in self._arrays)


class Tensors(Step):
    """One element, given as the arrays of its leaves.

    Example:
        >>> Tensors(*tensors_of(5))._cardinality()
        1
    """

    def __init__(self, spec: Any, arrays: Chunk) -> None:
        super().__init__(spec)
        self._arrays = arrays

    def _chunks(self) -> Iterator[Chunk]:
        yield tuple(array[None] for array in self._arrays)

    def _cardinality(self) -> int:
        return 1

    def _size(self) -> int:
        return 1

    def _gather(self, indices: np.ndarray) -> Chunk:
        return tuple(array[None][indices] for array in self._arrays)


class Range(Step):
    """Integers from ``start`` to ``stop`` by ``step``, computed a block at a time.

    Example:
        >>> from tapemagic.engine import dtypes
        >>> Range(5, -5, -3, dtypes.int64)._cardinality()
        4
    """

    def __init__(self, start: int, stop: int, step: int, dtype: Any) -> None:
        super().__init__(TensorSpec([], dtype))
        self._start, self._stop, self._step = start, stop, step
        self._np_dtype = np.dtype(dtype.as_numpy_dtype)
        self._count = max(0, -((start - stop) // step))  # exact ceil, any size

    def _chunks(self) -> Iterator[Chunk]:
        for first in builtins.range(0, self._count, BLOCK):
            indices = np.arange(first, min(first + BLOCK, self._count))
            yield self._gather(indices)

    def _cardinality(self) -> int:
        # TensorFlow counts a range up to the largest int64 as infinite
        # (enumerate() zips with one)
        if self._stop == INT64_MAX and self._step > 0:
            return INFINITE_CARDINALITY
        return self._count

    def _size(self) -> int | None:
        count = self._cardinality()
        return None if count == INFINITE_CARDINALITY else count

    def _gather(self, indices: np.ndarray) -> Chunk:
        values = self._start + self._step * indices.astype(np.int64)
        return (values.astype(self._np_dtype),)


def generator_signature(
    output_types: Any, output_shapes: Any, output_signature: Any
) -> Any:
    """The element spec ``from_generator`` is told, in either of its two ways.

    Raises:
        TypeError: if the signature holds something other than a TensorSpec,
            or neither ``output_signature`` nor ``output_types`` is given.

    Example:
        >>> from tapemagic.engine import dtypes
        >>> generator_signature((dtypes.int32, dtypes.float32), ((), (2,)), None)
        (TensorSpec(shape=(), dtype=tf.int32, name=None), \
TensorSpec(shape=(2,), dtype=tf.float32, name=None))
    """
    if output_signature is not None:
        for spec in nest.flatten(output_signature):
            if not isinstance(spec, TensorSpec):
                raise TypeError(
                    "`output_signature` must contain objects that are subclass "
                    f"of `tf.TypeSpec` but found {type(spec)} which is not."
                )
        return output_signature
    if output_types is None:
        raise TypeError(
            "To specify the output signature you need to provide either the "
            "`output_signature` argument or the `output_types` argument."
        )
    if output_shapes is None:
        output_shapes = nest.map_structure(lambda _: None, output_types)
    types = nest.flatten(output_types)
    shapes = flatten_up_to(output_types, output_shapes)
    return nest.pack_sequence_as(
        output_types, [TensorSpec(s, t) for t, s in zip(types, shapes)]
    )


class Generator(Step):
    """What ``generator(*arguments)`` yields, checked against the spec, called
    anew for each pass.

    Example:
        >>> step = Generator(TensorSpec([], "int32"), lambda: iter([1, 2]), ())
        >>> [row[0].item() for row in step._rows()]
        [1, 2]
    """

    def __init__(self, spec: Any, generator: Callable, arguments: tuple) -> None:
        super().__init__(spec)
        self._generator, self._arguments = generator, arguments
        self._leaf_specs: list[TensorSpec] = nest.flatten(spec)

    def _chunks(self) -> Iterator[Chunk]:
        for value in self._generator(*self._arguments):
            leaves = flatten_up_to(self._element_spec, value)
            yield tuple(
                _generated_array(leaf, spec)[None]
                for leaf, spec in zip(leaves, self._leaf_specs)
            )

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


def _generated_array(value: Any, spec: TensorSpec) -> np.ndarray:
    if isinstance(value, (Tensor, Variable)):
        value = array_of(value)
    # NumPy's conversion, unsafe casts included (1.5 as int32 is 1), as TensorFlow
    array = np.asarray(value, dtype=spec.dtype.as_numpy_dtype)
    if not spec.shape.is_compatible_with(array.shape):
        raise InvalidArgumentError(
            f"`generator` yielded an element of shape {array.shape} where an "
            f"element of shape {spec.shape} was expected."
        )
    return array
