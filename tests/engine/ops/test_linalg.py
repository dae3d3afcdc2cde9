"""Linear algebra: TensorFlow's values, gradients, conventions and errors."""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.errors import InvalidArgumentError, UnimplementedError
from tapemagic.engine.ops import linalg as L


def grads(fn, *values):
    xs = [Variable(np.asarray(v, dtype=np.float64)) for v in values]
    with GradientTape() as tape:
        y = fn(*xs)
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


# -- matmul -----------------------------------------------------------------------


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_matmul_transposes_and_its_gradient(transpose_a, transpose_b):
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # 2x3
    b = np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])  # 3x2
    a_in = a.T if transpose_a else a
    b_in = b.T if transpose_b else b
    out = L.matmul(a_in, b_in, transpose_a=transpose_a, transpose_b=transpose_b)
    # [[1+4, 2+9], [4+10, 5+18]]
    assert out.numpy().tolist() == [[5.0, 11.0], [14.0, 23.0]]
    # d sum(a @ b) / da = ones(2, 2) @ b^T: row sums of b; / db = a^T @ ones
    ga, gb = grads(
        lambda x, y: L.matmul(x, y, transpose_a=transpose_a, transpose_b=transpose_b),
        a_in,
        b_in,
    )
    want_a = np.array([[1.0, 3.0, 3.0]] * 2)
    want_b = np.array([[5.0, 5.0], [7.0, 7.0], [9.0, 9.0]])
    np.testing.assert_array_equal(ga, want_a.T if transpose_a else want_a)
    np.testing.assert_array_equal(gb, want_b.T if transpose_b else want_b)


def test_matmul_broadcasts_batch_axes_and_sums_their_gradient():
    a = np.ones((2, 1, 3, 4))
    b = np.arange(5 * 4 * 2, dtype=np.float64).reshape(5, 4, 2)
    out = L.matmul(a, b)
    assert out.shape == (2, 5, 3, 2)
    np.testing.assert_array_equal(out.numpy(), np.matmul(a, b))
    _, gb = grads(L.matmul, a, b)
    # each of b's matrices is used by both of a's batch entries, 3 rows each
    np.testing.assert_array_equal(gb, np.full((5, 4, 2), 6.0))


def test_matmul_errors():
    with pytest.raises(InvalidArgumentError, match="rank >= 2"):
        L.matmul([1.0, 2.0], [[1.0], [2.0]])
    with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible"):
        L.matmul(np.ones((2, 3)), np.ones((2, 3)))


def test_matvec_is_matmul_with_a_column():
    a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert L.matvec(a, [1.0, -1.0]).numpy().tolist() == [-1.0, -1.0, -1.0]
    assert L.matvec(a, [1.0, 0.0, 1.0], transpose_a=True).numpy().tolist() == [6, 8]
    batch = L.matvec(np.ones((4, 3, 2)), np.ones((1, 2)))
    assert batch.shape == (4, 3)
    ga, gv = grads(L.matvec, a, [1.0, 2.0])
    np.testing.assert_array_equal(ga, [[1.0, 2.0]] * 3)
    np.testing.assert_array_equal(gv, [9.0, 12.0])
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        L.matvec(a, 1.0)


# -- tensordot and einsum ------------------------------------------------------------


def test_tensordot_axes_forms():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    np.testing.assert_allclose(
        L.tensordot(a, b, axes=[[1, 2], [1, 0]]).numpy(),
        np.tensordot(a, b, axes=([1, 2], [1, 0])),
    )
    np.testing.assert_allclose(
        L.tensordot(a, b, axes=1).numpy(), np.tensordot(a, b, axes=1)
    )
    np.testing.assert_allclose(
        L.tensordot(a, b, axes=[-1, 0]).numpy(), np.tensordot(a, b, axes=([2], [0]))
    )
    outer = L.tensordot([1.0, 2.0], [3.0, 4.0, 5.0], axes=0)
    assert outer.numpy().tolist() == [[3, 4, 5], [6, 8, 10]]


def test_tensordot_gradient_is_the_other_operand_summed():
    ga, gb = grads(lambda x, y: L.tensordot(x, y, 1), [[1.0, 2.0]], [3.0, 4.0])
    assert ga.tolist() == [[3.0, 4.0]] and gb.tolist() == [1.0, 2.0]


def test_tensordot_errors():
    with pytest.raises(ValueError, match="at least 0"):
        L.tensordot(np.ones(2), np.ones(2), axes=-1)
    with pytest.raises(ValueError, match="larger than the rank"):
        L.tensordot(np.ones(2), np.ones(2), axes=2)
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        L.tensordot(np.ones((2, 2)), np.ones((2, 2)), axes=[[0, 1], [0]])
    with pytest.raises(InvalidArgumentError, match="equal sizes"):
        L.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=1)


@pytest.mark.parametrize(
    "equation, shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
        ("i,i->", [(3,), (3,)]),
        ("ij->ji", [(2, 3)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("...ij,...jk->...ik", [(1, 2, 3), (5, 3, 4)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("i j , j -> i", [(2, 3), (3,)]),
    ],
)
def test_einsum_matches_numpy(equation, shapes):
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(
        L.einsum(equation, *xs).numpy(), np.einsum(equation.replace(" ", ""), *xs)
    )


def test_einsum_gradients_by_hand():
    # d trace(x) / dx = I, d sum(diag(x) * w) / dx = diag(w)
    (g,) = grads(lambda x: L.einsum("ii->", x), np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(g, np.eye(3))
    (g,) = grads(
        lambda x: L.einsum("ii->i", x) * [1.0, 2.0, 3.0],
        np.zeros((3, 3)),
    )
    np.testing.assert_array_equal(g, np.diag([1.0, 2.0, 3.0]))
    # d <x, y> = y and x; d sum(x^T) = ones
    gx, gy = grads(lambda x, y: L.einsum("i,i->", x, y), [1.0, 2.0], [3.0, 4.0])
    assert gx.tolist() == [3.0, 4.0] and gy.tolist() == [1.0, 2.0]
    (g,) = grads(lambda x: L.einsum("ij->ji", x) * [[1.0], [2.0]], np.ones((1, 2)))
    assert g.tolist() == [[1.0, 2.0]]
    # a broadcast size-1 batch axis gets the sum over the batch
    ga, _ = grads(
        lambda a, b: L.einsum("...ij,...jk->...ik", a, b),
        np.ones((1, 1, 2)),
        np.ones((3, 2, 1)),
    )
    assert ga.tolist() == [[[3.0, 3.0]]]


def test_einsum_jacobian_is_one_batched_sweep():
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with GradientTape() as tape:
        tape.watch(x)
        y = L.einsum("ij->ji", x)
    jac = tape.jacobian(y, x).numpy()
    # jac[a, b, i, j] = d y[a, b] / d x[i, j] = [a == j][b == i]
    want = np.einsum("aj,bi->abij", np.eye(2), np.eye(2))
    np.testing.assert_array_equal(jac, want)


def test_einsum_second_derivative():
    x = Variable(np.array([1.0, 2.0, 3.0]))
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = L.einsum("i,i->", x, x)  # |x|^2
        g = inner.gradient(y, x)  # 2x
        s = L.einsum("i->", g)
    assert outer.gradient(s, x).numpy().tolist() == [2.0, 2.0, 2.0]


def test_einsum_errors():
    with pytest.raises(ValueError, match="2 input subscripts but 1 tensors"):
        L.einsum("ij,jk->ik", np.ones((2, 2)))
    with pytest.raises(ValueError, match="name 2 axes"):
        L.einsum("ij->i", np.ones(3))
    with pytest.raises(ValueError, match="output subscripts"):
        L.einsum("ij->k", np.ones((2, 2)))
    # NumPy would broadcast the size-1 axis; TensorFlow (and we) refuse
    with pytest.raises(InvalidArgumentError, match="sizes 1 and 3"):
        L.einsum("ij,jk->ik", np.ones((2, 1)), np.ones((3, 4)))


# -- diagonals, traces, transposes ----------------------------------------------------


def test_diag_part_and_trace():
    m = np.arange(6.0).reshape(2, 3)
    assert L.diag_part(m).numpy().tolist() == [0.0, 4.0]
    assert L.diag_part(m.T).numpy().tolist() == [0.0, 4.0]
    batch = np.arange(8.0).reshape(2, 2, 2)
    assert L.trace(batch).numpy().tolist() == [3.0, 11.0]
    (g,) = grads(lambda x: L.diag_part(x) * [1.0, 2.0], m)
    assert g.tolist() == [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    (g,) = grads(lambda x: L.diag_part(x) * [1.0, 2.0], m.T)
    assert g.tolist() == [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]
    (g,) = grads(L.trace, batch)
    np.testing.assert_array_equal(g, np.broadcast_to(np.eye(2), (2, 2, 2)))


def test_diag_part_errors():
    with pytest.raises(ValueError, match="rank >= 2"):
        L.diag_part([1.0, 2.0])
    with pytest.raises(UnimplementedError, match="k=1"):
        L.diag_part(np.ones((2, 2)), k=1)


def test_matrix_transpose():
    x = np.arange(6.0).reshape(1, 2, 3)
    out = L.matrix_transpose(x)
    np.testing.assert_array_equal(out.numpy(), np.swapaxes(x, -1, -2))
    with pytest.raises(ValueError, match="rank >= 2"):
        L.matrix_transpose([1.0])


# -- norms ---------------------------------------------------------------------------


def test_norm_values_against_numpy():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4))
    np.testing.assert_allclose(L.norm(x).numpy(), np.linalg.norm(x))
    np.testing.assert_allclose(L.norm(x, axis=1).numpy(), np.linalg.norm(x, axis=1))
    for ord in (1, 2, np.inf, 3.5):
        np.testing.assert_allclose(
            L.norm(x, ord=ord, axis=0).numpy(), np.linalg.norm(x, ord=ord, axis=0)
        )
    for ord in ("fro", 1, np.inf):
        np.testing.assert_allclose(
            L.norm(x, ord=ord, axis=[0, 1]).numpy(),
            np.linalg.norm(x, ord=ord, axis=(0, 1)),
        )
    # axis=None treats the tensor as one vector (not as a matrix)
    np.testing.assert_allclose(L.norm(x, ord=1).numpy(), np.sum(np.abs(x)))
    assert L.norm(x, axis=1, keepdims=True).shape == (3, 1)
    assert L.norm(x, keepdims=True).shape == (1, 1)


def test_norm_gradients():
    (g,) = grads(L.norm, [3.0, 4.0])
    np.testing.assert_allclose(g, [0.6, 0.8])
    (g,) = grads(lambda x: L.norm(x, ord=1), [-2.0, 0.0, 5.0])
    assert g.tolist() == [-1.0, 0.0, 1.0]
    # ties in the inf-norm share the gradient, as reduce_max does
    (g,) = grads(lambda x: L.norm(x, ord=np.inf), [-3.0, 1.0, 3.0])
    assert g.tolist() == [-0.5, 0.0, 0.5]


@pytest.mark.filterwarnings("ignore:.*(divide by zero|invalid value):RuntimeWarning")
def test_euclidean_norm_gradient_at_zero_is_nan_as_in_tensorflow():
    # sqrt'(0) = inf, times x = 0: TensorFlow gives NaN, and so do we
    (g,) = grads(L.norm, [0.0, 0.0])
    assert np.isnan(g).all()
    assert L.norm([0.0, 0.0]).numpy() == 0.0


def test_norm_errors():
    with pytest.raises(ValueError, match="'fro' is for matrices"):
        L.norm([1.0, 2.0], ord="fro")
    with pytest.raises(ValueError, match="supported vector norm"):
        L.norm([1.0, 2.0], ord=0)
    with pytest.raises(ValueError, match="supported matrix norm"):
        L.norm(np.ones((2, 2)), ord=3, axis=[0, 1])
    with pytest.raises(ValueError, match="2 unique integers"):
        L.norm(np.ones((2, 2)), axis=[1, 1])
    with pytest.raises(ValueError, match="2 unique integers"):
        L.norm(np.ones((2, 2, 2)), axis=[0, 1, 2])
    with pytest.raises(UnimplementedError, match="SVD"):
        L.norm(np.ones((2, 2)), ord=2, axis=[0, 1])
