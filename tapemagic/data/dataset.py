"""``tf.data.Dataset``: input pipelines of tensors, on NumPy.

A dataset is a chain of steps, built by methods (``ds.shuffle(100).batch(32)``)
and run when it is iterated. Each step reads its input in *chunks*: the flat
leaves of consecutive elements stacked along a new first axis, as NumPy arrays
that are never written to. Sources hand out their arrays whole, so ``batch`` of
``from_tensor_slices`` cuts each batch out of the arrays with one slice, and
``shuffle`` of a source gathers rows with one fancy index per block; ``map`` and
``filter`` run their function once per element, as TensorFlow does, and yield
one-row chunks that ``batch`` joins with one ``concatenate`` per batch. A
``window`` is a dataset per component; it travels as a one-row object array,
for ``flat_map`` or ``interleave`` to open.

Everything runs in the calling thread: ``num_parallel_calls``, ``prefetch`` and
``deterministic`` are accepted and change nothing, since there is nothing to
overlap. Iteration yields tensors in the element's structure (tuples stay
tuples, dicts stay dicts), and ``print(ds)`` shows TensorFlow's
``<_TensorSliceDataset element_spec=...>``.

Shuffling: TensorFlow's order cannot be reproduced, so the order is tapemagic's
own. A buffer of ``buffer_size`` elements is filled from the input; each output
is drawn uniformly from the buffer and its slot refilled with the next input
element (when the buffer holds the whole of a sliced or ``range`` source, that is
a uniform permutation, drawn in one call). The draws come from a NumPy generator
seeded, by TensorFlow's rules, from ``seed`` and ``tf.random.set_seed``: with
either, the orders repeat from run to run; with ``reshuffle_each_iteration=True``
each pass over the dataset has a new order, the k-th pass the same in every run.
"""

from __future__ import annotations

import builtins
import itertools
import numbers
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..engine import (
    Tensor,
    TensorShape,
    TensorSpec,
    Variable,
    array_of,
    convert_to_tensor,
    dtypes,
    nest,
)
from ..engine.errors import InvalidArgumentError, OpError
from ..engine.random_seed import get_seed
from .structure import (
    call_with_element,
    leaf_arrays,
    normalize,
    sample_of,
    spec_of,
    trace,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "CacheDataset",
    "DataLossError",
    "Dataset",
    "DatasetSpec",
    "OwnedIterator",
]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class DataLossError(OpError):
    """Data that cannot be represented as asked (padding to a smaller size)."""


# A chunk: the flat leaves of consecutive elements, each with a leading row axis.
Chunk = tuple[np.ndarray, ...]

# Rows a shuffle gathers at a time from a source, and a range computes at a time.
_BLOCK = 4096
_INT64_MAX = np.iinfo(np.int64).max


class Dataset:
    """A sequence of elements, each a (nested) structure of tensors.

    Build one with :meth:`from_tensor_slices`, :meth:`from_tensors`,
    :meth:`range` or :meth:`zip`, chain steps, and iterate it: in a ``for``
    loop, with :meth:`as_numpy_iterator`, or with :meth:`reduce`.

    Example:
        >>> ds = Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2)
        >>> [int(x) for x in ds]
        [2, 4, 6]
    """

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec

    # -- what each step provides -----------------------------------------------
    def _chunks(self) -> Iterator[Chunk]:
        """The elements in chunks of one or more rows (never empty)."""
        raise NotImplementedError

    def _cardinality(self) -> int:
        raise NotImplementedError

    def _size(self) -> int | None:
        """The number of elements when rows can be gathered in any order."""
        return None

    def _gather(self, indices: np.ndarray) -> Chunk:
        raise NotImplementedError

    # -- sources ---------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of the slices of ``tensors`` along their first dimension.

        Args:
            tensors: a tensor, array or list, or a tuple or dict of them (nested);
                all must have the same first dimension. A list is one tensor.
            name: ignored; accepted for TensorFlow compatibility.

        Returns:
            A dataset with one element per row.

        Raises:
            ValueError: for a scalar, an empty structure, or first dimensions
                that differ.

        Example:
            >>> ds = Dataset.from_tensor_slices(([1, 2], [[3, 4], [5, 6]]))
            >>> ds
            <_TensorSliceDataset element_spec=(TensorSpec(shape=(), \
dtype=tf.int32, name=None), TensorSpec(shape=(2,), dtype=tf.int32, name=None))>
            >>> list(ds.as_numpy_iterator())
            [(np.int32(1), array([3, 4], dtype=int32)), \
(np.int32(2), array([5, 6], dtype=int32))]
        """
        element = normalize(tensors)
        arrays = tuple(_frozen(a) for a in leaf_arrays(element))
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
            element, [TensorSpec(a.shape[1:], t.dtype) for a, t in _leaves(element)]
        )
        return _TensorSliceDataset(spec, arrays)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element: ``tensors`` itself.

        Example:
            >>> Dataset.from_tensors([1, 2, 3])
            <_TensorDataset element_spec=TensorSpec(shape=(3,), dtype=tf.int32, \
name=None)>
        """
        element = normalize(tensors)
        arrays = tuple(_frozen(a) for a in leaf_arrays(element))
        return _TensorDataset(spec_of(element), arrays)

    @staticmethod
    def from_generator(
        generator: Callable,
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """A dataset of what ``generator()`` yields, called anew for each pass.

        Args:
            generator: a callable that returns an iterator (a generator
                function, for example).
            output_types: the dtype of each component (with ``output_shapes``,
                the older way to describe elements).
            output_shapes: the shape of each component; unknown if not given.
            args: arguments for ``generator``, passed as NumPy values.
            output_signature: the element's structure, a ``tf.TensorSpec`` per
                component.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            TypeError: if ``generator`` is not callable, or the elements are not
                described.
            InvalidArgumentError: (while iterating) if a yielded value does not
                fit its spec.

        Example:
            >>> def pairs():
            ...     for i in range(2):
            ...         yield i, [float(i)] * 2
            >>> ds = Dataset.from_generator(pairs, output_signature=(
            ...     TensorSpec([], dtypes.int32), TensorSpec([2], dtypes.float32)))
            >>> list(ds.as_numpy_iterator())
            [(np.int32(0), array([0., 0.], dtype=float32)), \
(np.int32(1), array([1., 1.], dtype=float32))]
        """
        if not callable(generator):
            raise TypeError(
                "`generator` must be a Python callable. Pass the generator "
                "function itself, not a generator it returned."
            )
        if output_signature is not None:
            for spec in nest.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(
                        "`output_signature` must contain objects that are subclass "
                        f"of `tf.TypeSpec` but found {type(spec)} which is not."
                    )
        elif output_types is None:
            raise TypeError(
                "To specify the output signature you need to provide either the "
                "`output_signature` argument or the `output_types` argument."
            )
        else:
            if output_shapes is None:
                output_shapes = nest.map_structure(lambda _: None, output_types)
            types = nest.flatten(output_types)
            shapes = _flatten_up_to(output_types, output_shapes)
            output_signature = nest.pack_sequence_as(
                output_types, [TensorSpec(s, t) for t, s in zip(types, shapes)]
            )
        arguments = tuple(
            _numpy_value(array_of(convert_to_tensor(a))) for a in (args or ())
        )
        return _GeneratorDataset(output_signature, generator, arguments)

    @staticmethod
    def range(*args: Any, output_type: Any = None, name: str | None = None) -> Dataset:
        """Integers from ``start`` to ``stop`` (excluded) by ``step``, like range.

        Args:
            *args: ``stop``, or ``start, stop``, or ``start, stop, step``.
            output_type: the dtype, ``tf.int64`` unless given.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            TypeError: for a non-integer bound.
            InvalidArgumentError: for a step of 0.

        Example:
            >>> list(Dataset.range(2, 10, 3).as_numpy_iterator())
            [np.int64(2), np.int64(5), np.int64(8)]
        """
        if not 1 <= len(args) <= 3:
            raise TypeError(
                f"Dataset.range takes 1 to 3 arguments (start, stop, step), got "
                f"{len(args)}."
            )
        bounds = [_int64(arg, "a range bound") for arg in args]
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        if step == 0:
            raise InvalidArgumentError("step must be a non-zero integer.")
        dtype = dtypes.int64 if output_type is None else dtypes.as_dtype(output_type)
        return _RangeDataset(start, stop, step, dtype)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> Dataset:
        """Elements of several datasets side by side, until the shortest ends.

        Args:
            *args: datasets, or one (nested) tuple or dict of datasets.
            datasets: the same, by keyword.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            TypeError: for a list, or something other than a dataset.

        Example:
            >>> a, b = Dataset.range(3), Dataset.range(10, 12)
            >>> list(Dataset.zip(a, b).as_numpy_iterator())
            [(np.int64(0), np.int64(10)), (np.int64(1), np.int64(11))]
        """
        if datasets is None:
            datasets = args[0] if len(args) == 1 else args
        return _ZipDataset(datasets)

    # -- steps -------------------------------------------------------------------
    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Stack ``batch_size`` consecutive elements into one.

        Args:
            batch_size: elements per batch.
            drop_remainder: drop a last batch that would be smaller; the batch
                dimension of ``element_spec`` is then known.
            num_parallel_calls, deterministic: accepted; everything runs in
                one thread.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            InvalidArgumentError: if ``batch_size`` is not positive, or (while
                iterating) elements of one batch differ in shape.

        Example:
            >>> list(Dataset.range(5).batch(2).as_numpy_iterator())
            [array([0, 1]), array([2, 3]), array([4])]
            >>> Dataset.range(5).batch(2, drop_remainder=True).element_spec
            TensorSpec(shape=(2,), dtype=tf.int64, name=None)
        """
        size = _int64(batch_size, "batch_size")
        if size <= 0:
            raise InvalidArgumentError(
                "Batch size must be greater than zero. "
                f"Got {size}: pass how many elements make a batch."
            )
        cls = _BatchDataset if num_parallel_calls is None else _ParallelBatchDataset
        return cls(self, size, bool(drop_remainder))

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Batch elements of different shapes, padding each to a common shape.

        Args:
            batch_size: elements per batch.
            padded_shapes: the shape to pad each component to, in the element's
                structure; a None dimension pads to the longest in the batch.
                By default every component's own shape.
            padding_values: the value to pad each component with (0 unless
                given), in the element's structure.
            drop_remainder: drop a last batch that would be smaller.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            ValueError: if a padded shape does not fit its component's shape.
            InvalidArgumentError: if ``batch_size`` is not positive.
            DataLossError: (while iterating) if an element is larger than its
                padded shape.

        Example:
            >>> from tapemagic.engine.ops.creation import fill
            >>> from tapemagic.engine.ops.shape import expand_dims
            >>> ds = Dataset.range(1, 4).map(lambda x: fill(expand_dims(x, 0), x))
            >>> for batch in ds.padded_batch(2).as_numpy_iterator():
            ...     print(batch)
            [[1 0]
             [2 2]]
            [[3 3 3]]
        """
        size = _int64(batch_size, "batch_size")
        if size <= 0:
            raise InvalidArgumentError(
                "Batch size must be greater than zero. "
                f"Got {size}: pass how many elements make a batch."
            )
        return _PaddedBatchDataset(
            self, size, bool(drop_remainder), padded_shapes, padding_values
        )

    def unbatch(self, name: str | None = None) -> Dataset:
        """Split each element along its first dimension: the inverse of batch.

        Raises:
            ValueError: if a component is a scalar, or components' first
                dimensions differ.

        Example:
            >>> list(Dataset.range(4).batch(3).unbatch().as_numpy_iterator())
            [np.int64(0), np.int64(1), np.int64(2), np.int64(3)]
        """
        return _UnbatchDataset(self)

    def shuffle(
        self,
        buffer_size: Any,
        seed: int | None = None,
        reshuffle_each_iteration: bool = True,
        name: str | None = None,
    ) -> Dataset:
        """Elements in random order, drawn from a buffer of ``buffer_size``.

        The order is tapemagic's own (see the module's docstring); it repeats
        under ``seed`` or ``tf.random.set_seed``.

        Args:
            buffer_size: how many elements to draw from; the dataset's size or
                more gives a uniform shuffle.
            seed: the op seed.
            reshuffle_each_iteration: a new order for each pass, instead of the
                same order every time.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            InvalidArgumentError: if ``buffer_size`` is not positive.

        Example:
            >>> ds = Dataset.range(5).shuffle(5, seed=1)
            >>> sorted(ds.as_numpy_iterator()) == list(range(5))
            True
        """
        size = _int64(buffer_size, "buffer_size")
        if size <= 0 and size != UNKNOWN_CARDINALITY:
            raise InvalidArgumentError(
                "buffer_size must be greater than zero or UNKNOWN_CARDINALITY. "
                f"Got {size}: pass how many elements to draw from."
            )
        return _ShuffleDataset(self, size, seed, bool(reshuffle_each_iteration))

    def map(
        self,
        map_func: Callable,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        synchronous: Any = None,
        use_unbounded_threadpool: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Apply ``map_func`` to every element.

        A tuple element is spread over the arguments: ``lambda x, y: ...``.
        ``map_func`` is called when the dataset is built, on two sample elements
        of the input's spec (zeros, then ones), to learn the structure of what
        it returns (TensorFlow traces it then), and once per element while
        iterating. Where samples of a guessed size fail (a dimension of unknown
        size that must be 784 to reshape), it is called on the input's first
        element instead, and the output's dimensions are all left unknown.

        Args:
            map_func: a function of an element, returning an element (a list is
                read as a tuple).
            num_parallel_calls, deterministic, synchronous,
                use_unbounded_threadpool: accepted; one thread runs everything.
            name: ignored; accepted for TensorFlow compatibility.

        Example:
            >>> ds = Dataset.from_tensor_slices(([1, 2], [3, 4]))
            >>> list(ds.map(lambda x, y: x + y).as_numpy_iterator())
            [np.int32(4), np.int32(6)]
        """
        spec = _output_spec(map_func, self, "map")
        cls = _MapDataset if num_parallel_calls is None else _ParallelMapDataset
        return cls(self, map_func, spec)

    def filter(self, predicate: Callable, name: str | None = None) -> Dataset:
        """Keep the elements for which ``predicate`` returns True.

        Raises:
            ValueError: if ``predicate`` does not return a scalar bool.

        Example:
            >>> ds = Dataset.range(6).filter(lambda x: x % 2 == 0)
            >>> list(ds.as_numpy_iterator())
            [np.int64(0), np.int64(2), np.int64(4)]
        """
        _check_predicate(_output_spec(predicate, self, "filter"))
        return _FilterDataset(self, predicate)

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        """Repeat the dataset ``count`` times, or forever (None or -1).

        Example:
            >>> list(Dataset.range(2).repeat(2).as_numpy_iterator())
            [np.int64(0), np.int64(1), np.int64(0), np.int64(1)]
            >>> Dataset.range(2).repeat().cardinality().numpy()
            np.int64(-1)
        """
        times = -1 if count is None else _int64(count, "count")
        return _RepeatDataset(self, times)

    def take(self, count: Any, name: str | None = None) -> Dataset:
        """The first ``count`` elements (all of them for -1).

        Example:
            >>> list(Dataset.range(10).take(2).as_numpy_iterator())
            [np.int64(0), np.int64(1)]
        """
        return _TakeDataset(self, _int64(count, "count"))

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        """All but the first ``count`` elements (none for -1).

        Example:
            >>> list(Dataset.range(4).skip(2).as_numpy_iterator())
            [np.int64(2), np.int64(3)]
        """
        return _SkipDataset(self, _int64(count, "count"))

    def prefetch(self, buffer_size: Any, name: str | None = None) -> Dataset:
        """The same elements. Accepted: one thread has nothing to prefetch.

        Example:
            >>> Dataset.range(3).prefetch(AUTOTUNE)
            <_PrefetchDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, \
name=None)>
        """
        _int64(buffer_size, "buffer_size")
        return _PrefetchDataset(self)

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """The same elements, kept in memory after the first complete pass.

        Later passes read the kept elements instead of running the steps before
        (so ``shuffle(...).cache()`` repeats one order). ``filename`` is
        accepted; the cache is always in memory.

        Example:
            >>> ds = Dataset.range(3).shuffle(3).cache()
            >>> list(ds.as_numpy_iterator()) == list(ds.as_numpy_iterator())
            True
        """
        return CacheDataset(self)

    def enumerate(self, start: Any = 0, name: str | None = None) -> Dataset:
        """Pairs ``(index, element)``, counting from ``start``.

        Example:
            >>> list(Dataset.range(10, 12).enumerate(5).as_numpy_iterator())
            [(np.int64(5), np.int64(10)), (np.int64(6), np.int64(11))]
        """
        first = _int64(start, "start")
        return Dataset.zip((Dataset.range(first, _INT64_MAX), self))

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """This dataset's elements, then ``dataset``'s.

        Raises:
            TypeError: if the elements differ in structure or dtype.

        Example:
            >>> list(Dataset.range(2).concatenate(Dataset.range(5, 6))
            ...      .as_numpy_iterator())
            [np.int64(0), np.int64(1), np.int64(5)]
        """
        return _ConcatenateDataset(self, dataset)

    def apply(self, transformation_func: Callable) -> Dataset:
        """``transformation_func(self)``, for chaining.

        Example:
            >>> Dataset.range(5).apply(lambda ds: ds.take(2)).cardinality().numpy()
            np.int64(2)
        """
        return transformation_func(self)

    def window(
        self,
        size: Any,
        shift: Any = None,
        stride: Any = 1,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> Dataset:
        """Group elements into windows, each a dataset (one per component).

        Window ``i`` holds the elements ``i * shift + k * stride`` for
        ``k < size``. Turn windows back into tensors with ``flat_map``:
        ``ds.window(5, shift=1).flat_map(lambda w: w.batch(5))``.

        Args:
            size: elements per window.
            shift: how far each window starts after the previous one; ``size``
                by default.
            stride: the step between the elements of a window.
            drop_remainder: drop the windows at the end that hold fewer than
                ``size`` elements.
            name: ignored; accepted for TensorFlow compatibility.

        Raises:
            InvalidArgumentError: if ``size``, ``shift`` or ``stride`` is not
                positive.

        Example:
            >>> windows = Dataset.range(5).window(3, shift=1, drop_remainder=True)
            >>> [w.tolist() for w in windows.flat_map(lambda w: w.batch(3))
            ...  .as_numpy_iterator()]
            [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
        """
        counts = {"Window size": _int64(size, "size")}
        counts["Shift"] = (
            counts["Window size"] if shift is None else _int64(shift, "shift")
        )
        counts["Stride"] = _int64(stride, "stride")
        for what, count in counts.items():
            if count <= 0:
                raise InvalidArgumentError(
                    f"{what} must be greater than zero. Got {count}."
                )
        return _WindowDataset(self, *counts.values(), bool(drop_remainder))

    def flat_map(self, map_func: Callable, name: str | None = None) -> Dataset:
        """Map each element to a dataset, and chain those datasets' elements.

        Raises:
            TypeError: if ``map_func`` does not return a dataset.

        Example:
            >>> ds = Dataset.from_tensor_slices([[1, 2], [3, 4]])
            >>> list(ds.flat_map(Dataset.from_tensor_slices).as_numpy_iterator())
            [np.int32(1), np.int32(2), np.int32(3), np.int32(4)]
        """
        return _FlatMapDataset(self, map_func, _dataset_spec(map_func, self))

    def interleave(
        self,
        map_func: Callable,
        cycle_length: Any = None,
        block_length: Any = None,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> Dataset:
        """Map each element to a dataset, and take turns among ``cycle_length``
        of them, ``block_length`` elements at a time.

        Args:
            map_func: a function of an element, returning a dataset.
            cycle_length: how many datasets are open at once; by default the
                number of CPU cores, as TensorFlow decides on its own.
            block_length: elements taken from one dataset per turn; 1 unless
                given.
            num_parallel_calls, deterministic: accepted; one thread runs
                everything, always in the deterministic order.
            name: ignored; accepted for TensorFlow compatibility.

        Example:
            >>> ds = Dataset.range(1, 4).interleave(
            ...     lambda x: Dataset.from_tensors(x).repeat(3),
            ...     cycle_length=2, block_length=2)
            >>> [int(x) for x in ds.as_numpy_iterator()]
            [1, 1, 2, 2, 1, 2, 3, 3, 3]
        """
        cycle = AUTOTUNE if cycle_length is None else _int64(cycle_length, "cycle")
        if cycle == AUTOTUNE:
            cycle = _cpu_cores()
        block = 1 if block_length is None else _int64(block_length, "block_length")
        if cycle <= 0 or block <= 0:
            raise InvalidArgumentError(
                "cycle_length and block_length must be greater than zero. Got "
                f"{cycle} and {block}."
            )
        cls = (
            _InterleaveDataset
            if num_parallel_calls is None
            else _ParallelInterleaveDataset
        )
        return cls(self, map_func, _dataset_spec(map_func, self), cycle, block)

    def take_while(self, predicate: Callable, name: str | None = None) -> Dataset:
        """The elements up to the first for which ``predicate`` is False.

        Example:
            >>> ds = Dataset.range(10).take_while(lambda x: x < 3)
            >>> list(ds.as_numpy_iterator())
            [np.int64(0), np.int64(1), np.int64(2)]
        """
        _check_predicate(_output_spec(predicate, self, "take_while"))
        return _TakeWhileDataset(self, predicate)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> Dataset:
        """Every ``num_shards``-th element, starting at ``index``.

        Raises:
            InvalidArgumentError: unless ``0 <= index < num_shards``.

        Example:
            >>> list(Dataset.range(7).shard(3, 1).as_numpy_iterator())
            [np.int64(1), np.int64(4)]
        """
        shards, first = _int64(num_shards, "num_shards"), _int64(index, "index")
        if shards <= 0 or not 0 <= first < shards:
            raise InvalidArgumentError(
                f"Index must be between 0 and {shards - 1} (inclusive), and "
                f"num_shards must be positive. Got index={first}, "
                f"num_shards={shards}."
            )
        return _ShardDataset(self, shards, first)

    def get_single_element(self, name: str | None = None) -> Any:
        """The one element of a dataset that has exactly one.

        Raises:
            InvalidArgumentError: if the dataset is empty or has more elements.

        Example:
            >>> Dataset.range(5).skip(4).get_single_element().numpy()
            np.int64(4)
        """
        rows = self._rows()
        first = next(rows, None)
        if first is None:
            raise InvalidArgumentError(
                "Dataset was empty. get_single_element() needs exactly one element."
            )
        if next(rows, None) is not None:
            raise InvalidArgumentError(
                "Dataset had more than one element. Take one first: "
                "ds.take(1).get_single_element()."
            )
        return self._element(first)

    # -- reading -----------------------------------------------------------------
    @property
    def element_spec(self) -> Any:
        """The structure of an element, with a ``tf.TensorSpec`` per tensor.

        Example:
            >>> Dataset.from_tensor_slices({"x": [[1.0, 2.0]]}).element_spec
            {'x': TensorSpec(shape=(2,), dtype=tf.float32, name=None)}
        """
        return self._element_spec

    def cardinality(self) -> Tensor:
        """The number of elements as an int64 tensor: -1 if infinite, -2 if
        unknown (after ``filter``, for example).

        Example:
            >>> Dataset.range(10).filter(lambda x: x > 5).cardinality().numpy()
            np.int64(-2)
        """
        return convert_to_tensor(np.int64(self._cardinality()))

    def __len__(self) -> int:
        cardinality = self._cardinality()
        if cardinality == INFINITE_CARDINALITY:
            raise TypeError(
                "The dataset is infinite. Iterate it with .take(n), or count "
                "steps yourself."
            )
        if cardinality == UNKNOWN_CARDINALITY:
            raise TypeError(
                "The dataset length is unknown. Use .cardinality(), or count the "
                "elements by iterating."
            )
        return cardinality

    def __bool__(self) -> bool:
        return True  # even when empty or of unknown length, as in TensorFlow

    def __iter__(self) -> Iterator[Any]:
        return OwnedIterator(self)

    def as_numpy_iterator(self) -> Iterator[Any]:
        """Iterate the elements as NumPy values, in the element's structure.

        Scalars come as NumPy scalars (``np.int64(3)``), the rest as arrays.

        Example:
            >>> list(Dataset.from_tensor_slices({"a": [1, 2]}).as_numpy_iterator())
            [{'a': np.int32(1)}, {'a': np.int32(2)}]
        """
        return _NumpyIterator(self)

    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Fold the elements into a state: ``state = reduce_func(state, element)``.

        Args:
            initial_state: the first state, a structure of tensors or values.
            reduce_func: a function of the state and one element (a tuple
                element is spread over the arguments after the state), returning
                a state of the same structure and dtypes.

        Returns:
            The final state, as tensors.

        Raises:
            TypeError: if ``reduce_func`` changes the state's structure or dtypes.

        Example:
            >>> Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x).numpy()
            np.int64(10)
        """
        state = normalize(initial_state)
        expected = nest.flatten(spec_of(state))
        for element in self:
            state = normalize(reduce_func(state, element), True)
            got = nest.flatten(spec_of(state))
            if len(got) != len(expected):
                raise TypeError(
                    "The structure of the new state must match the initial state: "
                    f"{spec_of(state)!r} is not like {initial_state!r}."
                )
            for want, have in zip(expected, got):
                if want.dtype != have.dtype:
                    raise TypeError(
                        "The element types for the new state must match the "
                        f"initial state. Expected <dtype: '{want.dtype.name}'> but "
                        f"got <dtype: '{have.dtype.name}'>. Cast the new state, "
                        f"e.g. tf.cast(x, tf.{want.dtype.name})."
                    )
        return state

    # The class name TensorFlow prints, where it differs from the class's own.
    _printed_as: str | None = None

    def __repr__(self) -> str:
        name = self._printed_as or type(self).__name__
        return f"<{name} element_spec={self._element_spec!r}>"

    # -- running -------------------------------------------------------------------
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
                leaf if isinstance(leaf, Dataset) else convert_to_tensor(leaf)
                for leaf in leaves
            ],
        )


def _output_spec(fn: Callable, dataset: Dataset, step: str) -> Any:
    """The spec of what ``fn`` returns for the elements of ``dataset``."""
    _require_tensors(dataset, step)
    spec = dataset.element_spec
    try:
        return trace(fn, spec)
    except Exception:
        unknown = any(
            s.shape.rank is None or None in s.shape for s in nest.flatten(spec)
        )
        first = next(iter(dataset), None) if unknown else None
        if first is None:
            raise  # not a guess that went wrong: the function fails
    returned = spec_of(normalize(call_with_element(fn, first), True))
    return nest.map_structure(
        lambda s: TensorSpec([None] * s.shape.rank, s.dtype, s.name), returned
    )


class OwnedIterator:
    """What ``iter(dataset)`` returns: the dataset's elements, as tensors.

    Example:
        >>> it = iter(Dataset.range(2))
        >>> it.get_next().numpy(), next(it).numpy()
        (np.int64(0), np.int64(1))
    """

    def __init__(self, dataset: Dataset) -> None:
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
            >>> iter(Dataset.range(3).skip(2)).get_next().numpy()
            np.int64(2)
        """
        return next(self)

    next = __next__


class _NumpyIterator:
    def __init__(self, dataset: Dataset) -> None:
        self._spec = dataset.element_spec
        self._rows = dataset._rows()

    def __iter__(self) -> _NumpyIterator:
        return self

    def __next__(self) -> Any:
        leaves = [_numpy_value(leaf) for leaf in next(self._rows)]
        return nest.pack_sequence_as(self._spec, leaves)

    def __repr__(self) -> str:
        return f"NumpyIterator(iterator={self._rows!r})"


def _numpy_value(leaf: Any) -> Any:
    # Rows of a chunk are NumPy scalars or read-only views: hand out copies.
    if isinstance(leaf, np.ndarray):
        return leaf[()] if leaf.ndim == 0 else leaf.copy()
    return leaf


# -- sources --------------------------------------------------------------------


class _TensorSliceDataset(Dataset):
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


class _TensorDataset(Dataset):
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


class _RangeDataset(Dataset):
    def __init__(self, start: int, stop: int, step: int, dtype: Any) -> None:
        super().__init__(TensorSpec([], dtype))
        self._start, self._stop, self._step = start, stop, step
        self._np_dtype = np.dtype(dtype.as_numpy_dtype)
        self._count = max(0, -((start - stop) // step))  # exact ceil, any size

    def _chunks(self) -> Iterator[Chunk]:
        for first in builtins.range(0, self._count, _BLOCK):
            indices = np.arange(first, min(first + _BLOCK, self._count))
            yield self._gather(indices)

    def _cardinality(self) -> int:
        # TensorFlow counts a range up to the largest int64 as infinite
        # (enumerate() zips with one)
        if self._stop == _INT64_MAX and self._step > 0:
            return INFINITE_CARDINALITY
        return self._count

    def _size(self) -> int | None:
        count = self._cardinality()
        return None if count == INFINITE_CARDINALITY else count

    def _gather(self, indices: np.ndarray) -> Chunk:
        values = self._start + self._step * indices.astype(np.int64)
        return (values.astype(self._np_dtype),)


class _GeneratorDataset(Dataset):
    """What ``from_generator`` builds (TensorFlow builds it on ``flat_map``)."""

    _printed_as = "_FlatMapDataset"

    def __init__(self, spec: Any, generator: Callable, arguments: tuple) -> None:
        super().__init__(spec)
        self._generator, self._arguments = generator, arguments
        self._leaf_specs: list[TensorSpec] = nest.flatten(spec)

    def _chunks(self) -> Iterator[Chunk]:
        for value in self._generator(*self._arguments):
            leaves = _flatten_up_to(self._element_spec, value)
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


def _flatten_up_to(structure: Any, value: Any) -> list:
    """The parts of ``value`` at the leaves of ``structure`` (lists stay whole
    where ``structure`` has a leaf)."""
    if isinstance(structure, dict):
        if not isinstance(value, dict) or set(value) != set(structure):
            raise InvalidArgumentError(_not_like(value, structure))
        return [
            leaf
            for key in sorted(structure)
            for leaf in _flatten_up_to(structure[key], value[key])
        ]
    if isinstance(structure, tuple) and not isinstance(structure, TensorShape):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise InvalidArgumentError(_not_like(value, structure))
        return [
            leaf for part, item in zip(structure, value)
            for leaf in _flatten_up_to(part, item)
        ]  # fmt: skip
    return [value]


def _minus_one_as_none(shape: Any) -> Any:
    # in a padded shape, -1 (like None) means "the longest in the batch"
    if isinstance(shape, (list, tuple)):
        return [None if dim == -1 else dim for dim in shape]
    return shape


def _not_like(value: Any, structure: Any) -> str:
    return (
        f"`generator` yielded {value!r}, which does not match the structure of "
        f"the element spec {structure!r}. Yield values of that structure."
    )


# -- steps ----------------------------------------------------------------------


class _UnaryDataset(Dataset):
    def __init__(self, input_dataset: Dataset, spec: Any = None) -> None:
        super().__init__(input_dataset.element_spec if spec is None else spec)
        self._input = input_dataset

    def _cardinality(self) -> int:
        return self._input._cardinality()


class _BatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, size: int, drop: bool) -> None:
        _require_tensors(input_dataset, "batch")
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
                pending.append(_cut(chunk, 0, start))
                have += start
                if have < size:
                    continue
                yield tuple(array[None] for array in _join(pending))
                pending, have = [], 0
            full = (rows - start) // size
            if full:
                # whole batches straight from the chunk: a reshape, no copy
                block = _cut(chunk, start, start + full * size)
                yield tuple(a.reshape((full, size, *a.shape[1:])) for a in block)
                start += full * size
            if start < rows:
                pending, have = [_cut(chunk, start, rows)], rows - start
        if pending and not self._drop:
            yield tuple(array[None] for array in _join(pending))

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop else -(-n // self._batch_size)


class _ParallelBatchDataset(_BatchDataset):
    pass


class _PaddedBatchDataset(_BatchDataset):
    def __init__(
        self,
        input_dataset: Dataset,
        size: int,
        drop: bool,
        padded_shapes: Any,
        padding_values: Any,
    ) -> None:
        _require_tensors(input_dataset, "padded_batch")
        spec = input_dataset.element_spec
        leaves: list[TensorSpec] = nest.flatten(spec)
        if padded_shapes is None:
            shapes = [s.shape for s in leaves]
        else:
            given = _flatten_up_to(spec, padded_shapes)
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
            values = _flatten_up_to(spec, padding_values)
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


class _UnbatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset) -> None:
        _require_tensors(input_dataset, "unbatch")
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


class _ShuffleDataset(_UnaryDataset):
    def __init__(
        self, input_dataset: Dataset, buffer_size: int, seed: Any, reshuffle: bool
    ) -> None:
        super().__init__(input_dataset)
        global_seed, op_seed = get_seed(seed)
        if op_seed is None:
            # no seed anywhere: fresh entropy, drawn once, so that
            # reshuffle_each_iteration=False repeats one order
            global_seed, op_seed = 0, int(np.random.default_rng().integers(2**62))
        self._seeds = [global_seed, op_seed]
        self._buffer_size = _INT64_MAX if buffer_size < 0 else buffer_size
        self._reshuffle = reshuffle
        self._passes = 0

    def _chunks(self) -> Iterator[Chunk]:
        rng = np.random.default_rng([*self._seeds, self._passes])
        if self._reshuffle:
            self._passes += 1
        size = self._input._size()
        if size is not None:
            order = _shuffled_order(size, self._buffer_size, rng)
            for first in builtins.range(0, size, _BLOCK):
                yield self._input._gather(order[first : first + _BLOCK])
            return
        for row in _buffer_shuffle(self._input._rows(), self._buffer_size, rng):
            yield tuple(_one_row(leaf) for leaf in row)


def _shuffled_order(size: int, buffer_size: int, rng: np.random.Generator) -> Any:
    if buffer_size >= size:
        return rng.permutation(size)
    return np.fromiter(
        _buffer_shuffle(iter(builtins.range(size)), buffer_size, rng),
        dtype=np.intp,
        count=size,
    )


def _buffer_shuffle(
    items: Iterator[Any], buffer_size: int, rng: np.random.Generator
) -> Iterator[Any]:
    """Draw each output uniformly from a buffer refilled from ``items``."""
    buffer = list(itertools.islice(items, buffer_size))
    draws, k = rng.random(_BLOCK), 0
    end = object()
    while buffer:
        if k == _BLOCK:
            draws, k = rng.random(_BLOCK), 0
        i = int(draws[k] * len(buffer))
        k += 1
        yield buffer[i]
        item = next(items, end)
        if item is end:
            buffer[i] = buffer[-1]
            buffer.pop()
        else:
            buffer[i] = item


class _MapDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, fn: Callable, spec: Any) -> None:
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


class _ParallelMapDataset(_MapDataset):
    pass


class _FilterDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, predicate: Callable) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _chunks(self) -> Iterator[Chunk]:
        source = self._input
        for row in source._rows():
            keep = call_with_element(self._predicate, source._element(row))
            if bool(array_of(convert_to_tensor(keep))):
                yield tuple(_one_row(leaf) for leaf in row)

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class _RepeatDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
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


class _TakeDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
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
                yield _cut(chunk, 0, left)
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


class _SkipDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
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
            yield _cut(chunk, left, rows) if left else chunk
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


class _PrefetchDataset(_UnaryDataset):
    def _chunks(self) -> Iterator[Chunk]:
        return self._input._chunks()

    def _size(self) -> int | None:
        return self._input._size()

    def _gather(self, indices: np.ndarray) -> Chunk:
        return self._input._gather(indices)


class CacheDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset) -> None:
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


class _ZipDataset(Dataset):
    def __init__(self, datasets: Any) -> None:
        _check_zip_input(datasets)
        self._inputs: list[Dataset] = nest.flatten(datasets)
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
                out.extend(_cut(chunk, offsets[j], offsets[j] + rows))
                offsets[j] += rows
            yield tuple(out)

    def _cardinality(self) -> int:
        counts = [d._cardinality() for d in self._inputs]
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        finite = [n for n in counts if n >= 0]
        return min(finite) if finite else INFINITE_CARDINALITY


def _check_zip_input(datasets: Any) -> None:
    if isinstance(datasets, Dataset):
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


class _ConcatenateDataset(Dataset):
    def __init__(self, first: Dataset, second: Dataset) -> None:
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


# -- datasets of datasets --------------------------------------------------------


class DatasetSpec:
    """The spec of an element that is itself a dataset (a window).

    Example:
        >>> Dataset.range(3).window(2).element_spec
        DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    @property
    def value_type(self) -> type:
        return Dataset

    def most_specific_common_supertype(self, others: list) -> DatasetSpec | None:
        return self if all(other == self for other in others) else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DatasetSpec):
            return NotImplemented
        return (self._element_spec, self._dataset_shape) == (
            other._element_spec,
            other._dataset_shape,
        )

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


class _VariantDataset(_TensorSliceDataset):
    """One window: its component's rows, as a dataset."""


class _WindowDataset(_UnaryDataset):
    def __init__(
        self, input_dataset: Dataset, size: int, shift: int, stride: int, drop: bool
    ) -> None:
        _require_tensors(input_dataset, "window")
        spec = nest.map_structure(DatasetSpec, input_dataset.element_spec)
        super().__init__(input_dataset, spec)
        self._size, self._shift, self._stride, self._drop = size, shift, stride, drop
        self._leaf_specs: list[TensorSpec] = nest.flatten(input_dataset.element_spec)

    def _chunks(self) -> Iterator[Chunk]:
        rows = self._input._rows()
        span = (self._size - 1) * self._stride + 1  # rows a full window covers
        buffer: list[tuple[Any, ...]] = []  # the input's rows from `start` on
        start, read, ended = 0, 0, False
        while True:
            while not ended and read < start + span:
                row = next(rows, None)
                if row is None:
                    ended = True
                    break
                if read >= start:  # rows a shift jumps over are never kept
                    buffer.append(row)
                read += 1
            window = buffer[: span : self._stride]
            if not window or (self._drop and len(window) < self._size):
                return
            yield tuple(
                _one_row(self._window(j, window)) for j in range(len(window[0]))
            )
            start += self._shift
            del buffer[: self._shift]

    def _window(self, j: int, window: list[tuple[Any, ...]]) -> Dataset:
        arrays = (_frozen(np.stack([row[j] for row in window])),)
        return _VariantDataset(self._leaf_specs[j], arrays)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        if not self._drop:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if n < span else (n - span) // self._shift + 1


class _FlatMapDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, fn: Callable, spec: Any) -> None:
        super().__init__(input_dataset, spec)
        self._fn = fn

    def _datasets(self) -> Iterator[Dataset]:
        source = self._input
        for row in source._rows():
            yield _returned_dataset(call_with_element(self._fn, source._element(row)))

    def _chunks(self) -> Iterator[Chunk]:
        for dataset in self._datasets():
            yield from dataset._chunks()

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class _InterleaveDataset(_FlatMapDataset):
    def __init__(
        self, input_dataset: Dataset, fn: Callable, spec: Any, cycle: int, block: int
    ) -> None:
        super().__init__(input_dataset, fn, spec)
        self._cycle, self._block = cycle, block

    def _chunks(self) -> Iterator[Chunk]:
        # TensorFlow's order: take `block` rows from each of `cycle` open
        # datasets in turn; a slot whose dataset ends opens the next one.
        datasets = self._datasets()
        slots: list[Iterator[tuple[Any, ...]] | None] = [None] * self._cycle
        index, taken, open_slots, exhausted = 0, 0, 0, False
        while True:
            slot = slots[index]
            if slot is None and not exhausted:
                dataset = next(datasets, None)
                if dataset is None:
                    exhausted = True
                else:
                    slots[index] = dataset._rows()
                    open_slots += 1
                continue
            row = None if slot is None else next(slot, None)
            if row is not None:
                yield tuple(_one_row(leaf) for leaf in row)
                taken += 1
                if taken < self._block:
                    continue
            elif slot is not None:
                slots[index] = None
                open_slots -= 1
            elif exhausted and not open_slots:
                return
            index, taken = (index + 1) % self._cycle, 0


class _ParallelInterleaveDataset(_InterleaveDataset):
    pass


class _TakeWhileDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, predicate: Callable) -> None:
        super().__init__(input_dataset)
        self._predicate = predicate

    def _chunks(self) -> Iterator[Chunk]:
        source = self._input
        for row in source._rows():
            keep = call_with_element(self._predicate, source._element(row))
            if not bool(array_of(convert_to_tensor(keep))):
                return
            yield tuple(_one_row(leaf) for leaf in row)

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class _ShardDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, shards: int, index: int) -> None:
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


def _dataset_spec(fn: Callable, dataset: Dataset) -> Any:
    """The element spec of the datasets ``fn`` returns for ``dataset``'s elements."""
    return trace(
        fn,
        dataset.element_spec,
        sample=_sample_leaf,
        describe=lambda out: _returned_dataset(out).element_spec,
    )


def _sample_leaf(spec: Any, value: int, size: int) -> Any:
    if isinstance(spec, DatasetSpec):
        leaves = [sample_of(s, value, size) for s in nest.flatten(spec.element_spec)]
        return Dataset.from_tensors(nest.pack_sequence_as(spec.element_spec, leaves))
    return sample_of(spec, value, size)


def _returned_dataset(value: Any) -> Dataset:
    if not isinstance(value, Dataset):
        raise TypeError(
            f"`map_func` must return a `Dataset` object. Got {type(value)}: return "
            "a dataset, e.g. tf.data.Dataset.from_tensor_slices(x)."
        )
    return value


def _check_predicate(returned: Any) -> None:
    if not (
        isinstance(returned, TensorSpec)
        and returned.dtype == dtypes.bool
        and returned.shape.rank == 0
    ):
        raise ValueError(
            "Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
            f"tensor, but its return type is {returned!r}."
        )


def _require_tensors(dataset: Dataset, step: str) -> None:
    """Refuse a step that needs tensors on a dataset of windows."""
    if any(isinstance(s, DatasetSpec) for s in nest.flatten(dataset.element_spec)):
        raise TypeError(
            f"{step}() of a dataset of windows is not supported: turn each window "
            "into tensors first, e.g. ds.window(5).flat_map(lambda w: w.batch(5))."
        )


def _one_row(leaf: Any) -> np.ndarray:
    """A one-row chunk leaf holding ``leaf`` (a NumPy value, or a dataset)."""
    if isinstance(leaf, Dataset):
        row = np.empty(1, dtype=object)
        row[0] = leaf
        return row
    return np.expand_dims(leaf, 0)


def _cpu_cores() -> int:
    # TensorFlow's default cycle_length: the cores this process may run on
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# -- helpers ----------------------------------------------------------------------


def _leaves(element: Any) -> list[tuple[np.ndarray, Any]]:
    return [(array_of(t), t) for t in nest.flatten(element)]


def _frozen(array: np.ndarray) -> np.ndarray:
    """A read-only array the caller cannot change behind the dataset's back."""
    if array.flags.writeable:
        array = array.copy()
        array.flags.writeable = False
    return array


def _cut(chunk: Chunk, start: int, stop: int) -> Chunk:
    return tuple(array[start:stop] for array in chunk)


def _join(chunks: list[Chunk]) -> Chunk:
    """Rows of several chunks as one chunk; elements must agree in shape."""
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


def _int64(value: Any, what: str) -> int:
    """An integer argument (a Python or NumPy int, or an integer tensor)."""
    if isinstance(value, (Tensor, Variable)):
        value = array_of(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, numbers.Integral):
        return int(value)
    raise TypeError(
        f"Cannot convert {value!r} to EagerTensor of dtype int64: {what} must be "
        "an integer."
    )
