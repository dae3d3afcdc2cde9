"""tf.data.Dataset's methods: TensorFlow's errors for bad arguments, elements in
their structure, reading (reduce, iterators, cardinality) and options accepted."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tapemagic.tf as tf

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


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: Dataset.range(3).take(0).get_single_element(), "Dataset was empty."),
        (lambda: Dataset.range(3).get_single_element(), "Dataset had more than one"),
        (lambda: Dataset.range(3).window(0), "Window size must be"),
        (lambda: Dataset.range(3).shard(3, 3), "Index must be between"),
    ],
)
def test_arguments_and_single_elements_are_checked(build, words) -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
        build()


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
