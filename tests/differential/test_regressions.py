"""Differences the programs against TensorFlow found, each kept as a plain test:
values, gradients and the tape (second derivatives and dtypes are in the
modules beside).

Every expected string, value, ``None`` and error class here is what
tensorflow-cpu 2.21.0 printed for the same code (run under TensorFlow, then
pinned); these tests need no TensorFlow. docs/RELIABILITY.md lists them.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf

pytestmark = pytest.mark.usefixtures("quiet")

ZEROS_2x2x2 = """array([[[0., 0.],
        [0., 0.]],

       [[0., 0.],
        [0., 0.]]]"""


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


def test_the_order_argsort_and_top_k_give_has_a_gradient_of_zeros():
    # TensorFlow sorts with top_k, whose gradient scatters the values' cotangent
    # (none here): zeros, -0. when ascending (it sorts the negated values). Its
    # tape records no op whose watched inputs are all integers, so a transpose
    # (argsort on another axis) or a cast of the order cuts the path: None.
    v = tf.Variable([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], dtype=tf.float64)
    x = tf.constant([2.0, 1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        up = tf.argsort(v)
        down = tf.argsort(x, direction="DESCENDING")
        other_axis = tf.argsort(v, axis=0, direction="DESCENDING")
        top = tf.math.top_k(v, 2)
        cast = tf.cast(up, tf.float64) * v
        halves = up / 2
    assert repr(tape.gradient(up, v)) == (
        "<tf.Tensor: shape=(2, 3), dtype=float64, numpy=\n"
        "array([[-0., -0., -0.],\n       [-0., -0., -0.]])>"
    )
    assert repr(tape.gradient(down, x)) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>"
    )
    assert repr(tape.gradient(top.indices, v)) == (
        "<tf.Tensor: shape=(2, 3), dtype=float64, numpy=\n"
        "array([[0., 0., 0.],\n       [0., 0., 0.]])>"
    )
    assert repr(tape.gradient(cast, v)) == (
        "<tf.Tensor: shape=(2, 3), dtype=float64, numpy=\n"
        "array([[1., 2., 0.],\n       [0., 2., 1.]])>"
    )
    for cut in (other_axis, top.indices[0], tf.transpose(top.indices), halves):
        assert tape.gradient(cut, v) is None
    assert tape.jacobian(up, v) is None
    assert repr(tape.batch_jacobian(up, v)) == (
        "<tf.Tensor: shape=(2, 3, 3), dtype=int32, numpy=\n"
        "array([[[0, 0, 0],\n        [0, 0, 0],\n        [0, 0, 0]],\n\n"
        "       [[0, 0, 0],\n        [0, 0, 0],\n        [0, 0, 0]]], dtype=int32)>"
    )


def test_a_cross_entropy_over_no_classes_is_zero():
    x = tf.zeros([2, 0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.softmax_cross_entropy_with_logits(x, x)
        by_rows = tf.nn.softmax_cross_entropy_with_logits(
            tf.zeros([0, 3]), tf.zeros([0, 3]), axis=0
        )
    assert repr(loss) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>"
    )
    assert repr(by_rows) == (
        "<tf.Tensor: shape=(3,), dtype=float32, numpy=array([0., 0., 0.], "
        "dtype=float32)>"
    )
    assert repr(tape.gradient(loss, x)) == (
        "<tf.Tensor: shape=(2, 0), dtype=float32, numpy=array([], shape=(2, 0), "
        "dtype=float32)>"
    )


def test_rsqrt_sqrt_and_reciprocal_gradients_multiply_without_nan():
    # TensorFlow's RsqrtGrad, SqrtGrad and ReciprocalGrad use mul_no_nan: a
    # zero cotangent (or, for rsqrt, a zero output) gives 0 where the slope is
    # inf or NaN; rsqrt multiplies -0.5 * out^2 by out * g, so at -0. the sign
    # of its infinity follows that order. Second derivatives included.
    x = tf.constant([-1.5, -0.0, 0.0, 4.0, np.inf, np.nan, 1.0, -0.0, 2.0])
    g = tf.constant([1.0, -1.5, 2.0, 0.0, 1.0, 0.0, -0.0, 0.0, 3.0])
    nan, inf = np.nan, np.inf
    expected = {
        tf.math.rsqrt: (
            [nan, -inf, -inf, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5303300023078918],
            [nan, inf, inf, 0.0, 0.0, nan, 0.0, nan, 0.3977474868297577],
        ),
        tf.math.sqrt: (
            [nan, inf, inf, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0606602430343628],
            [nan, -inf, -inf, 0.0, 0.0, nan, 0.0, nan, -0.2651650607585907],
        ),
        tf.math.reciprocal: (
            [-0.444444477558136, inf, -inf, 0.0, -0.0, 0.0, 0.0, 0.0, -0.75],
            [-0.5925926566123962, inf, inf, 0.0, 0.0, nan, 0.0, nan, 0.75],
        ),
    }
    for f, (first, second) in expected.items():
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            d = tape.gradient(y, x, output_gradients=g)
        dd = outer.gradient(d, x)
        np.testing.assert_array_equal(d.numpy(), np.float32(first))
        numbers = ~np.isnan(first)
        signs = np.signbit(d.numpy())[numbers]
        np.testing.assert_array_equal(signs, np.signbit(first)[numbers])
        np.testing.assert_allclose(dd.numpy(), np.float32(second), rtol=1e-6)


def test_elu_and_selu_compute_exp_minus_one_as_tensorflows_kernels():
    # exp(x) - 1, not expm1: a tiny negative x gives 0 (its sign kept at -0.),
    # and the gradient, read from the output, is then the slope above 0
    x = tf.constant([-7e-169, -1e-9, -0.0, -2.0], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        selu, elu = tf.nn.selu(x), tf.nn.elu(x)
    assert selu.numpy()[0] == 0.0 and np.signbit(selu.numpy()[2])
    np.testing.assert_allclose(
        tape.gradient(selu, x).numpy(),
        [1.0507009873554805, 1.7580993390892776, 1.0507009873554805,
         0.2379328722516818],
        rtol=1e-12,
    )  # fmt: skip
    assert elu.numpy()[0] == 0.0 and np.signbit(elu.numpy()[2])
    x32 = tf.constant([-1e-9, -1e-30])
    assert tf.nn.selu(x32).numpy().tolist() == [0.0, 0.0]


def test_pow_to_one_half_is_c_pow_not_sqrt():
    # NumPy takes a scalar exponent of 0.5 as sqrt; TensorFlow's pow is C's
    x = tf.constant([-np.inf, -0.0, 0.0, 4.0, -4.0, np.inf, np.nan])
    assert repr(tf.pow(x, 0.5)) == (
        "<tf.Tensor: shape=(7,), dtype=float32, numpy=array([inf,  0.,  0.,  2., "
        "nan, inf, nan], dtype=float32)>"
    )
    assert repr(x**0.5) == repr(tf.pow(x, 0.5))
    assert tf.pow(tf.constant(-np.inf), tf.constant([[0.5]])).numpy().tolist() == [
        [np.inf]
    ]


def test_erf_keeps_the_sign_of_zero():
    x = tf.constant([-0.0, 0.0, -1e-30])
    assert np.signbit(tf.math.erf(x).numpy()).tolist() == [True, False, True]
    assert np.signbit(tf.nn.gelu(x).numpy()).tolist() == [True, False, True]
