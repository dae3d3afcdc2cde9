"""TensorFlow behaviours of the shape and indexing ops in engine/ops/shape.py.

Values and gradients are checked against hand-computed ones or an independent
NumPy reference (np.take, np.pad, np.add.at, ...).
"""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Tensor, Variable, dtypes
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops import composed_shape as CS
from tapemagic.engine.ops import math as M
from tapemagic.engine.ops import reduce as R
from tapemagic.engine.ops import shape as S
from tapemagic.engine.ops import sorting as SO


def grad(fn, value, weights=None):
    """Gradient of ``sum(weights * fn(x))`` at ``value`` (float64), as NumPy."""
    x = Tensor(np.asarray(value, dtype=np.float64))
    with GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
        if weights is not None:
            y = y * Tensor(np.asarray(weights, dtype=np.float64))
    g = tape.gradient(y, x)
    return None if g is None else g.numpy()


def hessian_diagonal(fn, value):
    x = Tensor(np.asarray(value, dtype=np.float64))
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = R.reduce_sum(fn(x))
        g = inner.gradient(y, x)
    return np.diagonal(outer.jacobian(g, x).numpy().reshape(x.shape.num_elements(), -1))


V = np.array([1.0, 2.0, 3.0, 4.0])
X34 = np.arange(12.0).reshape(3, 4)


# -- reshape, squeeze, expand_dims -------------------------------------------------


def test_reshape_size_mismatch_raises() -> None:
    with pytest.raises(InvalidArgumentError, match=r"4 elements to shape \[3, 2\]"):
        S.reshape(V, [3, 2])


def test_reshape_with_minus_one_and_its_gradient() -> None:
    assert S.reshape(Tensor(X34), [-1, 6]).shape == (2, 6)
    w = np.arange(12.0).reshape(2, 6)
    np.testing.assert_array_equal(
        grad(lambda x: S.reshape(x, [2, 6]), X34, w), w.reshape(3, 4)
    )


def test_squeeze_of_a_non_1_axis_raises() -> None:
    with pytest.raises(InvalidArgumentError, match=r"squeeze dim\[0\].*got 2"):
        S.squeeze(np.zeros((2, 1)), axis=0)
    assert S.squeeze(np.zeros((1, 2, 1))).shape == (2,)
    assert S.squeeze(np.zeros((1, 2, 1)), axis=-1).shape == (1, 2)


def test_expand_dims_out_of_range() -> None:
    assert S.expand_dims(V, -1).shape == (4, 1)
    with pytest.raises(ValueError, match=r"\[-2, 1\]"):
        S.expand_dims(V, 2)


def test_transpose_gradient_is_the_inverse_permutation() -> None:
    w = np.arange(24.0).reshape(4, 2, 3)
    x = np.zeros((2, 3, 4))
    got = grad(lambda t: S.transpose(t, [2, 0, 1]), x, w)
    np.testing.assert_array_equal(got, np.transpose(w, [1, 2, 0]))


# -- split -------------------------------------------------------------------------


def test_split_into_equal_pieces() -> None:
    pieces = S.split(Tensor(X34), 2, axis=1)
    assert [p.shape for p in pieces] == [(3, 2), (3, 2)]
    np.testing.assert_array_equal(pieces[1].numpy(), X34[:, 2:])


def test_split_sizes_with_one_inferred() -> None:
    pieces = S.split(Tensor(np.arange(10.0)), [3, -1, 2])
    assert [p.shape[0] for p in pieces] == [3, 5, 2]
    np.testing.assert_array_equal(pieces[1].numpy(), np.arange(3.0, 8.0))


def test_split_gradient_reaches_only_the_used_piece() -> None:
    def second_piece_squared(x):
        return M.square(S.split(x, [2, -1], axis=-1)[1])

    got = grad(second_piece_squared, [1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(got, [0, 0, 6, 8, 10])


@pytest.mark.parametrize(
    "splits, match",
    [
        ([2, 3], "must add up to 4"),
        ([1, 1], "must add up to 4"),
        ([-1, -1], "at most one -1"),
        ([5, -1], "at most 4"),
        (3, "evenly divide.*size = 4.*num_split 3"),
    ],
)
def test_split_errors(splits, match) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        S.split(V, splits)


def test_split_bad_count_num_and_axis() -> None:
    with pytest.raises(ValueError, match="positive"):
        S.split(V, 0)
    with pytest.raises(ValueError, match="empty list"):
        S.split(V, [])
    with pytest.raises(ValueError, match="num=3"):
        S.split(V, 2, num=3)
    with pytest.raises(InvalidArgumentError, match=r"axis 1 is out of range"):
        S.split(V, 2, axis=1)


# -- tile --------------------------------------------------------------------------


def test_tile_matches_numpy_and_sums_its_gradient() -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(S.tile(Tensor(x), [2, 3]).numpy(), np.tile(x, (2, 3)))
    w = np.random.default_rng(0).normal(size=(6, 6))
    got = grad(lambda t: S.tile(t, [2, 3]), x, w)
    # independent reference: add each tile of w back onto x's positions
    want = sum(
        w[i * 3 : i * 3 + 3, j * 2 : j * 2 + 2] for i in range(2) for j in range(3)
    )
    np.testing.assert_allclose(got, want)
    np.testing.assert_array_equal(grad(lambda t: S.tile(t, [3]), [1.0, 2.0]), [3, 3])


def test_tile_errors() -> None:
    with pytest.raises(InvalidArgumentError, match="length 2 but got length 1"):
        S.tile(np.zeros((2, 2)), [2])
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        S.tile(V, [-1])


# -- gather, gather_nd -------------------------------------------------------------


def test_gather_matches_numpy_take() -> None:
    idx = np.array([[2, 0], [1, 1]])
    for axis in (0, 1, -1):
        got = S.gather(Tensor(X34), idx, axis=axis).numpy()
        np.testing.assert_array_equal(got, np.take(X34, idx, axis=axis))
    assert S.gather(Tensor(X34), 1).shape == (4,)  # a scalar index drops the axis


def test_gather_repeated_indices_accumulate() -> None:
    np.testing.assert_array_equal(
        grad(lambda x: S.gather(x, [0, 0, 2]), V), [2, 0, 1, 0]
    )
    w = np.arange(1.0, 10.0).reshape(3, 3)
    got = grad(lambda x: S.gather(x, [3, 3, 0], axis=1), X34, w)
    want = np.zeros((3, 4))
    np.add.at(want, (slice(None), [3, 3, 0]), w)
    np.testing.assert_array_equal(got, want)


def test_gather_with_batch_dims() -> None:
    params = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[3, 0, 3], [1, 1, 2]], np.int64)
    got = S.gather(Tensor(params), idx, axis=2, batch_dims=1)
    assert got.shape == (2, 3, 3)
    want = np.stack([params[b][:, idx[b]] for b in range(2)])
    np.testing.assert_array_equal(got.numpy(), want)
    # default axis is batch_dims
    rows = S.gather(Tensor(params), np.array([[2, 0], [1, 1]]), batch_dims=1).numpy()
    np.testing.assert_array_equal(
        rows, np.stack([params[0][[2, 0]], params[1][[1, 1]]])
    )
    g = grad(lambda x: S.gather(x, idx, axis=2, batch_dims=1), params)
    want_g = np.zeros_like(params)
    for b in range(2):
        np.add.at(want_g[b], (slice(None), idx[b]), 1.0)
    np.testing.assert_array_equal(g, want_g)


def test_gather_second_derivative_nests() -> None:
    # f = sum(gather(x, [0, 0, 2]) ** 3): d2f/dx2 = 6 x * count
    got = hessian_diagonal(lambda x: S.gather(x, [0, 0, 2]) ** 3.0, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(got, [12.0, 0.0, 18.0])


@pytest.mark.parametrize(
    "bad, match",
    [([0, 3], r"indices\[1\] = 3 is not in \[0, 3\)"),
     ([-1, 0], r"indices\[0\] = -1 is not in \[0, 3\).*do not wrap"),
     ([[0, 1], [7, 0]], r"indices\[1,0\] = 7 is not in")],
)  # fmt: skip
def test_gather_rejects_out_of_range_and_negative_indices(bad, match) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        S.gather([1.0, 2.0, 3.0], bad)


def test_gather_argument_errors() -> None:
    with pytest.raises(TypeError, match="int32 or int64"):
        S.gather(V, [0.0])
    with pytest.raises(InvalidArgumentError, match="axis 2 is out of range"):
        S.gather(X34, [0], axis=2)
    with pytest.raises(InvalidArgumentError, match="less than or equal to axis"):
        S.gather(np.zeros((2, 2)), np.zeros((2, 1), np.int32), axis=0, batch_dims=1)
    with pytest.raises(InvalidArgumentError, match=r"must equal indices.shape\[:1\]"):
        S.gather(np.zeros((2, 2)), np.zeros((3, 1), np.int32), batch_dims=1)
    with pytest.raises(
        InvalidArgumentError, match=r"batch_dims=2 must be in \[-1, 1\]"
    ):
        S.gather(np.zeros((2, 2)), np.zeros(2, np.int32), axis=1, batch_dims=2)


def test_gather_gradient_is_convertible_and_dense() -> None:
    x = Variable([[1.0, 2.0], [3.0, 4.0]])
    with GradientTape() as tape:
        y = S.gather(x, [1])
    g = tape.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [1, 1]])


def test_gather_nd_matches_numpy_and_accumulates() -> None:
    params = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[1, 2], [0, 0], [1, 2]])
    got = S.gather_nd(Tensor(params), idx)
    np.testing.assert_array_equal(got.numpy(), params[idx[:, 0], idx[:, 1]])
    g = grad(lambda x: S.gather_nd(x, idx), params)
    want = np.zeros_like(params)
    np.add.at(want, (idx[:, 0], idx[:, 1]), 1.0)
    np.testing.assert_array_equal(g, want)


def test_gather_nd_with_batch_dims() -> None:
    params = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[[2, 3]], [[0, 1]]])  # per batch: one (row, col) pair
    got = S.gather_nd(Tensor(params), idx, batch_dims=1).numpy()
    np.testing.assert_array_equal(got, [[params[0, 2, 3]], [params[1, 0, 1]]])


def test_gather_nd_errors() -> None:
    with pytest.raises(InvalidArgumentError, match=r"\[3, 0\] does not index"):
        S.gather_nd(X34, [[0, 1], [3, 0]])
    with pytest.raises(InvalidArgumentError, match="at most the rank"):
        S.gather_nd(V, [[0, 1]])
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        S.gather_nd(V, 0)


# -- pad ---------------------------------------------------------------------------


PADDINGS = [[1, 2], [0, 1]]


def _pad_adjoint(x_shape, paddings, mode, w):
    """NumPy reference for the VJP: pad an index grid, then add w back by index."""
    ids = np.arange(int(np.prod(x_shape))).reshape(x_shape)
    padded_ids = np.pad(ids, paddings, mode=mode)
    out = np.zeros(ids.size)
    np.add.at(out, padded_ids.ravel(), w.ravel())
    return out.reshape(x_shape)


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC", "reflect"])
def test_mirror_pad_values_and_gradient(mode) -> None:
    x = np.arange(1.0, 13.0).reshape(3, 4)
    got = S.pad(Tensor(x), PADDINGS, mode=mode).numpy()
    np.testing.assert_array_equal(got, np.pad(x, PADDINGS, mode=mode.lower()))
    w = np.random.default_rng(1).normal(size=got.shape)
    g = grad(lambda t: S.pad(t, PADDINGS, mode=mode), x, w)
    np.testing.assert_allclose(g, _pad_adjoint(x.shape, PADDINGS, mode.lower(), w))


def test_constant_pad_values_and_gradient() -> None:
    x = np.arange(1.0, 13.0).reshape(3, 4)
    got = S.pad(Tensor(x), PADDINGS, constant_values=-1.5).numpy()
    np.testing.assert_array_equal(got, np.pad(x, PADDINGS, constant_values=-1.5))
    w = np.random.default_rng(2).normal(size=got.shape)
    g = grad(lambda t: S.pad(t, PADDINGS), x, w)
    np.testing.assert_array_equal(g, w[1:4, 0:4])


def test_pad_constant_value_gets_no_gradient() -> None:
    x, c = Tensor(np.array([1.0, 2.0])), Tensor(np.array(5.0))
    with GradientTape() as tape:
        tape.watch([x, c])
        y = S.pad(x, [[1, 1]], constant_values=c)
    gx, gc = tape.gradient(y, [x, c])
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0])
    assert gc is None


def test_pad_errors() -> None:
    with pytest.raises(InvalidArgumentError, match=r"must be at most 2.*got \[3, 0\]"):
        S.pad(np.zeros(3), [[3, 0]], mode="REFLECT")
    S.pad(np.zeros(3), [[3, 0]], mode="SYMMETRIC")  # the edge counts: size 3 fits
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        S.pad(np.zeros(3), [[-1, 0]])
    with pytest.raises(InvalidArgumentError, match=r"shape \[2, 2\]"):
        S.pad(np.zeros((2, 2)), [[1, 1]])
    with pytest.raises(ValueError, match="CONSTANT"):
        S.pad(np.zeros(3), [[1, 1]], mode="WRAP")
    with pytest.raises(ValueError, match="constant_values must be a scalar"):
        S.pad(np.zeros(3), [[1, 1]], constant_values=np.zeros(2))


# -- reverse -----------------------------------------------------------------------


def test_reverse_values_gradient_and_errors() -> None:
    got = S.reverse(Tensor(X34), [0, -1]).numpy()
    np.testing.assert_array_equal(got, X34[::-1, ::-1])
    w = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(grad(lambda t: S.reverse(t, [1]), X34, w), w[:, ::-1])
    with pytest.raises(InvalidArgumentError, match="more than once"):
        S.reverse(X34, [1, -1])
    with pytest.raises(InvalidArgumentError, match="out of range"):
        S.reverse(X34, [2])


# -- shape, size, rank -------------------------------------------------------------


def test_shape_size_rank() -> None:
    x = Tensor(np.zeros((2, 3, 4)))
    shape = S.shape(x)
    assert shape.dtype == dtypes.int32
    np.testing.assert_array_equal(shape.numpy(), [2, 3, 4])
    assert S.shape(x, out_type=dtypes.int64).dtype == dtypes.int64
    assert S.shape(3.0).shape == (0,)
    assert S.size(x).numpy() == 24 and S.size(x).dtype == dtypes.int32
    assert S.rank(Variable([[1.0]])).numpy() == 2
    with pytest.raises(TypeError, match="out_type"):
        S.shape(x, out_type=dtypes.float32)


# -- getitem -----------------------------------------------------------------------


def test_getitem_ints_and_slices() -> None:
    x = Tensor(X34)
    np.testing.assert_array_equal(x[1].numpy(), X34[1])
    np.testing.assert_array_equal(x[-1, -2].numpy(), X34[-1, -2])
    np.testing.assert_array_equal(x[::2, 3:0:-2].numpy(), X34[::2, 3:0:-2])
    assert x[None, :, None].shape == (1, 3, 1, 4)
    np.testing.assert_array_equal(x[..., 0].numpy(), X34[:, 0])
    assert x[1:1].shape == (0, 4)


def test_getitem_gradients_through_slices() -> None:
    np.testing.assert_array_equal(grad(lambda x: x[::-1], [1.0, 2.0, 3.0]), [1, 1, 1])
    np.testing.assert_array_equal(
        grad(lambda x: x[::-2], V, [10.0, 20.0]), [0, 20, 0, 10]
    )
    got = grad(lambda x: x[..., 1], X34)
    want = np.zeros((3, 4))
    want[:, 1] = 1
    np.testing.assert_array_equal(got, want)
    got = grad(lambda x: x[None, -1, 1:3], X34, [[5.0, 7.0]])
    want = np.zeros((3, 4))
    want[2, 1:3] = [5, 7]
    np.testing.assert_array_equal(got, want)


def test_getitem_integer_arrays_accumulate() -> None:
    np.testing.assert_array_equal(
        grad(lambda x: x[[0, 0, 2]], [1.0, 2.0, 3.0]), [2, 0, 1]
    )
    idx = Tensor(np.array([3, 3], np.int32))
    np.testing.assert_array_equal(grad(lambda x: x[idx], V), [0, 0, 0, 2])
    np.testing.assert_array_equal(grad(lambda x: x[np.array([-1, 0])], V), [1, 0, 0, 1])
    x = Tensor(X34)
    np.testing.assert_array_equal(x[1:, [0, 0]].numpy(), X34[1:, [0, 0]])
    assert x[[]].shape == (0, 4)


def test_getitem_int_next_to_an_array_broadcasts_like_numpy() -> None:
    x = Tensor(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(x[:, 1, [0, 3]].numpy(), x.numpy()[:, 1, [0, 3]])
    with GradientTape() as tape:
        tape.watch(x)
        y = x[:, 1, [0, 3]]
    jac = tape.jacobian(y, x).numpy()
    want = np.zeros((2, 2, 2, 3, 4))
    for b in range(2):
        want[b, 0, b, 1, 0] = want[b, 1, b, 1, 3] = 1
    np.testing.assert_array_equal(jac, want)


def test_getitem_boolean_masks() -> None:
    x = np.array([[1.0, -2.0], [-3.0, 4.0]])
    mask = x > 0
    np.testing.assert_array_equal(Tensor(x)[Tensor(mask)].numpy(), [1.0, 4.0])
    np.testing.assert_array_equal(grad(lambda t: t[t > 0], x), mask.astype(float))
    got = grad(lambda t: t[:, np.array([False, True])], x, [[2.0], [3.0]])
    np.testing.assert_array_equal(got, [[0, 2], [0, 3]])


def test_getitem_second_derivative() -> None:
    got = hessian_diagonal(lambda x: x[[0, 0, 1]] ** 2.0, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(got, [4.0, 2.0, 0.0])


def test_getitem_errors() -> None:
    x = Tensor(X34)
    with pytest.raises(IndexError, match="out of range"):
        x[3]
    with pytest.raises(IndexError):
        x[:, [0, 4]]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(TypeError, match="valid indices"):
        x[0.5]
    with pytest.raises(TypeError, match="boolean mask"):
        x[True]
    with pytest.raises(TypeError, match="tf.gather"):
        Tensor(np.zeros((2, 3, 4)))[[0, 1], :, [0, 1]]
    with pytest.raises(TypeError, match="tf.gather"):
        Tensor(np.zeros((2, 3, 4)))[[0, 1], :, 0]


def test_iterating_a_tensor_and_a_variable_keeps_the_gradient() -> None:
    v = Variable([[1.0, 2.0], [3.0, 4.0]])
    with GradientTape() as tape:
        first, second = v
        y = first * 2.0 + v[1, ::-1] * [10.0, 100.0]
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[2, 2], [100, 10]])


def test_stack_unstack_concat_round_trip_gradients() -> None:
    w = np.arange(1.0, 7.0).reshape(2, 3)
    got = grad(lambda x: S.stack(S.unstack(x, axis=1), axis=1), w, w)
    np.testing.assert_array_equal(got, w)
    got = grad(lambda x: S.concat([x, x[:, :1]], axis=-1), w, np.ones((2, 4)))
    np.testing.assert_array_equal(got, [[2, 1, 1], [2, 1, 1]])
    with pytest.raises(ValueError, match="out of range"):
        S.concat([w, w], axis=2)


def test_broadcast_to_gradient_sums_the_stretched_axes() -> None:
    got = grad(lambda x: S.broadcast_to(x, [2, 3]), [[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(got, [[2, 2, 2]])


# -- slice ---------------------------------------------------------------------------

T332 = np.array(
    [[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]]
)


def test_slice_follows_tensorflows_examples() -> None:
    assert S.slice_(T332, [1, 0, 0], [1, 1, 3]).numpy().tolist() == [[[3, 3, 3]]]
    assert S.slice_(T332, [1, 0, 0], [1, 2, 3]).numpy().tolist() == [
        [[3, 3, 3], [4, 4, 4]]
    ]
    assert S.slice_(T332, [1, 0, 0], [2, 1, 3]).numpy().tolist() == [
        [[3, 3, 3]],
        [[5, 5, 5]],
    ]
    # -1 takes the rest of the axis
    np.testing.assert_array_equal(
        S.slice_(T332, [1, 1, 0], [-1, -1, 2]), T332[1:, 1:, :2]
    )


def test_slice_gradient_puts_g_back_in_place() -> None:
    g = grad(lambda x: S.slice_(x, [0, 1], [2, 2]), np.ones((3, 4)))
    want = np.zeros((3, 4))
    want[0:2, 1:3] = 1.0
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize(
    "begin, size, match",
    [
        ([0, 0], [1, 1, 1], r"size 3, but got shapes \[2\] and \[3\]"),
        ([0, 0, -1], [1, 1, 1], r"begin\[2\] in \[0, 3\], but got -1"),
        ([2, 0, 0], [2, 1, 1], r"size\[0\] in \[0, 1\], but got 2"),
    ],
)
def test_slice_errors(begin, size, match) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        S.slice_(T332, begin, size)


# -- boolean_mask --------------------------------------------------------------------


def test_boolean_mask_follows_tensorflows_examples() -> None:
    got = CS.boolean_mask([0, 1, 2, 3], np.array([True, False, True, False]))
    assert got.numpy().tolist() == [0, 2]
    rows = CS.boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True])
    assert rows.numpy().tolist() == [[1, 2], [5, 6]]
    cols = CS.boolean_mask([[1, 2, 3], [4, 5, 6]], [False, True, True], axis=1)
    assert cols.numpy().tolist() == [[2, 3], [5, 6]]


def test_boolean_mask_with_a_2d_mask_flattens_the_masked_axes() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    mask = np.array([[True, False, True], [False, True, False]])
    np.testing.assert_array_equal(CS.boolean_mask(x, mask), x[mask])  # NumPy's rule
    inner = np.arange(12).reshape(3, 4) % 5 == 0
    got = CS.boolean_mask(x, inner, axis=-2)  # a negative axis counts from the end
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got, x[:, inner])


def test_boolean_mask_gradient_is_one_where_the_mask_is_true() -> None:
    mask = np.array([[True, False], [False, True], [True, True]])
    g = grad(lambda x: CS.boolean_mask(x, mask), np.ones((3, 2)), weights=[1, 2, 3, 4])
    assert g.tolist() == [[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]]


def test_boolean_mask_errors() -> None:
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        CS.boolean_mask([1.0, 2.0], True)
    with pytest.raises(ValueError, match=r"Shapes \[3\] and \[2\] are incompatible"):
        CS.boolean_mask([1.0, 2.0, 3.0], [True, False])


# -- repeat ---------------------------------------------------------------------------


def test_repeat_follows_tensorflows_examples() -> None:
    got = CS.repeat([1.0, 2.0, 3.0], repeats=[3, 0, 2], axis=0)
    assert got.numpy().tolist() == [1.0, 1.0, 1.0, 3.0, 3.0]
    x = [[1, 2], [3, 4]]
    assert CS.repeat(x, repeats=[2, 3], axis=0).numpy().tolist() == [
        [1, 2],
        [1, 2],
        [3, 4],
        [3, 4],
        [3, 4],
    ]
    assert CS.repeat(x, repeats=[2, 3], axis=1).numpy().tolist() == [
        [1, 1, 2, 2, 2],
        [3, 3, 4, 4, 4],
    ]
    assert CS.repeat(3, repeats=4).numpy().tolist() == [3, 3, 3, 3]
    assert CS.repeat(x, repeats=2).numpy().tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    np.testing.assert_array_equal(
        CS.repeat(np.arange(6).reshape(2, 3), [1], axis=-1), np.arange(6).reshape(2, 3)
    )


def test_repeat_gradient_sums_the_copies() -> None:
    g = grad(lambda x: CS.repeat(x, [3, 0, 2]), np.ones(3))
    assert g.tolist() == [3.0, 0.0, 2.0]
    w = np.arange(8.0).reshape(2, 4)
    g = grad(lambda x: CS.repeat(x, 2, axis=1), np.ones((2, 2)), weights=w)
    assert g.reshape(-1).tolist() == [0 + 1, 2 + 3, 4 + 5, 6 + 7]


def test_repeat_errors() -> None:
    with pytest.raises(InvalidArgumentError, match="length 1 or 3"):
        CS.repeat([1.0, 2.0, 3.0], [1, 2], axis=0)
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        CS.repeat([1.0, 2.0], [1, -1], axis=0)
    with pytest.raises(TypeError, match="integers"):
        CS.repeat([1.0, 2.0], 1.5)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        CS.repeat([1.0, 2.0], 2, axis=1)


# -- meshgrid -------------------------------------------------------------------------


def test_meshgrid_follows_tensorflows_example() -> None:
    xs, ys = CS.meshgrid([1, 2, 3], [4, 5, 6])
    assert xs.numpy().tolist() == [[1, 2, 3]] * 3
    assert ys.numpy().tolist() == [[4, 4, 4], [5, 5, 5], [6, 6, 6]]


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing) -> None:
    vectors = [np.arange(2.0), np.arange(3.0) + 10, np.arange(4.0) + 20]
    got = CS.meshgrid(*vectors, indexing=indexing)
    for g, want in zip(got, np.meshgrid(*vectors, indexing=indexing)):
        np.testing.assert_array_equal(g, want)
    assert CS.meshgrid() == []
    (single,) = CS.meshgrid([[1.0, 2.0]], indexing=indexing)  # flattened
    assert single.numpy().tolist() == [1.0, 2.0]


def test_meshgrid_gradient_counts_the_copies() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]))
    y = Variable(np.array([4.0, 5.0]))
    with GradientTape() as tape:
        xs, ys = CS.meshgrid(x, y)
        total = R.reduce_sum(xs * ys)
    gx, gy = tape.gradient(total, [x, y])
    assert gx.numpy().tolist() == [9.0, 9.0, 9.0]  # each x meets every y
    assert gy.numpy().tolist() == [6.0, 6.0]


def test_meshgrid_errors() -> None:
    with pytest.raises(ValueError, match="'xy' or 'ij'"):
        CS.meshgrid([1.0], [2.0], indexing="ji")
    with pytest.raises(TypeError, match="'sparse' is an invalid keyword"):
        CS.meshgrid([1.0], sparse=True)


# -- sort, argsort, top_k -----------------------------------------------------------


def test_sort_and_argsort_both_directions() -> None:
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]])
    np.testing.assert_array_equal(SO.sort(x), np.sort(x, axis=-1))
    np.testing.assert_array_equal(SO.sort(x, axis=0), np.sort(x, axis=0))
    down = SO.sort(x, direction="DESCENDING").numpy()
    np.testing.assert_array_equal(down, -np.sort(-x, axis=-1))
    order = SO.argsort(x)
    assert order.dtype == dtypes.int32
    np.testing.assert_array_equal(order, np.argsort(x, axis=-1))


def test_argsort_keeps_ties_in_index_order_both_ways() -> None:
    assert SO.argsort([1.0, 1.0, 0.0, 1.0]).numpy().tolist() == [2, 0, 1, 3]
    down = SO.argsort([1, 3, 3, 2, 3], direction="DESCENDING").numpy().tolist()
    assert down == [1, 2, 4, 3, 0]


def test_sort_gradient_goes_back_to_where_each_value_came_from() -> None:
    x = [30.0, 10.0, 20.0]
    # sorted: [10, 20, 30] from positions [1, 2, 0]; weights 1, 2, 3
    assert grad(SO.sort, x, weights=[1, 2, 3]).tolist() == [3.0, 1.0, 2.0]
    g = grad(lambda t: SO.sort(t, axis=0, direction="DESCENDING"), [[1.0], [5.0]],
             weights=[[1.0], [7.0]])  # fmt: skip
    assert g.tolist() == [[7.0], [1.0]]
    assert grad(lambda t: M.cast(SO.argsort(t), "float64"), x) is None


def test_sort_errors() -> None:
    with pytest.raises(ValueError, match="ASCENDING"):
        SO.sort([1.0, 2.0], direction="ascending")
    with pytest.raises(InvalidArgumentError, match="out of range"):
        SO.argsort(3.0)


def test_top_k_follows_tensorflows_examples() -> None:
    result = SO.top_k([1, 2, 98, 1, 1, 99, 3, 1, 3, 96, 4, 1], k=3)
    assert result.values.numpy().tolist() == [99, 98, 96]
    assert result.indices.numpy().tolist() == [5, 2, 9]
    assert result.indices.dtype == dtypes.int32
    ties = SO.top_k([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0], k=3)
    assert ties.indices.numpy().tolist() == [0, 1, 3]  # lower index first
    wide = SO.top_k([1, 1, 0, 1], k=3, index_type=dtypes.int64)
    assert wide.indices.dtype == dtypes.int64
    x = np.random.default_rng(0).normal(size=(3, 4, 5, 6))
    values, indices = SO.top_k(x, k=2)
    assert values.shape == indices.shape == (3, 4, 5, 2)
    np.testing.assert_array_equal(values, -np.sort(-x, axis=-1)[..., :2])
    # "the indices can be used to gather from a tensor whose shape matches input"
    np.testing.assert_array_equal(S.gather(x, indices, batch_dims=-1), values)


def test_top_k_gradient_scatters_to_the_indices() -> None:
    x = [[1.0, 9.0, 3.0, 7.0], [4.0, 2.0, 8.0, 6.0]]
    g = grad(lambda t: SO.top_k(t, k=2).values, x, weights=[[1.0, 10.0]] * 2)
    assert g.tolist() == [[0.0, 1.0, 0.0, 10.0], [0.0, 0.0, 1.0, 10.0]]
    assert grad(lambda t: M.cast(SO.top_k(t, 2).indices, "float64"), x) is None


def test_top_k_errors() -> None:
    with pytest.raises(
        InvalidArgumentError, match="at least k columns. Had 3, needed 4"
    ):
        SO.top_k([1.0, 2.0, 3.0], k=4)
    with pytest.raises(InvalidArgumentError, match="Need k >= 0"):
        SO.top_k([1.0, 2.0], k=-1)
    with pytest.raises(InvalidArgumentError, match=">= 1-D"):
        SO.top_k(1.0)
    with pytest.raises(TypeError, match="index_type"):
        SO.top_k([1.0], index_type=dtypes.float32)


def test_new_shape_names_are_exported_where_tensorflow_has_them() -> None:
    import tapemagic.tf as tf

    assert tf.slice is S.slice_
    for name in ("boolean_mask", "repeat", "meshgrid"):
        assert getattr(tf, name) is getattr(CS, name), name
    for name in ("sort", "argsort"):
        assert getattr(tf, name) is getattr(SO, name), name
    assert tf.math.top_k is tf.nn.top_k is SO.top_k and not hasattr(tf, "top_k")
