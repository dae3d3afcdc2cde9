"""Linear algebra: matmul, tensordot, einsum, matvec, norms, traces, diagonals,
inverses, determinants, solves, Cholesky factors and norm clipping.

Primitives: ``matmul`` (TensorFlow's _MatMulGrad: each gradient is again a
matmul), ``einsum`` (each input's gradient is again one einsum), ``diag_part``,
and the decompositions ``inv``, ``det``, ``slogdet``, ``solve`` and ``cholesky``
(NumPy's LAPACK calls, batched over leading axes, with TensorFlow's VJPs written
with engine ops, so second derivatives work). Everything else is composed from
them and from shape and reduction ops, the way TensorFlow composes it, so
gradients (and their kinks) match TensorFlow's.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError, UnimplementedError
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs, convert_to_tensor
from .math import abs as _abs
from .math import greater, maximum, minimum, multiply, sqrt, truediv, where
from .math import pow as _pow
from .reduce import reduce_max, reduce_sum
from .shape import expand_dims, reshape, squeeze, stack, transpose

__all__ = [
    "cholesky",
    "clip_by_global_norm",
    "clip_by_norm",
    "det",
    "diag_part",
    "einsum",
    "global_norm",
    "inv",
    "matmul",
    "matrix_transpose",
    "matvec",
    "norm",
    "slogdet",
    "solve",
    "tensordot",
    "trace",
]


# -- matmul ------------------------------------------------------------------------


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


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
    return ns.unbroadcast(ga, ns.shape(a), ns.nb(g, out))


def _matmul_vjp_b(ns, g, out, a, b, *, transpose_a, transpose_b):
    if not transpose_b:
        gb = ns.matmul(a, g, transpose_a=not transpose_a, transpose_b=False)
    else:
        gb = ns.matmul(g, a, transpose_a=True, transpose_b=transpose_a)
    return ns.unbroadcast(gb, ns.shape(b), ns.nb(g, out))


_matmul = defop(
    "matmul", _matmul_forward, (_matmul_vjp_a, _matmul_vjp_b), saves=("a", "b")
)


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


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix times vector over the last axes: ``matmul(a, b[..., None])[..., 0]``.

    Leading (batch) axes broadcast as in ``matmul``; composed the way TensorFlow
    composes ``tf.linalg.matvec``.

    Args:
        a: a tensor of rank >= 2, shape ``[..., M, N]``.
        b: a tensor of rank >= 1, shape ``[..., N]``.
        transpose_a: use the transpose of the last two axes of ``a``.
        adjoint_a: the same as ``transpose_a`` for real tensors.
        a_is_sparse: ignored (a hint in TensorFlow).
        b_is_sparse: ignored (a hint in TensorFlow).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``[..., M]``.

    Raises:
        InvalidArgumentError: if ``a`` has rank < 2, ``b`` rank < 1, or the inner
            sizes differ.

    Example:
        >>> matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]).numpy()
        array([3., 7.], dtype=float32)
    """
    x, v = convert_inputs((a, b))
    if v._value.ndim < 1:
        raise InvalidArgumentError(
            f"matvec needs b of rank >= 1, got a scalar {v._value!r}. Pass a vector "
            "of shape [..., N].",
            op="matvec",
        )
    column = expand_dims(v, -1)
    return squeeze(matmul(x, column, transpose_a or adjoint_a), -1)


# -- tensordot ------------------------------------------------------------------------


def _tensordot_axes(axes: Any, a_rank: int, b_rank: int) -> tuple[list, list]:
    if isinstance(axes, Tensor):
        axes = axes._value.tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"`axes` must be at least 0, got axes={n}.")
        if n > a_rank or n > b_rank:
            raise ValueError(
                f"`axes` must not be larger than the rank of either tensor, got "
                f"axes={n} for ranks {a_rank} and {b_rank}."
            )
        return list(range(a_rank - n, a_rank)), list(range(n))
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(
            f"`axes` must be an integer or a pair of axis lists, got {axes!r}. "
            "Example: axes=[[1], [0]] contracts a's axis 1 with b's axis 0."
        )
    a_axes, b_axes = axes
    if isinstance(a_axes, (int, np.integer)):
        a_axes = [a_axes]
    if isinstance(b_axes, (int, np.integer)):
        b_axes = [b_axes]
    a_axes, b_axes = [int(i) for i in a_axes], [int(i) for i in b_axes]
    if len(a_axes) != len(b_axes):
        raise ValueError(
            f"Different number of contraction axes for a and b: {a_axes} and "
            f"{b_axes}. Give one axis of b for each axis of a."
        )
    for what, ax, rank in (("a", a_axes, a_rank), ("b", b_axes, b_rank)):
        for i in ax:
            if not -rank <= i < rank:
                raise ValueError(
                    f"tensordot: axis {i} is out of range for {what} of rank {rank}."
                )
    return [i % a_rank for i in a_axes], [i % b_rank for i in b_axes]


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum of products over the axes ``axes`` of ``a`` and ``b``.

    Composed as TensorFlow composes it: transpose the contracted axes together,
    reshape both to matrices, one ``matmul``, reshape back.

    Args:
        a: a tensor.
        b: a tensor of ``a``'s dtype.
        axes: an int N (the last N axes of ``a`` with the first N of ``b``), or a
            pair ``[a_axes, b_axes]`` of equally long axis lists (or single ints).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor with the free axes of ``a`` followed by the free axes of ``b``.

    Raises:
        ValueError: if ``axes`` is malformed or out of range.
        InvalidArgumentError: if contracted axes have different sizes.

    Example:
        >>> tensordot([[1.0, 2.0], [3.0, 4.0]], [1.0, 10.0], axes=1).numpy()
        array([21., 43.], dtype=float32)
    """
    x, y = convert_inputs((a, b))
    xs, ys = x._value.shape, y._value.shape
    a_axes, b_axes = _tensordot_axes(axes, len(xs), len(ys))
    for i, j in zip(a_axes, b_axes):
        if xs[i] != ys[j]:
            raise InvalidArgumentError(
                f"tensordot: axis {i} of a (shape {list(xs)}) has size {xs[i]} but "
                f"axis {j} of b (shape {list(ys)}) has size {ys[j]}; contracted axes "
                "must have equal sizes.",
                op="tensordot",
            )
    free_a = [i for i in range(len(xs)) if i not in a_axes]
    free_b = [j for j in range(len(ys)) if j not in b_axes]
    inner = int(np.prod([xs[i] for i in a_axes], dtype=np.int64))
    rows = int(np.prod([xs[i] for i in free_a], dtype=np.int64))
    cols = int(np.prod([ys[j] for j in free_b], dtype=np.int64))
    left = reshape(transpose(x, free_a + a_axes), (rows, inner))
    right = reshape(transpose(y, b_axes + free_b), (inner, cols))
    shape = tuple(xs[i] for i in free_a) + tuple(ys[j] for j in free_b)
    return reshape(matmul(left, right), shape)


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

_einsum = defop("einsum", _einsum_forward, _EINSUM_VJPS)


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
    # multiply by a (possibly rectangular) identity. Linear in g, so an outer tape
    # sees a multiply by a constant.
    rows, cols = ns.shape(x)[-2:]
    eye = ns.constant(np.eye(rows, cols, dtype=ns.dtype(x)))
    gshape = ns.shape(g)
    if rows <= cols:  # a size-1 axis last
        column = ns.reshape(g, shape=gshape + (1,))
    else:  # a size-1 axis before the last
        column = ns.reshape(g, shape=gshape[:-1] + (1,) + gshape[-1:])
    return (column * eye,)


_diag_part = defop(
    "diag_part",
    lambda x: np.diagonal(x, axis1=-2, axis2=-1).copy(),
    _diag_part_vjp,
)


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


def trace(x: Any, name: str | None = None) -> Tensor:
    """Sum of the main diagonal of the last two axes (``tf.linalg.trace``).

    Args:
        x: a tensor of rank >= 2.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``x.shape[:-2]``.

    Raises:
        ValueError: if ``x`` has rank < 2.

    Example:
        >>> trace([[1.0, 2.0], [3.0, 4.0]]).numpy()
        np.float32(5.0)
    """
    return reduce_sum(diag_part(x), axis=-1)


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


# -- norms ---------------------------------------------------------------------------


def _norm_axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis._value.tolist()
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not 1 <= len(items) <= 2 or not all(
        isinstance(i, (int, np.integer)) for i in items
    ):
        raise ValueError(
            f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
            f"{axis!r}."
        )
    for i in items:
        if not -ndim <= i < ndim:
            raise ValueError(
                f"norm: axis {i} is out of range for a tensor of rank {ndim}."
            )
    out = tuple(int(i) % ndim for i in items)
    if len(out) == 2 and out[0] == out[1]:
        raise ValueError(
            f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
            f"{axis!r} (the same axis twice)."
        )
    return out


def _is_ord(ord: Any, value: Any) -> bool:
    return not isinstance(ord, str) and ord == value


def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """Vector and matrix norms, composed as ``tf.norm`` composes them.

    The euclidean norm is ``sqrt(reduce_sum(x * x))``, so its gradient at a zero
    vector is NaN, exactly as in TensorFlow (0 * inf). Add a small epsilon under
    the square root yourself if you need a finite gradient there.

    Args:
        tensor: a floating-point tensor.
        ord: ``'euclidean'`` (default), ``'fro'`` (matrices only), 1, 2,
            ``np.inf`` or any positive real p. Matrix norms (``axis`` a pair)
            support ``'euclidean'``, ``'fro'``, 1 and ``np.inf``.
        axis: None (the flattened tensor as one vector), an int (a batch of
            vectors) or a pair of ints (a batch of matrices).
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The norms.

    Raises:
        ValueError: if ``ord`` or ``axis`` is invalid.
        UnimplementedError: for the matrix 2-norm (it needs an SVD).

    Example:
        >>> norm([3.0, 4.0]).numpy()
        np.float32(5.0)
        >>> norm([[1.0, -2.0], [3.0, 4.0]], ord=1, axis=[0, 1]).numpy()
        np.float32(6.0)
    """
    x = convert_to_tensor(tensor)
    axes = _norm_axes(axis, x._value.ndim)
    is_matrix = axes is not None and len(axes) == 2
    if is_matrix:
        if not (
            ord in ("euclidean", "fro") or any(_is_ord(ord, v) for v in (1, 2, np.inf))
        ):
            raise ValueError(
                f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, "
                f"inf], got {ord!r}."
            )
        if _is_ord(ord, 2):
            raise UnimplementedError(
                "norm: the matrix 2-norm (largest singular value) needs an SVD, which "
                "is not available. Use ord='fro' or compute it another way.",
                op="norm",
            )
    elif ord != "euclidean" and (
        isinstance(ord, str) or not np.isreal(ord) or not ord > 0
    ):
        raise ValueError(
            f"'ord' must be a supported vector norm ('euclidean', 1, 2, inf or a "
            f"positive real number), got {ord!r}. 'fro' is for matrices: pass "
            "axis=[-2, -1]."
        )
    if ord in ("euclidean", "fro") or _is_ord(ord, 2):
        result = sqrt(reduce_sum(multiply(x, x), axis=axes, keepdims=True))
    else:
        magnitude = _abs(x)
        if _is_ord(ord, 1):
            result = reduce_sum(
                magnitude, axis=None if axes is None else axes[0], keepdims=True
            )
            if is_matrix:
                result = reduce_max(result, axis=axes[1], keepdims=True)
        elif _is_ord(ord, np.inf):
            if is_matrix:
                magnitude = reduce_sum(magnitude, axis=axes[1], keepdims=True)
            result = reduce_max(
                magnitude, axis=None if axes is None else axes[0], keepdims=True
            )
        else:
            # NumPy scalars keep full precision in a float64 tensor
            p = np.float64(ord)
            total = reduce_sum(_pow(magnitude, p), axis=axes, keepdims=True)
            result = _pow(total, 1 / p)
    if keepdims:
        return result
    return squeeze(result, axis=axes)


# -- inverses, determinants, solves, Cholesky ------------------------------------------
#
# Primitives: each is one batched LAPACK call in NumPy. Their VJPs are TensorFlow's,
# written with engine ops (matmul, inv, solve) and with the forward output, which
# an outer tape has recorded as a function of the input: nested tapes give second
# derivatives. Leading batch axes of a cotangent broadcast through matmul and solve.


def _matrix_input(value: Any, op_name: str, square: bool = True) -> Tensor:
    x = convert_to_tensor(value)
    shape = x._value.shape
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name}. Cast it "
            "first: tf.cast(x, tf.float32)."
        )
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
)


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
        TypeError: if ``input`` is not floating point.

    Example:
        >>> inv([[2.0, 0.0], [0.0, 4.0]]).numpy()
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    x = _matrix_input(input, "inv")
    if adjoint:
        x = matrix_transpose(x)
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
    "det", lambda x: np.asarray(np.linalg.det(x)), _det_vjp, singular="derivative"
)


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
        TypeError: if ``input`` is not floating point.

    Example:
        >>> det([[1.0, 2.0], [3.0, 4.0]]).numpy()
        np.float32(-2.0)
    """
    return apply(_det.op, (_matrix_input(input, "det"),), {})


def _slogdet_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sign, log_abs = np.linalg.slogdet(x)
    return np.asarray(sign, x.dtype), np.asarray(log_abs, x.dtype)


def _slogdet_vjp(ns, g, out, x):
    # The sign is piecewise constant; d log|det A| = tr(A^-1 dA), so g_A = g A^-T
    # (TensorFlow's _LogMatrixDeterminantGrad).
    return (_matrix_scale(ns, g[1]) * _transposed_inverse(ns, x),)


_slogdet = defop(
    "slogdet", _slogdet_forward, _slogdet_vjp, multi_output=True, singular="derivative"
)


def slogdet(input: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The sign and the log of the absolute value of each matrix's determinant.

    ``log|det|`` does not overflow where ``det`` would. Its gradient is
    ``A^-T``; the sign has none (it is piecewise constant). A singular matrix
    gives sign 0 and ``-inf``.

    Args:
        input: a floating-point tensor of shape ``[..., M, M]``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``(sign, log_abs_determinant)``, each of shape ``input.shape[:-2]``.

    Raises:
        InvalidArgumentError: if a matrix is not square, or the rank is < 2.
        TypeError: if ``input`` is not floating point.

    Example:
        >>> sign, log_abs = slogdet([[1.0, 2.0], [3.0, 4.0]])
        >>> float(sign), round(float(log_abs), 4)
        (-1.0, 0.6931)
    """
    return apply(_slogdet.op, (_matrix_input(input, "slogdet"),), {})


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
    return ns.unbroadcast(ga, ns.shape(a), ns.nb(g, out))


def _solve_vjp_b(ns, g, out, a, b, *, adjoint):
    gb = ns.solve(a, g, adjoint=not adjoint)
    return ns.unbroadcast(gb, ns.shape(b), ns.nb(g, out))


_solve = defop(
    "solve", _solve_forward, (_solve_vjp_a, _solve_vjp_b), singular="derivative"
)


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
        TypeError: if ``matrix`` is not floating point.

    Example:
        >>> solve([[2.0, 0.0], [0.0, 4.0]], [[1.0], [2.0]]).numpy()
        array([[0.5],
               [0.5]], dtype=float32)
    """
    a, b = convert_inputs((matrix, rhs))
    a = _matrix_input(a, "solve")
    b = _matrix_input(b, "solve", square=False)
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


_cholesky = defop("cholesky", _cholesky_forward, _cholesky_vjp, singular="derivative")


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
        TypeError: if ``input`` is not floating point.

    Example:
        >>> cholesky([[4.0, 2.0], [2.0, 5.0]]).numpy()
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    return apply(_cholesky.op, (_matrix_input(input, "cholesky"),), {})


# -- clipping by norm (composed, as TensorFlow's clip_ops) ----------------------------


def _float_values(t: Any, op_name: str, hint: Any = None) -> Tensor:
    x = convert_to_tensor(t, dtype_hint=hint)
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"{op_name} needs floating-point tensors, got {x.dtype.name}. Cast it "
            "first: tf.cast(t, tf.float32)."
        )
    return x


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None,
                 name: str | None = None) -> Tensor:  # fmt: skip
    """Rescale ``t`` so that its L2 norm (over ``axes``) is at most ``clip_norm``.

    The result is ``t * clip_norm / max(norm(t), clip_norm)``. Composed as TensorFlow
    composes it, including its double ``where`` around the square root, so the gradient
    is finite at ``t = 0``; ``clip_norm`` gets a gradient where it clips. On a tie (norm
    equal to ``clip_norm``) the gradient goes through the norm, as ``maximum`` gives
    ties to its first argument.

    Args:
        t: a floating-point tensor.
        clip_norm: a positive scalar (or a tensor that broadcasts to ``t`` without
            changing its shape).
        axes: the axes to take the norm over (default all): one norm per slice.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The clipped tensor, of ``t``'s shape and dtype.

    Raises:
        TypeError: if ``t`` is not floating point.
        ValueError: if ``clip_norm`` would change ``t``'s shape.

    Example:
        >>> clip_by_norm([3.0, 4.0], 1.0).numpy()
        array([0.6, 0.8], dtype=float32)
        >>> clip_by_norm([3.0, 4.0], 10.0).numpy()
        array([3., 4.], dtype=float32)
    """
    values = _float_values(t, "clip_by_norm")
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    positive = greater(l2sum, 0)
    # TensorFlow's two-tap where: sqrt never sees 0, so no NaN gradient at t = 0.
    l2norm = where(positive, sqrt(where(positive, l2sum, 1)), l2sum)
    scaled = values * clip_norm
    if scaled._value.shape != values._value.shape:
        raise ValueError(
            f"clip_by_norm: clip_norm would change t's shape {list(values.shape)} "
            f"to {list(scaled.shape)} by broadcasting; pass a scalar clip_norm."
        )
    return truediv(scaled, maximum(l2norm, clip_norm))


def _tensor_sequence(t_list: Any, op_name: str) -> list:
    if isinstance(t_list, (str, bytes)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(
            f"{op_name}: `t_list` should be a sequence of tensors. Received "
            f"{type(t_list).__name__}; wrap a single tensor in a list, or turn a "
            "generator into one with list(...)."
        )
    return list(t_list)


def global_norm(t_list: Any, name: str | None = None) -> Tensor:
    """``sqrt(sum of squares of every element of every tensor in t_list)``.

    ``None`` entries (e.g. gradients of unconnected variables) are skipped.
    Composed as TensorFlow composes it: half sums of squares, stacked, summed,
    doubled, square-rooted; at all zeros the gradient is NaN, as there.

    Args:
        t_list: a list or tuple of floating-point tensors (of one dtype) or None.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A scalar tensor (float32 0 if every entry is None).

    Raises:
        TypeError: if ``t_list`` is not a list or tuple, or holds integers.
        InvalidArgumentError: if the tensors' dtypes differ.

    Example:
        >>> global_norm([[3.0], None, [[4.0, 12.0]]]).numpy()
        np.float32(13.0)
    """
    values = [
        _float_values(t, "global_norm")
        for t in _tensor_sequence(t_list, "global_norm")
        if t is not None
    ]
    if not values:
        return Tensor(np.zeros((), np.float32))
    halves = [reduce_sum(v * v) * 0.5 for v in values]
    return sqrt(reduce_sum(stack(halves)) * 2.0)


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list, Tensor]:  # fmt: skip
    """Scale all tensors by ``clip_norm / max(global_norm, clip_norm)``.

    Gradient clipping as TensorFlow does it: if the global norm of all the
    tensors exceeds ``clip_norm``, all are shrunk by the same factor, keeping
    their directions. ``None`` entries pass through as ``None``. An infinite or
    NaN norm makes every entry NaN, as in TensorFlow. Composed of engine ops, so
    the result is differentiable (through the norm too, unless ``use_norm`` is
    given).

    Args:
        t_list: a list or tuple of floating-point tensors or None.
        clip_norm: the largest allowed global norm (a positive scalar).
        use_norm: the global norm to use, if already computed.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``(clipped_list, global_norm)``.

    Raises:
        TypeError: if ``t_list`` is not a list or tuple.
        InvalidArgumentError: if the tensors' dtypes differ from the norm's.

    Example:
        >>> clipped, norm = clip_by_global_norm([[3.0], None, [4.0]], 1.0)
        >>> [None if c is None else c.numpy().tolist() for c in clipped]
        [[0.6000000238418579], None, [0.800000011920929]]
        >>> float(norm)
        5.0
    """
    op_name, float32 = "clip_by_global_norm", dtypes.float32
    items = _tensor_sequence(t_list, op_name)
    norm_ = global_norm(items) if use_norm is None else convert_to_tensor(use_norm)
    one = convert_to_tensor(1.0, dtype=norm_.dtype)
    scale_for_finite = multiply(clip_norm, minimum(1.0 / norm_, one / clip_norm))
    # a no-op for a finite norm; an inf or NaN norm makes the scale NaN
    scale = scale_for_finite + (norm_ - norm_)
    clipped = [
        None if t is None else multiply(_float_values(t, op_name, float32), scale)
        for t in items
    ]
    return clipped, norm_
