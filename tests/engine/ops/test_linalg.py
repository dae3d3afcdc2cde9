"""Linear algebra: TensorFlow's values, gradients, conventions and errors."""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.errors import InvalidArgumentError, UnimplementedError
from tapemagic.engine.ops import composed_linalg as CL
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


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [
        ((4, 3, 5), (5, 2)),  # a stack times one matrix: one GEMM over the rows
        ((2, 4, 1, 5), (5, 3)),  # row vectors, two batch axes
        ((3, 5), (6, 5, 1)),  # one matrix times a stack of columns
        ((3, 5), (2, 6, 5, 1)),
        ((3, 5), (6, 5, 2)),  # general stacks keep NumPy's matmul
        ((0, 3, 5), (5, 2)),  # empty stacks
        ((3, 5), (0, 5, 1)),
        ((4, 3, 0), (0, 2)),
    ],
)
@pytest.mark.parametrize("transpose", [False, True])
def test_matmul_of_a_stack_and_a_matrix_equals_numpy(a_shape, b_shape, transpose):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(a_shape)
    b = rng.standard_normal(b_shape)
    if transpose:  # the same product from transposed operands
        a_in, b_in = np.swapaxes(a, -1, -2).copy(), np.swapaxes(b, -1, -2).copy()
        out = L.matmul(a_in, b_in, transpose_a=True, transpose_b=True)
    else:
        out = L.matmul(a, b)
    want = np.matmul(a, b)
    assert out.shape == want.shape
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)


def test_matmul_errors():
    with pytest.raises(InvalidArgumentError, match="rank >= 2"):
        L.matmul([1.0, 2.0], [[1.0], [2.0]])
    with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible"):
        L.matmul(np.ones((2, 3)), np.ones((2, 3)))


def test_matvec_is_matmul_with_a_column():
    a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert CL.matvec(a, [1.0, -1.0]).numpy().tolist() == [-1.0, -1.0, -1.0]
    assert CL.matvec(a, [1.0, 0.0, 1.0], transpose_a=True).numpy().tolist() == [6, 8]
    batch = CL.matvec(np.ones((4, 3, 2)), np.ones((1, 2)))
    assert batch.shape == (4, 3)
    ga, gv = grads(CL.matvec, a, [1.0, 2.0])
    np.testing.assert_array_equal(ga, [[1.0, 2.0]] * 3)
    np.testing.assert_array_equal(gv, [9.0, 12.0])
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        CL.matvec(a, 1.0)


# -- tensordot and einsum ------------------------------------------------------------


def test_tensordot_axes_forms():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    np.testing.assert_allclose(
        CL.tensordot(a, b, axes=[[1, 2], [1, 0]]).numpy(),
        np.tensordot(a, b, axes=([1, 2], [1, 0])),
    )
    np.testing.assert_allclose(
        CL.tensordot(a, b, axes=1).numpy(), np.tensordot(a, b, axes=1)
    )
    np.testing.assert_allclose(
        CL.tensordot(a, b, axes=[-1, 0]).numpy(), np.tensordot(a, b, axes=([2], [0]))
    )
    outer = CL.tensordot([1.0, 2.0], [3.0, 4.0, 5.0], axes=0)
    assert outer.numpy().tolist() == [[3, 4, 5], [6, 8, 10]]


def test_tensordot_gradient_is_the_other_operand_summed():
    ga, gb = grads(lambda x, y: CL.tensordot(x, y, 1), [[1.0, 2.0]], [3.0, 4.0])
    assert ga.tolist() == [[3.0, 4.0]] and gb.tolist() == [1.0, 2.0]


def test_tensordot_errors():
    with pytest.raises(ValueError, match="at least 0"):
        CL.tensordot(np.ones(2), np.ones(2), axes=-1)
    with pytest.raises(ValueError, match="larger than the rank"):
        CL.tensordot(np.ones(2), np.ones(2), axes=2)
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        CL.tensordot(np.ones((2, 2)), np.ones((2, 2)), axes=[[0, 1], [0]])
    with pytest.raises(InvalidArgumentError, match="equal sizes"):
        CL.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=1)


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
    assert CL.trace(batch).numpy().tolist() == [3.0, 11.0]
    (g,) = grads(lambda x: L.diag_part(x) * [1.0, 2.0], m)
    assert g.tolist() == [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    (g,) = grads(lambda x: L.diag_part(x) * [1.0, 2.0], m.T)
    assert g.tolist() == [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]
    (g,) = grads(CL.trace, batch)
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


# -- inv, det, slogdet, solve, cholesky ------------------------------------------------


def _numeric_gradient(f, x, eps=1e-6):
    """Central differences of the scalar NumPy function ``f`` at ``x``."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        g[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return g


RNG = np.random.default_rng(7)
A = RNG.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)  # a batch of invertible matrices
W = RNG.normal(size=(2, 3, 3))


def test_inv_values_batches_and_adjoint():
    np.testing.assert_allclose(L.inv(A).numpy(), np.linalg.inv(A), rtol=1e-12)
    adjoint = L.inv(A, adjoint=True).numpy()
    np.testing.assert_allclose(adjoint, np.linalg.inv(A.transpose(0, 2, 1)))
    assert L.inv([[2.0, 0.0], [0.0, 4.0]]).numpy().tolist() == [[0.5, 0], [0, 0.25]]


def test_inv_gradient_matches_finite_differences():
    (g,) = grads(lambda a: L.matmul(L.inv(a), np.eye(3)) * W, A)
    want = _numeric_gradient(lambda a: np.sum(W * np.linalg.inv(a)), A)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)


def test_inv_second_derivative_through_nested_tapes():
    # inv([[x]]) = 1/x: second derivative 2 / x^3
    x = Variable(np.array([[2.0]]))
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = L.inv(x)
        first = inner.gradient(y, x)
    assert first.numpy().tolist() == [[-0.25]]
    assert outer.gradient(first, x).numpy().tolist() == [[0.25]]


def test_det_values_and_gradient_by_hand():
    # det [[a, b], [c, d]] = ad - bc; gradient [[d, -c], [-b, a]]
    m = [[1.0, 2.0], [3.0, 4.0]]
    assert L.det(m).numpy() == np.float32(-2.0)
    (g,) = grads(L.det, m)
    np.testing.assert_allclose(g, [[4.0, -3.0], [-2.0, 1.0]], rtol=1e-12)
    np.testing.assert_allclose(L.det(A).numpy(), np.linalg.det(A), rtol=1e-12)
    (g,) = grads(lambda a: L.det(a) * np.array([1.0, -2.0]), A)
    want = _numeric_gradient(lambda a: np.sum(np.linalg.det(a) * [1.0, -2.0]), A)
    np.testing.assert_allclose(g, want, rtol=1e-6)


def test_det_hessian_by_hand():
    # d2(ad - bc) / da dd = 1, / db dc = -1, zero elsewhere
    x = Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = L.det(x)
        g = inner.gradient(y, x)
    hessian = outer.jacobian(g, x).numpy().reshape(4, 4)
    want = np.zeros((4, 4))
    want[0, 3] = want[3, 0] = 1.0
    want[1, 2] = want[2, 1] = -1.0
    np.testing.assert_allclose(hessian, want, atol=1e-12)


def test_det_gradient_at_a_singular_matrix_raises_as_in_tensorflow():
    singular = Variable(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with GradientTape() as tape:
        y = L.det(singular)
    assert y.numpy() == 0.0
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        tape.gradient(y, singular)


def test_slogdet_values_gradient_and_singular_matrices():
    sign, log_abs = L.slogdet([[1.0, 2.0], [3.0, 4.0]])
    assert float(sign) == -1.0
    assert float(log_abs) == pytest.approx(np.log(2.0), rel=1e-6)
    (g,) = grads(lambda a: L.slogdet(a)[1], A)
    np.testing.assert_allclose(g, np.linalg.inv(A).transpose(0, 2, 1), rtol=1e-10)
    # the sign is piecewise constant: zeros through it
    (g,) = grads(lambda a: L.slogdet(a)[0], A)
    assert not g.any()
    sign, log_abs = L.slogdet(np.zeros((2, 2)))
    assert float(sign) == 0.0 and float(log_abs) == -np.inf


@pytest.mark.parametrize("adjoint", [False, True])
def test_solve_values_gradients_and_adjoint(adjoint):
    b = RNG.normal(size=(2, 3, 2))
    w = RNG.normal(size=(2, 3, 2))
    matrix = A.transpose(0, 2, 1) if adjoint else A
    got = L.solve(A, b, adjoint=adjoint).numpy()
    np.testing.assert_allclose(got, np.linalg.solve(matrix, b), rtol=1e-12)
    ga, gb = grads(lambda a, r: L.solve(a, r, adjoint=adjoint) * w, A, b)

    def f(a, r):
        return np.sum(w * np.linalg.solve(a.transpose(0, 2, 1) if adjoint else a, r))

    np.testing.assert_allclose(ga, _numeric_gradient(lambda a: f(a, b), A), rtol=1e-6)
    np.testing.assert_allclose(gb, _numeric_gradient(lambda r: f(A, r), b), rtol=1e-6)


def test_solve_errors():
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        L.solve([[1.0, 2.0], [2.0, 4.0]], [[1.0], [1.0]])
    with pytest.raises(InvalidArgumentError, match="same number of rows"):
        L.solve(np.eye(2), np.ones((3, 1)))
    with pytest.raises(InvalidArgumentError, match="rank >= 2"):
        L.solve(np.eye(2), np.ones(2))
    with pytest.raises(InvalidArgumentError, match="square"):
        L.solve(np.ones((2, 3)), np.ones((2, 1)))
    with pytest.raises(InvalidArgumentError, match=r"\[Op:MatrixInverse\]. Cast"):
        L.inv([[1, 0], [0, 1]])


def test_cholesky_values_read_only_the_lower_triangle():
    spd = np.array([[4.0, 2.0], [2.0, 5.0]])
    assert L.cholesky(spd).numpy().tolist() == [[2.0, 0.0], [1.0, 2.0]]
    upper_garbage = np.array([[4.0, 100.0], [2.0, 5.0]])
    assert L.cholesky(upper_garbage).numpy().tolist() == [[2.0, 0.0], [1.0, 2.0]]
    batch = np.einsum("bij,bkj->bik", A, A)
    np.testing.assert_allclose(L.cholesky(batch).numpy(), np.linalg.cholesky(batch))
    with pytest.raises(InvalidArgumentError, match="Cholesky decomposition was not"):
        L.cholesky([[1.0, 2.0], [2.0, 1.0]])


def test_cholesky_gradient_is_symmetric_and_right_along_symmetric_steps():
    spd = np.einsum("bij,bkj->bik", A, A)
    (g,) = grads(lambda a: L.cholesky(a) * W, spd)
    np.testing.assert_allclose(g, g.transpose(0, 2, 1), atol=1e-12)
    # a symmetric step E changes sum(W * L) by <g, E> to first order
    step = RNG.normal(size=spd.shape)
    step = step + step.transpose(0, 2, 1)
    eps = 1e-6
    plus = np.sum(W * np.linalg.cholesky(spd + eps * step))
    minus = np.sum(W * np.linalg.cholesky(spd - eps * step))
    assert np.sum(g * step) == pytest.approx((plus - minus) / (2 * eps), rel=1e-6)


# -- clip_by_norm, global_norm, clip_by_global_norm ----------------------------------


def test_clip_by_norm_follows_tensorflows_example():
    some_nums = np.array([[1, 2, 3, 4, 5]], np.float32)
    got = L.clip_by_norm(some_nums, 2.0).numpy()
    want = [[0.26967996, 0.5393599, 0.80903995, 1.0787199, 1.3483998]]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert L.clip_by_norm([3.0, 4.0], 10.0).numpy().tolist() == [3.0, 4.0]
    rows = L.clip_by_norm([[3.0, 4.0], [0.3, 0.4]], 1.0, axes=[1]).numpy()
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


def test_clip_by_norm_gradients():
    # clipped: c t / |t|, whose gradient along w is c (w - t (t.w) / |t|^2) / |t|
    gt, gc = grads(lambda t, c: L.clip_by_norm(t, c) * [1.0, 0.0], [3.0, 4.0], 1.0)
    np.testing.assert_allclose(gt, [16 / 125, -12 / 125], rtol=1e-12)
    assert gc == pytest.approx(3 / 5)  # t / |t| along w
    # not clipped: the identity, and nothing for clip_norm
    gt, gc = grads(lambda t, c: L.clip_by_norm(t, c) * [1.0, 0.0], [3.0, 4.0], 9.0)
    assert gt.tolist() == [1.0, 0.0] and gc == 0.0
    # finite at t = 0 (TensorFlow's two-tap where), where NaN would be easy
    (g,) = grads(lambda t: L.clip_by_norm(t, 1.0), [0.0, 0.0])
    assert g.tolist() == [1.0, 1.0]


def test_clip_by_norm_errors():
    # what tensorflow-cpu 2.21.0 raises: its square root refuses integers, its
    # sum bools
    with pytest.raises(InvalidArgumentError, match=r"of int32 .*\[Op:Sqrt\]"):
        L.clip_by_norm(Tensor(np.array([1, 2], np.int32)), 1.0)
    with pytest.raises(InvalidArgumentError, match=r"of int32 .*\[Op:Sqrt\]"):
        L.clip_by_norm([1, 2], 1.0)  # Python ints make an int32 tensor
    with pytest.raises(InvalidArgumentError, match=r"of bool .*\[Op:Sum\]"):
        L.clip_by_norm([True], 1.0)
    with pytest.raises(ValueError, match="change t's shape"):
        L.clip_by_norm([1.0, 2.0], [[1.0], [2.0]])


def test_global_norm_skips_none_and_needs_a_sequence():
    assert L.global_norm([[3.0], None, [[4.0, 12.0]]]).numpy() == np.float32(13.0)
    assert L.global_norm([None]).numpy() == np.float32(0.0)
    a, b = grads(lambda x, y: L.global_norm([x, None, y]), [3.0], [4.0])
    np.testing.assert_allclose([a[0], b[0]], [0.6, 0.8], rtol=1e-12)  # t / norm
    with pytest.raises(TypeError, match="should be a sequence"):
        L.global_norm(Tensor(np.ones(2)))


def test_clip_by_global_norm_scales_everything_by_one_factor():
    clipped, norm = L.clip_by_global_norm([[3.0], None, [[4.0, 0.0]]], 1.0)
    assert float(norm) == 5.0 and clipped[1] is None
    np.testing.assert_allclose(clipped[0], [0.6], rtol=1e-6)
    np.testing.assert_allclose(clipped[2], [[0.8, 0.0]], rtol=1e-6)
    # below the bound nothing changes
    kept, norm = L.clip_by_global_norm(([3.0], [4.0]), 10.0)
    assert [k.numpy().tolist() for k in kept] == [[3.0], [4.0]]
    # a given norm is used as is
    halved, used = L.clip_by_global_norm([[3.0], [4.0]], 1.0, use_norm=2.0)
    assert float(used) == 2.0 and halved[0].numpy().tolist() == [1.5]
    # an infinite norm makes every entry NaN, as in TensorFlow
    nans, _ = L.clip_by_global_norm([[np.inf, 1.0]], 1.0)
    assert np.isnan(nans[0].numpy()).all()
    with pytest.raises(TypeError, match="should be a sequence"):
        L.clip_by_global_norm(iter([[1.0]]), 1.0)


def test_clip_by_global_norm_gradient_flows_through_the_norm():
    # one tensor clipped: the same function as clip_by_norm
    (g,) = grads(
        lambda t: L.clip_by_global_norm([t], 1.0)[0][0] * [1.0, 0.0], [3.0, 4.0]
    )
    np.testing.assert_allclose(g, [16 / 125, -12 / 125], rtol=1e-12)


def test_new_linalg_names_are_exported_where_tensorflow_has_them():
    import tapemagic.tf as tf

    for name in ("inv", "det", "slogdet", "solve", "cholesky", "global_norm"):
        assert getattr(tf.linalg, name) is getattr(L, name), name
        assert not hasattr(tf, name), name
    assert tf.clip_by_norm is L.clip_by_norm
    assert tf.clip_by_global_norm is L.clip_by_global_norm
