"""TensorFlow's behaviour for tensors made from shapes and values (creation.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Tensor, TensorShape, Variable
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops import composed_creation as CC
from tapemagic.engine.ops import creation as C
from tapemagic.engine.ops.reduce import reduce_sum


def _check(t: Tensor, values, dtype) -> None:
    assert t._value.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(t._value, np.asarray(values, dtype))


@pytest.fixture(autouse=True)
def _unseeded():
    # each test starts, and leaves, without a global seed
    C.set_seed(None)
    yield
    C.set_seed(None)


# -- zeros, ones, *_like ----------------------------------------------------------


@pytest.mark.parametrize(
    "shape, dims",
    [(3, (3,)), ([2, 3], (2, 3)), ((), ()), (TensorShape((1, 2)), (1, 2))],
)
def test_zeros_and_ones_take_any_shape_spelling(shape, dims) -> None:
    _check(C.zeros(shape), np.zeros(dims), np.float32)
    _check(C.ones(shape, dtype="int64"), np.ones(dims), np.int64)


def test_shape_may_be_an_int_tensor() -> None:
    _check(C.zeros(Tensor(np.array([2, 1], np.int32))), [[0.0], [0.0]], np.float32)


def test_bad_shapes_raise() -> None:
    with pytest.raises(InvalidArgumentError, match="must be >= 0"):
        C.zeros([2, -1])
    with pytest.raises(TypeError, match="not an int"):
        C.ones([2.0, 3])
    with pytest.raises(TypeError, match="not an int"):
        C.ones([None, 3])


def test_like_ops_keep_shape_and_dtype_unless_told() -> None:
    x = Tensor(np.array([[1.5, -2.0]], np.float64))
    _check(C.zeros_like(x), [[0.0, 0.0]], np.float64)
    _check(C.ones_like(x), [[1.0, 1.0]], np.float64)
    _check(C.ones_like(x, dtype="int32"), [[1, 1]], np.int32)
    _check(C.zeros_like([1, 2, 3]), [0, 0, 0], np.int32)


def test_gradient_through_ones_like_and_zeros_like_is_none() -> None:
    x = Variable([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        ones = C.ones_like(x) * 3.0
        zeros = C.zeros_like(x) + 1.0
    assert tape.gradient(ones, x) is None
    assert tape.gradient(zeros, x) is None


# -- fill ------------------------------------------------------------------------


def test_fill_values_and_dtype() -> None:
    _check(C.fill([2, 3], 9), np.full((2, 3), 9), np.int32)
    _check(C.fill([2], 1.5), [1.5, 1.5], np.float32)
    _check(C.fill([], np.float64(2)), 2.0, np.float64)


def test_fill_gradient_is_the_sum_of_the_incoming_gradient() -> None:
    value = Variable(2.0)
    weights = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    with GradientTape() as tape:
        loss = reduce_sum(C.fill([2, 3], value) * weights)
    assert float(tape.gradient(loss, value)) == weights.sum()


def test_fill_jacobian_is_ones_over_the_filled_shape() -> None:
    value = Tensor(np.array(0.5))
    with GradientTape() as tape:
        tape.watch(value)
        out = C.fill([2, 2], value)
    _check(tape.jacobian(out, value), np.ones((2, 2)), np.float64)


def test_fill_needs_a_scalar() -> None:
    with pytest.raises(InvalidArgumentError, match="value must be a scalar"):
        C.fill([2], [1.0, 2.0])


# -- range ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, values, dtype",
    [
        ((5,), {}, [0, 1, 2, 3, 4], np.int32),
        ((0.0, 1.0, 0.25), {}, [0, 0.25, 0.5, 0.75], np.float32),
        ((3, 18, 3), {}, [3, 6, 9, 12, 15], np.int32),
        ((3, 1, -0.5), {}, [3, 2.5, 2, 1.5], np.float32),
        ((1, 2.5), {}, [1, 2], np.float32),
        ((np.float64(2),), {}, [0, 1], np.float64),
        ((np.int64(3),), {}, [0, 1, 2], np.int64),
        ((0, 10, 3), {"dtype": "float64"}, [0, 3, 6, 9], np.float64),
        ((2, 2), {}, [], np.int32),
    ],
)
def test_range_values_and_dtypes_follow_tensorflow(args, kwargs, values, dtype):
    _check(C.range(*args, **kwargs), values, dtype)


def test_range_picks_the_widest_tensor_dtype() -> None:
    start = Tensor(np.array(1, np.int32))
    limit = Tensor(np.array(3.0, np.float64))
    _check(C.range(start, limit), [1.0, 2.0], np.float64)


def test_range_float_length_is_computed_in_the_dtype() -> None:
    # ceil(|limit - start| / delta) in float32, as TensorFlow's kernel does
    out = C.range(0.0, 1.0, 0.1)
    size = int(np.ceil(np.float32(1.0) / np.float32(0.1)))
    assert out._value.shape == (size,)
    expected = np.float32(0) + np.arange(size, dtype=np.float32) * np.float32(0.1)
    np.testing.assert_array_equal(out._value, expected)


def test_range_errors_use_tensorflow_wording() -> None:
    with pytest.raises(InvalidArgumentError, match="Requires delta != 0"):
        C.range(0, 5, 0)
    with pytest.raises(InvalidArgumentError, match=r"start <= limit .* 5/0"):
        C.range(5, 0)
    with pytest.raises(InvalidArgumentError, match=r"start >= limit .* 0/5"):
        C.range(0, 5, -1)
    with pytest.raises(InvalidArgumentError, match="must be a scalar"):
        C.range([1, 2])
    with pytest.raises(TypeError, match="int32, int64, float32 or float64"):
        C.range(Tensor(np.array(3, np.uint8)))


# -- eye, linspace ------------------------------------------------------------------


def test_eye_matches_numpy_and_batches() -> None:
    _check(C.eye(3), np.eye(3), np.float32)
    _check(C.eye(2, 3, dtype="int32"), np.eye(2, 3), np.int32)
    batched = C.eye(2, batch_shape=[3])
    _check(batched, np.broadcast_to(np.eye(2), (3, 2, 2)), np.float32)


def test_linspace_dtypes_and_values_follow_tensorflow() -> None:
    _check(CC.linspace(10.0, 12.0, 3), [10, 11, 12], np.float32)
    # integer endpoints are divided with truediv: float64, as in TensorFlow
    _check(CC.linspace(0, 100, 5), [0, 25, 50, 75, 100], np.float64)
    _check(CC.linspace(1.0, 2.0, 1), [1.0], np.float32)
    _check(CC.linspace(1.0, 2.0, 0), [], np.float32)


def test_linspace_of_tensors_along_an_axis() -> None:
    # the example of TensorFlow's documentation
    expected = np.array(
        [[0, 5], [2.5, 13.75], [5, 22.5], [7.5, 31.25], [10, 40]], np.float32
    )
    _check(CC.linspace([0.0, 5.0], [10.0, 40.0], 5, axis=0), expected, np.float32)
    _check(CC.linspace([0.0, 5.0], [10.0, 40.0], 5, axis=-1), expected.T, np.float32)


def test_linspace_gradients_reach_start_and_stop() -> None:
    start, stop = Variable(1.0), Variable(3.0)
    weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    with GradientTape() as tape:
        loss = reduce_sum(CC.linspace(start, stop, 5) * weights)
    g_start, g_stop = tape.gradient(loss, [start, stop])
    fraction = np.arange(5) / 4
    np.testing.assert_allclose(float(g_start), np.sum(weights * (1 - fraction)))
    np.testing.assert_allclose(float(g_stop), np.sum(weights * fraction))


def test_linspace_num_errors() -> None:
    with pytest.raises(TypeError, match="num must be a scalar integer"):
        CC.linspace(0.0, 1.0, 2.5)
    with pytest.raises(InvalidArgumentError, match="num must be >= 0"):
        CC.linspace(0.0, 1.0, -1)


# -- constant ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, kwargs, expected, dtype",
    [
        (3, {}, 3, np.int32),
        (3.0, {}, 3.0, np.float32),
        (np.float64(1), {}, 1.0, np.float64),
        (np.array([1, 2], np.int64), {}, [1, 2], np.int64),
        ([1, 2], {"dtype": "float32"}, [1.0, 2.0], np.float32),
        (True, {}, True, np.bool_),
        (2**40, {}, 2**40, np.int64),
    ],
)
def test_constant_dtypes_follow_tensorflow(value, kwargs, expected, dtype) -> None:
    _check(C.constant(value, **kwargs), expected, dtype)


def test_constant_of_a_tensor_is_that_tensor() -> None:
    t = Tensor(np.array([1.0, 2.0], np.float32))
    assert C.constant(t) is t
    assert C.constant(t, dtype="float32") is t
    with pytest.raises(TypeError, match="Expected tensor .* with dtype tf.float64"):
        C.constant(t, dtype="float64")


def test_constant_of_a_tensor_keeps_the_gradient_link() -> None:
    x = Tensor(np.array(3.0, np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        y = C.constant(x) * x
    assert float(tape.gradient(y, x)) == 6.0


def test_constant_of_a_variable_is_an_unlinked_copy() -> None:
    v = Variable([1.0, 2.0])
    with GradientTape() as tape:
        c = C.constant(v)
        y = reduce_sum(c * 2.0)
    assert tape.gradient(y, v) is None
    v.assign([5.0, 6.0])
    _check(c, [1.0, 2.0], np.float32)


def test_constant_of_a_list_of_tensors_is_unlinked() -> None:
    a = Variable(1.0)
    b = Tensor(np.array(2.0, np.float64))
    with GradientTape() as tape:
        tape.watch(b)
        c = C.constant([a, a])
        d = C.constant([b, 3.0])
    _check(c, [1.0, 1.0], np.float32)
    _check(d, [2.0, 3.0], np.float64)
    assert tape.gradient(reduce_sum(c), a) is None


def test_constant_copies_numpy_arrays() -> None:
    array = np.array([1.0, 2.0])
    t = C.constant(array)
    array[0] = 99.0
    _check(t, [1.0, 2.0], np.float64)


def test_constant_shape_fills_or_reshapes() -> None:
    _check(C.constant(0, shape=[2, 3]), np.zeros((2, 3)), np.int32)
    _check(C.constant(7.0, shape=[2]), [7.0, 7.0], np.float32)
    _check(C.constant([1, 2, 3, 4], shape=[2, 2]), [[1, 2], [3, 4]], np.int32)
    with pytest.raises(TypeError, match="unsupported shape.*has 3 elements"):
        C.constant([1, 2, 3], shape=[2, 2])


def test_constant_refuses_lossy_dtypes() -> None:
    with pytest.raises(TypeError, match="int32"):
        C.constant(1.5, dtype="int32")


# -- random values ------------------------------------------------------------------


def test_normal_statistics_dtype_and_shape() -> None:
    x = C.random_normal([200, 100], mean=3.0, stddev=2.0, seed=1)
    assert x._value.shape == (200, 100) and x._value.dtype == np.float32
    assert abs(x._value.mean() - 3.0) < 0.05
    assert abs(x._value.std() - 2.0) < 0.05
    assert C.random_normal([2], dtype="float64")._value.dtype == np.float64


def test_normal_needs_a_float_dtype() -> None:
    # as TensorFlow: the default mean 0.0 cannot become an int32
    with pytest.raises(TypeError):
        C.random_normal([2], dtype="int32")
    with pytest.raises(InvalidArgumentError, match="float dtype"):
        C.random_normal([2], mean=0, stddev=1, dtype="int32")


def test_normal_is_differentiable_in_mean_and_stddev() -> None:
    mean, stddev = Variable(1.0), Variable(2.0)
    with GradientTape() as tape:
        x = C.random_normal([50], mean=mean, stddev=stddev, seed=3)
        total = reduce_sum(x)
    g_mean, g_stddev = tape.gradient(total, [mean, stddev])
    eps = (x._value - 1.0) / 2.0  # the standard normal draws
    assert float(g_mean) == 50.0
    np.testing.assert_allclose(float(g_stddev), eps.sum(), rtol=1e-5)


def test_truncated_normal_stays_within_two_stddev() -> None:
    x = C.truncated_normal([5000], mean=1.0, stddev=0.5, seed=4)._value
    assert np.all(np.abs(x - 1.0) <= 1.0 + 1e-6)
    assert x.std() < 0.5  # truncation narrows the spread (about 0.88 stddev)


def test_uniform_bounds_and_dtypes() -> None:
    x = C.random_uniform([1000], seed=5)._value
    assert x.dtype == np.float32 and x.min() >= 0.0 and x.max() < 1.0
    y = C.random_uniform([1000], minval=-2.0, maxval=3.0, dtype="float64")._value
    assert y.dtype == np.float64 and y.min() >= -2.0 and y.max() < 3.0
    k = C.random_uniform([1000], minval=2, maxval=5, dtype="int32")._value
    assert k.dtype == np.int32 and set(np.unique(k).tolist()) == {2, 3, 4}


def test_uniform_errors() -> None:
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        C.random_uniform([2], dtype="int32")
    with pytest.raises(InvalidArgumentError, match="Need minval < maxval: 5 >= 5"):
        C.random_uniform([2], minval=5, maxval=5, dtype="int64")
    with pytest.raises(ValueError, match="invalid value"):
        C.random_uniform([2], dtype="bool")


def test_uniform_is_differentiable_in_its_bounds() -> None:
    low, high = Variable(-1.0), Variable(3.0)
    with GradientTape() as tape:
        x = C.random_uniform([40], minval=low, maxval=high, seed=6)
        total = reduce_sum(x)
    g_low, g_high = tape.gradient(total, [low, high])
    u = (x._value + 1.0) / 4.0  # the [0, 1) draws
    np.testing.assert_allclose(float(g_low), np.sum(1 - u), rtol=1e-5)
    np.testing.assert_allclose(float(g_high), np.sum(u), rtol=1e-5)


def test_shuffle_permutes_rows_and_has_no_gradient() -> None:
    x = Variable(np.arange(12.0).reshape(6, 2))
    with GradientTape() as tape:
        y = C.random_shuffle(x, seed=1)
    rows = sorted(map(tuple, y._value.tolist()))
    assert rows == sorted(map(tuple, x.numpy().tolist()))
    assert tape.gradient(y, x) is None


def test_set_seed_restarts_the_sequence() -> None:
    C.set_seed(42)
    first = [C.random_normal([3])._value, C.random_uniform([3])._value]
    C.set_seed(42)
    again = [C.random_normal([3])._value, C.random_uniform([3])._value]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    C.set_seed(42)
    C.random_normal([3])
    second_normal = C.random_normal([3])._value
    assert not np.array_equal(second_normal, first[0])


def test_an_op_seed_continues_one_stream_until_set_seed() -> None:
    a1 = C.random_uniform([4], seed=7)._value
    a2 = C.random_uniform([4], seed=7)._value
    assert not np.array_equal(a1, a2)
    C.set_seed(None)
    np.testing.assert_array_equal(C.random_uniform([4], seed=7)._value, a1)


_PROGRAM = """
from tapemagic.engine.ops import composed_creation as CC
from tapemagic.engine.ops import creation as C
{setup}
print(C.random_normal([3]{seed}).numpy().tolist(), C.random_uniform([2]{seed}).numpy().tolist())
"""  # noqa: E501


def _run_twice(setup: str, seed: str) -> tuple[str, str]:
    program = textwrap.dedent(_PROGRAM.format(setup=setup, seed=seed))
    outputs = [
        subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    return outputs[0], outputs[1]


def test_a_global_seed_reproduces_draws_across_runs() -> None:
    first, second = _run_twice("C.set_seed(1234)", "")
    assert first == second and first.strip()


def test_an_op_seed_reproduces_draws_across_runs() -> None:
    first, second = _run_twice("", ", seed=5")
    assert first == second and first.strip()


def test_without_seeds_runs_differ() -> None:
    first, second = _run_twice("", "")
    assert first != second


# -- one_hot -------------------------------------------------------------------------


def test_one_hot_follows_tensorflows_examples() -> None:
    _check(C.one_hot([0, 1, 2], 3), np.eye(3), np.float32)
    got = C.one_hot([0, 2, -1, 1], 3, on_value=5.0, off_value=0.0, axis=-1)
    _check(got, [[5, 0, 0], [0, 0, 5], [0, 0, 0], [0, 5, 0]], np.float32)
    got = C.one_hot([[0, 2], [1, -1]], 3, on_value=1.0, off_value=0.0, axis=-1)
    want = [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 0, 0]]]
    _check(got, want, np.float32)


def test_one_hot_axis_places_the_new_axis() -> None:
    indices = np.array([[0, 2], [1, 3]])
    want = np.eye(3)[np.clip(indices, 0, 2)] * (indices < 3)[..., None]
    for axis in (-1, 0, 1, 2):
        got = C.one_hot(indices, 3, axis=axis).numpy()
        where = axis % 3 if axis != -1 else 2
        np.testing.assert_array_equal(got, np.moveaxis(want, -1, where))


def test_one_hot_dtype_comes_from_dtype_then_values_then_float32() -> None:
    assert C.one_hot([1], 2).dtype.name == "float32"
    _check(C.one_hot([1], 2, on_value=7), [[0, 7]], np.int32)
    _check(C.one_hot([1], 2, off_value=-1.5), [[-1.5, 1.0]], np.float32)
    _check(C.one_hot([1], 2, dtype="float64", on_value=3.0), [[0.0, 3.0]], np.float64)
    _check(C.one_hot([0], 2, on_value=0.0, off_value=1.0), [[0.0, 1.0]], np.float32)
    _check(C.one_hot(np.array([1], np.uint8), 2, dtype="int64"), [[0, 1]], np.int64)


def test_one_hot_errors() -> None:
    with pytest.raises(TypeError, match="does not match dtype parameter"):
        C.one_hot([1], 2, on_value=Tensor(np.float64(1.0)), dtype="float32")
    with pytest.raises(TypeError, match="of on_value does not match dtype int32"):
        C.one_hot([1], 2, on_value=1.0, off_value=0)
    with pytest.raises(InvalidArgumentError, match="attr 'TI' of float.*tf.int32"):
        C.one_hot([1.0], 2)
    with pytest.raises(InvalidArgumentError, match="depth must be non-negative"):
        C.one_hot([1], -1)
    with pytest.raises(InvalidArgumentError, match="expected axis to be -1"):
        C.one_hot([1], 2, axis=2)
    with pytest.raises(InvalidArgumentError, match="on_value must be a scalar"):
        C.one_hot([1], 2, on_value=[1.0, 2.0])


def test_one_hot_is_not_differentiable() -> None:
    # TensorFlow registers OneHot as not differentiable, also in on/off values
    on = Variable(2.0)
    off = Variable(-1.0)
    with GradientTape() as tape:
        y = reduce_sum(C.one_hot([0, 1], 2, on_value=on, off_value=off))
    assert tape.gradient(y, [on, off]) == [None, None]


def test_one_hot_is_exported() -> None:
    import tapemagic.tf as tf

    assert tf.one_hot is C.one_hot
