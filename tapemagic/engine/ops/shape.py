"""Ops that move elements without arithmetic: reshape, transpose, stacking,
splitting, tiling and padding; with the indexing ops
(``indexing``) re-exported.

Their VJPs move the cotangent back. Leading batch axes of ``g`` stay in front:
``reshape`` keeps ``g.shape[:nb]``, ``transpose`` shifts its permutation by
``nb``, and axes are otherwise counted from the end.
"""

from __future__ import annotations

import math as _pymath
from typing import Any

import numpy as np

from .. import dtypes
from ..eager_tensor import constant_of
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, Variable, convert_inputs, convert_to_tensor
from ._util import check_axis, normalize_axes, shape_reads, static_shape
from .indexing import gather as gather
from .indexing import gather_nd as gather_nd
from .indexing import (
    getitem,
    getitem_raw,
    getitem_variable,
    slice_,
)
from .math import identity

# The ops imported ``as`` themselves are re-exported: their old import path
# through this module keeps working; __all__ lists what this module defines.
__all__ = [
    "broadcast_to",
    "concat",
    "expand_dims",
    "getitem",
    "getitem_variable",
    "pad",
    "rank",
    "reshape",
    "reverse",
    "shape",
    "size",
    "slice_",
    "split",
    "squeeze",
    "stack",
    "tile",
    "transpose",
    "unstack",
]


# -- reshape, transpose, expand_dims, squeeze ---------------------------------------

_reshape = defop(
    "reshape",
    lambda x, *, shape: x.reshape(shape),
    # The elements keep their order: g reshaped back (its batch axes kept).
    lambda ns, g, out, x, *, shape: (
        ns.reshape(g, shape=ns.shape(g)[: ns.nb(g, out)] + ns.shape(x)),
    ),
    saves=(),
)


@tf_export("tf", numpy=("reshape",))
def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``tensor`` with a new shape of the same size; one entry may be -1.

    Raises:
        InvalidArgumentError: if the sizes differ.

    Example:
        >>> reshape([1.0, 2.0, 3.0, 4.0], [2, -1]).shape
        TensorShape([2, 2])
    """
    x = convert_to_tensor(tensor)
    new = static_shape(shape, "reshape")
    reads = shape_reads(shape)
    if -1 not in new and int(np.prod(new, dtype=np.int64)) != x._value.size:
        raise InvalidArgumentError(
            f"Cannot reshape a tensor with {x._value.size} elements to shape "
            f"{list(new)} ({int(np.prod(new, dtype=np.int64))} elements).",
            op="reshape",
        )
    return apply(_reshape.op, (x,), {"shape": new}, reads)


def _inverse_perm(perm: tuple, nbatch: int) -> tuple[int, ...]:
    """The permutation undoing ``perm``, after ``nbatch`` leading axes kept."""
    inverse = np.argsort(perm)
    return tuple(range(nbatch)) + tuple(int(p) + nbatch for p in inverse)


def _transpose_vjp(ns, g, out, x, *, perm):
    # A permutation's adjoint is its inverse.
    return (ns.transpose(g, perm=_inverse_perm(perm, ns.nb(g, out))),)


_transpose = defop(
    "transpose", lambda x, *, perm: x.transpose(perm), _transpose_vjp, saves=()
)


@tf_export("tf", numpy=("transpose",))
def transpose(a: Any, perm: Any = None, conjugate: bool = False,
              name: str | None = None) -> Tensor:  # fmt: skip
    """Permute the axes of ``a`` (reverse them by default).

    Raises:
        InvalidArgumentError: if ``perm`` is not a permutation of the axes.
    """
    x = convert_to_tensor(a)
    ndim = x._value.ndim
    perm = (
        tuple(range(ndim - 1, -1, -1))
        if perm is None
        else static_shape(perm, "transpose")
    )
    if sorted(p % ndim if ndim else p for p in perm) != list(range(ndim)):
        raise InvalidArgumentError(
            f"transpose: perm {list(perm)} is not a permutation of the {ndim} axes of "
            f"a tensor of shape {list(x._value.shape)}.",
            op="transpose",
        )
    perm = tuple(p % ndim for p in perm)
    return apply(_transpose.op, (x,), {"perm": perm})


@tf_export("tf")
def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:
    """Insert a size-1 axis at ``axis`` (negative counts from the end)."""
    x = convert_to_tensor(input)
    ndim = x._value.ndim
    axis = int(axis)
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(
            f"expand_dims: axis {axis} is out of range for rank {ndim}; use an axis "
            f"in [{-ndim - 1}, {ndim}]."
        )
    axis = axis % (ndim + 1)
    shape = x._value.shape
    return reshape(x, shape[:axis] + (1,) + shape[axis:])


@tf_export("tf", numpy=("squeeze",))
def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """Remove size-1 axes (all of them, or those in ``axis``).

    Raises:
        InvalidArgumentError: if an axis named in ``axis`` is not of size 1.
    """
    x = convert_to_tensor(input)
    shape = x._value.shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = normalize_axes(axis, len(shape))
        for a in axes:
            if shape[a] != 1:
                raise InvalidArgumentError(
                    f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                    f"{shape[a]} (shape {list(shape)}).",
                    op="squeeze",
                )
    return reshape(x, tuple(d for i, d in enumerate(shape) if i not in axes))


# -- broadcasting ----------------------------------------------------------------


def _broadcast_to_forward(x: np.ndarray, *, shape: tuple) -> np.ndarray:
    if _pymath.prod(shape) <= 4096:
        # A small result (a sum's or a mean's gradient) is copied out: a few
        # times cheaper than the view NumPy's broadcast_to builds in Python.
        out = np.empty(shape, x.dtype)
        np.copyto(out, x)  # the ValueError of shapes that do not broadcast
        return out
    return np.broadcast_to(x, shape)


_broadcast_to = defop(
    "broadcast_to",
    _broadcast_to_forward,
    lambda ns, g, out, x, *, shape: (ns.unbroadcast(g, x, out),),
    saves=(),
)


@tf_export("tf")
def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``input`` broadcast to ``shape`` (NumPy rules); the VJP sums it back."""
    x = convert_to_tensor(input)
    reads = shape_reads(shape)
    shape = static_shape(shape, "broadcast_to")
    return apply(_broadcast_to.op, (x,), {"shape": shape}, reads)


# -- stack, unstack, concat -----------------------------------------------------------


_stack = defop(
    "stack",
    lambda *xs, axis: np.stack(xs, axis=axis),
    # The adjoint of joining is splitting: g unstacked on the new axis (after
    # g's batch axes).
    lambda ns, g, out, *xs, axis: ns.unstack(g, axis=axis + ns.nb(g, out)),
    kernels=("Pack",),
)


@tf_export("tf", numpy=("stack",))
def stack(values: list, axis: int = 0, name: str | None = None) -> Tensor:
    """Join tensors of one shape along a new axis.

    Raises:
        ValueError: if ``values`` is empty; InvalidArgumentError if shapes differ.
    """
    items = convert_inputs(tuple(values))
    if not items:
        raise ValueError("stack needs at least one tensor.")
    ndim = items[0]._value.ndim + 1
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"stack: axis {axis} is out of range for rank {ndim}.")
    return apply(_stack.op, items, {"axis": axis % ndim})


_unstack = defop(
    "unstack",
    lambda x, *, axis: tuple(np.moveaxis(x, axis, 0)),
    lambda ns, g, out, x, *, axis: (ns.stack(*g, axis=axis + ns.nb(g[0], out[0])),),
    multi_output=True,
    kernels=("Unpack",),
)


@tf_export("tf")
def unstack(value: Any, num: int | None = None, axis: int = 0,
            name: str | None = None) -> list[Tensor]:  # fmt: skip
    """Split ``value`` along ``axis`` into a list of tensors of one rank less."""
    x = convert_to_tensor(value)
    ndim = x._value.ndim
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"unstack: axis {axis} is out of range for rank {ndim}.")
    axis %= ndim
    if num is not None and num != x._value.shape[axis]:
        raise ValueError(
            f"unstack: num={num} but axis {axis} has size {x._value.shape[axis]}."
        )
    return list(apply(_unstack.op, (x,), {"axis": axis}))


def _concat_vjp(ns, g, out, *xs, axis):
    # axis counted from the end keeps leading batch axes of g out of the way
    from_end = axis - ns.ndim(out)
    sizes = [ns.shape(x)[axis] for x in xs]
    bounds = tuple(np.cumsum(sizes)[:-1].tolist())
    return tuple(ns.split(g, bounds=bounds, axis=from_end))


def _split_forward(x: np.ndarray, *, bounds: tuple, axis: int) -> tuple:
    return tuple(np.split(x, bounds, axis=axis))


_split_at_op = defop(
    "split",
    _split_forward,
    # axis counts from the end; concat takes it from the start of g's pieces
    lambda ns, g, out, x, *, bounds, axis: (ns.concat(*g, axis=axis + ns.ndim(g[0])),),
    multi_output=True,
    kernels=("SplitV",),
)


def _split_at(x: Tensor, bounds: list, axis: int) -> tuple:
    return apply(_split_at_op.op, (x,), {"bounds": tuple(bounds), "axis": axis})


_concat = defop(
    "concat",
    lambda *xs, axis: np.concatenate(xs, axis=axis),
    _concat_vjp,
    kernels=("ConcatV2",),
)


@tf_export("tf")
def concat(values: list, axis: int, name: str | None = None) -> Tensor:
    """Join tensors along an existing ``axis``.

    Raises:
        ValueError: if ``values`` is empty; InvalidArgumentError if shapes differ
            off ``axis``.
    """
    items = convert_inputs(tuple(values))
    if not items:
        raise ValueError("concat needs at least one tensor.")
    ndim = items[0]._value.ndim
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"concat: axis {axis} is out of range for rank {ndim}.")
    if len(items) == 1:
        return identity(items[0])  # a new tensor, as TensorFlow's concat gives
    return apply(_concat.op, items, {"axis": axis % ndim})


# -- split -------------------------------------------------------------------------


def _split_sizes(splits: Any, dim: int, axis: int) -> list[int]:
    if isinstance(splits, (Tensor, Variable)):
        splits = splits._value.tolist()
    if isinstance(splits, (int, np.integer)):
        count = int(splits)
        if count <= 0:
            raise ValueError(
                f"split: num_or_size_splits={count} must be a positive number of "
                "pieces, or a list of sizes."
            )
        if dim % count:
            raise InvalidArgumentError(
                f"Number of ways to split should evenly divide the split dimension, "
                f"but got split_dim {axis} (size = {dim}) and num_split {count}. "
                "Pass a list of sizes for uneven pieces.",
                op="split",
            )
        return [dim // count] * count
    sizes = [int(s) for s in splits]
    if not sizes:
        raise ValueError("split: num_or_size_splits is an empty list; give sizes.")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in sizes):
        raise InvalidArgumentError(
            f"split: size_splits {sizes} may hold at most one -1 (the size to "
            "infer) and no other negative sizes.",
            op="split",
        )
    known = sum(s for s in sizes if s != -1)
    fits = known <= dim if unknown else known == dim
    if not fits:
        raise InvalidArgumentError(
            f"split: the sizes {sizes} must add up to {dim}, the size of dimension "
            f"{axis} (or, with one -1, to at most {dim}).",
            op="split",
        )
    if unknown:
        sizes[unknown[0]] = dim - known
    return sizes


@tf_export("tf")
def split(value: Any, num_or_size_splits: Any, axis: int = 0, num: int | None = None,
          name: str | None = None) -> list[Tensor]:  # fmt: skip
    """Split ``value`` along ``axis`` into pieces.

    Args:
        value: the tensor to split.
        num_or_size_splits: a number of equal pieces, or a list of piece sizes of
            which at most one is -1 (inferred from the rest).
        axis: the axis to split; negative counts from the end.
        num: the number of pieces, if given; must match.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: if the pieces do not fit the axis, or ``axis`` is
            out of range.
        ValueError: for a non-positive number of pieces, or a mismatched ``num``.

    Example:
        >>> [p.numpy().tolist() for p in split([1.0, 2.0, 3.0, 4.0, 5.0], [2, -1])]
        [[1.0, 2.0], [3.0, 4.0, 5.0]]
    """
    x = convert_to_tensor(value)
    ndim = x._value.ndim
    axis = check_axis(axis, ndim, "split")
    sizes = _split_sizes(num_or_size_splits, x._value.shape[axis], axis)
    if num is not None and int(num) != len(sizes):
        raise ValueError(f"split: num={num} but the split gives {len(sizes)} pieces.")
    bounds = np.cumsum(sizes)[:-1].tolist()
    # the axis counted from the end: the VJP's concat then skips g's batch axes
    return list(_split_at(x, bounds, axis - ndim))


# -- tile --------------------------------------------------------------------------


def _tile_vjp(ns, g, out, x, *, multiples):
    # out[k * d + j] = x[j] along each axis: view g as (m_0, d_0, m_1, d_1, ...)
    # and sum the repeat axes.
    shape = ns.shape(x)
    batch = ns.shape(g)[: ns.nb(g, out)]
    interleaved = tuple(n for m, d in zip(multiples, shape) for n in (m, d))
    repeats = tuple(len(batch) + 2 * i for i in range(len(shape)))
    viewed = ns.reshape(g, shape=batch + interleaved)
    return (ns.reduce_sum(viewed, axes=repeats, keepdims=False),)


_tile = defop("tile", lambda x, *, multiples: np.tile(x, multiples), _tile_vjp)


@tf_export("tf")
def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:
    """Repeat ``input`` ``multiples[i]`` times along each axis ``i``.

    Args:
        input: the tensor to tile.
        multiples: one non-negative int per axis of ``input``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``input.shape * multiples``.

    Raises:
        InvalidArgumentError: if ``multiples`` does not have one entry per axis,
            or has a negative entry.

    Example:
        >>> tile([[1.0, 2.0]], [2, 2]).numpy()
        array([[1., 2., 1., 2.],
               [1., 2., 1., 2.]], dtype=float32)
    """
    x = convert_to_tensor(input)
    reps = static_shape(multiples, "tile")
    ndim = x._value.ndim
    if len(reps) != ndim:
        raise InvalidArgumentError(
            f"Expected multiples argument to be a vector of length {ndim} but got "
            f"length {len(reps)} ({list(reps)}); give one repeat count per axis of "
            f"the input of shape {list(x._value.shape)}.",
            op="tile",
        )
    if any(m < 0 for m in reps):
        raise InvalidArgumentError(
            f"Expected multiples to be non-negative, but got {list(reps)}.", op="tile"
        )
    reads = shape_reads(multiples)
    return apply(_tile.op, (x,), {"multiples": reps}, reads)


# -- pad, reverse ------------------------------------------------------------------


def _pad_vjp(ns, g, out, x, *, paddings, constant):
    # the cotangent of the input is the middle of g; Ellipsis keeps batch axes
    middle = tuple(slice(lo, lo + d) for (lo, _), d in zip(paddings, ns.shape(x)))
    return (ns.strided_slice(g, key=(Ellipsis,) + middle),)


def _pad_forward(x: np.ndarray, *, paddings: tuple, constant: Any) -> np.ndarray:
    if not paddings:  # a scalar: NumPy refuses an empty pad_width
        return x
    return np.pad(x, paddings, mode="constant", constant_values=constant)


_pad = defop("pad", _pad_forward, _pad_vjp, kernels=("PadV2",))


def _mirror_pad(x: Tensor, paddings: tuple, reflect: bool) -> Tensor:
    # Composed from reversed slices and concat, so the VJP (which folds the border
    # back onto the edge) and higher derivatives come from those ops.
    shift = 1 if reflect else 0
    for axis, (lo, hi) in enumerate(paddings):
        if not lo and not hi:
            continue
        dim = x._value.shape[axis]
        lead = (slice(None),) * axis
        parts = []
        if lo:
            stop = shift - 1 if shift else None
            parts.append(getitem_raw(x, lead + (slice(lo - 1 + shift, stop, -1),)))
        parts.append(x)
        if hi:
            start = dim - 1 - shift
            stop = start - hi
            parts.append(
                getitem_raw(x, lead + (slice(start, stop if stop >= 0 else None, -1),))
            )
        x = concat(parts, axis=axis)
    return x


@tf_export("tf")
def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> Tensor:  # fmt: skip
    """Pad ``tensor`` with ``paddings[i] = [before, after]`` elements on axis ``i``.

    Args:
        tensor: the tensor to pad.
        paddings: an int array of shape ``[rank, 2]``, non-negative.
        mode: ``"CONSTANT"`` (fill with ``constant_values``), ``"REFLECT"``
            (mirror without the edge) or ``"SYMMETRIC"`` (mirror with the edge);
            any case.
        constant_values: the fill value for ``"CONSTANT"``, in the tensor's dtype.
            Its gradient is ``None``, as in TensorFlow.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The padded tensor.

    Raises:
        InvalidArgumentError: if ``paddings`` has the wrong shape, is negative, or
            is too large to mirror.
        ValueError: for an unknown ``mode``.

    Example:
        >>> pad([[1.0, 2.0]], [[0, 0], [1, 2]]).numpy()
        array([[0., 1., 2., 0., 0.]], dtype=float32)
        >>> pad([1.0, 2.0, 3.0], [[2, 1]], mode="REFLECT").numpy()
        array([3., 2., 1., 2., 3., 2.], dtype=float32)
    """
    x = convert_to_tensor(tensor)
    mode_name = str(mode).upper()
    if mode_name not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(
            f'pad: mode must be "CONSTANT", "REFLECT" or "SYMMETRIC", got {mode!r}.'
        )
    if isinstance(paddings, (Tensor, Variable)):
        paddings = paddings._value
    table = np.asarray(paddings)
    if table.size == 0:
        table = table.reshape(0, 2).astype(np.int64)  # a scalar's paddings: []
    shape = x._value.shape
    if table.shape != (len(shape), 2) or table.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"pad: paddings must be an int array of shape [{len(shape)}, 2] (one "
            f"[before, after] pair per axis of the input of shape {list(shape)}), "
            f"got {table.tolist()!r}.",
            op="pad",
        )
    pairs = tuple((int(lo), int(hi)) for lo, hi in table)
    if any(lo < 0 or hi < 0 for lo, hi in pairs):
        raise InvalidArgumentError(
            f"pad: paddings must be non-negative, got {[list(p) for p in pairs]}.",
            op="pad",
        )
    if mode_name == "CONSTANT":
        if _is_python_zero(constant_values):
            # zeros of the tensor's dtype, bool too: TensorFlow pads with its Pad
            # op, which takes no value, unless constant_values != 0
            fill = np.zeros((), x._value.dtype)
        else:
            fill = convert_inputs((x, constant_values))[1]._value
        if fill.ndim:
            raise ValueError(
                f"pad: constant_values must be a scalar, got shape {list(fill.shape)}."
            )
        return apply(_pad.op, (x,), {"paddings": pairs, "constant": fill[()]})
    reflect = mode_name == "REFLECT"
    for axis, ((lo, hi), dim) in enumerate(zip(pairs, shape)):
        limit = dim - 1 if reflect else dim
        if lo > limit or hi > limit:
            raise InvalidArgumentError(
                f"pad: {mode_name} paddings on axis {axis} must be at most {limit} "
                f"(the axis has size {dim}), got [{lo}, {hi}].",
                op="pad",
            )
    return _mirror_pad(x, pairs, reflect)


def _is_python_zero(value: Any) -> bool:
    return (
        isinstance(value, (int, float, np.number, np.bool_))
        and not isinstance(value, (Tensor, Variable))
        and value == 0
    )


_reverse = defop(
    "reverse",
    lambda x, *, axes: np.flip(x, axes),
    # A reversal is its own adjoint; axes counted from the end skip g's batch axes.
    lambda ns, g, out, x, *, axes: (
        ns.reverse(g, axes=tuple(a % ns.ndim(x) - ns.ndim(x) for a in axes)),
    ),
    kernels=("ReverseV2",),
)


@tf_export("tf")
def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """Reverse the order of elements along each axis in ``axis``.

    Args:
        tensor: the tensor to reverse.
        axis: a list of distinct axes (negative counts from the end).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The reversed tensor.

    Raises:
        InvalidArgumentError: if an axis is out of range or repeated.

    Example:
        >>> reverse([[1.0, 2.0], [3.0, 4.0]], [1]).numpy()
        array([[2., 1.],
               [4., 3.]], dtype=float32)
    """
    x = convert_to_tensor(tensor)
    ndim = x._value.ndim
    items = static_shape(axis, "reverse")
    axes = tuple(check_axis(a, ndim, "reverse") for a in items)
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(
            f"reverse: axis {list(items)} names an axis more than once; list each "
            "axis once.",
            op="reverse",
        )
    return apply(_reverse.op, (x,), {"axes": tuple(sorted(axes))})


# -- static facts: shape, size, rank ------------------------------------------------
#
# Ops without a gradient (TensorFlow registers none), so no tape records them;
# for a tensor or variable they are ops all the same, so that an explanation
# graph shows which value a shape came from.

_shape_op = defop(
    "shape",
    lambda x, *, out_type: np.asarray(x.shape, dtype=out_type),
    same_dtype=False,
)
_size_op = defop(
    "size", lambda x, *, out_type: np.asarray(x.size, dtype=out_type), same_dtype=False
)
_rank_op = defop("rank", lambda x: np.asarray(x.ndim, dtype=np.int32), same_dtype=False)


def _int_out_type(out_type: Any, what: str) -> np.dtype:
    dtype = dtypes.as_dtype(out_type)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"{what}: out_type must be tf.int32 or tf.int64, got {dtype!r}."
        )
    return dtype._np


def _shape_of(input: Any) -> tuple[int, ...]:
    if isinstance(input, (Tensor, Variable)):
        return input._value.shape
    return convert_to_tensor(input)._value.shape


@tf_export("tf")
def shape(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Tensor:
    """The shape of ``input`` as a 1-D integer tensor.

    Args:
        input: a tensor (or anything convertible to one).
        out_type: tf.int32 (the default) or tf.int64.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``[rank]``.

    Example:
        >>> shape([[1.0, 2.0, 3.0]]).numpy()
        array([1, 3], dtype=int32)
    """
    dtype = _int_out_type(out_type, "shape")
    if isinstance(input, (Tensor, Variable)):
        return apply(_shape_op.op, (convert_to_tensor(input),), {"out_type": dtype})
    return constant_of(np.asarray(_shape_of(input), dtype=dtype))


@tf_export("tf")
def size(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Tensor:
    """The number of elements of ``input`` as a scalar integer tensor.

    Example:
        >>> size([[1.0, 2.0, 3.0]]).numpy()
        np.int32(3)
    """
    dtype = _int_out_type(out_type, "size")
    if isinstance(input, (Tensor, Variable)):
        return apply(_size_op.op, (convert_to_tensor(input),), {"out_type": dtype})
    count = int(np.prod(_shape_of(input), dtype=np.int64))
    return constant_of(np.asarray(count, dtype=dtype))


@tf_export("tf")
def rank(input: Any, name: str | None = None) -> Tensor:
    """The number of axes of ``input`` as a scalar int32 tensor.

    Example:
        >>> rank([[1.0, 2.0, 3.0]]).numpy()
        np.int32(2)
    """
    if isinstance(input, (Tensor, Variable)):
        return apply(_rank_op.op, (convert_to_tensor(input),), {})
    return constant_of(np.asarray(len(_shape_of(input)), dtype=np.int32))
