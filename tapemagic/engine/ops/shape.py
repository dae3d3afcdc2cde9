"""Ops that move elements without arithmetic: reshape, transpose, slicing, stacking.

Their VJPs move the cotangent back. Leading batch axes of ``g`` stay in front:
``reshape`` keeps ``g.shape[:nb]``, ``transpose`` shifts its permutation by
``nb``, slicing prepends ``nb`` full slices to the index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..op import apply, defop
from ..tensor import Tensor, Variable, convert_inputs, convert_to_tensor
from ._util import nb, normalize_axes, unbroadcast

__all__ = [
    "broadcast_to",
    "concat",
    "expand_dims",
    "getitem",
    "reshape",
    "squeeze",
    "stack",
    "transpose",
    "unstack",
]


def _static_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (Tensor, Variable)):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


# -- reshape, transpose, expand_dims, squeeze ---------------------------------------

_reshape = defop(
    "reshape",
    lambda x, *, shape: np.reshape(x, shape),
    lambda g, out, x, *, shape: (reshape(g, g._value.shape[: nb(g, out)] + x._value.shape),),
)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``tensor`` with a new shape of the same size; one entry may be -1.

    Raises:
        InvalidArgumentError: if the sizes differ.

    Example:
        >>> reshape([1.0, 2.0, 3.0, 4.0], [2, -1]).shape
        TensorShape([2, 2])
    """
    x = convert_to_tensor(tensor)
    new = _static_shape(shape)
    if new == x._value.shape:
        return x
    if -1 not in new and int(np.prod(new, dtype=np.int64)) != x._value.size:
        raise InvalidArgumentError(
            f"Cannot reshape a tensor with {x._value.size} elements to shape "
            f"{list(new)} ({int(np.prod(new, dtype=np.int64))} elements).",
            op="reshape",
        )
    return apply(_reshape.op, (x,), {"shape": new})


def _transpose_vjp(g, out, x, *, perm):
    n = nb(g, out)
    inverse = np.argsort(perm)
    full = tuple(range(n)) + tuple(int(p) + n for p in inverse)
    return (transpose(g, full),)


_transpose = defop(
    "transpose", lambda x, *, perm: np.transpose(x, perm), _transpose_vjp
)


def transpose(a: Any, perm: Any = None, conjugate: bool = False,
              name: str | None = None) -> Tensor:  # fmt: skip
    """Permute the axes of ``a`` (reverse them by default).

    Raises:
        InvalidArgumentError: if ``perm`` is not a permutation of the axes.
    """
    x = convert_to_tensor(a)
    ndim = x._value.ndim
    perm = tuple(range(ndim - 1, -1, -1)) if perm is None else _static_shape(perm)
    if sorted(p % ndim if ndim else p for p in perm) != list(range(ndim)):
        raise InvalidArgumentError(
            f"transpose: perm {list(perm)} is not a permutation of the {ndim} axes of "
            f"a tensor of shape {list(x._value.shape)}.",
            op="transpose",
        )
    perm = tuple(p % ndim for p in perm)
    if perm == tuple(range(ndim)):
        return x
    return apply(_transpose.op, (x,), {"perm": perm})


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

_broadcast_to = defop(
    "broadcast_to",
    lambda x, *, shape: np.broadcast_to(x, shape),
    lambda g, out, x, *, shape: (unbroadcast(g, x._value.shape, nb(g, out)),),
)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``input`` broadcast to ``shape`` (NumPy rules); the VJP sums it back."""
    x = convert_to_tensor(input)
    shape = _static_shape(shape)
    if shape == x._value.shape:
        return x
    return apply(_broadcast_to.op, (x,), {"shape": shape})


# -- stack, unstack, concat -----------------------------------------------------------


_stack = defop(
    "stack",
    lambda *xs, axis: np.stack(xs, axis=axis),
    lambda g, out, *xs, axis: tuple(unstack(g, axis=axis - out._value.ndim)),
)


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
    lambda g, out, x, *, axis: (stack(list(g), axis=axis - x._value.ndim),),
    multi_output=True,
)


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


def _concat_vjp(g, out, *xs, axis):
    # axis counted from the end keeps leading batch axes of g out of the way
    from_end = axis - out._value.ndim
    sizes = [x._value.shape[axis] for x in xs]
    bounds = np.cumsum(sizes)[:-1].tolist()
    return tuple(_split_at(g, bounds, from_end))


def _split_forward(x: np.ndarray, *, bounds: tuple, axis: int) -> tuple:
    return tuple(np.split(x, bounds, axis=axis))


_split_at_op = defop(
    "split",
    _split_forward,
    lambda g, out, x, *, bounds, axis: (concat(list(g), axis=axis),),
    multi_output=True,
)


def _split_at(x: Tensor, bounds: list, axis: int) -> tuple:
    return apply(_split_at_op.op, (x,), {"bounds": tuple(bounds), "axis": axis})


_concat = defop(
    "concat",
    lambda *xs, axis: np.concatenate(xs, axis=axis),
    _concat_vjp,
)


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
        return items[0]
    return apply(_concat.op, items, {"axis": axis % ndim})


# -- indexing ----------------------------------------------------------------------


def _index_item(item: Any) -> Any:
    if isinstance(item, (Tensor, Variable)):
        item = item._value
    if isinstance(item, slice):
        return slice(*(None if v is None else int(v) for v in
                       (item.start, item.stop, item.step)))  # fmt: skip
    if item is None or item is Ellipsis:
        return item
    if isinstance(item, (bool, np.bool_)):
        raise TypeError("A single boolean is not a valid index; use a boolean mask.")
    if isinstance(item, (int, np.integer)):
        return int(item)
    array = np.asarray(item)
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"Only integers, slices, ..., None and integer or boolean arrays are valid "
            f"indices, got {item!r}."
        )
    return int(array) if array.ndim == 0 else array.astype(np.int64)


def _normalize_key(key: Any) -> tuple:
    items = key if isinstance(key, tuple) else (key,)
    out = []
    for item in map(_index_item, items):
        if isinstance(item, np.ndarray) and item.dtype.kind == "b":
            out.extend(np.nonzero(item))  # a mask indexes like its coordinates
        else:
            out.append(item)
    return tuple(out)


def _is_advanced(item: Any) -> bool:
    return isinstance(item, np.ndarray)


def _scatter_forward(g: np.ndarray, *, shape: tuple, key: tuple, nbatch: int) -> np.ndarray:
    batch = g.shape[:nbatch]
    z = np.zeros(batch + shape, dtype=g.dtype)
    full = (slice(None),) * nbatch + key
    if any(_is_advanced(k) for k in key):
        np.add.at(z, full, g)  # repeated indices accumulate
    else:
        z[full] = g
    return z


def _scatter_vjp(g, out, x, *, shape, key, nbatch):
    # g: extra batch axes + out.shape; out = batch(nbatch) + shape
    n = nb(g, out)
    return (_getitem_raw(g, (slice(None),) * (n + nbatch) + key),)


_scatter = defop("tensor_scatter_add", _scatter_forward, _scatter_vjp)


def _getitem_vjp(g, out, x, *, key):
    n = nb(g, out)
    return (apply(_scatter.op, (g,), {"shape": x._value.shape, "key": key, "nbatch": n}),)


_strided_slice = defop("strided_slice", lambda x, *, key: x[key], _getitem_vjp)


def _getitem_raw(x: Tensor, key: tuple) -> Tensor:
    return apply(_strided_slice.op, (x,), {"key": key})


def getitem(tensor: Any, key: Any) -> Tensor:
    """``tensor[key]`` with NumPy's indexing: ints, slices (any step), ``None``,
    ``...``, and one integer or boolean array (or adjacent group of them).

    Raises:
        IndexError: if an index is out of range.
        TypeError: for an index of an unsupported type.
    """
    x = convert_to_tensor(tensor)
    key = _normalize_key(key)
    advanced = [i for i, k in enumerate(key) if _is_advanced(k)]
    if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
        raise TypeError(
            "Integer-array indices separated by a slice are not supported (NumPy "
            "would move their axes to the front). Index in two steps, or use "
            "tf.gather."
        )
    try:
        return _getitem_raw(x, key)
    except InvalidArgumentError as err:
        raise IndexError(f"Index out of range: {err}") from None
