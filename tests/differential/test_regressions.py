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


def _second_order(fn, x, seed=None):
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = fn(x)
        g = inner.gradient(y, x, output_gradients=None if seed is None else seed(x))
    return g, outer.gradient(g, x)


@pytest.mark.parametrize(
    "fn, first, seeded, seeded_second",
    [
        (
            tf.nn.relu6,
            "[0., 0., 1., 1., 0., 0.]",
            "[0.  , 0.  , 0.25, 9.  , 0.  , 0.  ]",
            "[0., 0., 1., 6., 0., 0.]",
        ),
        (
            lambda t: tf.nn.leaky_relu(t, alpha=0.3),
            "[0.3, 0.3, 1. , 1. , 1. , 1. ]",
            "[ 0.3 ,  0.  ,  0.25,  9.  , 36.  , 49.  ]",
            "[-0.6,  0. ,  1. ,  6. , 12. , 14. ]",
        ),
    ],
    ids=["relu6", "leaky_relu"],
)
def test_the_second_derivative_of_relu6_and_leaky_relu_is_zeros(
    fn, first, seeded, seeded_second
):
    # their gradients are primitives (Relu6Grad, LeakyReluGrad) whose own
    # gradient is zeros with respect to the mask's input, linear in g
    x = tf.Variable([-1.0, 0.0, 0.5, 3.0, 6.0, 7.0])
    g, second = _second_order(fn, x)
    assert repr(g.numpy()) == f"array({first}, dtype=float32)"
    assert repr(second) == (
        "<tf.Tensor: shape=(6,), dtype=float32, numpy=array([0., 0., 0., 0., 0., 0.], "
        "dtype=float32)>"
    )
    g, second = _second_order(fn, x, seed=lambda v: v * v)
    assert repr(g.numpy()) == f"array({seeded}, dtype=float32)"
    assert repr(second.numpy()) == f"array({seeded_second}, dtype=float32)"
    # NaN in g stays NaN where masked: the kernels multiply or select
    with tf.GradientTape() as tape:
        y = fn(x)
    nan = tape.gradient(y, x, output_gradients=tf.fill([6], np.nan))
    assert repr(nan.numpy()) == "array([nan, nan, nan, nan, nan, nan], dtype=float32)"


def test_the_second_derivative_of_max_pool2d_is_zeros():
    # the argmax is piecewise constant in the input: MaxPoolGradGrad gives zeros
    x = tf.Variable([[[[1.0], [3.0]], [[2.0], [0.5]]]])
    g, second = _second_order(
        lambda t: tf.nn.max_pool2d(t, ksize=2, strides=1, padding="SAME"), x
    )
    assert g.numpy().ravel().tolist() == [0.0, 2.0, 1.0, 1.0]
    assert repr(second) == (
        "<tf.Tensor: shape=(1, 2, 2, 1), dtype=float32, numpy=\n"
        "array([[[[0.],\n         [0.]],\n\n        [[0.],\n         [0.]]]], "
        "dtype=float32)>"
    )


@pytest.mark.parametrize(
    "values, first, second",
    [
        ([0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ([0.0, 2.0, 3.0], [6.0, 0.0, 0.0], [0.0, 3.0, 2.0]),
        ([3.0, -np.inf], [-np.inf, 3.0], [1.0, np.nan]),
        (0.0, 1.0, 0.0),
    ],
)
def test_the_second_derivative_of_reduce_prod_is_zero_at_a_zero(values, first, second):
    # TensorFlow's product gradient is two exclusive cumprods, whose gradients
    # divide by the input with div_no_nan: 0 at a zero, and no inf - inf
    x = tf.Variable(values)
    g, dg = _second_order(tf.reduce_prod, x)
    np.testing.assert_array_equal(g.numpy(), np.float32(first))
    np.testing.assert_array_equal(dg.numpy(), np.float32(second))


def test_the_second_derivative_of_reduce_prod_along_an_axis():
    x = tf.Variable([[0.0, 2.0], [np.inf, 0.5]])
    g, dg = _second_order(
        lambda t: tf.reduce_prod(t, axis=0), x, seed=lambda t: tf.constant([1.0, 2.0])
    )
    assert repr(g.numpy()) == ("array([[inf,  1.],\n       [ 0.,  4.]], dtype=float32)")
    assert repr(dg.numpy()) == (
        "array([[ 0.,  2.],\n       [nan,  2.]], dtype=float32)"
    )


def test_a_second_derivative_through_softmax_cross_entropy_holds_labels_constant():
    # the logits' gradient is the kernel's backprop output, softmax - labels,
    # whose own gradient gives the labels zeros (NaN at a -inf logit), not -1
    labels = tf.Variable([[0.2, 0.8], [0.5, 0.5]])
    logits = tf.Variable([[1.0, -np.inf], [0.0, 3.0]])
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            y = tf.nn.softmax_cross_entropy_with_logits(labels, logits)
        g = inner.gradient(y, logits)
    assert repr(g.numpy()) == (
        "array([[ 0.8       , -0.8       ],\n"
        "       [-0.45257413,  0.45257413]], dtype=float32)"
    )
    assert repr(outer.gradient(g, labels)) == (
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\n"
        "array([[-0., nan],\n       [ 0.,  0.]], dtype=float32)>"
    )
    assert outer.gradient(g, logits).numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    x = tf.Variable([[-2.5], [1.0]])
    g, second = _second_order(
        lambda t: tf.nn.softmax_cross_entropy_with_logits(t, t), x
    )
    assert g.numpy().tolist() == [[3.5], [0.0]]
    assert repr(second) == (
        "<tf.Tensor: shape=(2, 1), dtype=float32, numpy=\n"
        "array([[0.],\n       [0.]], dtype=float32)>"
    )


def test_a_second_derivative_through_softmax_cross_entropy_is_nan_at_bad_labels():
    # the backprop's gradient adds the loss's gradient (zeros) times the
    # backprop, which is inf or NaN where the labels are
    labels = tf.constant([[1.0, 0.0, -np.inf], [1.0, 0.5, np.nan]])
    logits = tf.Variable([[0.0, -1.0, -1e4], [1e-5, 1e4, -1e4]])
    g, second = _second_order(
        lambda t: tf.nn.softmax_cross_entropy_with_logits(labels, t), logits
    )
    np.testing.assert_allclose(
        g.numpy(), [[-0.2689414, 0.26894143, np.inf], [-1.0, 0.5, np.nan]], rtol=1e-6
    )
    assert repr(second) == (
        "<tf.Tensor: shape=(2, 3), dtype=float32, numpy=\n"
        "array([[ 0.,  0., nan],\n       [ 0.,  0., nan]], dtype=float32)>"
    )


@pytest.mark.parametrize(
    "fn, value, first, second, float32",
    [
        (
            tf.nn.elu,
            [0.0, -1.000000082740371e-10, -0.0, -0.8646647167633873],
            [1.0, 0.9999999999, 1.0, 0.1353352832366127],
            [0.0, 0.9999999999, 0.0, 0.1353352832366127],
            "array([-1.001358e-05,  0.000000e+00, -0.000000e+00], dtype=float32",
        ),
        (
            tf.nn.selu,
            [0.0, -1.7580994863131687e-10, -0.0, -1.520166468595695],
            [
                1.0507009873554805,
                1.7580993406715668,
                1.0507009873554805,
                0.2379328722516818,
            ],
            [0.0, 1.7580993406715668, 0.0, 0.2379328722516818],
            "array([-1.7604869e-05,  0.0000000e+00, -0.0000000e+00], dtype=float32",
        ),
    ],
    ids=["elu", "selu"],
)
def test_elu_and_selu_are_exp_minus_one_below_zero(fn, value, first, second, float32):
    # TensorFlow's kernels compute exp(x) - 1, not expm1: a tiny negative x
    # gives 0, which takes the gradient's branch of a non-negative output
    x = tf.Variable([-1e-169, -1e-10, -0.0, -2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = fn(x)
        g = inner.gradient(y, x)
    assert y.numpy().tolist() == value
    assert np.signbit(y.numpy()).tolist() == [False, True, True, True]
    assert g.numpy().tolist() == first
    assert outer.gradient(g, x).numpy().tolist() == second
    printed = repr(fn(tf.constant([-1e-5, -1e-30, -0.0])))
    assert printed == f"<tf.Tensor: shape=(3,), dtype=float32, numpy={float32})>"


# what TensorFlow printed for g, d g / dx and d g / dw, where g is the gradient
# of fn(x) with output_gradients w - 1 (0 where w is 1)
_AT_A_ZERO_GRADIENT = {
    "sqrt": (
        tf.sqrt,
        [0.0, -np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, np.nan, 0.0],
        [np.nan, np.inf, 0.0, 0.0, np.nan, 0.0, np.nan, np.nan, 0.0],
        [np.inf, -np.inf, 0.5, 0.2886751345948129, np.nan, 0.0, np.nan, np.nan, 1.0],
    ),
    "rsqrt": (
        tf.math.rsqrt,
        [0.0, np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, np.nan, 0.0],
        [np.nan, -np.inf, 0.0, 0.0, np.nan, 0.0, np.nan, np.nan, 0.0],
        [
            -np.inf,
            np.inf,
            -0.5,
            -0.09622504486493767,
            np.nan,
            0.0,
            np.nan,
            np.nan,
            -4.0,
        ],
    ),
    "reciprocal": (
        tf.math.reciprocal,
        [0.0, -np.inf, 0.0, 0.0, 0.0, -0.0, 0.0, np.nan, 0.0],
        [np.nan, -np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, np.nan, 0.0],
        [-np.inf, -np.inf, -1.0, -0.1111111111111111, -1.0, -0.0, -0.0, np.nan, -16.0],
    ),
    "asin": (
        tf.asin,
        [0.0, 1.0, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, 0.0],
        [-0.0, -0.0, -0.0, -0.0, 0.0, np.nan, np.nan, np.nan, -0.0],
        [1.0, 1.0, np.inf, np.nan, np.inf, np.nan, np.nan, np.nan, 1.0327955589886444],
    ),
    "acos": (
        tf.acos,
        [-0.0, -1.0, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, -0.0],
        [-0.0, 0.0, -0.0, -0.0, 0.0, np.nan, np.nan, np.nan, -0.0],
        [
            -1.0,
            -1.0,
            -np.inf,
            np.nan,
            -np.inf,
            np.nan,
            np.nan,
            np.nan,
            -1.0327955589886444,
        ],
    ),
    "log": (
        tf.math.log,
        [np.nan, -np.inf, 0.0, 0.0, -0.0, 0.0, -0.0, np.nan, 0.0],
        [0.0, -np.inf, 0.0, 0.0, 0.0, -0.0, 0.0, np.nan, 0.0],
        [np.inf, -np.inf, 1.0, 0.3333333333333333, -1.0, 0.0, -0.0, np.nan, 4.0],
    ),
    "log1p": (
        tf.math.log1p,
        [0.0, 1.0, 0.0, 0.0, np.nan, 0.0, -0.0, np.nan, 0.0],
        [0.0, -1.0, 0.0, 0.0, 0.0, -0.0, 0.0, np.nan, 0.0],
        [1.0, 1.0, 0.5, 0.25, np.inf, 0.0, -0.0, np.nan, 0.8],
    ),
    "divnn": (
        lambda t: tf.math.divide_no_nan(1.0, t),
        [0.0, 0.0, -0.0, -0.0, -0.0, -0.0, -0.0, np.nan, -0.0],
        [0.0, 0.0, 0.0, 0.0, -0.0, 0.0, -0.0, np.nan, 0.0],
        [0.0, 0.0, -1.0, -0.1111111111111111, -1.0, -0.0, -0.0, np.nan, -16.0],
    ),
}


@pytest.mark.parametrize("name", list(_AT_A_ZERO_GRADIENT))
def test_a_second_derivative_where_the_gradient_is_zero(name):
    # SqrtGrad, RsqrtGrad and ReciprocalGrad (which asin, acos, log and log1p
    # use) are 0 where g is 0, and their own gradients are TensorFlow's
    # SqrtGradGrad and kin there too; divide_no_nan's is div_no_nan twice
    fn, g_expected, dx_expected, dw_expected = _AT_A_ZERO_GRADIENT[name]
    x = tf.Variable(
        [0.0, -0.0, 1.0, 3.0, -1.0, np.inf, -np.inf, np.nan, 0.25], dtype=tf.float64
    )
    w = tf.Variable([1.0, 2.0, 1.0, 1.0, 1.0, 2.0, 1.0, 2.0, 1.0], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            y = fn(x)
        g = inner.gradient(y, x, output_gradients=w - 1.0)
    np.testing.assert_array_equal(g.numpy(), g_expected)
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), dx_expected)
    np.testing.assert_allclose(outer.gradient(g, w).numpy(), dw_expected, rtol=1e-15)


def test_the_gradient_of_sign_is_zeros_connected_to_nothing():
    # zeros_like(x), whatever g holds: not g * 0 (NaN at a NaN or inf g)
    x = tf.Variable([3.0, 0.0, -2.0])
    w = tf.Variable([np.nan, np.inf, 2.0])
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            s = tf.sign(x) * w
            a = tf.abs(x) * w
        gs = inner.gradient(s, x)
        ga = inner.gradient(a, x)
    zeros = (
        "<tf.Tensor: shape=(3,), dtype=float32, numpy="
        "array([0., 0., 0.], dtype=float32)>"
    )
    assert repr(gs) == zeros
    assert outer.gradient(gs, w) is None
    assert repr(outer.gradient(ga, x)) == zeros


def test_the_gradient_of_diag_part_is_zero_off_the_diagonal():
    # g placed on the diagonal of zeros, not multiplied by an identity
    m = tf.Variable([[0.5, -2.0], [-1.0, 4.0]])
    v = tf.Variable([np.nan, np.inf])
    with tf.GradientTape(persistent=True) as tape:
        d = tf.linalg.diag_part(m) * v
        t = tf.linalg.trace(m) * v[0]
    head = "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[nan,  0.],\n"
    assert repr(tape.gradient(d, m)) == head + "       [ 0., inf]], dtype=float32)>"
    assert repr(tape.gradient(t, m)) == head + "       [ 0., nan]], dtype=float32)>"


@pytest.mark.parametrize(
    "fn, first, by_w",
    [
        (tf.nn.elu, [np.inf, np.inf, 0.5], [0.1353352832366127, 1.0, 1.0]),
        (
            tf.nn.selu,
            [np.inf, np.inf, 0.5253504936777402],
            [0.2379328722516818, 1.0507009873554805, 1.0507009873554805],
        ),
    ],
    ids=["elu", "selu"],
)
def test_the_second_derivative_of_elu_and_selu_at_an_infinite_gradient(fn, first, by_w):
    # EluGrad and SeluGrad are primitives whose gradients select a branch;
    # a where of two products would multiply the untaken one's 0 by inf
    x = tf.Variable([-2.0, -0.0, np.inf], dtype=tf.float64)
    w = tf.Variable([np.inf, np.inf, 0.5], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape() as inner:
            y = fn(x) * w
        g = inner.gradient(y, x)
    assert g.numpy().tolist() == first
    assert outer.gradient(g, w).numpy().tolist() == by_w
    assert outer.gradient(g, x).numpy().tolist() == [np.inf, 0.0, 0.0]


def test_the_second_derivative_of_sigmoid_is_nan_at_an_infinite_gradient():
    # SigmoidGradGrad is gb - 2 gb out (gb = gg * g): inf - inf, not inf * (1 - 2 out)
    x = tf.Variable([3.0, -1.0, 0.5, 2.0], dtype=tf.float64)
    w = tf.constant([-np.inf, np.inf, 2.0, 0.0], dtype=tf.float64)
    g, second = _second_order(lambda t: tf.sigmoid(t) * w, x)
    assert g.numpy().tolist() == [-np.inf, np.inf, 0.470007424403189, 0.0]
    np.testing.assert_allclose(
        second.numpy(), [np.nan, np.nan, -0.11511358970464151, 0.0], rtol=1e-15
    )


def test_silu_has_tensorflows_custom_gradient():
    # g * s * (1 + beta x (1 - s)), s = sigmoid(beta x): -inf at an infinite
    # cotangent below 0, where x * sigmoid(x) composed gives inf - inf = NaN
    x = tf.constant([-3.0, -0.0, 0.0, 2.0, 50.0, -50.0, np.nan, np.inf, -np.inf])
    g = tf.constant([np.inf, 1.0, -np.inf, 2.0, 0.0, np.inf, 1.0, 1.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.silu(x)
    d = tape.gradient(y, x, output_gradients=g).numpy()
    inf, nan = np.inf, np.nan
    expected = [-inf, 0.5, -inf, 2.1815683841705322, 0.0, -inf, nan, nan, nan]
    np.testing.assert_allclose(d, np.float32(expected), rtol=1e-6)


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


def test_erf_keeps_the_sign_of_zero():
    x = tf.constant([-0.0, 0.0, -1e-30])
    assert np.signbit(tf.math.erf(x).numpy()).tolist() == [True, False, True]
    assert np.signbit(tf.nn.gelu(x).numpy()).tolist() == [True, False, True]


def test_the_euclidean_norms_gradient_is_x_over_norm_over_g():
    # TensorFlow's EuclideanNorm gradient, x / (norm / g): NaN at a zero norm
    # whatever g, and where g is 0 the second derivative is NaN
    x = tf.constant([[0.0, 0.0], [3.0, 4.0], [1.0, -1.0]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.reduce_euclidean_norm(x, axis=1)
        d = tape.gradient(y, x, output_gradients=tf.constant([0.0, 1.0, 0.0]))
    dd = outer.gradient(d, x)
    nan = np.nan
    np.testing.assert_allclose(
        d.numpy(), [[nan, nan], [0.6000000238418579, 0.800000011920929], [0.0, -0.0]]
    )
    np.testing.assert_allclose(
        dd.numpy(),
        [[nan, nan], [0.03200000524520874, -0.02399998903274536], [nan, nan]],
        rtol=1e-5,
    )
