"""Inverses, determinants, solves and Cholesky factors: primitives, each one
batched LAPACK call in NumPy.

Their VJPs are TensorFlow's, written against the VJP namespace (matmul, inv,
solve) and with the forward output, which an outer tape has recorded as a
function of the input: nested tapes give second derivatives. Leading batch axes
of a cotangent broadcast through matmul and solve.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..accepts import Accepts
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs, convert_to_tensor
from . import shape

__all__ = [
    "LogMatrixDeterminant",
    "cholesky",
    "det",
    "inv",
    "slogdet",
    "solve",
]


# TensorFlow's lists (engine/accepts.py): float16 is listed, but only the
# inverse has a CPU kernel for it
_SQUARE = "double, float, half, complex64, complex128"
_DETERMINANT = "half, float, double, complex64, complex128"
_LAPACK = "float, double, complex64, complex128"


def _matrix_input(
    value: Any, op_name: str, accepts: Accepts | None, square: bool = True
) -> Tensor:
    x = convert_to_tensor(value)
    shape = x._value.shape
    if accepts is not None:
        accepts.check(x)
    if len(shape) < 2:
        raise InvalidArgumentError(
            f"{op_name}: input must have rank >= 2 (a matrix or a batch of them), "
            f"got shape {list(shape)}.",
            op=op_name,
        )
    if square and shape[-1] != shape[-2]:
        raise InvalidArgumentError(
            f"{op_name}: input matrices must be square, got {shape[-2]} != "
            f"{shape[-1]} (shape {list(shape)}).",
            op=op_name,
        )
    return x


def _inv_forward(x: np.ndarray) -> np.ndarray:
    try:
        if x.dtype == np.float16:  # LAPACK has no half precision
            return np.linalg.inv(x.astype(np.float32)).astype(np.float16)
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise ValueError(
            "Input is not invertible: a matrix is singular. Check it for dependent "
            "rows, or add a small multiple of the identity to regularize it."
        ) from None


# d(A^-1) = -A^-1 dA A^-1, so g_A = -A^-T g A^-T (TensorFlow's _MatrixInverseGrad).
_inv = defop(
    "inv",
    _inv_forward,
    lambda ns, g, out, x: (
        -ns.matmul(
            ns.matmul(out, g, transpose_a=True, transpose_b=False),
            out,
            transpose_a=False,
            transpose_b=True,
        ),
    ),
    singular="derivative",
    accepts=Accepts(_SQUARE, op="MatrixInverse"),
)


@tf_export("tf.linalg")
def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """The inverse of each square matrix in the last two axes.

    The gradient is ``-A^-T g A^-T``.

    Args:
        input: a floating-point tensor of shape ``[..., M, M]``.
        adjoint: invert the transpose instead.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``input``'s shape and dtype.

    Raises:
        InvalidArgumentError: if a matrix is singular, not square, or the rank
            is < 2.
        InvalidArgumentError: if ``input`` is not floating point.

    Example:
        >>> inv([[2.0, 0.0], [0.0, 4.0]]).numpy()
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    x = _matrix_input(input, "inv", _inv.op.accepts)
    if adjoint:
        ndim = x._value.ndim
        x = shape.transpose(x, tuple(range(ndim - 2)) + (ndim - 1, ndim - 2))
    return apply(_inv.op, (x,), {})


def _matrix_scale(ns: Any, g: Any) -> Any:
    """``g`` (one number per matrix) with two size-1 axes: it scales matrices."""
    return ns.reshape(g, shape=ns.shape(g) + (1, 1))


def _transposed_inverse(ns: Any, x: Any) -> Any:
    """``A^-T`` of each matrix of ``x``."""
    ndim = ns.ndim(x)
    swap = tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)
    return ns.transpose(ns.inv(x), perm=swap)


def _det_vjp(ns, g, out, x):
    # d det(A) = det(A) tr(A^-1 dA), so g_A = g det(A) A^-T (TensorFlow's
    # _MatrixDeterminantGrad). It inverts A: at a singular A it raises, as there.
    return (_matrix_scale(ns, g * out) * _transposed_inverse(ns, x),)


_det = defop(
    "det",
    lambda x: np.asarray(np.linalg.det(x)),
    _det_vjp,
    singular="derivative",
    accepts=Accepts(_DETERMINANT, cpu=_LAPACK, op="MatrixDeterminant"),
    kernels=("MatrixDeterminant",),
)


@tf_export("tf.linalg")
def det(input: Any, name: str | None = None) -> Tensor:
    """The determinant of each square matrix in the last two axes.

    The gradient is ``g * det(A) * A^-T``; it needs ``A`` invertible (at a
    singular matrix the gradient raises, as in TensorFlow).

    Args:
        input: a floating-point tensor of shape ``[..., M, M]``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``input.shape[:-2]``.

    Raises:
        InvalidArgumentError: if a matrix is not square, or the rank is < 2.
        InvalidArgumentError: if ``input`` is not floating point.

    Example:
        >>> det([[1.0, 2.0], [3.0, 4.0]]).numpy()
        np.float32(-2.0)
    """
    return apply(_det.op, (_matrix_input(input, "det", _det.op.accepts),), {})


def _slogdet_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sign, log_abs = np.linalg.slogdet(x)
    return np.asarray(sign, x.dtype), np.asarray(log_abs, x.dtype)


def _slogdet_vjp(ns, g, out, x):
    # The sign is piecewise constant; d log|det A| = tr(A^-1 dA), so g_A = g A^-T
    # (TensorFlow's _LogMatrixDeterminantGrad).
    return (_matrix_scale(ns, g[1]) * _transposed_inverse(ns, x),)


_slogdet = defop(
    "slogdet",
    _slogdet_forward,
    _slogdet_vjp,
    multi_output=True,
    singular="derivative",
    accepts=Accepts(_DETERMINANT, cpu=_LAPACK, op="LogMatrixDeterminant"),
    kernels=("LogMatrixDeterminant",),
)


class LogMatrixDeterminant(NamedTuple):
    """What :func:`slogdet` returns, named and printed as in TensorFlow."""

    sign: Tensor
    log_abs_determinant: Tensor


@tf_export("tf.linalg")
def slogdet(input: Any, name: str | None = None) -> LogMatrixDeterminant:
    """The sign and the log of the absolute value of each matrix's determinant.

    ``log|det|`` does not overflow where ``det`` would. Its gradient is
    ``A^-T``; the sign has none (it is piecewise constant). A singular matrix
    gives sign 0 and ``-inf``.

    Args:
        input: a floating-point tensor of shape ``[..., M, M]``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``LogMatrixDeterminant(sign, log_abs_determinant)``, each of shape
        ``input.shape[:-2]``.

    Raises:
        InvalidArgumentError: if a matrix is not square, or the rank is < 2.
        InvalidArgumentError: if ``input`` is not floating point.

    Example:
        >>> sign, log_abs = slogdet([[1.0, 2.0], [3.0, 4.0]])
        >>> float(sign), round(float(log_abs), 4)
        (-1.0, 0.6931)
    """
    sign, log_abs = apply(
        _slogdet.op, (_matrix_input(input, "slogdet", _slogdet.op.accepts),), {}
    )
    return LogMatrixDeterminant(sign, log_abs)


def _solve_forward(a: np.ndarray, b: np.ndarray, *, adjoint: bool) -> np.ndarray:
    try:
        return np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b)
    except np.linalg.LinAlgError:
        raise ValueError(
            "Input matrix is not invertible: the system has no unique solution. "
            "Check the matrix for dependent rows."
        ) from None


# TensorFlow's _MatrixSolveGrad: with X = A^-1 B, g_B = A^-T g and
# g_A = -g_B X^T (for adjoint=True, A^T X = B: g_A = -X g_B^T).
def _solve_vjp_a(ns, g, out, a, b, *, adjoint):
    gb = ns.solve(a, g, adjoint=not adjoint)
    if adjoint:
        ga = -ns.matmul(out, gb, transpose_a=False, transpose_b=True)
    else:
        ga = -ns.matmul(gb, out, transpose_a=False, transpose_b=True)
    return ns.unbroadcast(ga, a, out)


def _solve_vjp_b(ns, g, out, a, b, *, adjoint):
    gb = ns.solve(a, g, adjoint=not adjoint)
    return ns.unbroadcast(gb, b, out)


_solve = defop(
    "solve",
    _solve_forward,
    (_solve_vjp_a, _solve_vjp_b),
    singular="derivative",
    accepts=Accepts(_SQUARE, cpu=_LAPACK, op="MatrixSolve"),
    kernels=("MatrixSolve",),
)


@tf_export("tf.linalg")
def solve(matrix: Any, rhs: Any, adjoint: bool = False,
          name: str | None = None) -> Tensor:  # fmt: skip
    """``X`` with ``matrix @ X = rhs`` (``matrix^T @ X = rhs`` with ``adjoint``).

    Leading (batch) axes broadcast as in ``matmul``. The gradients are
    ``g_rhs = A^-T g`` and ``g_A = -g_rhs X^T``, each one more solve.

    Args:
        matrix: a floating-point tensor of shape ``[..., M, M]``.
        rhs: a tensor of shape ``[..., M, K]`` (a column of right-hand sides per
            column; a single system needs ``K = 1``).
        adjoint: solve with the transpose of ``matrix``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``[..., M, K]``.

    Raises:
        InvalidArgumentError: if a matrix is singular or not square, the ranks are
            < 2, the row counts differ, or the dtypes differ.
        InvalidArgumentError: if ``matrix`` is not floating point.

    Example:
        >>> solve([[2.0, 0.0], [0.0, 4.0]], [[1.0], [2.0]]).numpy()
        array([[0.5],
               [0.5]], dtype=float32)
    """
    a, b = convert_inputs((matrix, rhs))
    a = _matrix_input(a, "solve", _solve.op.accepts)
    b = _matrix_input(b, "solve", None, square=False)
    if a._value.shape[-1] != b._value.shape[-2]:
        raise InvalidArgumentError(
            f"solve: input matrix and right-hand side must have the same number of "
            f"rows: {a._value.shape[-2]} vs. {b._value.shape[-2]} (shapes "
            f"{list(a._value.shape)} and {list(b._value.shape)}). A vector "
            "right-hand side needs a column: tf.expand_dims(b, -1).",
            op="solve",
        )
    return apply(_solve.op, (a, b), {"adjoint": bool(adjoint)})


def _cholesky_forward(x: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise ValueError(
            "Cholesky decomposition was not successful. The input might not be "
            "valid: every matrix must be symmetric positive definite (add a small "
            "multiple of the identity if it is only semi-definite)."
        ) from None


def _cholesky_vjp(ns, g, out, x):
    # TensorFlow's _CholeskyGrad (Murray, 2016): with L = out and Phi(M) the lower
    # triangle of M with its diagonal halved, S = L^-T Phi(L^T g) L^-1 and
    # g_A = (S + S^T) / 2. Only A's lower triangle is read, and A is taken to be
    # symmetric, so the gradient is symmetric too.
    n = ns.shape(x)[-1]
    dtype = ns.dtype(x)
    phi = ns.constant(np.tril(np.ones((n, n), dtype), -1) + np.eye(n, dtype=dtype) / 2)
    l_inv = ns.inv(out)
    middle = ns.matmul(out, g, transpose_a=True, transpose_b=False) * phi
    left = ns.matmul(l_inv, middle, transpose_a=True, transpose_b=False)
    s = ns.matmul(left, l_inv, transpose_a=False, transpose_b=False)
    ndim = ns.ndim(s)
    swap = tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)
    return ((s + ns.transpose(s, perm=swap)) * 0.5,)


_cholesky = defop(
    "cholesky",
    _cholesky_forward,
    _cholesky_vjp,
    singular="derivative",
    accepts=Accepts(_SQUARE, cpu=_LAPACK, op="Cholesky"),
)


@tf_export("tf.linalg")
def cholesky(input: Any, name: str | None = None) -> Tensor:
    """The lower-triangular ``L`` with ``L @ L^T = input``, for each matrix.

    Only the lower triangle of ``input`` is read. The gradient is TensorFlow's:
    symmetric, treating ``input`` as a symmetric matrix (so a perturbation of
    ``input`` must stay symmetric for it to be a derivative).

    Args:
        input: a floating-point tensor of shape ``[..., M, M]``, each matrix
            symmetric positive definite.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``input``'s shape and dtype, zero above the diagonal.

    Raises:
        InvalidArgumentError: if a matrix is not positive definite, not square,
            or the rank is < 2.
        InvalidArgumentError: if ``input`` is not floating point.

    Example:
        >>> cholesky([[4.0, 2.0], [2.0, 5.0]]).numpy()
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    return apply(
        _cholesky.op, (_matrix_input(input, "cholesky", _cholesky.op.accepts),), {}
    )
