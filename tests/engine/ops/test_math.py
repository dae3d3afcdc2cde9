"""Elementwise ops: TensorFlow's conventions at kinks, ties, zeros and NaNs."""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Variable, convert_to_tensor
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops import composed_math as CM
from tapemagic.engine.ops import math as M


def grad(fn, *values):
    xs = [Variable(np.asarray(v, dtype=np.float32)) for v in values]
    with GradientTape() as tape:
        y = fn(*xs)
    grads = tape.gradient(y, xs)
    return [None if g is None else g.numpy() for g in grads]


def test_maximum_and_minimum_give_a_tie_to_the_first_argument():
    assert grad(lambda x: M.maximum(x, 0.0), 0.0) == [1.0]
    assert grad(lambda x: M.maximum(0.0, x), 0.0) == [0.0]
    assert grad(lambda x: M.minimum(x, 0.0), 0.0) == [1.0]
    assert grad(lambda x, y: M.maximum(x, y), 1.0, 1.0) == [1.0, 0.0]


def test_abs_sign_and_clip_at_their_kinks():
    assert grad(M.abs, 0.0) == [0.0]
    assert grad(M.sign, [-2.0, 0.0, 3.0])[0].tolist() == [0.0, 0.0, 0.0]
    # gradient 1 at a bound exactly; clipped elements send it to the bound
    assert grad(lambda x: M.clip_by_value(x, 0.0, 1.0), [0.0, 1.0])[0].tolist() == [
        1,
        1,
    ]
    g = grad(lambda x, lo: M.clip_by_value(x, lo, 5.0), [-1.0, 2.0, -3.0], 0.0)
    assert g[0].tolist() == [0.0, 1.0, 0.0] and g[1] == 2.0


def test_derivatives_at_zero():
    assert grad(M.sqrt, 0.0) == [np.inf]
    assert grad(M.log, 0.0) == [np.inf]
    assert grad(M.reciprocal, 0.0) == [-np.inf]


def test_pow_conventions():
    # exponent gradient is 0 where the base is <= 0 (no NaN)
    assert grad(lambda y: M.pow(-2.0, y), 2.0) == [0.0]
    assert grad(lambda y: M.pow(0.0, y), 2.0) == [0.0]
    gx = grad(lambda x: M.pow(x, 0.0), 0.0)[0]
    assert np.isnan(gx)  # 0 * 0**-1
    assert grad(lambda x: M.pow(x, 0.5), 0.0) == [np.inf]
    assert grad(lambda x, y: M.pow(x, y), 2.0, 3.0) == [12.0, np.float32(8 * np.log(2))]


def test_nan_through_where_follows_tensorflow():
    # sqrt and reciprocal in the untaken branch give 0; log and division give NaN
    x = [-1.0, 4.0]
    assert grad(lambda x: M.where(x > 0, M.sqrt(x), 0.0), x)[0].tolist() == [0.0, 0.25]
    assert (
        grad(lambda x: M.where(x != 0, M.reciprocal(x), 0.0), [0.0, 2.0])[0][0] == 0.0
    )
    g_log = grad(lambda x: M.where(x > 0, M.log(x), 0.0), [0.0, 2.0])[0]
    assert np.isnan(g_log[0]) and g_log[1] == 0.5
    g_div = grad(lambda x: M.where(x != 0, 1.0 / x, 0.0), [0.0, 2.0])[0]
    assert np.isnan(g_div[0])


def test_where_gives_zeros_to_the_branch_not_taken():
    gx, gy = grad(lambda x, y: M.where([True, False], x, y), [1.0, 2.0], [3.0, 4.0])
    assert gx.tolist() == [1.0, 0.0] and gy.tolist() == [0.0, 1.0]


def test_where_with_only_a_condition_gives_coordinates():
    coords = M.where(convert_to_tensor([[True, False], [False, True]]))
    assert coords.dtype.name == "int64" and coords.numpy().tolist() == [[0, 0], [1, 1]]
    with pytest.raises(ValueError, match="both x and y"):
        M.where([True], 1.0)


@pytest.mark.parametrize(
    "fn",
    [M.round, M.floor, M.ceil, M.stop_gradient, lambda x: M.cast(x > 0, "float32")],
)
def test_piecewise_constant_ops_give_none(fn):
    assert grad(lambda x: fn(x) * 2.0, 1.3) == [None]


def test_floordiv_gives_none_and_mod_passes_gradient():
    assert grad(lambda x: x // 2.0, 3.0) == [None]
    assert grad(lambda x, y: x % y, 7.0, 3.0) == [1.0, -2.0]


def test_sigmoid_is_stable_at_extremes():
    y = M.sigmoid(convert_to_tensor([-1000.0, 0.0, 1000.0])).numpy()
    assert y.tolist() == [0.0, 0.5, 1.0]
    assert grad(M.sigmoid, [-1000.0, 1000.0])[0].tolist() == [0.0, 0.0]


def test_add_n_and_squared_difference():
    assert grad(lambda x: CM.add_n([x, x * x, 3.0 * x]), 2.0) == [8.0]
    assert grad(lambda x: CM.squared_difference(x, 5.0), 2.0) == [-6.0]
    with pytest.raises(ValueError, match="at least one"):
        CM.add_n([])


def test_shape_mismatch_names_the_op_and_shapes():
    with pytest.raises(
        InvalidArgumentError, match=r"add: .*float32\[2, 3\].*float32\[4\]"
    ):
        M.add(np.zeros((2, 3), np.float32), convert_to_tensor(np.zeros(4, np.float32)))


def test_integer_to_negative_power_raises():
    with pytest.raises(InvalidArgumentError, match="negative integer powers"):
        M.pow(convert_to_tensor([2]), -1)


# -- atan2 and the inverse hyperbolic functions -------------------------------------


def test_atan2_picks_the_quadrant_like_numpy():
    y = [1.0, 1.0, -1.0, -1.0, 0.0, 2.0, 0.0]
    x = [1.0, -1.0, -1.0, 1.0, -3.0, 0.0, 0.0]
    got = M.atan2(np.asarray(y), np.asarray(x)).numpy()
    np.testing.assert_array_equal(got, np.arctan2(y, x))
    # TensorFlow's documented example, in degrees
    degrees = M.atan2([1.0, -1.0], [1.0, 1.0]).numpy() * (180 / np.pi)
    np.testing.assert_allclose(degrees, [45.0, -45.0], rtol=1e-6)


def test_atan2_gradient_is_finite_on_the_axes_and_nan_at_the_origin():
    # d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    gy, gx = grad(M.atan2, 1.0, 1.0)
    assert (gy, gx) == (0.5, -0.5)
    gy, gx = grad(M.atan2, 2.0, 0.0)  # on the y axis, where atan(y / x) fails
    assert (gy, gx) == (0.0, -0.5)
    gy, gx = grad(M.atan2, 0.0, -4.0)
    assert (gy, gx) == (-0.25, 0.0)
    gy, gx = grad(M.atan2, 0.0, 0.0)
    assert np.isnan(gy) and np.isnan(gx)
    # a broadcast x collects the gradient of every y it was paired with
    gy, gx = grad(M.atan2, [1.0, -1.0, 2.0], 1.0)
    np.testing.assert_allclose(gy, [0.5, 0.5, 0.2], rtol=1e-6)
    np.testing.assert_allclose(gx, -0.5 + 0.5 - 0.4, rtol=1e-6, atol=1e-7)


def test_inverse_hyperbolic_values_follow_tensorflow():
    # TensorFlow's acosh example: NaN outside [1, inf]
    x = [-2.0, -0.5, 1.0, 1.2, 200.0, 10000.0, np.inf]
    got = M.acosh(np.asarray(x, np.float32)).numpy()
    want = [np.nan, np.nan, 0.0, 0.62236255, 5.9914584, 9.903487, np.inf]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    v = np.array([-3.0, -0.5, 0.0, 1e-8, 40.0])
    np.testing.assert_allclose(M.asinh(v).numpy(), np.arcsinh(v), rtol=1e-15)
    w = np.array([-0.99, 0.0, 1e-9, 0.5])
    np.testing.assert_allclose(M.atanh(w).numpy(), np.arctanh(w), rtol=1e-15)
    assert M.atanh(np.array([1.0, -1.0])).numpy().tolist() == [np.inf, -np.inf]


def test_inverse_hyperbolic_gradients():
    (g,) = grad(M.asinh, [0.0, 0.75])  # 1 / sqrt(1 + x^2)
    np.testing.assert_allclose(g, [1.0, 0.8], rtol=1e-6)
    (g,) = grad(M.acosh, [1.25, 1.0])  # 1 / sqrt(x^2 - 1); inf at 1
    np.testing.assert_allclose(g, [4.0 / 3.0, np.inf], rtol=1e-6)
    (g,) = grad(M.atanh, [0.0, 0.5])  # 1 / (1 - x^2)
    np.testing.assert_allclose(g, [1.0, 4.0 / 3.0], rtol=1e-6)


@pytest.mark.parametrize(
    "fn, x, want",
    [
        (M.asinh, 0.75, -0.75 / 1.25**3),  # -x / (1 + x^2)^(3/2)
        (M.acosh, 1.25, -1.25 / 0.75**3),  # -x / (x^2 - 1)^(3/2)
        (M.atanh, 0.5, 2 * 0.5 / 0.75**2),  # 2x / (1 - x^2)^2
    ],
)
def test_inverse_hyperbolic_second_derivatives(fn, x, want):
    v = Variable(np.float64(x))
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = fn(v)
        first = inner.gradient(y, v)
    assert outer.gradient(first, v).numpy() == pytest.approx(want, rel=1e-12)


def test_new_math_names_are_exported_where_tensorflow_has_them():
    import tapemagic.tf as tf

    for name in ("atan2", "acosh", "asinh", "atanh"):
        assert getattr(tf, name) is getattr(tf.math, name) is getattr(M, name)


def test_clip_by_value_bounds_that_do_not_broadcast_raise_invalid_argument():
    # Regression (issue 8, found by tests/fuzz): bounds that do not broadcast
    # with each other leaked NumPy's ValueError "shape mismatch: objects cannot
    # be broadcast to a single shape" instead of the documented error.
    with pytest.raises(
        InvalidArgumentError, match=r"bounds \(shapes \(2,\) and \(3,\)\)"
    ):
        M.clip_by_value(np.zeros((2, 3)), np.zeros(2), np.ones(3))
