"""Differences the programs against TensorFlow found, each kept as a plain test.

Every expected string, value, ``None`` and error class here is what
tensorflow-cpu 2.21.0 printed for the same code (run under TensorFlow, then
pinned); these tests need no TensorFlow. docs/RELIABILITY.md lists them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf

ZEROS_2x2x2 = """array([[[0., 0.],
        [0., 0.]],

       [[0., 0.],
        [0., 0.]]]"""


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # watching an integer warns, as in TF
        yield


def test_an_integer_target_is_its_own_gradient():
    v0 = tf.constant(3)
    b = tf.constant([True, False])
    with tf.GradientTape(persistent=True) as tape:
        v1 = tf.negative(v0)
    assert repr(tape.gradient(v0, [v0, v1])) == (
        "[<tf.Tensor: shape=(), dtype=int32, numpy=1>, None]"
    )
    seeded = tape.gradient(v0, v0, output_gradients=tf.constant(5))
    assert repr(seeded) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(tape.gradient(b, b)) == (
        "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True,  True])>"
    )
    assert repr(tape.gradient([v0, v0], v0)) == (
        "<tf.Tensor: shape=(), dtype=int32, numpy=2>"
    )
    zero = tape.gradient(v1, v0, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert repr(zero) == "<tf.Tensor: shape=(), dtype=int32, numpy=0>"


def test_the_jacobian_of_a_target_the_tape_never_saw_is_unconnected():
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(w)
    assert tape.jacobian(c, c) is None
    zeros = tape.jacobian(c, c, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zeros.shape == (2, 2, 2, 2) and not np.any(zeros.numpy())
    watched = tape.jacobian(w, w).numpy()
    np.testing.assert_array_equal(watched.reshape(4, 4), np.eye(4))
    assert repr(tape.batch_jacobian(c, c)) == (
        f"<tf.Tensor: shape=(2, 2, 2), dtype=float32, numpy=\n{ZEROS_2x2x2}, "
        "dtype=float32)>"
    )


def test_batch_jacobian_is_never_none():
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
    i = tf.constant([[1, 2], [3, 4]])
    zero = tf.UnconnectedGradients.ZERO
    with tf.GradientTape(persistent=True) as tape:
        y = c * 2.0
    head = "<tf.Tensor: shape=(2, 2, 2), dtype="
    f32 = f"{head}float32, numpy=\n{ZEROS_2x2x2}, dtype=float32)>"
    f64 = f"{head}float64, numpy=\n{ZEROS_2x2x2})>"
    # zeros in the target's dtype, or in the source's when zeros are asked for
    assert repr(tape.batch_jacobian(y, c)) == f32
    assert repr(tape.batch_jacobian(y, w)) == f32
    assert repr(tape.batch_jacobian(y, w, unconnected_gradients=zero)) == f64
    assert repr(tape.batch_jacobian(y, i)) == f32
    ints = tape.batch_jacobian(y, i, unconnected_gradients=zero)
    assert (ints.dtype, ints.shape) == (tf.int32, (2, 2, 2))
    cast = tape.batch_jacobian(tf.cast(c, tf.int32), tf.cast(c, tf.int32))
    assert (cast.dtype, cast.shape) == (tf.int32, (2, 2, 2))


@pytest.mark.parametrize("divide", [tf.math.floordiv, tf.math.floormod])
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_an_integer_division_by_zero_raises(divide, dtype):
    x, y = tf.constant([1, 2], dtype), tf.constant([0, 1], dtype)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="Integer division by zero"
    ):
        divide(x, y)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="Integer division by zero"
    ):
        x // y if divide is tf.math.floordiv else x % y


def test_a_float_division_by_zero_is_still_inf_or_nan():
    q = tf.math.floordiv(tf.constant([1.0, 0.0]), tf.constant([0.0, 0.0]))
    assert repr(q) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([inf, nan], dtype=float32)>"
    )


def test_slogdet_returns_a_named_tuple():
    r = tf.linalg.slogdet(
        tf.constant([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0], [1.0, 1.0]]])
    )
    assert repr(r) == (
        "LogMatrixDeterminant(sign=<tf.Tensor: shape=(2,), dtype=float32, "
        "numpy=array([-1.,  0.], dtype=float32)>, log_abs_determinant=<tf.Tensor: "
        "shape=(2,), dtype=float32, numpy=array([0.6931472,      -inf], "
        "dtype=float32)>)"
    )
    assert r.sign is r[0] and r.log_abs_determinant is r[1]


SAME_SHAPE = {
    "reshape": lambda x: tf.reshape(x, [1, 2]),
    "transpose": lambda x: tf.transpose(x, perm=[0, 1]),
    "broadcast_to": lambda x: tf.broadcast_to(x, [1, 2]),
    "tile": lambda x: tf.tile(x, [1, 1]),
    "pad": lambda x: tf.pad(x, [[0, 0], [0, 0]]),
    "reverse": lambda x: tf.reverse(x, axis=[]),
    "concat": lambda x: tf.concat([x], axis=0),
    "squeeze": lambda x: tf.squeeze(x, axis=[]),
}


@pytest.mark.parametrize("op", SAME_SHAPE)
def test_a_shape_op_that_changes_nothing_still_makes_a_new_tensor(op):
    # an unwatched x: the op's result is not x, so its gradient is None
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = SAME_SHAPE[op](x)
    assert y is not x
    assert tape.gradient(y, x) is None
    w = tf.Variable([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = SAME_SHAPE[op](w)
    assert repr(tape.gradient(y, w)) == (
        "<tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[1., 1.]], "
        "dtype=float32)>"
    )


def test_a_variable_cast_to_its_own_dtype_is_the_variable():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        y = tf.cast(v, tf.float32)
        z = y * 2.0
    assert y is v
    assert repr(y) == (
        "<tf.Variable 'Variable:0' shape=(2,) dtype=float32, "
        "numpy=array([1., 2.], dtype=float32)>"
    )
    # the cast read nothing: the unwatched variable gets no gradient through z
    assert tape.gradient(z, v) is None
    assert repr(tape.gradient(y, v)) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 1.], dtype=float32)>"
    )
    # what assign returns is read, as TensorFlow does
    assert tf.cast(v.assign([3.0, 4.0]), tf.float32) is not v
    assert tf.cast(v, tf.float64).dtype == tf.float64


@pytest.mark.parametrize(
    "values, largest, smallest",
    [
        ([-2.0, np.nan, 1.9], 2, 0),
        ([np.nan, -2.0, 1.9], 2, 1),
        ([np.nan, -np.inf], 0, 1),
        ([np.nan, np.inf], 1, 0),
        ([np.nan, np.nan, 1.0], 2, 2),
        ([np.nan, np.nan], 0, 0),
    ],
)
def test_argmax_and_argmin_pass_over_nan(values, largest, smallest):
    for dtype in (tf.float32, tf.float64):
        x = tf.constant(values, dtype)
        assert int(tf.argmax(x)) == largest
        assert int(tf.argmin(x)) == smallest


def test_argmax_and_argmin_pass_over_nan_along_an_axis():
    m = tf.constant([[np.nan, 1.0, 2.0], [2.0, np.nan, -1.0]])
    assert tf.argmax(m, axis=0).numpy().tolist() == [1, 0, 0]
    assert tf.argmax(m, axis=1).numpy().tolist() == [2, 0]
    assert tf.argmin(m, axis=0).numpy().tolist() == [1, 0, 1]
    assert tf.argmin(m, axis=1).numpy().tolist() == [1, 2]


NOT_DIFFERENTIABLE = {
    "round": tf.round,
    "floor": tf.floor,
    "ceil": tf.math.ceil,
    "ones_like": tf.ones_like,
    "zeros_like": tf.zeros_like,
    "floordiv": lambda a: a // 2.0,
}


@pytest.mark.parametrize("op", NOT_DIFFERENTIABLE)
def test_the_output_of_an_op_without_a_gradient_stays_on_the_tape(op):
    # TensorFlow records the op (its gradient is None): a later op on its
    # output is recorded, and the gradient with respect to the output is not None
    x = tf.constant([1.5, -2.0])
    w = tf.constant([3.0, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = NOT_DIFFERENTIABLE[op](x)
        z = y * w
    assert repr(tape.gradient(z, y)) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 4.], dtype=float32)>"
    )
    assert tape.gradient(z, x) is None


def test_stop_gradient_and_integer_results_leave_the_tape():
    x = tf.constant([1.5, -2.0])
    w = tf.constant([3.0, 4.0])
    for cut in (
        tf.stop_gradient,
        lambda a: tf.cast(tf.cast(a, tf.int32), tf.float32),
        lambda a: tf.cast(a > 0, tf.float32),
    ):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = cut(x)
            z = y * w
        assert tape.gradient(z, y) is None


def test_float_floordiv_is_the_floor_of_the_quotient_and_floormod_follows_fmod():
    inf = np.inf
    x = tf.constant(
        [1.0, -inf, inf, 5.0, -5.0, 0.0, 7.0, inf, 1.0, -0.0, 3.0], tf.float64
    )
    y = tf.constant(
        [0.1, 0.5, 2.0, inf, inf, 0.0, -2.0, inf, -0.0, 1.0, -inf], tf.float64
    )
    assert repr(tf.math.floordiv(x, y).numpy()) == (
        "array([ 10., -inf,  inf,   0.,  -0.,  nan,  -4.,  nan, -inf,  -0.,  -0.])"
    )
    assert repr((x // y).numpy()) == repr(tf.math.floordiv(x, y).numpy())
    assert repr(tf.math.floormod(x, y).numpy()) == (
        "array([ 0.1,  nan,  nan,  5. ,  inf,  nan, -1. ,  nan,  nan, -0. , -inf])"
    )


@pytest.mark.parametrize("watch_accessed", [True, False])
@pytest.mark.parametrize("trainable", [True, False])
def test_a_jacobian_reads_a_variable_target_on_the_tape(watch_accessed, trainable):
    # TensorFlow reshapes the target on the tape first: that reads the variable,
    # which a tape watching accessed variables then watches (if trainable)
    v = tf.Variable([1.0, 2.0], trainable=trainable)
    m = tf.Variable([[1.0, 2.0]], trainable=trainable)
    with tf.GradientTape(
        persistent=True, watch_accessed_variables=watch_accessed
    ) as tape:
        pass
    jac, batch = tape.jacobian(v, v), tape.batch_jacobian(m, m)
    if watch_accessed and trainable:
        assert jac.numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
        assert batch.numpy().tolist() == [[[1.0, 0.0], [0.0, 1.0]]]
    else:
        assert jac is None
        assert batch.numpy().tolist() == [[[0.0, 0.0], [0.0, 0.0]]]
    assert tape.gradient(v, v).numpy().tolist() == [1.0, 1.0]


def test_clip_by_value_is_the_minimum_then_the_maximum():
    # maximum(minimum(t, hi), lo): a lower bound above the upper one wins, and
    # a NaN's gradient goes to the lower bound
    nan = np.nan
    t = tf.constant([0.0, 2.0, -3.0, nan, 1.0, 0.5, -1.0, 5.0])
    lo = tf.constant([0.0, 1.0, -1.0, 0.0, 1.0, 2.0, -1.0, 6.0])
    hi = tf.constant([-1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch([t, lo, hi])
        y = tf.clip_by_value(t, lo, hi)
    assert repr(y.numpy()) == (
        "array([ 0.,  1., -1., nan,  1.,  2., -1.,  6.], dtype=float32)"
    )
    g_t, g_lo, g_hi = tape.gradient(y, [t, lo, hi])
    assert g_t.numpy().tolist() == [0, 0, 0, 0, 1, 0, 1, 0]
    assert g_lo.numpy().tolist() == [1, 0, 1, 1, 0, 1, 0, 1]
    assert g_hi.numpy().tolist() == [0, 1, 0, 0, 0, 0, 0, 0]


# -- which dtypes an op accepts ----------------------------------------------------
# Each op declares TensorFlow's list (tapemagic/engine/accepts.py); what follows
# is what tensorflow-cpu 2.21.0 raised or printed, its message's first line.

FLOATING = "bfloat16, half, float, double, complex64, complex128"
NN_FLOATING = "half, bfloat16, float, double"
I32 = tf.constant([-1, 2])
B = tf.constant([True, False])


def _refused(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert type(caught.value).__name__ == error.__name__
    assert str(caught.value).startswith(message), str(caught.value)
    return str(caught.value)


def _attr(dtype, allowed, attr="T"):
    return (
        f"Value for attr '{attr}' of {dtype} is not in the list of allowed values: "
        f"{allowed}"
    )


@pytest.mark.parametrize(
    "fn", [tf.sin, tf.exp, tf.sqrt, tf.tanh, tf.sigmoid, tf.math.log, tf.math.rsqrt]
)
def test_floating_point_functions_refuse_integers(fn):
    # formerly a float64 result
    said = _refused(
        lambda: fn(I32), tf.errors.InvalidArgumentError, _attr("int32", FLOATING)
    )
    assert said.endswith("Cast it first: tf.cast(x, tf.float32).")
    _refused(lambda: fn(1), tf.errors.InvalidArgumentError, _attr("int32", FLOATING))
    _refused(lambda: fn(B), tf.errors.InvalidArgumentError, _attr("bool", FLOATING))


def test_reciprocal_of_integers_has_no_kernel():
    _refused(
        lambda: tf.math.reciprocal(I32),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node Reciprocal}} = Reciprocal[T=DT_INT32]",
    )
    _refused(
        lambda: tf.linalg.det(tf.ones((2, 2), tf.float16)),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node MatrixDeterminant}} = "
        "MatrixDeterminant[T=DT_HALF]",
    )


@pytest.mark.parametrize(
    "fn", [tf.nn.softplus, tf.nn.elu, tf.nn.selu, tf.nn.softmax, tf.nn.log_softmax]
)
def test_floating_point_nn_functions_refuse_integers(fn):
    # formerly TypeError
    _refused(
        lambda: fn(I32), tf.errors.InvalidArgumentError, _attr("int32", NN_FLOATING)
    )


def test_gelu_refuses_integers_with_value_error():
    _refused(
        lambda: tf.nn.gelu(I32),
        ValueError,
        "`features.dtype` must be a floating point tensor.Received:"
        "features.dtype=<dtype: 'int32'>",
    )


def test_integer_activations_compute_as_tensorflow():
    assert repr(tf.abs(I32)) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    )
    assert repr(tf.sign(I32)) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([-1,  1], dtype=int32)>"
    )
    assert repr(tf.nn.relu6(tf.constant([-1, 9]))) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([0, 6], dtype=int32)>"
    )
    assert repr(tf.nn.leaky_relu(I32)) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([-0.2,  2. ], "
        "dtype=float32)>"
    )
    assert repr(tf.round(tf.constant([1, 2], tf.int8))) == (
        "<tf.Tensor: shape=(2,), dtype=int8, numpy=array([1, 2], dtype=int8)>"
    )
    # round of an integer tensor is the tensor itself: its own gradient's seed
    with tf.GradientTape() as tape:
        rounded = tf.round(I32)
    assert rounded is I32
    assert repr(tape.gradient(rounded, I32)) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 1], dtype=int32)>"
    )


def test_arithmetic_refuses_bools_but_star_is_their_logical_and():
    add = "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, "
    _refused(lambda: B + B, tf.errors.InvalidArgumentError, _attr("bool", add))
    _refused(lambda: -B, tf.errors.InvalidArgumentError, _attr("bool", "bfloat16"))
    _refused(lambda: B < B, tf.errors.InvalidArgumentError, _attr("bool", "float"))
    _refused(
        lambda: tf.maximum(B, B), tf.errors.InvalidArgumentError, _attr("bool", "")
    )
    _refused(lambda: tf.multiply(B, B), tf.errors.InvalidArgumentError, "Value for")
    _refused(lambda: B / B, TypeError, "Invalid dtype tf.bool in __truediv__.")
    for product in (B * B, True * B, B * True):
        assert repr(product) == (
            "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>"
        )


def test_logical_ops_refuse_numbers():
    _refused(
        lambda: tf.logical_and(I32, I32),
        tf.errors.InvalidArgumentError,
        "cannot compute LogicalAnd as input #0(zero-based) was expected to be a "
        "bool tensor but is a int32 tensor [Op:LogicalAnd]",
    )
    _refused(
        lambda: tf.logical_and([1, 2], [1, 0]),
        TypeError,
        "Cannot convert [1, 2] to EagerTensor of dtype bool",
    )
    # the Python values are converted first, then the tensors
    _refused(
        lambda: tf.logical_and(I32, 0),
        TypeError,
        "Cannot convert 0 to EagerTensor of dtype bool",
    )
    _refused(
        lambda: tf.logical_and(I32, [True, False]),
        ValueError,
        "Tensor conversion requested dtype bool for ",
    )
    # a NumPy value is cast to bool, a tensor is not
    assert repr(tf.logical_not(np.array([1, 0]))) == (
        "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>"
    )
    _refused(
        lambda: tf.logical_and(I32, np.array([0, 1], np.int32)),
        tf.errors.InvalidArgumentError,
        "cannot compute LogicalAnd as input #0(zero-based) was expected to be a "
        "bool tensor but is a int32 tensor",
    )
    _refused(
        lambda: tf.reduce_any([1.0, 0.0]),
        TypeError,
        "Cannot convert [1.0, 0.0] to EagerTensor of dtype bool",
    )
    # an int or no axis: the op refuses the tensor; a list of axes: TensorFlow
    # converts every input to bool first, and cannot
    zero = tf.constant([0])
    _refused(
        lambda: tf.reduce_any(zero, axis=0),
        tf.errors.InvalidArgumentError,
        "cannot compute Any as input #0(zero-based) was expected to be a bool "
        "tensor but is a int32 tensor [Op:Any]",
    )
    _refused(
        lambda: tf.reduce_all(zero, axis=[0]),
        ValueError,
        "Tensor conversion requested dtype bool for ",
    )


def test_reductions_and_scans_refuse_what_tensorflow_refuses():
    number = "float, double, int32, uint8, int16, int8, complex64, int64"
    for fn in (tf.reduce_sum, tf.cumsum):
        _refused(
            lambda fn=fn: fn(B), tf.errors.InvalidArgumentError, _attr("bool", number)
        )
    _refused(
        lambda: tf.reduce_logsumexp(I32),
        tf.errors.InvalidArgumentError,
        _attr("int32", "bfloat16, half, float, double"),
    )
    _refused(
        lambda: tf.math.reduce_variance(I32),
        TypeError,
        "Input must be either real or complex. Received integer type <dtype: 'int32'>.",
    )
    _refused(lambda: tf.sort(B), tf.errors.InvalidArgumentError, _attr("bool", ""))
    _refused(lambda: tf.math.top_k(B), tf.errors.InvalidArgumentError, "Value for")
    _refused(
        lambda: tf.one_hot([1.0], 2),
        tf.errors.InvalidArgumentError,
        _attr("float", "uint8, int8, int32, int64", attr="TI"),
    )


def test_matrix_ops_take_tensorflows_dtypes():
    _refused(
        lambda: tf.linalg.inv(tf.constant([[1, 0], [0, 1]])),
        tf.errors.InvalidArgumentError,
        _attr("int32", "double, float, half, complex64, complex128"),
    )
    i8 = tf.ones((2, 2), tf.int8)
    _refused(lambda: tf.matmul(i8, i8), tf.errors.InvalidArgumentError, "Value for")
    u8 = tf.ones((2, 2), tf.uint8)
    _refused(
        lambda: tf.matmul(u8, u8),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node MatMul}} = MatMul[T=DT_UINT8",
    )
    bools = tf.ones((2, 2), tf.bool)
    _refused(
        lambda: tf.einsum("ij,jk->ik", bools, bools),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node Einsum}} = Einsum[",
    )
    half = tf.linalg.inv(tf.constant([[2.0, 0.0], [0.0, 4.0]], tf.float16))
    assert repr(half) == (
        "<tf.Tensor: shape=(2, 2), dtype=float16, numpy=\n"
        "array([[0.5 , 0.  ],\n       [0.  , 0.25]], dtype=float16)>"
    )


def test_integer_moments_divisions_and_bool_padding():
    assert repr(tf.nn.moments(tf.constant([1, 2, 4]), axes=[0])) == (
        "(<tf.Tensor: shape=(), dtype=int32, numpy=2>, "
        "<tf.Tensor: shape=(), dtype=int32, numpy=1>)"
    )
    _refused(
        lambda: tf.nn.moments(tf.constant([1, 2, 4], tf.int8), axes=[0]),
        tf.errors.InvalidArgumentError,
        _attr("int8", "bfloat16, half, float, double, int32, int64, complex64"),
    )
    eights = tf.math.divide_no_nan(
        tf.constant([3, 1], tf.int8), tf.constant([2, 0], tf.int8)
    )
    assert repr(eights) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 0. ], dtype=float32)>"
    )
    assert repr(tf.pad(B, [[1, 0]])) == (
        "<tf.Tensor: shape=(3,), dtype=bool, numpy=array([False,  True, False])>"
    )
