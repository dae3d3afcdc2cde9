"""Second derivatives the programs against TensorFlow found differing, each kept
as a plain test.

Every expected string, value, ``None`` and error class here is what
tensorflow-cpu 2.21.0 printed for the same code (run under TensorFlow, then
pinned); these tests need no TensorFlow. docs/RELIABILITY.md lists them.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf

pytestmark = pytest.mark.usefixtures("quiet")


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
