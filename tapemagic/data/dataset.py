"""``tf.data.Dataset``: input pipelines of tensors, on NumPy.

A dataset is a chain of steps, built by methods (``ds.shuffle(100).batch(32)``)
and run when it is iterated. :class:`Dataset` holds the methods: each checks its
arguments and builds a step, defined beside this module (:mod:`.sources`,
:mod:`.batching`, :mod:`.shuffling`, :mod:`.elementwise`, :mod:`.slicing`,
:mod:`.combining`, :mod:`.windows`), under TensorFlow's class name: the classes
at the end of this module are each a step that is also a ``Dataset``, so
``print(ds)`` shows TensorFlow's ``<_TensorSliceDataset element_spec=...>`` and
the steps chain further. The steps know nothing of ``Dataset``
(:mod:`.step` says how they pass elements to each other).

Everything runs in the calling thread: ``num_parallel_calls``, ``prefetch`` and
``deterministic`` are accepted and change nothing, since there is nothing to
overlap. Iteration yields tensors in the element's structure (tuples stay
tuples, dicts stay dicts). Shuffling follows an order of tapemagic's own
(:mod:`.shuffling` says which).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..engine import (
    Tensor,
    TensorShape,
    Variable,
    array_of,
    convert_to_tensor,
    dtypes,
    nest,
)
from ..engine.errors import DataLossError, InvalidArgumentError
from .batching import Batch, PaddedBatch, Unbatch
from .combining import Concatenate, Zip
from .elementwise import Filter, Map, TakeWhile, check_predicate, output_spec
from .iterator import OwnedIterator, numpy_iterator
from .shuffling import Shuffle
from .slicing import Cache, Prefetch, Repeat, Shard, Skip, Take
from .sources import (
    Generator,
    Range,
    Tensors,
    TensorSlices,
    generator_signature,
    slices_of,
    tensors_of,
)
from .step import (
    INFINITE_CARDINALITY,
    INT64_MAX,
    UNKNOWN_CARDINALITY,
    Step,
    numpy_value,
)
from .structure import normalize, sample_of, spec_of, trace
from .windows import FlatMap, Interleave, Window, returned_dataset

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


class Dataset(Step):
    """A sequence of elements, each a (nested) structure of tensors.

    Build one with :meth:`from_tensor_slices`, :meth:`from_tensors`,
    :meth:`range` or :meth:`zip`, chain steps, and iterate it: in a ``for``
    loop, with :meth:`as_numpy_iterator`, or with :meth:`reduce`.

    Example:
        >>> ds = Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2)
        >>> [int(x) for x in ds]
        [2, 4, 6]
    """

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
        return _TensorSliceDataset(*slices_of(tensors))

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset of one element: ``tensors`` itself.

        Example:
            >>> Dataset.from_tensors([1, 2, 3])
            <_TensorDataset element_spec=TensorSpec(shape=(3,), dtype=tf.int32, \
name=None)>
        """
        return _TensorDataset(*tensors_of(tensors))

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
            >>> from tapemagic.engine import TensorSpec
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
        spec = generator_signature(output_types, output_shapes, output_signature)
        arguments = tuple(
            numpy_value(array_of(convert_to_tensor(a))) for a in (args or ())
        )
        return _GeneratorDataset(spec, generator, arguments)

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
        size = _batch_size(batch_size)
        _require_tensors(self, "batch")
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
        size = _batch_size(batch_size)
        _require_tensors(self, "padded_batch")
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
        _require_tensors(self, "unbatch")
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
        _require_tensors(self, "map")
        spec = output_spec(map_func, self)
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
        _require_tensors(self, "filter")
        check_predicate(output_spec(predicate, self))
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
        return Dataset.zip((Dataset.range(first, INT64_MAX), self))

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
        _require_tensors(self, "window")
        spec = nest.map_structure(DatasetSpec, self.element_spec)
        return _WindowDataset(
            self, spec, _VariantDataset, *counts.values(), bool(drop_remainder)
        )

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
        _require_tensors(self, "take_while")
        check_predicate(output_spec(predicate, self))
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
        return numpy_iterator(self)

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


# -- what the methods build, under TensorFlow's class names ------------------------
# Each is a step (its work is in the step's module) that is also a Dataset; they
# subclass each other as their steps do.


class _TensorSliceDataset(Dataset, TensorSlices):
    """What ``from_tensor_slices`` builds, under TensorFlow's class name."""


class _TensorDataset(Dataset, Tensors):
    """What ``from_tensors`` builds, under TensorFlow's class name."""


class _RangeDataset(Dataset, Range):
    """What ``range`` builds, under TensorFlow's class name."""


class _GeneratorDataset(Dataset, Generator):
    """What ``from_generator`` builds (TensorFlow builds it on ``flat_map``)."""

    _printed_as = "_FlatMapDataset"


class _ZipDataset(Dataset, Zip):
    """What ``zip`` (and ``enumerate``) builds, under TensorFlow's class name."""


class _ConcatenateDataset(Dataset, Concatenate):
    """What ``concatenate`` builds, under TensorFlow's class name."""


class _BatchDataset(Dataset, Batch):
    """What ``batch`` builds, under TensorFlow's class name."""


class _ParallelBatchDataset(_BatchDataset):
    """``batch`` with ``num_parallel_calls``, under TensorFlow's class name."""


class _PaddedBatchDataset(_BatchDataset, PaddedBatch):
    """What ``padded_batch`` builds, under TensorFlow's class name."""


class _UnbatchDataset(Dataset, Unbatch):
    """What ``unbatch`` builds, under TensorFlow's class name."""


class _ShuffleDataset(Dataset, Shuffle):
    """What ``shuffle`` builds, under TensorFlow's class name."""


class _MapDataset(Dataset, Map):
    """What ``map`` builds, under TensorFlow's class name."""


class _ParallelMapDataset(_MapDataset):
    """``map`` with ``num_parallel_calls``, under TensorFlow's class name."""


class _FilterDataset(Dataset, Filter):
    """What ``filter`` builds, under TensorFlow's class name."""


class _TakeWhileDataset(Dataset, TakeWhile):
    """What ``take_while`` builds, under TensorFlow's class name."""


class _RepeatDataset(Dataset, Repeat):
    """What ``repeat`` builds, under TensorFlow's class name."""


class _TakeDataset(Dataset, Take):
    """What ``take`` builds, under TensorFlow's class name."""


class _SkipDataset(Dataset, Skip):
    """What ``skip`` builds, under TensorFlow's class name."""


class _ShardDataset(Dataset, Shard):
    """What ``shard`` builds, under TensorFlow's class name."""


class _PrefetchDataset(Dataset, Prefetch):
    """What ``prefetch`` builds, under TensorFlow's class name."""


class CacheDataset(Dataset, Cache):
    """What ``cache`` builds, under TensorFlow's class name."""


class _WindowDataset(Dataset, Window):
    """What ``window`` builds, under TensorFlow's class name."""


class _VariantDataset(_TensorSliceDataset):
    """One window: its component's rows, as a dataset."""


class _FlatMapDataset(Dataset, FlatMap):
    """What ``flat_map`` builds, under TensorFlow's class name."""


class _InterleaveDataset(_FlatMapDataset, Interleave):
    """What ``interleave`` builds, under TensorFlow's class name."""


class _ParallelInterleaveDataset(_InterleaveDataset):
    """``interleave`` with ``num_parallel_calls``, under TensorFlow's class name."""


# -- checks of the methods' arguments ------------------------------------------------


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


def _batch_size(batch_size: Any) -> int:
    size = _int64(batch_size, "batch_size")
    if size <= 0:
        raise InvalidArgumentError(
            "Batch size must be greater than zero. "
            f"Got {size}: pass how many elements make a batch."
        )
    return size


def _require_tensors(dataset: Dataset, step: str) -> None:
    """Refuse a step that needs tensors on a dataset of windows."""
    if any(isinstance(s, DatasetSpec) for s in nest.flatten(dataset.element_spec)):
        raise TypeError(
            f"{step}() of a dataset of windows is not supported: turn each window "
            "into tensors first, e.g. ds.window(5).flat_map(lambda w: w.batch(5))."
        )


def _dataset_spec(fn: Callable, dataset: Dataset) -> Any:
    """The element spec of the datasets ``fn`` returns for ``dataset``'s elements."""
    return trace(
        fn,
        dataset.element_spec,
        sample=_sample_leaf,
        describe=lambda out: returned_dataset(out).element_spec,
    )


def _sample_leaf(spec: Any, value: int, size: int) -> Any:
    # a window's sample is a dataset of one sample element
    if isinstance(spec, DatasetSpec):
        leaves = [sample_of(s, value, size) for s in nest.flatten(spec.element_spec)]
        return Dataset.from_tensors(nest.pack_sequence_as(spec.element_spec, leaves))
    return sample_of(spec, value, size)


def _cpu_cores() -> int:
    # TensorFlow's default cycle_length: the cores this process may run on
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
