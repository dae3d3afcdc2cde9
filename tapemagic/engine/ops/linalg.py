"""Linear algebra: matmul, einsum, diagonals and transposes; with the
decompositions (``decompositions``) and the norms and norm clipping (``norms``)
re-exported, as ``tf.linalg`` gathers them.

Primitives: ``matmul`` (TensorFlow's _MatMulGrad: each gradient is again a
matmul), ``einsum`` (each input's gradient is again one einsum) and
``diag_part``; ``matrix_transpose`` wraps ``transpose``. ``tensordot``,
``matvec`` and ``trace``, composed of these, are in ``composed_linalg``.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from ..accepts import Accepts
from ..errors import InvalidArgumentError, UnimplementedError
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs, convert_to_tensor
from .decompositions import cholesky as cholesky
from .decompositions import det as det
from .decompositions import inv as inv
from .decompositions import slogdet as slogdet
from .decompositions import solve as solve
from .norms import clip_by_global_norm, clip_by_norm, global_norm, norm
from .shape import transpose

# The ops imported ``as`` themselves are re-exported: their old import path
# through this module keeps working; __all__ lists what this module defines.
__all__ = [
    "clip_by_global_norm",
    "clip_by_norm",
    "diag_part",
    "einsum",
    "global_norm",
    "matmul",
    "matrix_transpose",
    "norm",
]


# -- matmul ------------------------------------------------------------------------


def _mT(a: np.ndarray) -> np.ndarray:
    # .T of a matrix is an attribute read; np.swapaxes goes through Python.
    return a.T if a.ndim == 2 else np.swapaxes(a, -1, -2)


def _matmul_forward(a: np.ndarray, b: np.ndarray, *, transpose_a: bool,
                    transpose_b: bool) -> np.ndarray:  # fmt: skip
    a = _mT(a) if transpose_a else a
    b = _mT(b) if transpose_b else b
    # A stack of matrices times one matrix is one GEMM over the stacked rows;
    # np.matmul would call BLAS once per matrix of the stack, which for the
    # batched cotangents of a jacobian means hundreds of matrix-vector products.
    if a.ndim > 2 and b.ndim == 2:
        rows = a.reshape(-1, a.shape[-1]) if a.size else None
        if rows is not None:
            return (rows @ b).reshape(a.shape[:-1] + b.shape[-1:])
    elif a.ndim == 2 and b.ndim > 2 and b.shape[-1] == 1 and b.size:
        # One matrix times a stack of columns: the columns are rows of b.
        return (b.reshape(-1, b.shape[-2]) @ a.T).reshape(
            b.shape[:-2] + (a.shape[0], 1)
        )
    return np.matmul(a, b)


# TensorFlow's _MatMulGrad: each case is again one matmul with transposes, so the
# gradients broadcast over leading (batch) axes of g like the forward does.
def _matmul_vjp_a(ns, g, out, a, b, *, transpose_a, transpose_b):
    if not transpose_a:
        ga = ns.matmul(g, b, transpose_a=False, transpose_b=not transpose_b)
    else:
        ga = ns.matmul(b, g, transpose_a=transpose_b, transpose_b=True)
    return ns.unbroadcast(ga, a, out)


def _matmul_vjp_b(ns, g, out, a, b, *, transpose_a, transpose_b):
    if not transpose_b:
        gb = ns.matmul(a, g, transpose_a=not transpose_a, transpose_b=False)
    else:
        gb = ns.matmul(g, a, transpose_a=True, transpose_b=transpose_a)
    return ns.unbroadcast(gb, b, out)


_matmul = defop(
    "matmul",
    _matmul_forward,
    (_matmul_vjp_a, _matmul_vjp_b),
    saves={"a": ("b",), "b": ("a",)},
    # TensorFlow's list; its CPU kernels leave out the unsigned integers
    accepts=Accepts(
        "bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128",
        cpu="bfloat16, half, float, double, int32, int64, complex64, complex128",
        op="MatMul",
    ),
    kernels=("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "MatMul"),
)


@tf_export("tf", "tf.linalg", numpy=("matmul",))
def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix product of the last two axes, broadcasting the leading (batch) axes.

    Raises:
        InvalidArgumentError: if an input has rank < 2 or the inner sizes differ.

    Example:
        >>> matmul([[1.0, 2.0]], [[3.0], [4.0]]).numpy()
        array([[11.]], dtype=float32)
    """
    x, y = convert_inputs((a, b))
    _matmul.op.accepts.check(x)
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    xs, ys = x._value.shape, y._value.shape
    if len(xs) < 2 or len(ys) < 2:
        raise InvalidArgumentError(
            f"matmul needs tensors of rank >= 2, got shapes {list(xs)} and {list(ys)}. "
            "For a matrix times a vector use tf.linalg.matvec, or reshape the vector "
            "to a column with tf.reshape(v, [-1, 1]).",
            op="matmul",
        )
    inner_a = xs[-2] if ta else xs[-1]
    inner_b = ys[-1] if tb else ys[-2]
    if inner_a != inner_b:
        raise InvalidArgumentError(
            f"Matrix size-incompatible: In[0]: {list(xs)}, In[1]: {list(ys)}"
            f"{' (transposed)' if ta or tb else ''}; the inner dimensions "
            f"{inner_a} and {inner_b} must match.",
            op="matmul",
        )
    return apply(_matmul.op, (x, y), {"transpose_a": ta, "transpose_b": tb})


# -- einsum -------------------------------------------------------------------------


def _split_subscripts(term: str) -> tuple[str, str, bool]:
    """``'ab...c'`` as (letters before ``...``, letters after, has ellipsis)."""
    if "..." in term:
        before, after = term.split("...", 1)
        return before, after, True
    return term, "", False


def _normalize_equation(equation: str, shapes: list[tuple]) -> str:
    """The equation in explicit form (``->`` and output), checked against shapes.

    Raises:
        ValueError: for a malformed equation or one that does not fit the inputs.
        InvalidArgumentError: if a subscript labels axes of different sizes.
    """
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ValueError(f"einsum: equation {equation!r} has more than one '->'.")
    lhs, _, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: equation {equation!r} has {len(terms)} input subscripts but "
            f"{len(shapes)} tensors were given; give one subscript string per tensor."
        )
    sizes: dict[str, int] = {}
    any_ellipsis = False
    for term, shape in zip(terms, shapes):
        before, after, has_ellipsis = _split_subscripts(term)
        any_ellipsis |= has_ellipsis
        letters = before + after
        if "." in letters or not all(c in string.ascii_letters for c in letters):
            raise ValueError(
                f"einsum: invalid subscripts {term!r} in {equation!r}; use letters "
                "and at most one '...' per input."
            )
        if len(letters) > len(shape) or (
            not has_ellipsis and len(letters) != len(shape)
        ):
            raise ValueError(
                f"einsum: subscripts {term!r} name {len(letters)} axes but the tensor "
                f"has shape {list(shape)}."
            )
        dims = shape[: len(before)] + shape[len(shape) - len(after) :]
        for c, d in zip(letters, dims):
            if sizes.setdefault(c, d) != d:
                raise InvalidArgumentError(
                    f"einsum: subscript {c!r} labels axes of sizes {sizes[c]} and {d} "
                    f"in {equation!r}; each subscript must label axes of one size.",
                    op="einsum",
                )
    if "->" not in eq:
        counts = {c: lhs.count(c) for c in sizes}
        out = ("..." if any_ellipsis else "") + "".join(
            sorted(c for c, k in counts.items() if k == 1)
        )
    before, after, out_ellipsis = _split_subscripts(out)
    out_letters = before + after
    if not all(c in sizes for c in out_letters) or len(set(out_letters)) != len(
        out_letters
    ):
        raise ValueError(
            f"einsum: output subscripts {out!r} must be distinct letters that appear "
            f"in the inputs of {equation!r}."
        )
    if any_ellipsis and not out_ellipsis:
        raise ValueError(
            f"einsum: the inputs of {equation!r} use '...' but the output does not; "
            "write '...' in the output too."
        )
    return ",".join(terms) + "->" + out


def _einsum_forward(*arrays: np.ndarray, equation: str) -> np.ndarray:
    # optimize picks a contraction order (and BLAS) for two or more operands
    return np.asarray(np.einsum(equation, *arrays, optimize=len(arrays) > 1))


def _letter_sizes(term: str, shape: tuple) -> dict[str, int]:
    before, after, _ = _split_subscripts(term)
    dims = shape[: len(before)] + shape[len(shape) - len(after) :]
    return dict(zip(before + after, dims))


def _sum_to_ellipsis(ns: Any, grad: Any, term: str, shape: tuple, nbatch: int) -> Any:
    """Sum ``grad`` (batch + term with the full broadcast ``...``) down to ``shape``.

    Like ``unbroadcast``, but the broadcast axes sit where ``...`` sits in ``term``.
    """
    before, after, _ = _split_subscripts(term)
    gshape = ns.shape(grad)
    full = gshape[nbatch + len(before) : len(gshape) - len(after)]
    own = shape[len(before) : len(shape) - len(after)]
    if full == own:
        return grad
    start = nbatch + len(before)
    lead = len(full) - len(own)
    axes = list(range(start, start + lead))
    axes += [
        start + lead + i for i, d in enumerate(own) if d == 1 and full[lead + i] != 1
    ]
    summed = ns.reduce_sum(grad, axes=tuple(axes), keepdims=True)
    target = gshape[:nbatch] + tuple(shape)
    return summed if ns.shape(summed) == target else ns.reshape(summed, shape=target)


def _einsum_vjp_for(k: int):
    """The VJP for input ``k``: one einsum of g with the other inputs.

    The gradient of input k has its subscripts as output. A subscript repeated in
    input k (a diagonal, 'ii->i') gets a fresh letter tied to the first by an
    identity matrix; a subscript only input k has (summed there, 'ij->i') is
    restored by a vector of ones. Batch axes of g get fresh leading letters.
    """

    def vjp(ns, g, out, *inputs, equation):
        lhs, out_sub = equation.split("->")
        terms = lhs.split(",")
        x = inputs[k]
        dtype = ns.dtype(x)
        fresh = iter(c for c in string.ascii_letters if c not in equation)
        batch = "".join(next(fresh) for _ in range(ns.nb(g, out)))
        operands, subs = [g], [batch + out_sub]
        for j, (term, other) in enumerate(zip(terms, inputs)):
            if j != k:
                operands.append(other)
                subs.append(term)
        sizes = _letter_sizes(terms[k], ns.shape(x))
        term = terms[k]
        if "..." in equation and "..." not in term:
            # g has the broadcast '...' axes; this input has none: sum them away
            term = "..." + term
        before, after, has_ellipsis = _split_subscripts(term)
        target, seen = [], []
        for c in before + ("." if has_ellipsis else "") + after:
            if c == ".":
                target.append("...")
            elif c in seen:
                tied = next(fresh)
                operands.append(ns.constant(np.eye(sizes[c], dtype=dtype)))
                subs.append(c + tied)
                target.append(tied)
            else:
                seen.append(c)
                target.append(c)
        present = set("".join(subs))
        for c in seen:
            if c not in present:
                operands.append(ns.constant(np.ones(sizes[c], dtype=dtype)))
                subs.append(c)
        subscripts = ",".join(subs) + "->" + batch + "".join(target)
        grad = ns.einsum(*operands, equation=subscripts)
        if has_ellipsis:
            return _sum_to_ellipsis(ns, grad, term, ns.shape(x), len(batch))
        return grad

    return vjp


# One VJP per input position, so backprop differentiates only the inputs that
# lead to a source; einsum takes any number of inputs up to this many.
_EINSUM_VJPS = tuple(_einsum_vjp_for(k) for k in range(16))

# TensorFlow's Einsum takes any dtype; its CPU kernels run these
_einsum = defop(
    "einsum",
    _einsum_forward,
    _EINSUM_VJPS,
    accepts=Accepts(
        None, cpu="bfloat16, half, float, double, int32, int64, complex64, complex128"
    ),
)


@tf_export("tf", "tf.linalg")
def einsum(
    equation: str, *inputs: Any, name: str | None = None, **kwargs: Any
) -> Tensor:
    """Einstein summation: products of ``inputs`` summed over repeated subscripts.

    Supports explicit (``'ij,jk->ik'``) and implicit (``'ij,jk'``) equations,
    ellipses that broadcast (``'...ij,...jk->...ik'``), and subscripts repeated in
    one input (``'ii->i'``, the diagonal; ``'ii->'``, the trace). A subscript must
    label axes of one size everywhere, as in TensorFlow (NumPy would broadcast
    size 1). Each input's gradient is again one einsum.

    Args:
        equation: the subscripts, e.g. ``'bij,bjk->bik'``.
        *inputs: the tensors, all of one dtype.
        name: ignored; accepted for TensorFlow compatibility.
        **kwargs: ``optimize`` is accepted and ignored (the order is picked here).

    Returns:
        The contracted tensor.

    Raises:
        ValueError: if the equation is malformed or does not fit the inputs.
        InvalidArgumentError: if one subscript labels axes of different sizes.

    Example:
        >>> einsum("ij,j->i", [[1.0, 2.0], [3.0, 4.0]], [1.0, 10.0]).numpy()
        array([21., 43.], dtype=float32)
    """
    tensors = convert_inputs(inputs)
    if not 1 <= len(tensors) <= len(_EINSUM_VJPS):
        raise ValueError(
            f"einsum takes 1 to {len(_EINSUM_VJPS)} tensors, got {len(tensors)}."
        )
    explicit = _normalize_equation(equation, [t._value.shape for t in tensors])
    return apply(_einsum.op, tensors, {"equation": explicit})


# -- diagonals, traces, transposes ---------------------------------------------------


def _diag_part_vjp(ns, g, out, x):
    # Put g back on the diagonal: broadcast it along the axis it does not index and
    # keep it where a (possibly rectangular) identity is true, zeros elsewhere
    # (also where g is NaN or inf, as TensorFlow's MatrixDiagPart gradient).
    # Linear in g, so an outer tape sees a where on a constant mask.
    rows, cols = ns.shape(x)[-2:]
    eye = ns.constant(np.eye(rows, cols, dtype=bool))
    gshape = ns.shape(g)
    if rows <= cols:  # a size-1 axis last
        column = ns.reshape(g, shape=gshape + (1,))
    else:  # a size-1 axis before the last
        column = ns.reshape(g, shape=gshape[:-1] + (1,) + gshape[-1:])
    return (ns.where(eye, column, 0),)


_diag_part = defop(
    "diag_part",
    lambda x: np.diagonal(x, axis1=-2, axis2=-1).copy(),
    _diag_part_vjp,
)


@tf_export("tf.linalg")
def diag_part(input: Any, name: str | None = None, k: int = 0, **kwargs: Any) -> Tensor:
    """The main diagonal of the last two axes: shape ``[..., min(M, N)]``.

    Args:
        input: a tensor of rank >= 2.
        name: ignored; accepted for TensorFlow compatibility.
        k: the diagonal offset; only 0 (the main diagonal) is supported.
        **kwargs: ``padding_value`` and ``align`` are accepted for k=0, where
            they have no effect.

    Returns:
        The diagonal entries.

    Raises:
        ValueError: if ``input`` has rank < 2.
        UnimplementedError: for ``k != 0``.

    Example:
        >>> diag_part([[1.0, 2.0], [3.0, 4.0]]).numpy()
        array([1., 4.], dtype=float32)
    """
    x = convert_to_tensor(input)
    if x._value.ndim < 2:
        raise ValueError(
            f"diag_part needs a tensor of rank >= 2 (a batch of matrices), got shape "
            f"{list(x._value.shape)}. For the diagonal of a vector's outer product "
            "use the vector itself."
        )
    if k != 0:
        raise UnimplementedError(
            f"diag_part supports only the main diagonal (k=0), got k={k!r}. Slice "
            "the matrix first, e.g. diag_part(m[..., :, k:]) for k > 0.",
            op="diag_part",
        )
    return apply(_diag_part.op, (x,), {})


@tf_export("tf.linalg")
def matrix_transpose(
    a: Any, name: str | None = None, conjugate: bool = False
) -> Tensor:
    """Swap the last two axes (``tf.linalg.matrix_transpose``).

    Args:
        a: a tensor of rank >= 2.
        name: ignored; accepted for TensorFlow compatibility.
        conjugate: ignored for real tensors.

    Returns:
        ``a`` with its last two axes swapped.

    Raises:
        ValueError: if ``a`` has rank < 2.

    Example:
        >>> matrix_transpose([[1.0, 2.0, 3.0]]).shape
        TensorShape([3, 1])
    """
    x = convert_to_tensor(a)
    ndim = x._value.ndim
    if ndim < 2:
        raise ValueError(
            f"Argument 'a' should be a (batch) matrix with rank >= 2, got shape "
            f"{list(x._value.shape)}. Use tf.reshape to make it a matrix first."
        )
    return transpose(x, tuple(range(ndim - 2)) + (ndim - 1, ndim - 2))
