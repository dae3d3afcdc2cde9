"""tf.data.Dataset: behaviours pinned to TensorFlow 2.21, and tapemagic's own
shuffle order and vectorized batching."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.data import dataset as dataset_module
from tapemagic.engine import array_of

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


# -- errors: TensorFlow's exception type and first words ------------------------


def _r():
    return Dataset.range(10)


@pytest.mark.parametrize(
    ("build", "error", "words"),
    [
        (lambda: len(_r().repeat()), TypeError, "The dataset is infinite."),
        (lambda: len(_r().filter(lambda v: v > 2)), TypeError, "The dataset length is unknown."),  # noqa: E501
        (lambda: Dataset.from_tensor_slices(1), ValueError, "Unbatching a tensor is only supported for rank >= 1"),  # noqa: E501
        (lambda: Dataset.from_tensor_slices((np.zeros(3), np.zeros(4))), ValueError, "Dimensions 3 and 4 are not compatible"),  # noqa: E501
        (lambda: Dataset.from_tensor_slices(()), ValueError, "Invalid `element`. `element` should not be empty."),  # noqa: E501
        (lambda: Dataset.from_tensor_slices(None), ValueError, "Invalid `element`. `element` should not be empty."),  # noqa: E501
        (lambda: _r().batch(0), tf.errors.InvalidArgumentError, "Batch size must be greater than zero"),  # noqa: E501
        (lambda: _r().batch(3.0), TypeError, "Cannot convert 3.0 to EagerTensor of dtype int64"),  # noqa: E501
        (lambda: _r().shuffle(0), tf.errors.InvalidArgumentError, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"),  # noqa: E501
        (lambda: _r().take(2.5), TypeError, "Cannot convert 2.5 to EagerTensor of dtype int64"),  # noqa: E501
        (lambda: Dataset.range(0.5, 3), TypeError, "Cannot convert 0.5 to EagerTensor of dtype int64"),  # noqa: E501
        (lambda: Dataset.range(0, 5, 0), tf.errors.InvalidArgumentError, "step must be a non-zero integer."),  # noqa: E501
        (lambda: _r().filter(lambda v: v), ValueError, "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is TensorSpec(shape=(), dtype=tf.int64, name=None)."),  # noqa: E501
        (lambda: _r().batch(2).filter(lambda v: v > 2), ValueError, "but its return type is TensorSpec(shape=(None,), dtype=tf.bool, name=None)."),  # noqa: E501
        (lambda: _r().map(lambda a, b: a), TypeError, "missing 1 required positional argument: 'b'"),  # noqa: E501
        (lambda: Dataset.from_tensor_slices(([1], [2])).map(lambda a: a), TypeError, "takes 1 positional argument but 2 were given"),  # noqa: E501
        (lambda: Dataset.zip((_r(), 1)), TypeError, "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` objects but encountered object of type <class 'int'>."),  # noqa: E501
        (lambda: Dataset.zip([_r(), _r()]), TypeError, "Python `list` is not supported and you should use `tuple` instead."),  # noqa: E501
        (lambda: _r().concatenate(Dataset.range(3, output_type=tf.int32)), TypeError, "Incompatible dataset elements:\n  TensorSpec(shape=(), dtype=tf.int64, name=None) vs.   TensorSpec(shape=(), dtype=tf.int32, name=None)"),  # noqa: E501
        (lambda: _r().concatenate(Dataset.zip((_r(), _r()))), TypeError, "Incompatible dataset elements:"),  # noqa: E501
        (lambda: _r().unbatch(), ValueError, "Cannot unbatch an input with scalar components."),  # noqa: E501
        (lambda: Dataset.from_tensors((np.zeros(2), np.zeros(3))).unbatch(), ValueError, "`unbatch()` is only supported for datasets of elements whose components have a matching leading dimension. Encountered both 2 and 3."),  # noqa: E501
        (lambda: _r().reduce(np.int64(0), lambda s, v: 1.0), TypeError, "The element types for the new state must match the initial state. Expected <dtype: 'int64'> but got <dtype: 'float32'>."),  # noqa: E501
        (lambda: next(iter(_r().take(0))), StopIteration, ""),
        (lambda: list(_r().map(lambda v: tf.range(v)).batch(3)), tf.errors.InvalidArgumentError, "Cannot add tensor to the batch: number of elements does not match. Shapes are: [tensor]: [1], [batch]: [0]"),  # noqa: E501
    ],
)  # fmt: skip
def test_errors_have_tensorflows_type_and_words(build, error, words) -> None:
    with pytest.raises(error) as info:
        build()
    assert words in str(info.value)


# -- structure ------------------------------------------------------------------


def test_elements_keep_their_structure() -> None:
    x = np.arange(6.0).reshape(3, 2)
    y = np.array([0, 1, 0])
    first = next(iter(Dataset.from_tensor_slices((x, y))))
    assert type(first) is tuple and all(isinstance(t, tf.Tensor) for t in first)
    as_dict = next(iter(Dataset.from_tensor_slices({"b": y, "a": x})))
    assert list(as_dict) == ["b", "a"]  # the given order, as TensorFlow keeps it
    point = collections.namedtuple("Point", "a b")
    ds = Dataset.from_tensor_slices(point([1, 2], [3, 4]))
    assert repr(ds.element_spec) == (
        "Point(a=TensorSpec(shape=(), dtype=tf.int32, name=None), "
        "b=TensorSpec(shape=(), dtype=tf.int32, name=None))"
    )
    # a named tuple is one argument, not spread over several
    assert _values(ds.map(lambda p: p.a)) == [1, 2]
    nested = Dataset.from_tensor_slices(({"a": x, "b": y}, y))
    element = next(nested.as_numpy_iterator())
    assert isinstance(element[0], dict)
    assert element[1] == np.int64(0) and type(element[1]) is np.int64


def test_a_map_function_may_return_lists_numbers_and_dicts() -> None:
    r = Dataset.range(3)
    pair = next(iter(r.map(lambda v: [v, v * 2])))
    assert type(pair) is tuple
    assert [int(t) for t in pair] == [0, 0]
    assert repr(r.map(lambda v: (v, 2)).element_spec[1]) == (
        "TensorSpec(shape=(), dtype=tf.int32, name=None)"
    )
    assert list(r.map(lambda v: {"sq": v * v}).batch(3).as_numpy_iterator())[0][
        "sq"
    ].tolist() == [0, 1, 4]


def test_as_numpy_iterator_hands_out_copies() -> None:
    source = np.arange(6.0).reshape(3, 2)
    ds = Dataset.from_tensor_slices(source)
    row = next(ds.as_numpy_iterator())
    row[0] = 100.0
    assert next(ds.as_numpy_iterator())[0] == 0.0


def test_the_dataset_keeps_its_own_copy_of_numpy_input() -> None:
    source = np.arange(4)
    ds = Dataset.from_tensor_slices(source)
    source[0] = 99
    assert _values(ds) == [0, 1, 2, 3]


def test_reduce_and_iterators() -> None:
    r = Dataset.range(5)
    assert r.reduce(np.int64(0), lambda s, v: s + v).numpy() == 10
    assert r.take(0).reduce(np.int64(7), lambda s, v: s + v).numpy() == 7
    total = Dataset.from_tensor_slices((np.ones((3, 2), np.float32), [1, 2, 3]))
    state = total.reduce(np.float32(0), lambda s, e: s + tf.reduce_sum(e[0]))
    assert state.numpy() == 6.0
    it = iter(r)
    assert it.get_next().numpy() == 0 and next(it).numpy() == 1
    assert it.element_spec == tf.TensorSpec([], tf.int64)
    assert bool(r.take(0)) and bool(r.repeat())
    assert isinstance(iter(r), tf.data.Iterator)
    assert isinstance(r.window(2).element_spec, tf.data.DatasetSpec)


# -- steps ----------------------------------------------------------------------


def test_take_skip_repeat_concatenate_zip_enumerate_unbatch() -> None:
    r = Dataset.range(5)
    assert _values(r.skip(1).take(2)) == [1, 2]
    assert _values(r.take(-1)) == [0, 1, 2, 3, 4]
    assert _values(r.skip(-1)) == []
    assert _values(r.take(2).repeat(3)) == [0, 1] * 3
    assert _values(r.take(0).repeat()) == []
    assert _values(r.repeat().take(12)) == [0, 1, 2, 3, 4] * 2 + [0, 1]
    assert _values(r.take(2).concatenate(r.skip(3))) == [0, 1, 3, 4]
    pairs = list(Dataset.zip((r, r.skip(3))).as_numpy_iterator())
    assert pairs == [(0, 3), (1, 4)]
    named = next(Dataset.zip({"a": r, "b": r.skip(1)}).as_numpy_iterator())
    assert named == {"a": 0, "b": 1}
    assert list(r.take(2).enumerate(5).as_numpy_iterator()) == [(5, 0), (6, 1)]
    assert _values(r.batch(2).unbatch()) == [0, 1, 2, 3, 4]
    assert _values(Dataset.zip(r.batch(2), r.batch(3)).map(lambda a, b: a[0])) == [0, 2]


def test_batch_across_chunk_boundaries() -> None:
    # repeat joins passes; the batches straddle them as in TensorFlow
    ds = Dataset.from_tensor_slices(np.arange(5)).repeat(3).batch(4)
    batches = [b.tolist() for b in ds.as_numpy_iterator()]
    assert batches == [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4, 0, 1], [2, 3, 4]]
    dropped = Dataset.range(10).batch(4, drop_remainder=True)
    assert [b.tolist() for b in dropped.as_numpy_iterator()] == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
    ]
    per_element = Dataset.range(7).map(lambda v: v * 2).batch(3)
    assert [b.tolist() for b in per_element.as_numpy_iterator()] == [
        [0, 2, 4],
        [6, 8, 10],
        [12],
    ]


def test_batch_of_slices_cuts_the_arrays_without_stacking() -> None:
    features = np.arange(20.0, dtype=np.float32).reshape(10, 2)
    labels = np.arange(10)
    ds = Dataset.from_tensor_slices((features, labels))
    source = ds._arrays
    batches = list(ds.batch(4))
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    for x, y in batches:
        # each batch is a view of the dataset's own array: one slice per batch
        assert np.shares_memory(array_of(x), source[0])
        assert np.shares_memory(array_of(y), source[1])
    np.testing.assert_array_equal(array_of(batches[1][0]), features[4:8])


def test_shuffle_then_batch_gathers_rows_in_blocks(monkeypatch) -> None:
    ds = Dataset.from_tensor_slices(np.arange(10_000)).shuffle(10_000, seed=3)
    calls = []
    gather = dataset_module._TensorSliceDataset._gather

    def counted(self, indices):
        calls.append(len(indices))
        return gather(self, indices)

    monkeypatch.setattr(dataset_module._TensorSliceDataset, "_gather", counted)
    values = np.concatenate(list(ds.batch(32).as_numpy_iterator()))
    assert sorted(values.tolist()) == list(range(10_000))
    assert calls == [4096, 4096, 1808]


def test_filter_and_map_run_once_per_element() -> None:
    seen = []

    def keep(v):
        seen.append(int(v))
        return v % 3 == 0

    ds = Dataset.from_tensor_slices(np.arange(9)).filter(keep)
    seen.clear()  # the call that learned the predicate's output type
    assert [b.tolist() for b in ds.batch(2).as_numpy_iterator()] == [[0, 3], [6]]
    assert seen == list(range(9))


def test_map_learns_unknown_dimensions() -> None:
    x = np.zeros((6, 2), np.float32)
    batched = Dataset.from_tensor_slices(x).batch(4)
    flat = batched.map(lambda a: tf.reshape(a, [-1]))
    assert repr(flat.element_spec) == (
        "TensorSpec(shape=(None,), dtype=tf.float32, name=None)"
    )
    fixed = batched.map(lambda a: a[:, 0])
    assert fixed.element_spec.shape.as_list() == [None]
    assert [v.shape for v in fixed.as_numpy_iterator()] == [(4,), (2,)]


def test_cache_keeps_the_first_complete_pass() -> None:
    calls = []

    def record(v):
        calls.append(int(v))
        return v

    ds = Dataset.range(4).map(record).cache()
    calls.clear()
    assert _values(ds) == [0, 1, 2, 3]
    assert _values(ds) == [0, 1, 2, 3]
    assert calls == [0, 1, 2, 3]  # the second pass read the cache
    shuffled = Dataset.range(20).shuffle(20).cache()
    assert _values(shuffled) == _values(shuffled)


def test_parallel_options_are_accepted() -> None:
    r = Dataset.range(6)
    ds = (
        r.map(lambda v: v + 1, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
        .batch(2, num_parallel_calls=2)
        .prefetch(tf.data.AUTOTUNE)
    )
    assert [b.tolist() for b in ds.as_numpy_iterator()] == [[1, 2], [3, 4], [5, 6]]
    assert tf.data.experimental.cardinality(ds).numpy() == 3
    assert len(ds) == 3


# -- shuffle: tapemagic's own order, deterministic under a seed -----------------


def test_shuffle_is_a_permutation() -> None:
    for buffer_size in (1, 3, 10, 1000):
        values = _values(Dataset.range(50).shuffle(buffer_size))
        assert sorted(values) == list(range(50))
    # a buffer of one changes nothing
    assert _values(Dataset.range(10).shuffle(1)) == list(range(10))
    # a buffer of two can only delay an element, never move it forward by 2
    values = _values(Dataset.range(30).map(lambda v: v).shuffle(2, seed=1))
    assert all(v <= i + 1 for i, v in enumerate(values))


def test_shuffle_with_a_seed_repeats_and_reshuffles_each_pass() -> None:
    a = Dataset.range(20).shuffle(20, seed=3)
    b = Dataset.range(20).shuffle(20, seed=3)
    first, second = _values(a), _values(a)
    assert first == _values(b) and second == _values(b)
    assert first != second  # reshuffle_each_iteration=True
    same = Dataset.range(20).shuffle(20, seed=3, reshuffle_each_iteration=False)
    assert _values(same) == _values(same)
    unseeded = Dataset.range(20).shuffle(20, reshuffle_each_iteration=False)
    assert _values(unseeded) == _values(unseeded)


def test_shuffle_follows_the_global_seed() -> None:
    try:
        tf.random.set_seed(5)
        first = _values(Dataset.range(50).shuffle(10))
        tf.random.set_seed(5)
        again = _values(Dataset.range(50).shuffle(10))
        assert first == again
        assert _values(Dataset.range(50).shuffle(10)) != first  # the next op seed
    finally:
        tf.random.set_seed(None)


def test_shuffle_order_is_pinned() -> None:
    # tapemagic's own order (TensorFlow's cannot be reproduced): fixed by the seed
    assert _values(Dataset.range(10).shuffle(10, seed=1)) == [
        1, 6, 7, 9, 8, 3, 4, 0, 5, 2
    ]  # fmt: skip
    assert _values(Dataset.range(10).map(lambda v: v).shuffle(4, seed=1)) == [
        2, 3, 4, 5, 0, 6, 8, 9, 7, 1
    ]  # fmt: skip


def test_map_falls_back_to_the_first_element_when_zeros_do_not_fit() -> None:
    def images():
        for _ in range(2):
            yield np.zeros(784, np.float32)

    flat = Dataset.from_generator(
        images, output_signature=tf.TensorSpec([None], tf.float32)
    )
    square = flat.map(lambda x: tf.reshape(x, (28, 28)))
    # TensorFlow knows (28, 28); tapemagic knows the rank and leaves sizes open
    assert repr(square.element_spec) == (
        "TensorSpec(shape=(None, None), dtype=tf.float32, name=None)"
    )
    assert [e.shape for e in square.as_numpy_iterator()] == [(28, 28), (28, 28)]
    # with every size known, a failing function fails when the dataset is built
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot reshape"):
        Dataset.range(3).map(lambda x: tf.reshape(x, (28, 28)))


def test_map_leaves_value_dependent_sizes_unknown() -> None:
    ranges = Dataset.range(1, 4).map(lambda x: tf.range(x))
    assert ranges.element_spec.shape.as_list() == [None]
    assert [len(r) for r in ranges.as_numpy_iterator()] == [1, 2, 3]
    calls = []
    Dataset.range(3).map(lambda x: calls.append(int(x)) or x)
    assert calls == [0, 1]  # the two sample elements: zeros, then ones


def test_padded_batch_of_fixed_shapes_is_a_plain_batch() -> None:
    source = np.arange(12).reshape(6, 2)
    ds = Dataset.from_tensor_slices(source)
    batches = list(ds.padded_batch(4))
    assert np.shares_memory(array_of(batches[0]), ds._arrays[0])
    padded = list(ds.padded_batch(4, padded_shapes=[3]).as_numpy_iterator())
    assert padded[1].tolist() == [[8, 9, 0], [10, 11, 0]]


def test_range_cardinality_as_tensorflow_counts_it() -> None:
    r = Dataset.range(10)
    # TensorFlow 2.21 prints -1, 2, -1, 0, 4 for these
    assert int(r.repeat().enumerate().cardinality()) == -1
    assert int(r.repeat().enumerate(5).take(2).cardinality()) == 2
    assert int(Dataset.range(0, 2**63 - 1, 3).cardinality()) == -1
    assert int(Dataset.range(-5, 5, -1).cardinality()) == 0
    assert int(Dataset.range(5, -5, -3).cardinality()) == 4
    assert _values(Dataset.range(5, -5, -3)) == [5, 2, -1, -4]


@pytest.mark.parametrize("step", ["batch", "padded_batch", "unbatch", "map", "filter"])
def test_steps_that_need_tensors_refuse_windows(step) -> None:
    windows = Dataset.range(6).window(2)
    call = {
        "batch": lambda: windows.batch(2),
        "padded_batch": lambda: windows.padded_batch(2),
        "unbatch": lambda: windows.unbatch(),
        "map": lambda: windows.map(lambda w: w),
        "filter": lambda: windows.filter(lambda w: True),
    }[step]
    with pytest.raises(TypeError, match=rf"{step}\(\) of a dataset of windows"):
        call()


def test_windows_pass_through_generic_steps() -> None:
    windows = Dataset.range(6).window(2).skip(1).repeat(2).shuffle(10, seed=0)
    rows = sorted(w.tolist() for w in windows.flat_map(lambda w: w.batch(2))
                  .as_numpy_iterator())  # fmt: skip
    assert rows == [[2, 3], [2, 3], [4, 5], [4, 5]]
    pairs = Dataset.zip((Dataset.range(4).window(2), Dataset.range(2)))
    firsts = [int(next(iter(w))) for w, _ in pairs]
    assert firsts == [0, 2]


def test_flat_map_must_return_a_dataset_and_shard_slices() -> None:
    with pytest.raises(TypeError, match="`map_func` must return a `Dataset` object"):
        Dataset.range(3).flat_map(lambda x: x)
    source = Dataset.from_tensor_slices(np.arange(10))
    shard = list(source.shard(3, 2))
    assert [int(t) for t in shard] == [2, 5, 8]
    assert int(source.shard(3, 2).cardinality()) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Index must be between"):
        source.shard(3, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset was empty."):
        source.take(0).get_single_element()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Window size must be"):
        source.window(0)


def test_interleave_order_matches_tensorflows_rule() -> None:
    # TensorFlow 2.21 prints this order for cycle_length=3, block_length=1
    ds = Dataset.range(1, 6).interleave(
        lambda x: Dataset.from_tensors(x).repeat(x), cycle_length=3
    )
    assert _values(ds) == [1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 4, 5, 5, 5]
    ranges = Dataset.range(1, 6).interleave(lambda x: Dataset.range(x), cycle_length=2)
    assert _values(ranges) == [0, 0, 1, 0, 1, 0, 2, 1, 2, 0, 3, 1, 2, 3, 4]


def test_window_shift_can_jump_over_elements() -> None:
    # TensorFlow 2.21: [[0], [2], [4], [6], [8]] and [[0, 1], [3, 4], [6, 7]]
    def rows(windows, size):
        batches = windows.flat_map(lambda w: w.batch(size)).as_numpy_iterator()
        return [b.tolist() for b in batches]

    assert rows(Dataset.range(9).window(1, shift=2), 1) == [[0], [2], [4], [6], [8]]
    assert rows(Dataset.range(8).window(2, shift=3, drop_remainder=True), 2) == [
        [0, 1],
        [3, 4],
        [6, 7],
    ]
