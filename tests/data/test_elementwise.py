"""map, filter and take_while: the function runs once per element, and its output
spec is learned when the step is built."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


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


def test_take_while_stops_at_the_first_false() -> None:
    ds = Dataset.from_tensor_slices([1, 2, 5, 1]).take_while(lambda x: x < 3)
    assert _values(ds) == [1, 2]
    assert int(ds.cardinality()) == -2
