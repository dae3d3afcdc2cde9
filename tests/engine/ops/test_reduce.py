"""TensorFlow behaviours of the reductions in tapemagic/engine/ops/reduce.py.

Gradient values are computed by hand or with an independent NumPy reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Tensor, Variable, dtypes
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops import math as M
from tapemagic.engine.ops import reduce as R
from tapemagic.engine.ops import reductions as RS
from tapemagic.engine.ops import scan as SC


def grad(fn, value, dtype=np.float64):
    """The gradient of ``fn`` at ``value`` as a NumPy array (None if unconnected)."""
    x = Tensor(np.asarray(value, dtype=dtype))
    with GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    g = tape.gradient(y, x)
    return None if g is None else g.numpy()


# -- axes and keepdims -------------------------------------------------------------


X23 = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize(
    "axis, keepdims, want",
    [
        (None, False, np.sum(X23)),
        (0, False, np.sum(X23, axis=0)),
        (-1, False, np.sum(X23, axis=1)),
        ([0, 1], True, np.sum(X23, axis=(0, 1), keepdims=True)),
        ([-1], True, np.sum(X23, axis=1, keepdims=True)),
        ([], False, X23),
    ],
)
def test_reduce_sum_axes_and_keepdims(axis, keepdims, want) -> None:
    got = R.reduce_sum(Tensor(X23), axis=axis, keepdims=keepdims)
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got.numpy(), want)


def test_axis_may_be_an_int_tensor() -> None:
    got = R.reduce_max(Tensor(X23), axis=Tensor(np.array(1, np.int32)))
    np.testing.assert_array_equal(got.numpy(), [2.0, 5.0])


@pytest.mark.parametrize(
    "fn",
    [R.reduce_sum, R.reduce_mean, R.reduce_max, R.reduce_min, R.reduce_prod,
     R.reduce_logsumexp],
)  # fmt: skip
def test_bad_reduction_axis_raises_invalid_argument(fn) -> None:
    with pytest.raises(InvalidArgumentError, match=r"invalid reduction dimension.*2"):
        fn(Tensor(X23), axis=2)
    with pytest.raises(InvalidArgumentError, match=r"\[-2, 2\)"):
        fn(Tensor(X23), axis=[0, -3])


def test_reduce_sum_keeps_int32_and_rejects_bool() -> None:
    got = R.reduce_sum(np.array([2**30, 2**30], np.int32))
    assert got.dtype == dtypes.int32
    with pytest.raises(InvalidArgumentError, match="bool.*tf.cast"):
        R.reduce_sum([True, False])


def test_reduction_gradients_broadcast_back_with_keepdims() -> None:
    w = np.array([[1.0], [10.0]])
    got = grad(lambda x: R.reduce_sum(x, axis=1, keepdims=True) * w, X23)
    np.testing.assert_array_equal(got, [[1.0, 1.0, 1.0], [10.0, 10.0, 10.0]])


# -- mean --------------------------------------------------------------------------


def test_reduce_mean_of_ints_truncates_toward_zero() -> None:
    got = R.reduce_mean(np.array([-1, -2], np.int32))
    assert got.dtype == dtypes.int32 and got.numpy() == -1
    rows = R.reduce_mean(np.array([[-7, 0], [7, 0], [5, 6]], np.int64), axis=1)
    assert rows.dtype == dtypes.int64
    np.testing.assert_array_equal(rows.numpy(), [-3, 3, 5])


def test_reduce_mean_of_floats_and_its_gradient() -> None:
    np.testing.assert_allclose(
        R.reduce_mean(Tensor(X23), axis=0).numpy(), [1.5, 2.5, 3.5]
    )
    got = grad(lambda x: R.reduce_mean(x, axis=[0, 1]), X23)
    np.testing.assert_allclose(got, np.full((2, 3), 1 / 6))


# -- max and min -------------------------------------------------------------------


def test_reduce_max_splits_the_gradient_among_ties() -> None:
    np.testing.assert_array_equal(grad(R.reduce_max, [1.0, 3.0, 3.0]), [0, 0.5, 0.5])
    np.testing.assert_allclose(grad(R.reduce_max, [2.0, 2.0, 2.0]), [1 / 3] * 3)


def test_reduce_min_splits_ties_per_reduced_row() -> None:
    x = [[2.0, 2.0, 5.0], [1.0, 4.0, 1.0], [0.0, 3.0, 9.0]]
    got = grad(lambda t: R.reduce_min(t, axis=1), x)
    np.testing.assert_array_equal(got, [[0.5, 0.5, 0], [0.5, 0, 0.5], [1, 0, 0]])


def test_reduce_max_tie_split_in_a_jacobian() -> None:
    x = Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]))
    with GradientTape() as tape:
        tape.watch(x)
        y = R.reduce_max(x, axis=1)
    jac = tape.jacobian(y, x).numpy()
    want = np.zeros((2, 2, 3))
    want[0, 0] = [0, 0.5, 0.5]
    want[1, 1] = [0.5, 0, 0.5]
    np.testing.assert_array_equal(jac, want)


def test_reduce_max_and_min_of_an_empty_axis_give_the_identity() -> None:
    # Regression (issue 8, found by tests/fuzz): TensorFlow returns -inf / inf
    # (the lowest / highest int for integer dtypes) where NumPy raises.
    empty = Tensor(np.zeros((2, 0)))
    np.testing.assert_array_equal(R.reduce_max(empty, axis=1).numpy(), [-np.inf] * 2)
    np.testing.assert_array_equal(R.reduce_min(empty, axis=1).numpy(), [np.inf] * 2)
    assert R.reduce_max(empty).numpy() == -np.inf
    assert R.reduce_max(np.zeros(0, np.int32)).numpy() == -(2**31)
    assert R.reduce_min(np.zeros(0, np.int64)).numpy() == 2**63 - 1
    assert R.reduce_max(np.zeros((0, 3)), axis=1).shape == (0,)
    with GradientTape() as tape:
        tape.watch(empty)
        y = R.reduce_max(empty, axis=1)
    assert tape.gradient(y, empty).shape == (2, 0)


# -- prod --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, want",
    [
        ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
        ([2.0, 0.0, 4.0], [0.0, 8.0, 0.0]),  # one zero: the others' product there
        ([0.0, 3.0, 0.0], [0.0, 0.0, 0.0]),  # two zeros: zero everywhere
        ([0.0], [1.0]),
    ],
)
def test_reduce_prod_gradient_with_zeros(x, want) -> None:
    np.testing.assert_array_equal(grad(R.reduce_prod, x), want)


def test_reduce_prod_gradient_over_several_axes_with_zeros() -> None:
    x = np.array([[[0.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [5.0, 0.0]]])
    got = grad(lambda t: R.reduce_prod(t, axis=[0, 2]), x)
    # independent reference: the product of the other elements of each group
    flat = np.moveaxis(x, 1, 0).reshape(2, -1)
    others = np.array(
        [[np.prod(np.delete(row, i)) for i in range(row.size)] for row in flat]
    )
    want = np.moveaxis(others.reshape(2, 2, 2), 0, 1)
    np.testing.assert_array_equal(got, want)


def test_reduce_prod_higher_derivatives_through_nested_tapes() -> None:
    # f = x0 x1 x2: df/dx0 = x1 x2, d2f/dx0dx = [0, x2, x1], d3f/dx0dx1dx = [0, 0, 1]
    x = Tensor(np.array([2.0, 3.0, 4.0]))
    with GradientTape() as t3:
        t3.watch(x)
        with GradientTape() as t2:
            t2.watch(x)
            with GradientTape() as t1:
                t1.watch(x)
                y = R.reduce_prod(x)
            first = t1.gradient(y, x)
            np.testing.assert_array_equal(first.numpy(), [12.0, 8.0, 6.0])
            d0 = first[0]
        second = t2.gradient(d0, x)
        np.testing.assert_array_equal(second.numpy(), [0.0, 4.0, 3.0])
        d01 = second[1]
    third = t3.gradient(d01, x)
    np.testing.assert_array_equal(third.numpy(), [0.0, 0.0, 1.0])


def test_reduce_prod_hessian_matches_the_hand_formula() -> None:
    x = Tensor(np.array([[2.0, 3.0, 4.0], [-1.0, 5.0, 0.5]]))
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = R.reduce_sum(R.reduce_prod(x, axis=1))
        g = inner.gradient(y, x)
    hess = outer.jacobian(g, x).numpy()
    v = x.numpy()
    want = np.zeros((2, 3, 2, 3))
    for r in range(2):
        for i in range(3):
            for j in range(3):
                if i != j:
                    want[r, i, r, j] = np.prod(np.delete(v[r], [i, j]))
    np.testing.assert_allclose(hess, want, rtol=1e-12)


def test_reduce_prod_of_ints_keeps_the_dtype() -> None:
    got = R.reduce_prod(np.array([[2, 3], [4, 5]], np.int32), axis=0)
    assert got.dtype == dtypes.int32
    np.testing.assert_array_equal(got.numpy(), [8, 15])


# -- logsumexp ---------------------------------------------------------------------


def test_reduce_logsumexp_matches_numpy_on_moderate_values() -> None:
    x = np.random.default_rng(0).normal(size=(3, 4))
    got = R.reduce_logsumexp(Tensor(x), axis=1, keepdims=True).numpy()
    np.testing.assert_allclose(got, np.log(np.exp(x).sum(axis=1, keepdims=True)))
    softmax = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(
        grad(lambda t: R.reduce_logsumexp(t, axis=1), x), softmax
    )


@pytest.mark.parametrize("big", [1000.0, -1000.0])
def test_reduce_logsumexp_is_stable_at_extremes(big) -> None:
    x = [big, big, big - np.log(2.0)]
    got = R.reduce_logsumexp(Tensor(np.array(x))).numpy()
    np.testing.assert_allclose(got, big + np.log(2.5), rtol=1e-15)
    np.testing.assert_allclose(grad(R.reduce_logsumexp, x), [0.4, 0.4, 0.2])


def test_reduce_logsumexp_with_minus_infinity() -> None:
    x = [-np.inf, 0.0]
    assert R.reduce_logsumexp(Tensor(np.array(x))).numpy() == 0.0
    np.testing.assert_array_equal(grad(R.reduce_logsumexp, x), [0.0, 1.0])
    assert R.reduce_logsumexp(Tensor(np.array([-np.inf, -np.inf]))).numpy() == -np.inf


# TensorFlow 2.21's gradient and Hessian of reduce_logsumexp (float64; float32
# within its rounding), used where TensorFlow is not installed: the softmax
# exp(x - max) / sum, so [0.5, 0.5] at [1000., 1000.] (issue 28).
_LOGSUMEXP_TF = {
    "pair": (
        [1000.0, 1000.0], None,
        [0.5, 0.5],
        [[0.25, -0.25], [-0.25, 0.25]],
    ),
    "rows": (
        [[1000.0, 1000.0, 999.0], [-1000.0, -1000.0, 50.0]], 1,
        [[0.4223187982515182, 0.4223187982515182, 0.1553624034969636],
         [0.0, 0.0, 1.0]],
        [[0.24396563089491166, -0.17835316735660653, -0.06561246353830513,
          0, 0, 0],
         [-0.17835316735660653, 0.24396563089491166, -0.06561246353830513,
          0, 0, 0],
         [-0.06561246353830513, -0.06561246353830513, 0.13122492707661026,
          0, 0, 0],
         [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]],
    ),
    "columns": (
        [[3e4, 3e4], [3e4, 3e4 + 1]], 0,
        [[0.5, 0.2689414213699951], [0.5, 0.7310585786300049]],
        [[0.25, 0, -0.25, 0], [0, 0.19661193324148182, 0, -0.19661193324148182],
         [-0.25, 0, 0.25, 0], [0, -0.19661193324148182, 0, 0.19661193324148185]],
    ),
}  # fmt: skip


def _logsumexp_derivatives(tf_module, x, axis):
    """The gradient and Hessian (as a matrix) of reduce_logsumexp at ``x``."""
    x = tf_module.constant(x)
    with tf_module.GradientTape() as outer:
        outer.watch(x)
        with tf_module.GradientTape() as inner:
            inner.watch(x)
            y = tf_module.reduce_logsumexp(x, axis=axis)
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    return g.numpy(), h.numpy().reshape(g.numpy().size, -1)


@pytest.mark.parametrize("case", sorted(_LOGSUMEXP_TF))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reduce_logsumexp_gradient_at_large_inputs_is_tensorflows(case, dtype):
    import tapemagic.tf as tm

    value, axis, want_g, want_h = _LOGSUMEXP_TF[case]
    x = np.asarray(value, dtype)
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    try:
        import tensorflow as real_tf
    except ImportError:
        real_tf = None
    if real_tf is not None:
        # the pinned numbers are TensorFlow's, and so are ours
        tf_g, tf_h = _logsumexp_derivatives(real_tf, x, axis)
        np.testing.assert_allclose(tf_g, want_g, rtol=rtol, atol=1e-12)
        np.testing.assert_allclose(tf_h, want_h, rtol=rtol, atol=1e-7)
    g, h = _logsumexp_derivatives(tm, x, axis)
    assert g.dtype == dtype
    np.testing.assert_allclose(g, want_g, rtol=rtol, atol=1e-12)
    np.testing.assert_allclose(h, want_h, rtol=rtol, atol=1e-7)


def test_reduce_logsumexp_gradient_is_exactly_one_half_at_a_tie() -> None:
    # issue 28: 0.499985 before, as exp(x - out) with out rounded to float32
    for dtype in (np.float32, np.float64):
        got = grad(R.reduce_logsumexp, [1000.0, 1000.0], dtype=dtype)
        np.testing.assert_array_equal(got, [0.5, 0.5])


def test_reduce_logsumexp_rejects_ints_and_bools() -> None:
    # as TensorFlow composes it: reduce_max refuses bool, is_finite integers
    with pytest.raises(InvalidArgumentError, match=r"of int32 .*\[Op:IsFinite\]"):
        R.reduce_logsumexp([1, 2])
    with pytest.raises(InvalidArgumentError, match=r"of bool .*\[Op:Max\]"):
        R.reduce_logsumexp([True])


# -- variance and std --------------------------------------------------------------


def test_reduce_variance_and_std_match_numpy() -> None:
    x = np.random.default_rng(1).normal(size=(3, 4))
    for axis in (None, 0, [1], [-1, 0]):
        ax = tuple(axis) if isinstance(axis, list) else axis
        var = RS.reduce_variance(Tensor(x), axis=axis).numpy()
        std = RS.reduce_std(Tensor(x), axis=axis, keepdims=True).numpy()
        np.testing.assert_allclose(var, np.var(x, axis=ax))
        np.testing.assert_allclose(std, np.std(x, axis=ax, keepdims=True))


def test_reduce_variance_gradient() -> None:
    # d var / d x_i = 2 (x_i - mean) / n
    x = np.array([1.0, 2.0, 6.0])
    np.testing.assert_allclose(grad(RS.reduce_variance, x), 2 * (x - 3.0) / 3)


@pytest.mark.parametrize("fn", [RS.reduce_variance, RS.reduce_std])
def test_reduce_variance_rejects_ints(fn) -> None:
    with pytest.raises(TypeError, match="real or complex"):
        fn(np.array([1, 2], np.int32))


# -- argmax, argmin ----------------------------------------------------------------


def test_argmax_defaults_to_axis_0_and_int64() -> None:
    x = [[1.0, 9.0, 3.0], [5.0, 2.0, 3.0]]
    got = R.argmax(x)
    assert got.dtype == dtypes.int64
    np.testing.assert_array_equal(got.numpy(), [1, 0, 0])  # a tie picks the first


def test_argmin_along_an_axis_with_int32_output() -> None:
    got = R.argmin([[1.0, 9.0, 0.0], [5.0, 2.0, 3.0]], axis=-1, output_type="int32")
    assert got.dtype == dtypes.int32
    np.testing.assert_array_equal(got.numpy(), [2, 1])


def test_argmax_is_not_differentiable() -> None:
    assert grad(lambda x: M.cast(R.argmax(x), "float64"), [1.0, 3.0]) is None


def test_argmax_errors() -> None:
    with pytest.raises(InvalidArgumentError, match=r"range \[-1, 1\).*got 1"):
        R.argmax([1.0, 2.0], axis=1)
    with pytest.raises(InvalidArgumentError, match="empty"):
        R.argmax(np.zeros((0, 2)))
    with pytest.raises(TypeError, match="int32 or tf.int64"):
        R.argmax([1.0, 2.0], output_type=dtypes.float32)


# -- any, all ----------------------------------------------------------------------


def test_reduce_any_and_all() -> None:
    b = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(R.reduce_any(b, axis=0).numpy(), [True, True])
    np.testing.assert_array_equal(R.reduce_all(b, axis=1).numpy(), [False, True])
    assert R.reduce_all(b, keepdims=True).shape == (1, 1)
    assert bool(R.reduce_any(np.zeros((0,), bool)).numpy()) is False


@pytest.mark.parametrize("fn", [R.reduce_any, R.reduce_all])
def test_logical_reductions_need_bools(fn) -> None:
    # as TensorFlow: a Python value is converted to bool, a tensor refused
    with pytest.raises(TypeError, match="Cannot convert"):
        fn([1.0, 0.0])
    with pytest.raises(InvalidArgumentError, match="expected to be a bool.*x > 0"):
        fn(Tensor(np.array([1.0, 0.0], np.float32)))


def test_logical_reductions_are_not_differentiable() -> None:
    assert grad(lambda x: M.cast(R.reduce_any(x > 0), "float64"), [1.0, -1.0]) is None


# -- empty reductions --------------------------------------------------------------


def test_empty_reductions_give_identities() -> None:
    empty = Tensor(np.zeros((2, 0)))
    np.testing.assert_array_equal(R.reduce_sum(empty, axis=1).numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(R.reduce_prod(empty, axis=1).numpy(), [1.0, 1.0])
    assert np.all(R.reduce_logsumexp(empty, axis=1).numpy() == -np.inf)
    assert np.all(np.isnan(R.reduce_mean(empty, axis=1).numpy()))


def test_variable_reads_are_watched_through_reductions() -> None:
    v = Variable([1.0, 4.0, 2.0])
    with GradientTape() as tape:
        y = R.reduce_max(v) + R.reduce_mean(v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [1 / 3, 4 / 3, 1 / 3])


# -- cumsum and cumprod -------------------------------------------------------------


def test_cumsum_follows_tensorflows_examples() -> None:
    x = np.array([2, 4, 6, 8], np.int32)
    assert SC.cumsum(x).numpy().tolist() == [2, 6, 12, 20]
    assert SC.cumsum(x).dtype == dtypes.int32
    y = np.array([[2, 4, 6, 8], [1, 3, 5, 7]], np.int32)
    assert SC.cumsum(y, axis=0).numpy().tolist() == [[2, 4, 6, 8], [3, 7, 11, 15]]
    assert SC.cumsum(y, axis=1).numpy().tolist() == [[2, 6, 12, 20], [1, 4, 9, 16]]
    assert SC.cumsum(x, exclusive=True).numpy().tolist() == [0, 2, 6, 12]
    assert SC.cumsum(x, reverse=True).numpy().tolist() == [20, 18, 14, 8]
    both = SC.cumsum(x, exclusive=True, reverse=True)
    assert both.numpy().tolist() == [18, 14, 8, 0]


def test_cumprod_follows_tensorflows_examples() -> None:
    x = [2.0, 3.0, 4.0]  # [a, b, c]
    assert SC.cumprod(x).numpy().tolist() == [2.0, 6.0, 24.0]
    assert SC.cumprod(x, exclusive=True).numpy().tolist() == [1.0, 2.0, 6.0]
    assert SC.cumprod(x, reverse=True).numpy().tolist() == [24.0, 12.0, 4.0]
    both = SC.cumprod(x, exclusive=True, reverse=True)
    assert both.numpy().tolist() == [12.0, 4.0, 1.0]
    ints = SC.cumprod(np.array([[1, 2], [3, 4]], np.int32), axis=-1)
    assert ints.dtype == dtypes.int32 and ints.numpy().tolist() == [[1, 2], [3, 12]]


def _weighted(fn, w):
    return lambda x: R.reduce_sum(fn(x) * Tensor(np.asarray(w, np.float64)))


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_gradient_is_the_scan_the_other_way(exclusive, reverse) -> None:
    w = np.array([1.0, 10.0, 100.0, 1000.0])
    g = grad(_weighted(lambda x: SC.cumsum(x, 0, exclusive, reverse), w), np.ones(4))
    # element k is counted in the sums at i >= k (or i <= k when reversed)
    after = np.cumsum(w[::-1])[::-1] if not reverse else np.cumsum(w)
    if exclusive:
        after = after - w
    np.testing.assert_array_equal(g, after)


def _cumprod_gradient_reference(x, w, exclusive, reverse):
    """d sum(w * cumprod(x)) / dx by brute force: products of the other factors."""
    n = len(x)
    g = np.zeros(n)
    for i in range(n):
        if reverse:
            factors = range(i + 1, n) if exclusive else range(i, n)
        else:
            factors = range(i) if exclusive else range(i + 1)
        for k in factors:
            g[k] += w[i] * np.prod([x[j] for j in factors if j != k])
    return g


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(
    "x",
    [[2.0, 0.5, 3.0, -1.0], [2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 5.0], [0.0] * 4],
)
def test_cumprod_gradient_is_exact_with_zeros(x, exclusive, reverse) -> None:
    w = np.array([1.0, -2.0, 3.0, 0.5])
    fn = _weighted(lambda t: SC.cumprod(t, 0, exclusive, reverse), w)
    want = _cumprod_gradient_reference(x, w, exclusive, reverse)
    np.testing.assert_allclose(grad(fn, x), want, rtol=1e-12, atol=1e-12)


def test_cumprod_gradient_at_a_zero_by_hand() -> None:
    # sum(cumprod([a, b, c])) = a + ab + abc: gradient (1 + b + bc, a + ac, ab)
    g = grad(lambda x: R.reduce_sum(SC.cumprod(x)), [2.0, 0.0, 3.0])
    assert g.tolist() == [1.0, 8.0, 0.0]
    # along axis 1 of a batch, each row on its own
    g = grad(lambda x: R.reduce_sum(SC.cumprod(x, axis=1)), [[2.0, 0.0, 3.0]] * 2)
    assert g.tolist() == [[1.0, 8.0, 0.0]] * 2


def test_cumprod_hessian_by_hand() -> None:
    # f = a + ab + abc: H = [[0, 1 + c, b], [1 + c, 0, a], [b, a, 0]]
    a, b, c = 2.0, 3.0, 5.0
    x = Tensor(np.array([a, b, c]))
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            f = R.reduce_sum(SC.cumprod(x))
        g = inner.gradient(f, x)
    hessian = outer.jacobian(g, x).numpy()
    want = [[0.0, 1 + c, b], [1 + c, 0.0, a], [b, a, 0.0]]
    np.testing.assert_allclose(hessian, want, rtol=1e-12)


def test_scan_errors() -> None:
    with pytest.raises(InvalidArgumentError, match=r"range \[-2, 2\), but got 2"):
        SC.cumsum(np.ones((2, 3)), axis=2)
    with pytest.raises(InvalidArgumentError, match="scalar has no axis"):
        SC.cumprod(3.0)
    with pytest.raises(InvalidArgumentError, match=r"of bool .*\[Op:Cumsum\]"):
        SC.cumsum([True, False])


def test_scans_take_an_int_tensor_axis() -> None:
    x = np.arange(6.0).reshape(2, 3)
    got = SC.cumsum(x, axis=Tensor(np.int32(-1))).numpy()
    np.testing.assert_array_equal(got, np.cumsum(x, axis=-1))


# -- reduce_euclidean_norm ----------------------------------------------------------


def test_reduce_euclidean_norm_follows_tensorflows_examples() -> None:
    x = np.array([[1, 2, 3], [1, 1, 1]], np.int32)
    ints = R.reduce_euclidean_norm(x)
    assert ints.dtype == dtypes.int32 and ints.numpy() == 4  # sqrt(17), truncated
    y = x.astype(np.float32)
    assert R.reduce_euclidean_norm(y).numpy() == np.float32(np.sqrt(17.0))
    np.testing.assert_allclose(
        R.reduce_euclidean_norm(y, 0).numpy(), np.sqrt([2.0, 5.0, 10.0]), rtol=1e-6
    )
    kept = R.reduce_euclidean_norm(y, 1, keepdims=True).numpy()
    np.testing.assert_allclose(kept, [[np.sqrt(14.0)], [np.sqrt(3.0)]], rtol=1e-6)
    assert R.reduce_euclidean_norm(y, [0, 1]).numpy() == np.float32(np.sqrt(17.0))


def test_reduce_euclidean_norm_gradient_and_nan_at_zero() -> None:
    g = grad(lambda x: R.reduce_euclidean_norm(x, axis=1), [[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(g[0], [0.6, 0.8], rtol=1e-15)  # x / norm
    assert np.isnan(g[1]).all()  # 0 / 0, as in TensorFlow


def test_new_reduce_names_are_exported_where_tensorflow_has_them() -> None:
    import tapemagic.tf as tf

    assert tf.cumsum is tf.math.cumsum is SC.cumsum
    assert tf.math.cumprod is SC.cumprod and not hasattr(tf, "cumprod")
    assert tf.math.reduce_euclidean_norm is R.reduce_euclidean_norm
    assert not hasattr(tf, "reduce_euclidean_norm")
