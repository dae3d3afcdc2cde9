"""Case rows for the linear-algebra ops in tapemagic/engine/ops/linalg.py.

Primitives (matmul, einsum, diag_part) get rows of their own; the composed
functions (tensordot, matvec, trace, matrix_transpose, norm) get rows named after
them, listed under the primitive they mostly rest on.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapemagic.engine.ops import composed_linalg as CL
from tapemagic.engine.ops import linalg as L
from tapemagic.engine.ops import math as M

from .gradcheck import Case

_side = st.integers(1, 4)


@st.composite
def _matmul_shapes(draw, transpose_a: bool, transpose_b: bool) -> tuple:
    """Two operands whose batch axes broadcast (size 1 stretched, ranks differ)."""
    batch_a, batch_b = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3
        )
    ).input_shapes
    m, k, n = draw(_side), draw(_side), draw(_side)
    a = batch_a + ((k, m) if transpose_a else (m, k))
    b = batch_b + ((n, k) if transpose_b else (k, n))
    return (a, b)


def _matmul_row(transpose_a: bool, transpose_b: bool) -> Case:
    return Case(
        "matmul",
        lambda a, b: L.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b),
        _matmul_shapes(transpose_a, transpose_b),
        name=f"matmul[ta={transpose_a},tb={transpose_b}]",
    )


# -- einsum: shapes drawn from one size per subscript letter --------------------------


@st.composite
def _einsum_shapes(draw, equation: str, ellipsis_shapes: int = 0) -> tuple:
    """Shapes for ``equation``'s inputs; ``...`` gets broadcastable batch shapes."""
    lhs = equation.split("->")[0]
    sizes = {c: draw(_side) for c in sorted(set(lhs) - {".", ","})}
    extra = iter(
        draw(
            hnp.mutually_broadcastable_shapes(
                num_shapes=ellipsis_shapes, min_dims=0, max_dims=2, max_side=3
            )
        ).input_shapes
        if ellipsis_shapes
        else ()
    )
    shapes = []
    for term in lhs.split(","):
        before, _, after = term.partition("...")
        lead = next(extra) if "..." in term else ()
        shapes.append(
            tuple(sizes[c] for c in before) + lead + tuple(sizes[c] for c in after)
        )
    return tuple(shapes)


def _einsum_row(equation: str, ellipsis_shapes: int = 0) -> Case:
    return Case(
        "einsum",
        lambda *xs: L.einsum(equation, *xs),
        _einsum_shapes(equation, ellipsis_shapes),
        name=f"einsum[{equation}]",
    )


# -- tensordot: axes drawn to fit -----------------------------------------------------


@st.composite
def _tensordot_shapes(draw) -> tuple:
    contracted = draw(st.lists(_side, max_size=2))
    free_a = draw(st.lists(_side, max_size=2))
    free_b = draw(st.lists(_side, max_size=2))
    a = draw(st.permutations(free_a + contracted))
    return (tuple(a), tuple(contracted + free_b))


def _tensordot_axes(data, shapes) -> tuple:
    a, b = shapes
    # pair b's leading axes, in order, with distinct axes of a of the same size
    used: list[int] = []
    b_axes: list[int] = []
    for j, size in enumerate(b):
        options = [i for i, d in enumerate(a) if d == size and i not in used]
        if not options or not data.draw(st.booleans(), label="contract"):
            break
        used.append(data.draw(st.sampled_from(options), label="a axis"))
        b_axes.append(j)
    if not used and data.draw(st.booleans(), label="int axes"):
        return (0,)
    signed_a = [data.draw(st.sampled_from([i, i - len(a)])) for i in used]
    return ([signed_a, b_axes],)


# -- diagonals, norms ------------------------------------------------------------------


@st.composite
def _matrix_shapes(draw, square: bool = False) -> tuple:
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    m = draw(_side)
    n = m if square else draw(_side)
    return (batch + (m, n),)


def _away_from_zero(rng, shape):
    return rng.uniform(0.3, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def _distinct_magnitudes(rng, shape):
    # |x| on a shuffled grid 0.5 apart: no ties in max |x|, never 0
    n = int(np.prod(shape))
    grid = (rng.permutation(n) + 1) * 0.5 + rng.uniform(0, 0.1, size=n)
    return (grid * rng.choice([-1.0, 1.0], size=n)).reshape(shape)


def _vector_axis(data, shapes) -> tuple:
    ndim = len(shapes[0])
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)), label="axis")
    return axis, data.draw(st.booleans(), label="keepdims")


def _matrix_axes(data, shapes) -> tuple:
    ndim = len(shapes[0])
    pair = data.draw(
        st.lists(st.integers(0, ndim - 1), min_size=2, max_size=2, unique=True),
        label="axes",
    )
    return pair, data.draw(st.booleans(), label="keepdims")


def _norm(ord):
    return lambda x, axis, keepdims: L.norm(x, ord=ord, axis=axis, keepdims=keepdims)


_VECTORS = hnp.array_shapes(min_dims=1, max_dims=3, max_side=4).map(lambda s: (s,))
_MATRICES = hnp.array_shapes(min_dims=2, max_dims=3, max_side=4).map(lambda s: (s,))


@st.composite
def _matvec_shapes(draw) -> tuple:
    batch_a, batch_b = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3)
    ).input_shapes
    m, n = draw(_side), draw(_side)
    return (batch_a + (m, n), batch_b + (n,))


CASES = [
    _matmul_row(False, False),
    _matmul_row(True, False),
    _matmul_row(False, True),
    _matmul_row(True, True),
    Case("matmul", CL.matvec, _matvec_shapes(), name="matvec"),
    Case(
        "matmul",
        lambda a, b: CL.matvec(a, b, transpose_a=True),
        _matmul_shapes(True, False).map(lambda s: (s[0], s[1][:-2] + (s[1][-2],))),
        name="matvec[transpose_a]",
    ),
    Case(
        "matmul",
        CL.tensordot,
        _tensordot_shapes(),
        extra=_tensordot_axes,
        name="tensordot",
    ),
    _einsum_row("ij,jk->ik"),
    _einsum_row("bij,bjk->bik"),
    _einsum_row("i,i->"),
    _einsum_row("ij->ji"),
    _einsum_row("ii->i"),
    _einsum_row("ii->"),
    _einsum_row("ij->i"),
    _einsum_row("i,j->ij"),
    _einsum_row("ij,jk"),
    _einsum_row("ij,jk,kl->il"),
    _einsum_row("iij,j->i"),
    _einsum_row("...ij,...jk->...ik", ellipsis_shapes=2),
    _einsum_row("...ij,jk->...ik", ellipsis_shapes=1),
    _einsum_row("i...->...i", ellipsis_shapes=1),
    Case("diag_part", L.diag_part, _matrix_shapes()),
    Case("diag_part", CL.trace, _matrix_shapes(), name="trace"),
    Case("transpose", L.matrix_transpose, _matrix_shapes(), name="matrix_transpose"),
    Case(
        "sqrt",
        _norm("euclidean"),
        _VECTORS,
        domain=_away_from_zero,
        extra=_vector_axis,
        tol=1e-5,
        name="norm[euclidean]",
    ),
    Case(
        "sqrt",
        _norm("fro"),
        _MATRICES,
        domain=_away_from_zero,
        extra=_matrix_axes,
        tol=1e-5,
        name="norm[fro]",
    ),
    Case(
        "abs",
        _norm(1),
        _VECTORS,
        domain=_away_from_zero,
        extra=_vector_axis,
        smooth=False,
        name="norm[1]",
    ),
    Case(
        "abs",
        _norm(np.inf),
        _VECTORS,
        domain=_distinct_magnitudes,
        extra=_vector_axis,
        smooth=False,
        name="norm[inf]",
    ),
    Case(
        "pow",
        _norm(3),
        _VECTORS,
        domain=_away_from_zero,
        extra=_vector_axis,
        tol=1e-5,
        name="norm[3]",
    ),
    Case(
        "abs",
        _norm(1),
        _MATRICES,
        domain=_distinct_magnitudes,
        extra=_matrix_axes,
        smooth=False,
        name="norm[matrix 1]",
    ),
    Case(
        "abs",
        _norm(np.inf),
        _MATRICES,
        domain=_distinct_magnitudes,
        extra=_matrix_axes,
        smooth=False,
        name="norm[matrix inf]",
    ),
]


# -- inverses, determinants, solves, Cholesky, norm clipping ---------------------------


def _well_conditioned(rng, shape):
    # entries in [-1, 1] plus 3 on the diagonal of square matrices: diagonally
    # dominant, so invertible with a positive determinant that stays positive
    # under finite-difference steps
    x = rng.uniform(-1.0, 1.0, size=shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + 3.0 * np.eye(shape[-1])
    return x


@st.composite
def _solve_shapes(draw) -> tuple:
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    m, k = draw(_side), draw(_side)
    return (batch + (m, m), batch + (m, k))


def _slogdet(x):
    sign, log_abs = L.slogdet(x)
    return [sign, log_abs]


def _cholesky_of_gram(a):
    # a symmetric positive definite input, as cholesky's gradient assumes
    n = a.shape[-1]
    return L.cholesky(L.matmul(a, a, transpose_b=True) + np.eye(n))


def _clip_norm_axes(data, shapes) -> tuple:
    ndim = len(shapes[0])
    if ndim == 0:
        return (None,)
    one = st.integers(-ndim, ndim - 1)
    many = st.lists(one, min_size=1, max_size=ndim, unique_by=lambda a: a % ndim)
    return (data.draw(st.one_of(st.none(), one, many), label="axes"),)


def _clip_by_norm(t, clip, axes):
    # |clip| + 0.5: a positive bound; _away_from_zero keeps abs off its kink
    return L.clip_by_norm(t, M.abs(clip) + 0.5, axes=axes)


@st.composite
def _tensor_list(draw, extra: int = 0) -> tuple:
    count = draw(st.integers(1, 3))
    items = tuple(
        draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)) for _ in range(count)
    )
    return items + ((),) * extra


def _clip_by_global_norm(*args):
    *ts, clip = args
    clipped, norm = L.clip_by_global_norm([*ts, None], M.abs(clip) + 0.5)
    assert clipped[-1] is None
    return [*clipped[:-1], norm]


CASES += [
    Case("inv", L.inv, _matrix_shapes(square=True), domain=_well_conditioned),
    Case(
        "inv",
        lambda x: L.inv(x, adjoint=True),
        _matrix_shapes(square=True),
        domain=_well_conditioned,
        name="inv[adjoint]",
    ),
    Case("det", L.det, _matrix_shapes(square=True), domain=_well_conditioned, tol=1e-5),
    Case("slogdet", _slogdet, _matrix_shapes(square=True), domain=_well_conditioned),
    Case("solve", L.solve, _solve_shapes(), domain=_well_conditioned),
    Case(
        "solve",
        lambda a, b: L.solve(a, b, adjoint=True),
        _solve_shapes(),
        domain=_well_conditioned,
        name="solve[adjoint]",
    ),
    Case("cholesky", _cholesky_of_gram, _matrix_shapes(square=True), tol=1e-5),
    Case(
        "maximum",
        _clip_by_norm,
        _VECTORS.map(lambda s: (s[0], ())),
        domain=_away_from_zero,
        extra=_clip_norm_axes,
        tol=1e-5,
        name="clip_by_norm",
    ),
    Case(
        "sqrt",
        lambda *ts: L.global_norm(list(ts)),
        _tensor_list(),
        domain=_away_from_zero,
        tol=1e-5,
        name="global_norm",
    ),
    Case(
        "minimum",
        _clip_by_global_norm,
        _tensor_list(extra=1),
        domain=_away_from_zero,
        tol=1e-5,
        name="clip_by_global_norm",
    ),
]
