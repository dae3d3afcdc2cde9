"""Case rows for the shape and indexing ops in tapemagic/engine/ops/shape.py.

Shapes come from hypothesis; the static arguments (axes, sizes, keys, indices,
paddings) are drawn by ``extra`` to fit the drawn shapes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapemagic.engine.op import apply
from tapemagic.engine.ops import composed_shape as CS
from tapemagic.engine.ops import indexing as I
from tapemagic.engine.ops import shape as S
from tapemagic.engine.ops import sorting as SO

from .gradcheck import Case, unary_shapes


def _shape(min_dims: int = 0, max_dims: int = 3) -> st.SearchStrategy:
    return hnp.array_shapes(
        min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=4
    )


# -- extras: static arguments drawn to fit the shapes ------------------------------


def _new_shape(data, shapes) -> tuple:
    shape = shapes[0]
    n = int(np.prod(shape))
    options = [(n,), (-1,), (1, -1), shape[::-1], (1,) + shape, shape + (1, 1)]
    return (data.draw(st.sampled_from(options), label="new shape"),)


def _perm(data, shapes) -> tuple:
    return (data.draw(st.permutations(range(len(shapes[0]))), label="perm"),)


def _broadcast_target(data, shapes) -> tuple:
    # stretch some size-1 axes and prepend up to two new ones
    stretched = tuple(data.draw(st.integers(1, 3)) if d == 1 else d for d in shapes[0])
    lead = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2), label="lead"))
    return (lead + stretched,)


def _new_axis(data, shapes) -> tuple:
    ndim = len(shapes[0]) + 1
    return (data.draw(st.integers(-ndim, ndim - 1), label="axis"),)


def _axis(data, shapes) -> tuple:
    ndim = len(shapes[0])
    return (data.draw(st.integers(-ndim, ndim - 1), label="axis"),)


@st.composite
def _same_shapes(draw) -> tuple:
    shape = draw(_shape())
    return (shape,) * draw(st.integers(2, 3))


@st.composite
def _concat_shapes(draw) -> tuple:
    base = draw(_shape(min_dims=1))
    axis = draw(st.integers(0, len(base) - 1))
    sizes = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
    return tuple(base[:axis] + (n,) + base[axis + 1 :] for n in sizes)


def _concat_axis(data, shapes) -> tuple:
    first = shapes[0]
    ndim = len(first)
    fits = [
        a
        for a in range(ndim)
        if all(s[:a] + s[a + 1 :] == first[:a] + first[a + 1 :] for s in shapes)
    ]
    axis = data.draw(st.sampled_from(fits), label="axis")
    return (data.draw(st.sampled_from([axis, axis - ndim]), label="axis sign"),)


def _split_args(data, shapes) -> tuple:
    shape = shapes[0]
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    dim = shape[axis]
    if data.draw(st.booleans(), label="equal pieces"):
        count = data.draw(
            st.sampled_from([k for k in range(1, dim + 1) if dim % k == 0])
        )
        return count, axis
    cuts = data.draw(st.sets(st.integers(1, dim - 1)), label="cuts") if dim > 1 else []
    bounds = [0, *sorted(cuts), dim]
    sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    if data.draw(st.booleans(), label="infer one"):
        sizes[data.draw(st.integers(0, len(sizes) - 1))] = -1
    return sizes, axis


def _slice_for(data, dim: int) -> slice:
    bound = st.one_of(st.none(), st.integers(-dim - 1, dim + 1))
    step = st.sampled_from([None, 1, 2, 3, -1, -2, -3])
    return slice(data.draw(bound), data.draw(bound), data.draw(step))


def _basic_key(data, shapes) -> tuple:
    items: list = []
    for dim in shapes[0]:
        kind = data.draw(st.sampled_from(["int", "slice", "slice"]), label="kind")
        if kind == "int":
            items.append(data.draw(st.integers(-dim, dim - 1), label="int"))
        else:
            items.append(_slice_for(data, dim))
        if data.draw(st.integers(0, 4), label="newaxis") == 0:
            items.append(None)
    if items and data.draw(st.booleans(), label="ellipsis"):
        # replace a run of trailing full slices' worth of axes by ...
        cut = data.draw(st.integers(0, len(items)))
        items = items[:cut] + [Ellipsis]
    return (tuple(items),)


def _array_key(data, shapes) -> tuple:
    # one integer array (repeats allowed, negative entries too) at a drawn axis
    shape = shapes[0]
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    dim = shape[axis]
    idx = data.draw(
        hnp.arrays(
            np.int64,
            hnp.array_shapes(min_dims=1, max_dims=2, max_side=4),
            elements=st.integers(-dim, dim - 1),
        ),
        label="indices",
    )
    key = (slice(None),) * axis + (idx,)
    if axis + 1 < len(shape) and data.draw(st.booleans(), label="int after"):
        # a plain int next to the array broadcasts with it (NumPy's rule)
        key += (data.draw(st.integers(-shape[axis + 1], shape[axis + 1] - 1)),)
    return (key,)


def _mask_key(data, shapes) -> tuple:
    mask = data.draw(hnp.arrays(np.bool_, shapes[0]), label="mask")
    return (mask,)


def _scatter_args(data, shapes) -> tuple:
    # the input g has the shape of x[key]; draw x's first axis and the key
    shape = shapes[0]
    rows = data.draw(st.integers(1, 5), label="rows")
    if data.draw(st.booleans(), label="advanced"):
        key = (
            data.draw(
                hnp.arrays(np.int64, (shape[0],), elements=st.integers(0, rows - 1))
            ),
        )
        return (rows,) + shape[1:], key
    step = data.draw(st.sampled_from([1, 2, -1, -2]), label="step")
    count = shape[0]
    span = abs(step) * (count - 1) + 1 + data.draw(st.integers(0, 2), label="slack")
    if step > 0:
        key = slice(0, step * (count - 1) + 1, step)
    else:
        stop = span - 1 + step * count
        key = slice(span - 1, stop if stop >= 0 else None, step)
    return (span,) + shape[1:], (key,)


def _scatter_add(g, target, key):
    # np.add.at semantics; the raw op is what getitem's and gather's VJPs use
    return apply(I._scatter.op, (g,), {"shape": target, "key": key, "nbatch": 0})


def _multiples(data, shapes) -> tuple:
    reps = st.lists(st.integers(0, 3), min_size=len(shapes[0]), max_size=len(shapes[0]))
    return (data.draw(reps, label="multiples"),)


def _gather_args(data, shapes) -> tuple:
    shape = shapes[0]
    ndim = len(shape)
    axis = data.draw(st.integers(0, ndim - 1), label="axis")
    batch_dims = data.draw(st.integers(0, axis), label="batch_dims")
    inner = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    dtype = data.draw(st.sampled_from([np.int32, np.int64]), label="dtype")
    idx = data.draw(
        hnp.arrays(
            dtype, shape[:batch_dims] + inner, elements=st.integers(0, shape[axis] - 1)
        ),
        label="indices",
    )
    signed = data.draw(st.sampled_from([axis, axis - ndim]), label="axis sign")
    return idx, signed, batch_dims


def _gather_nd_args(data, shapes) -> tuple:
    shape = shapes[0]
    batch_dims = data.draw(st.integers(0, len(shape) - 1), label="batch_dims")
    depth = data.draw(st.integers(1, len(shape) - batch_dims), label="depth")
    inner = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    limits = shape[batch_dims : batch_dims + depth]
    coords = [
        data.draw(
            hnp.arrays(
                np.int64, shape[:batch_dims] + inner, elements=st.integers(0, limit - 1)
            )
        )
        for limit in limits
    ]
    return np.stack(coords, axis=-1), batch_dims


def _paddings(limit):
    """Draw [before, after] pairs of at most min(2, limit(size)) per axis."""

    def draw(data, shapes) -> tuple:
        pairs = [
            [data.draw(st.integers(0, min(2, limit(d))), label="pad") for _ in "ab"]
            for d in shapes[0]
        ]
        return (pairs,)

    return draw


def _constant_paddings(data, shapes) -> tuple:
    (pairs,) = _paddings(lambda d: 2)(data, shapes)
    return pairs, data.draw(st.floats(-2, 2), label="constant")


def _reverse_axes(data, shapes) -> tuple:
    ndim = len(shapes[0])
    if ndim == 0:
        return ([],)
    axes = st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim)
    return (data.draw(axes, label="axes"),)


ANY = unary_shapes(0, 3)
RANKED = unary_shapes(1, 3)

CASES = [
    Case("reshape", S.reshape, ANY, extra=_new_shape),
    Case(
        "reshape",
        lambda x, axis: S.expand_dims(x, axis),
        ANY,
        extra=_new_axis,
        name="expand_dims",
    ),
    Case("reshape", S.squeeze, unary_shapes(0, 4, max_side=2), name="squeeze"),
    Case("transpose", lambda x, perm: S.transpose(x, perm), ANY, extra=_perm),
    Case("broadcast_to", S.broadcast_to, ANY, extra=_broadcast_target),
    Case(
        "stack",
        lambda *args: S.stack(list(args[:-1]), axis=args[-1]),
        _same_shapes(),
        extra=_new_axis,
    ),
    Case("unstack", lambda x, axis: S.unstack(x, axis=axis), RANKED, extra=_axis),
    Case(
        "concat",
        lambda *args: S.concat(list(args[:-1]), axis=args[-1]),
        _concat_shapes(),
        extra=_concat_axis,
    ),
    Case(
        "split",
        lambda x, sizes, axis: S.split(x, sizes, axis),
        RANKED,
        extra=_split_args,
    ),
    Case("strided_slice", S.getitem, ANY, extra=_basic_key),
    Case("strided_slice", S.getitem, RANKED, extra=_array_key, name="getitem_array"),
    Case("strided_slice", S.getitem, RANKED, extra=_mask_key, name="getitem_mask"),
    Case("tensor_scatter_add", _scatter_add, RANKED, extra=_scatter_args),
    Case("tile", S.tile, ANY, extra=_multiples),
    Case(
        "gather",
        lambda x, idx, axis, batch_dims: S.gather(
            x, idx, axis=axis, batch_dims=batch_dims
        ),
        RANKED,
        extra=_gather_args,
    ),
    Case(
        "gather_nd",
        lambda x, idx, batch_dims: S.gather_nd(x, idx, batch_dims=batch_dims),
        RANKED,
        extra=_gather_nd_args,
    ),
    Case(
        "pad",
        lambda x, pairs, value: S.pad(x, pairs, constant_values=value),
        ANY,
        extra=_constant_paddings,
    ),
    # REFLECT and SYMMETRIC are composed from reversed slices and concat
    Case(
        "concat",
        lambda x, pairs: S.pad(x, pairs, mode="REFLECT"),
        ANY,
        extra=_paddings(lambda d: d - 1),
        name="pad_reflect",
    ),
    Case(
        "concat",
        lambda x, pairs: S.pad(x, pairs, mode="SYMMETRIC"),
        ANY,
        extra=_paddings(lambda d: d),
        name="pad_symmetric",
    ),
    Case("reverse", S.reverse, ANY, extra=_reverse_axes),
]


# -- slice, boolean_mask, repeat, meshgrid, sorting ----------------------------------


def _distinct(rng, shape):
    # a shuffled grid 0.5 apart with jitter: no ties, so the sort order is stable
    # under finite-difference steps
    n = int(np.prod(shape))
    grid = rng.permutation(n) * 0.5 - n * 0.25
    return grid.reshape(shape) + rng.uniform(0, 0.1, size=shape)


def _begin_size(data, shapes) -> tuple:
    begin, size = [], []
    for dim in shapes[0]:
        start = data.draw(st.integers(0, dim), label="begin")
        begin.append(start)
        size.append(data.draw(st.integers(-1, dim - start), label="size"))
    return begin, size


def _mask_and_axis(data, shapes) -> tuple:
    shape = shapes[0]
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    k = data.draw(st.integers(1, len(shape) - axis), label="mask rank")
    mask = data.draw(hnp.arrays(np.bool_, shape[axis : axis + k]), label="mask")
    signed = data.draw(st.sampled_from([axis, axis - len(shape)]), label="axis sign")
    return mask, signed


def _repeats(data, shapes) -> tuple:
    shape = shapes[0]
    axes = st.integers(-len(shape), len(shape) - 1) if shape else st.nothing()
    axis = data.draw(st.one_of(st.none(), axes), label="axis")
    dim = int(np.prod(shape)) if axis is None else shape[axis]
    counts = st.integers(0, 3)
    repeats = data.draw(
        st.one_of(counts, st.lists(counts, min_size=dim, max_size=dim)),
        label="repeats",
    )
    return repeats, axis


@st.composite
def _vectors(draw) -> tuple:
    count = draw(st.integers(1, 3))
    return tuple(draw(_shape(min_dims=0, max_dims=2)) for _ in range(count))


def _indexing(data, shapes) -> tuple:
    return (data.draw(st.sampled_from(["xy", "ij"]), label="indexing"),)


def _meshgrid(*args):
    *vectors, indexing = args
    return CS.meshgrid(*vectors, indexing=indexing)


def _sort_args(data, shapes) -> tuple:
    return _axis(data, shapes) + _direction(data, shapes)


def _direction(data, shapes) -> tuple:
    return (data.draw(st.sampled_from(["ASCENDING", "DESCENDING"])),)


def _k(data, shapes) -> tuple:
    return (data.draw(st.integers(0, shapes[0][-1]), label="k"),)


CASES += [
    Case("strided_slice", S.slice_, ANY, extra=_begin_size, name="slice"),
    Case(
        "gather",
        lambda x, mask, axis: CS.boolean_mask(x, mask, axis=axis),
        RANKED,
        extra=_mask_and_axis,
        name="boolean_mask",
    ),
    Case(
        "gather",
        lambda x, repeats, axis: CS.repeat(x, repeats, axis=axis),
        ANY,
        extra=_repeats,
        name="repeat",
    ),
    Case("broadcast_to", _meshgrid, _vectors(), extra=_indexing, name="meshgrid"),
    Case(
        "argsort",
        lambda x, direction: SO.argsort(x, -1, direction),
        RANKED,
        domain=_distinct,
        extra=_direction,
        constant=True,
    ),
    Case(
        "gather",
        lambda x, axis, direction: SO.sort(x, axis, direction),
        RANKED,
        domain=_distinct,
        extra=_sort_args,
        name="sort",
    ),
    Case(
        "gather",
        lambda x, k: SO.top_k(x, k).values,
        RANKED,
        domain=_distinct,
        extra=_k,
        name="top_k",
    ),
]

# tf.shape, tf.size and tf.rank of a tensor: ops without a gradient
CASES += [
    Case("shape", S.shape, unary_shapes(), differentiable=False),
    Case("size", S.size, unary_shapes(), differentiable=False),
    Case("rank", S.rank, unary_shapes(), differentiable=False),
]
