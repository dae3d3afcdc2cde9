"""The op rows: one per public function, and how to draw a call of it.

Each row of ``OPS`` is ``Row(path, draw)``: ``draw(g, row)`` returns the
arguments, keyword arguments and the output's (shape, dtype), and the index
to take of a tuple result, or None when the row does not fit. ``g`` is the
generator's state (:class:`~.draft.Draft`). A row's ``refused`` are dtypes
its op refuses: one draw in 8 takes its operand among them, so that both
sides raise and the error classes are compared (engine/accepts.py).
``EXCLUDED`` names the op-table entries that no row calls by name, and how
programs reach them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .draft import FLOAT, INT, REAL, Draft, broadcasts, shape_of
from .program import Const

__all__ = ["EXCLUDED", "OPS", "Row"]


@dataclass(frozen=True)
class Row:
    """One public function: its path in ``tf`` and how to draw a call of it."""

    path: str
    draw: Callable
    dtypes: tuple = REAL
    out: str | None = None  # the output dtype, when it is not the input's
    finite: bool = False  # inputs without NaN or inf (docs/RELIABILITY.md)
    refused: tuple = ()  # dtypes the op refuses, drawn one time in 8


def _dtypes(g: Draft, row: Row) -> tuple:
    """The dtypes a row accepts, or, one draw in 8, those its op refuses (it
    raises there on both sides; shrinking goes to the accepted ones)."""
    if row.refused and g.draw(st.integers(0, 7)) == 7:
        return row.refused
    return row.dtypes


def _unary(g: Draft, row: Row) -> Any:
    x = g.operand(_dtypes(g, row), finite=row.finite)
    return [x], {}, (x.shape, row.out or x.dtype)


# Ops whose answer jumps (a remainder, a quotient's floor, a comparison): a
# float input computed by an earlier step agrees between the two runs only to
# the last digits (TensorFlow's float64 gelu, its det...), and 1e4 % x or
# x >= y turns that into a different answer. They take sources and constants.
JUMPS = frozenset(
    {"math.floordiv", "math.floormod", "op://", "op:%", "equal", "not_equal", "less"}
    | {"less_equal", "greater", "greater_equal", "op:<", "op:>="}
)


def _binary(g: Draft, row: Row) -> Any:
    exact = row.path in JUMPS
    x = g.operand(_dtypes(g, row), exact=exact)
    y = g.partner(x, exact=exact)
    args = [x, y]
    if row.path.startswith("op:") and isinstance(y, Const) and g.draw(st.booleans()):
        args = [y, x]  # a NumPy or Python value on the left stays on the tape
    shape = np.broadcast_shapes(x.shape, shape_of(y))
    out = row.out or (
        "float64" if row.path in ("divide", "op:/") and x.dtype in INT else x.dtype
    )
    return args, {}, (shape, out)


def _cast(g: Draft, row: Row) -> Any:
    x = g.operand(REAL + ("bool",))
    to = g.draw(st.sampled_from(REAL + ("bool",)))
    return [x], {"dtype": to}, (x.shape, to)


def _where(g: Draft, row: Row) -> Any:
    x = g.operand(FLOAT)
    y = g.partner(x)
    xy = np.broadcast_shapes(x.shape, shape_of(y))
    cshape = g.draw(hnp.broadcastable_shapes(xy, max_dims=3, max_side=3))
    cond = g.pick(
        lambda v: v.dtype == "bool" and broadcasts(v.shape, xy), cshape, "bool"
    )
    shape = np.broadcast_shapes(xy, cond.shape)
    return [cond, x, y], {}, (shape, x.dtype)


def _clip(g: Draft, row: Row) -> Any:
    x = g.operand(FLOAT)
    lo, hi = sorted(
        g.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0]), min_size=2, max_size=2))
    )
    if g.draw(st.booleans()):
        return [x, Const(lo), Const(hi)], {}, (x.shape, x.dtype)
    low = g.source(x.shape, x.dtype)
    return [x, low, Const(hi)], {}, (x.shape, x.dtype)


def _axis(g: Draft, rank: int, allow_none: bool = True) -> Any:
    if rank == 0:
        return None
    axes = st.integers(-rank, rank - 1)
    choices = [
        axes,
        st.lists(axes, min_size=1, max_size=rank, unique_by=lambda a: a % rank),
    ]
    if allow_none:
        choices.append(st.none())
    return g.draw(st.one_of(*choices))


def _reduce(g: Draft, row: Row) -> Any:
    x = g.operand(_dtypes(g, row))
    axis = _axis(g, len(x.shape))
    keepdims = g.draw(st.booleans())
    axes = (
        range(len(x.shape))
        if axis is None
        else [axis]
        if isinstance(axis, int)
        else axis
    )
    axes = {a % len(x.shape) for a in axes} if x.shape else set()
    shape = tuple(
        1 if i in axes else n
        for i, n in enumerate(x.shape)
        if keepdims or i not in axes
    )
    return [x], {"axis": axis, "keepdims": keepdims}, (shape, x.dtype)


def _arg(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    axis = g.draw(st.integers(-len(x.shape), len(x.shape) - 1))
    shape = tuple(n for i, n in enumerate(x.shape) if i != axis % len(x.shape))
    return [x], {"axis": axis}, (shape, "int64")


def _scan(g: Draft, row: Row) -> Any:
    if row.path != "math.cumprod":
        x = g.operand(_dtypes(g, row), min_rank=1)
    else:
        # no zeros: TensorFlow's cumprod gradient divides by x (div_no_nan),
        # which is 0 where the derivative is not (docs/RELIABILITY.md)
        shape = g.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
        dtype = g.draw(st.sampled_from(_dtypes(g, row)))
        value = g.array(shape, dtype, finite=True)
        x = g.source(shape, dtype, value=np.where(value == 0, 1, value).astype(dtype))
    axis = g.draw(st.integers(-len(x.shape), len(x.shape) - 1))
    kwargs = {
        "axis": axis,
        "exclusive": g.draw(st.booleans()),
        "reverse": g.draw(st.booleans()),
    }
    return [x], kwargs, (x.shape, x.dtype)


def _softmax(g: Draft, row: Row) -> Any:
    # finite: TensorFlow's softmax kernels turn NaN and inf logits into NaN
    # their own way (softmax([nan, 0.]) is [nan, 0.]; docs/RELIABILITY.md)
    x = g.operand(_dtypes(g, row), min_rank=1, finite=True)
    return [x], {"axis": -1}, (x.shape, x.dtype)


def _matmul(g: Draft, row: Row) -> Any:
    n, k, m = g.draw(st.tuples(*[st.integers(1, 3)] * 3))
    batch = g.draw(st.sampled_from([(), (2,)]))
    dtype = g.draw(st.sampled_from(_dtypes(g, row)))
    a = g.pick(lambda v: v.dtype == dtype and len(v.shape) >= 2, batch + (n, k), dtype)
    n, k = a.shape[-2:]
    b = g.pick(
        lambda v: (
            v.dtype == dtype
            and len(v.shape) == len(a.shape)
            and v.shape[:-2] == a.shape[:-2]
            and v.shape[-2] == k
        ),
        a.shape[:-2] + (k, m),
        dtype,
    )
    return [a, b], {}, (a.shape[:-1] + b.shape[-1:], dtype)


def _reshape(g: Draft, row: Row) -> Any:
    x = g.operand(REAL + ("bool",))
    target = g.draw(
        st.sampled_from([[-1], list(x.shape[::-1]), [1, -1], list(x.shape) + [1]])
    )
    size = int(np.prod(x.shape))
    if -1 in target:
        rest = int(np.prod([t for t in target if t != -1]))
        shape = (
            tuple(size // rest if t == -1 else t for t in target)
            if rest
            else tuple(target)
        )
    else:
        shape = tuple(target)
    return [x], {"shape": target}, (shape, x.dtype)


def _transpose(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    perm = g.draw(st.permutations(range(len(x.shape))))
    return [x], {"perm": list(perm)}, (tuple(x.shape[p] for p in perm), x.dtype)


def _stack(g: Draft, row: Row) -> Any:
    x = g.operand(REAL)
    y = g.pick(lambda v: v.dtype == x.dtype and v.shape == x.shape, x.shape, x.dtype)
    axis = g.draw(st.integers(-len(x.shape) - 1, len(x.shape)))
    shape = list(x.shape)
    shape.insert(axis % (len(x.shape) + 1), 2)
    return [[x, y]], {"axis": axis}, (tuple(shape), x.dtype)


def _concat(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    axis = g.draw(st.integers(-len(x.shape), len(x.shape) - 1))
    a = axis % len(x.shape)
    yshape = x.shape[:a] + (g.draw(st.integers(0, 2)),) + x.shape[a + 1 :]
    y = g.pick(lambda v: v.dtype == x.dtype and v.shape == yshape, yshape, x.dtype)
    shape = x.shape[:a] + (x.shape[a] + yshape[a],) + x.shape[a + 1 :]
    return [[x, y]], {"axis": axis}, (shape, x.dtype)


def _unstack(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    axis = g.draw(st.integers(-len(x.shape), len(x.shape) - 1))
    a = axis % len(x.shape)
    if x.shape[a] == 0:
        return None
    take = g.draw(st.integers(0, x.shape[a] - 1))
    return [x], {"axis": axis}, (x.shape[:a] + x.shape[a + 1 :], x.dtype), take


def _reduce_to_vector(g: Draft, row: Row) -> Any:
    # without NaN: TensorFlow's kernels order NaN by comparisons that are all
    # false, an order of their own (docs/RELIABILITY.md)
    x = g.operand(_dtypes(g, row), min_rank=1, finite=True)
    k = g.draw(st.integers(1, max(1, x.shape[-1]))) if x.shape[-1] else 0
    if row.path == "math.top_k":
        take = g.draw(st.sampled_from([0, 1]))
        return [x], {"k": k}, (x.shape[:-1] + (k,), "int32" if take else x.dtype), take
    direction = g.draw(st.sampled_from(["ASCENDING", "DESCENDING"]))
    out = "int32" if row.path == "argsort" else x.dtype
    return [x], {"direction": direction}, (x.shape, out)


def _tile(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    reps = g.draw(
        st.lists(st.integers(0, 2), min_size=len(x.shape), max_size=len(x.shape))
    )
    return (
        [x],
        {"multiples": reps},
        (tuple(n * r for n, r in zip(x.shape, reps)), x.dtype),
    )


def _pad(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    pads = [
        list(g.draw(st.tuples(st.integers(0, 1), st.integers(0, 2)))) for _ in x.shape
    ]
    shape = tuple(n + a + b for n, (a, b) in zip(x.shape, pads))
    return [x], {"paddings": pads}, (shape, x.dtype)


def _reverse(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    axis = g.draw(st.integers(-len(x.shape), len(x.shape) - 1))
    return [x], {"axis": [axis]}, (x.shape, x.dtype)


def _gather(g: Draft, row: Row) -> Any:
    x = g.operand(FLOAT, min_rank=1)
    if x.shape[0] == 0:
        return None
    idx = g.draw(st.lists(st.integers(0, x.shape[0] - 1), min_size=1, max_size=4))
    return [x, Const(idx)], {}, ((len(idx),) + x.shape[1:], x.dtype)


def _getitem(g: Draft, row: Row) -> Any:
    x = g.operand(REAL, min_rank=1)
    n = x.shape[0]
    key = g.draw(
        st.one_of(
            st.builds(
                slice,
                st.none() | st.integers(-3, 3),
                st.none() | st.integers(-3, 3),
                st.none() | st.sampled_from([-1, 1, 2]),
            ),
            st.integers(0, n - 1) if n else st.just(slice(None)),
        )
    )
    shape = np.empty(x.shape)[key].shape
    return [x], {"key": key}, (shape, x.dtype)


def _shape_query(g: Draft, row: Row) -> Any:
    x = g.operand(REAL)
    out = {"shape": (len(x.shape),), "size": (), "rank": ()}[row.path]
    return [x], {}, (out, "int32")


def _matrix(g: Draft, row: Row) -> Any:
    n = g.draw(st.integers(1, 3))
    dtype = g.draw(st.sampled_from(FLOAT))
    if row.path in ("linalg.inv", "linalg.solve", "linalg.det", "linalg.slogdet"):
        # invertible, a a^T + n I: TensorFlow's backprop runs the gradient of
        # every op the target depends on, and these invert their matrix, so a
        # singular one raises even for an unrelated source; one holding NaN is
        # "not invertible" there (docs/RELIABILITY.md)
        m = g.array((n, n), dtype, finite=True)
        spd = (m @ m.T + n * np.eye(n)).astype(dtype)
        a = g.source((n, n), dtype, value=spd)
    else:
        a = g.pick(
            lambda v: (
                v.dtype == dtype and len(v.shape) == 2 and v.shape[0] == v.shape[1]
            ),
            (n, n),
            dtype,
        )
    n = a.shape[0]
    if row.path in ("linalg.det", "linalg.trace"):
        return [a], {}, ((), dtype)
    if row.path == "linalg.diag_part":
        return [a], {}, ((n,), dtype)
    if row.path == "linalg.slogdet":
        take = g.draw(st.sampled_from([0, 1]))
        return [a], {}, ((), dtype), take
    if row.path == "linalg.solve":
        b = g.source((n, g.draw(st.integers(1, 2))), dtype, finite=True)
        return [a, b], {}, (b.shape, dtype)
    if row.path == "linalg.matvec":
        b = g.pick(lambda v: v.dtype == dtype and v.shape == (n,), (n,), dtype)
        return [a, b], {}, ((n,), dtype)
    return [a], {}, ((n, n), dtype)


def _cholesky(g: Draft, row: Row) -> Any:
    # a symmetric positive definite matrix: a a^T + n I
    n = g.draw(st.integers(1, 3))
    dtype = g.draw(st.sampled_from(FLOAT))
    a = g.array((n, n), dtype, finite=True)
    spd = (a @ a.T + n * np.eye(n)).astype(dtype)
    return [g.source((n, n), dtype, value=spd)], {}, ((n, n), dtype)


def _conv(g: Draft, row: Row) -> Any:
    dtype = g.draw(st.sampled_from(FLOAT))
    h, w, c = g.draw(st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 2)))
    if row.path == "nn.max_pool2d":
        # finite: TensorFlow's max pool passes over NaN from the dtype's lowest
        # number, and routes its gradient its own way (docs/RELIABILITY.md)
        x = g.source((1, h, w, c), dtype, finite=True)
    else:
        x = g.pick(
            lambda v: v.dtype == dtype and len(v.shape) == 4, (1, h, w, c), dtype
        )
    _, h, w, c = x.shape
    stride = g.draw(st.sampled_from([1, 2]))
    padding = g.draw(st.sampled_from(["SAME", "VALID"]))
    k = g.draw(st.integers(1, 2))
    if padding == "VALID" and (h < k or w < k):
        padding = "SAME"

    def size(n: int) -> int:
        return -(-n // stride) if padding == "SAME" else (n - k) // stride + 1

    if row.path == "nn.conv2d":
        # a finite filter: with SAME padding TensorFlow's kernel skips the
        # padding where tapemagic multiplies its zeros (0 * NaN is NaN)
        f = g.source((k, k, c, 2), dtype, finite=True)
        shape = (x.shape[0], size(h), size(w), 2)
        return [x, f], {"strides": stride, "padding": padding}, (shape, dtype)
    shape = (x.shape[0], size(h), size(w), c)
    kwargs = {"ksize": k, "strides": stride, "padding": padding}
    return [x], kwargs, (shape, dtype)


def _xent(g: Draft, row: Row) -> Any:
    dtype = g.draw(st.sampled_from(FLOAT))
    n, c = g.draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    logits = g.pick(lambda v: v.dtype == dtype and len(v.shape) == 2, (n, c), dtype)
    n, c = logits.shape
    if row.path == "nn.sparse_softmax_cross_entropy_with_logits":
        labels = Const(
            g.draw(hnp.arrays(np.int32, (n,), elements=st.integers(0, max(c - 1, 0))))
        )
    else:
        labels = g.pick(lambda v: v.dtype == dtype and v.shape == (n, c), (n, c), dtype)
    return [labels, logits], {}, ((n,), dtype)


def _one_hot(g: Draft, row: Row) -> Any:
    idx = g.operand(_dtypes(g, row))
    depth = g.draw(st.integers(0, 3))
    return [idx, Const(depth)], {}, (idx.shape + (depth,), "float32")


def _fill(g: Draft, row: Row) -> Any:
    x = g.pick(lambda v: v.dtype in FLOAT and v.shape == (), (), "float32")
    dims = g.draw(st.lists(st.integers(0, 3), max_size=2))
    return [Const(dims), x], {}, (tuple(dims), x.dtype)


def _einsum(g: Draft, row: Row) -> Any:
    dtype = g.draw(st.sampled_from(FLOAT))
    spec, shapes = g.draw(
        st.sampled_from(
            [
                ("ij,jk->ik", ((2, 3), (3, 2))),
                ("i,i->", ((3,), (3,))),
                ("ij->ji", ((2, 3),)),
                ("ij->", ((2, 2),)),
                ("bi,bi->b", ((2, 3), (2, 3))),
                ("ii->i", ((2, 2),)),
            ]
        )
    )
    args = [
        g.pick(lambda v, s=s: v.dtype == dtype and v.shape == s, s, dtype)
        for s in shapes
    ]
    out = {
        "ij,jk->ik": (2, 2),
        "i,i->": (),
        "ij->ji": (3, 2),
        "ij->": (),
        "bi,bi->b": (2,),
        "ii->i": (2,),
    }
    return [Const(spec), *args], {}, (out[spec], dtype)


def _boolean_mask(g: Draft, row: Row) -> Any:
    x = g.operand(FLOAT, min_rank=1)
    mask = g.pick(
        lambda v: v.dtype == "bool" and v.shape == x.shape[:1], x.shape[:1], "bool"
    )
    return [x, mask], {}, ((None,) + x.shape[1:], x.dtype)


def _moments(g: Draft, row: Row) -> Any:
    x = g.operand(_dtypes(g, row), min_rank=1)
    take = g.draw(st.sampled_from([0, 1]))
    return [x], {"axes": [0]}, (x.shape[1:], x.dtype), take


def _expand(g: Draft, row: Row) -> Any:
    x = g.operand(REAL)
    axis = g.draw(st.integers(-len(x.shape) - 1, len(x.shape)))
    shape = list(x.shape)
    shape.insert(axis % (len(x.shape) + 1), 1)
    return [x], {"axis": axis}, (tuple(shape), x.dtype)


def _broadcast_to(g: Draft, row: Row) -> Any:
    x = g.operand(REAL)
    shape = (2,) + tuple(x.shape)
    return [x], {"shape": list(shape)}, (shape, x.dtype)


def _add_n(g: Draft, row: Row) -> Any:
    x = g.operand(FLOAT)
    y = g.pick(lambda v: v.dtype == x.dtype and v.shape == x.shape, x.shape, x.dtype)
    return [[x, y, x]], {}, (x.shape, x.dtype)


U, B = _unary, _binary
BOOL = ("bool",)
NOT_BOOL = ("int32", "float32")
OPS: list[Row] = [
    *[Row(p, U) for p in ("identity", "stop_gradient", "zeros_like", "ones_like")],
    *[
        Row(p, U, refused=BOOL)
        for p in ("negative", "abs", "sign", "square", "op:neg", "op:abs")
    ],
    *[
        Row(p, U, FLOAT, refused=INT + BOOL)
        for p in (
            "sqrt",
            "math.rsqrt",
            "math.reciprocal",  # int: NotFoundError (no CPU kernel)
            "exp",
            "math.expm1",
            "math.log",
            "math.log1p",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "asinh",
            "acosh",
            "atanh",
            "sigmoid",
            "floor",
            "math.ceil",
            "nn.elu",
            "nn.selu",
            "nn.softplus",
            "nn.silu",
        )
    ],
    # round of an integer tensor is that tensor itself
    Row("round", U, REAL, refused=BOOL),
    # relu and relu6 compute on integers; leaky_relu casts them to float32
    *[Row(p, U, REAL, refused=BOOL) for p in ("nn.relu", "nn.relu6")],
    Row("nn.leaky_relu", U, FLOAT, refused=BOOL),
    *[
        Row(p, U, FLOAT, "bool", refused=INT + BOOL)
        for p in ("math.is_nan", "math.is_inf", "math.is_finite")
    ],
    # finite: TensorFlow's float64 erf is NaN at +-inf (gelu uses it); gelu
    # refuses integers with ValueError
    Row("math.erf", U, FLOAT, finite=True, refused=INT + BOOL),
    Row("nn.gelu", U, FLOAT, finite=True, refused=INT + BOOL),
    Row("logical_not", U, BOOL, refused=NOT_BOOL),
    Row("cast", _cast),
    # divide and / of bools: not drawn; TensorFlow's `/` refuses them with a
    # TypeError that gives way to NumPy's when a NumPy array is on the right
    # (docs/RELIABILITY.md); tf.math.truediv's TypeError is drawn below
    *[Row(p, B) for p in ("divide", "op:/")],
    *[
        Row(p, B, refused=BOOL)
        for p in (
            "add",
            "subtract",
            "multiply",
            "maximum",
            "minimum",
            "math.floordiv",
            "math.floormod",
            "pow",
            "math.squared_difference",
            "op:+",
            "op:-",
            "op:*",  # bool: their logical and
            "op:**",
            "op://",
            "op:%",
        )
    ],
    *[Row(p, B, FLOAT, refused=BOOL) for p in ("math.truediv", "math.divide_no_nan")],
    Row("math.atan2", B, FLOAT, refused=INT + BOOL),
    *[Row(p, B, REAL + BOOL, "bool") for p in ("equal", "not_equal")],
    *[
        Row(p, B, REAL, "bool", refused=BOOL)
        for p in ("less", "less_equal", "greater", "greater_equal", "op:<", "op:>=")
    ],
    *[
        Row(p, B, BOOL, refused=NOT_BOOL)
        for p in ("logical_and", "logical_or", "math.logical_xor")
    ],
    Row("where", _where),
    Row("clip_by_value", _clip),
    *[
        Row(p, _reduce, refused=BOOL)
        for p in (
            "reduce_sum",
            "reduce_mean",
            "reduce_max",
            "reduce_min",
            "reduce_prod",
            "math.reduce_euclidean_norm",
        )
    ],
    # integers: InvalidArgumentError (logsumexp), TypeError (variance, std)
    *[
        Row(p, _reduce, FLOAT, refused=INT + BOOL)
        for p in ("reduce_logsumexp", "math.reduce_variance", "math.reduce_std")
    ],
    *[Row(p, _reduce, BOOL, refused=NOT_BOOL) for p in ("reduce_any", "reduce_all")],
    *[Row(p, _arg) for p in ("argmax", "argmin")],
    Row("cumsum", _scan, refused=BOOL),
    Row("math.cumprod", _scan, FLOAT, refused=BOOL),
    *[
        Row(p, _softmax, FLOAT, refused=INT + BOOL)
        for p in ("nn.softmax", "nn.log_softmax")
    ],
    Row("matmul", _matmul, FLOAT, refused=BOOL),
    Row("op:@", _matmul, FLOAT, refused=BOOL),
    Row("reshape", _reshape),
    Row("transpose", _transpose),
    Row("stack", _stack),
    Row("concat", _concat),
    Row("unstack", _unstack),
    Row("tile", _tile),
    Row("pad", _pad),
    Row("reverse", _reverse),
    Row("gather", _gather),
    Row("getitem", _getitem),
    *[Row(p, _shape_query) for p in ("shape", "size", "rank")],
    *[
        Row(p, _reduce_to_vector, FLOAT, refused=BOOL)
        for p in ("sort", "argsort", "math.top_k")
    ],
    *[
        Row(p, _matrix)
        for p in (
            "linalg.inv",
            "linalg.det",
            "linalg.slogdet",
            "linalg.solve",
            "linalg.trace",
            "linalg.diag_part",
            "linalg.matvec",
        )
    ],
    Row("linalg.cholesky", _cholesky),
    Row("nn.conv2d", _conv),
    Row("nn.max_pool2d", _conv),
    Row("nn.avg_pool2d", _conv),
    *[
        Row(p, _xent)
        for p in (
            "nn.softmax_cross_entropy_with_logits",
            "nn.sparse_softmax_cross_entropy_with_logits",
        )
    ],
    Row("one_hot", _one_hot, INT, refused=FLOAT),
    Row("fill", _fill),
    Row("einsum", _einsum),
    Row("boolean_mask", _boolean_mask),
    Row("nn.moments", _moments, REAL, refused=BOOL),
    Row("expand_dims", _expand),
    Row("broadcast_to", _broadcast_to),
    Row("add_n", _add_n),
]

# op-table entries no row calls by name, and how the programs reach them
EXCLUDED = {
    "tanh_grad": "the gradient of tanh, reached by second-order programs",
    "sigmoid_grad": "the gradient of sigmoid, reached by second-order programs",
    "relu_grad": "the gradient of relu, reached by second-order programs",
    "elu_grad": "the gradient of elu, reached by second-order programs",
    "selu_grad": "the gradient of selu, reached by second-order programs",
    "sqrt_grad": "the gradient of sqrt, reached by second-order programs",
    "rsqrt_grad": "the gradient of rsqrt, reached by second-order programs",
    "reciprocal_grad": "the gradient of reciprocal (and of asin, acos, log, log1p)",
    "relu6_grad": "the gradient of relu6, reached by second-order programs",
    "leaky_relu_grad": "the gradient of leaky_relu, reached by second-order programs",
    "prod_of_others": "the gradient of reduce_prod",
    "softmax_xent_backprop": "the gradient of softmax_cross_entropy_with_logits",
    "conv2d_backprop_input": "the gradient of conv2d",
    "conv2d_backprop_filter": "the gradient of conv2d",
    "max_pool_grad": "the gradient of max_pool2d",
    "max_pool_grad_grad": "the gradient of max_pool_grad",
    "avg_pool_grad": "the gradient of avg_pool2d",
    "tensor_scatter_add": "the gradient of gather and indexing",
    "strided_slice": "Python indexing (getitem rows)",
    "where_indices": "boolean_mask",
    "gather_nd": "the gradient of boolean_mask",
    "split": "unstack and the gradient of concat",
    "mod": "math.floormod and %",
    "random_shuffle": "random: TensorFlow's numbers are not reproduced (docs)",
}
