"""Indexing: ``getitem`` (``x[key]``), ``tf.slice``, ``gather`` and ``gather_nd``.

Everything that picks elements by index has one dense scatter-add as its VJP,
``tensor_scatter_add``, whose own VJP picks the same elements again, so nested
tapes work through indexing too. Slicing a batched cotangent prepends ``nb``
full slices to the index.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, Variable, convert_to_tensor
from ._util import check_axis, read_tensors, shape_reads, static_shape

__all__ = [
    "gather",
    "gather_nd",
    "getitem",
    "getitem_raw",
    "getitem_variable",
    "slice_",
]


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
    if array.size == 0 and array.dtype.kind == "f":
        array = array.astype(np.int64)  # x[[]]: an empty list of indices
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


def _scatter_forward(
    g: np.ndarray, *, shape: tuple, key: tuple, nbatch: int
) -> np.ndarray:
    batch = g.shape[:nbatch]
    z = np.zeros(batch + shape, dtype=g.dtype)
    full = (slice(None),) * nbatch + key
    if any(_is_advanced(k) for k in key):
        np.add.at(z, full, g)  # repeated indices accumulate
    else:
        z[full] = g
    return z


def _scatter_vjp(ns, g, out, x, *, shape, key, nbatch):
    # Linear; its adjoint picks the same elements again.
    # g: extra batch axes + out.shape; out = batch(nbatch) + shape
    n = ns.nb(g, out)
    return (ns.strided_slice(g, key=(slice(None),) * (n + nbatch) + key),)


_scatter = defop("tensor_scatter_add", _scatter_forward, _scatter_vjp)


def _getitem_vjp(ns, g, out, x, *, key):
    # Linear; its adjoint adds g into zeros at the picked places.
    n = ns.nb(g, out)
    return (ns.tensor_scatter_add(g, shape=ns.shape(x), key=key, nbatch=n),)


_strided_slice = defop(
    "strided_slice", lambda x, *, key: x[key], _getitem_vjp, saves=()
)


def getitem_raw(x: Tensor, key: tuple, reads: tuple = ()) -> Tensor:
    """``x[key]`` for a key already normalized (ints, slices, None, ..., arrays);
    ``reads`` are the tensors the key was made of (see ``apply``)."""
    return apply(_strided_slice.op, (x,), {"key": key}, reads)


def getitem(tensor: Any, key: Any) -> Tensor:
    """``tensor[key]`` with NumPy's indexing.

    Supports ints, slices (any step, negative too), ``None`` (``tf.newaxis``),
    ``...``, and integer arrays, lists, int tensors or boolean masks, as long as
    those (with any ints among them) sit next to each other in the key. The
    gradient scatters ``g`` back; repeated indices accumulate.

    Args:
        tensor: the tensor to index.
        key: the index, as for a NumPy array.

    Returns:
        The selected elements.

    Raises:
        IndexError: if an index is out of range.
        TypeError: for an index of an unsupported type, or integer-array indices
            separated by a slice, ``None`` or ``...``.

    Example:
        >>> x = convert_to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> getitem(x, (slice(None), slice(None, None, -1))).numpy()
        array([[3., 2., 1.],
               [6., 5., 4.]], dtype=float32)
        >>> getitem(x, (1, [0, 0, 2])).numpy()
        array([4., 4., 6.], dtype=float32)
    """
    reads = read_tensors(*(key if isinstance(key, tuple) else (key,)))
    return _getitem(convert_to_tensor(tensor), _normalize_key(key), reads)


def getitem_variable(variable: Variable, key: Any) -> Tensor:
    """``variable[key]``: :func:`getitem` of a read of the variable.

    For a strided-slice key (ints, slices, ``...``, ``tf.newaxis`` and scalar
    int tensors) the result also has ``assign``, which writes into that slice
    of the variable, as in TensorFlow: ``v[0, 1:].assign([5.0, 6.0])``.

    Example:
        >>> v = Variable([[1.0, 2.0], [3.0, 4.0]])
        >>> v[:, 1].assign([7.0, 8.0]).numpy()
        array([[1., 7.],
               [3., 8.]], dtype=float32)
    """
    reads = read_tensors(*(key if isinstance(key, tuple) else (key,)))
    normalized = _normalize_key(key)
    result = _getitem(convert_to_tensor(variable), normalized, reads)
    if not any(_is_advanced(k) for k in normalized):
        result._sliced_from = (variable._handle, normalized)
    return result


def _getitem(x: Tensor, key: tuple, reads: tuple) -> Tensor:
    if any(_is_advanced(k) for k in key):
        # NumPy broadcasts ints together with arrays; if such a group is split by
        # a slice, None or ..., it moves the group's axes to the front, and a
        # batched cotangent (with leading slices added) would move differently.
        grouped = [
            i for i, k in enumerate(key) if _is_advanced(k) or isinstance(k, int)
        ]
        if grouped[-1] - grouped[0] + 1 != len(grouped):
            raise TypeError(
                "Integer-array indices (and plain integers used with them) separated "
                "by a slice, None or ... are not supported: NumPy would move their "
                "axes to the front. Index in two steps, or use tf.gather."
            )
    try:
        return getitem_raw(x, key, reads)
    except InvalidArgumentError as err:
        raise IndexError(f"Index out of range: {err}") from None


# -- gather, gather_nd -------------------------------------------------------------
#
# Both reshape params so that one NumPy advanced index (the "key") picks the
# result, with the index arrays adjacent and first: params.reshape(flat)[key] has
# shape `keyed`, reshaped to the result. The VJP reshapes g to `keyed` and
# scatter-adds it into zeros of shape `flat` (np.add.at: repeated indices
# accumulate); that scatter's own VJP indexes with the same key again.


def _gather_plan(pshape: tuple, indices: np.ndarray, *, axis: int,
                 batch_dims: int) -> tuple:  # fmt: skip
    batch = int(np.prod(pshape[:batch_dims], dtype=np.int64))
    pre = int(np.prod(pshape[batch_dims:axis], dtype=np.int64))
    post = int(np.prod(pshape[axis + 1 :], dtype=np.int64))
    picked = int(np.prod(indices.shape[batch_dims:], dtype=np.int64))
    flat = (batch, pre, pshape[axis], post)
    key = (
        np.arange(batch)[:, None, None],
        np.arange(pre)[None, :, None],
        indices.reshape(batch, 1, picked).astype(np.int64),
    )
    keyed = (batch, pre, picked, post)
    result = pshape[:axis] + indices.shape[batch_dims:] + pshape[axis + 1 :]
    return flat, key, keyed, result


def _gather_nd_plan(pshape: tuple, indices: np.ndarray, *, batch_dims: int) -> tuple:
    depth = indices.shape[-1]
    batch = int(np.prod(pshape[:batch_dims], dtype=np.int64))
    picked = int(np.prod(indices.shape[batch_dims:-1], dtype=np.int64))
    rest = pshape[batch_dims + depth :]
    flat = (batch,) + pshape[batch_dims:]
    coords = indices.reshape(batch, picked, depth).astype(np.int64)
    key = (np.arange(batch)[:, None],) + tuple(coords[..., j] for j in range(depth))
    keyed = (batch, picked) + rest
    result = indices.shape[:-1] + rest
    return flat, key, keyed, result


def _indexed_forward(plan):
    def forward(params: np.ndarray, indices: np.ndarray, **static: Any) -> np.ndarray:
        flat, key, _, result = plan(params.shape, indices, **static)
        return params.reshape(flat)[key].reshape(result)

    return forward


def _indexed_vjp(plan):
    # Linear in params: g scatter-added into zeros at the picked places.
    def vjp(ns, g, out, params, indices, **static):
        pshape = ns.shape(params)
        flat, key, keyed, _ = plan(pshape, ns.value(indices), **static)
        n = ns.nb(g, out)
        batch = ns.shape(g)[:n]
        if ns.shape(g) != batch + keyed:
            g = ns.reshape(g, shape=batch + keyed)
        dense = ns.tensor_scatter_add(g, shape=flat, key=key, nbatch=n)
        if ns.shape(dense) == batch + pshape:
            return dense
        return ns.reshape(dense, shape=batch + pshape)

    return vjp


_gather = defop(
    "gather",
    _indexed_forward(_gather_plan),
    (_indexed_vjp(_gather_plan), None),
    same_dtype=False,
    kernels=("GatherV2", "ResourceGather"),
)
_gather_nd = defop(
    "gather_nd",
    _indexed_forward(_gather_nd_plan),
    (_indexed_vjp(_gather_nd_plan), None),
    same_dtype=False,
)


def _int_indices(indices: Any, op_name: str) -> Tensor:
    t = convert_to_tensor(indices)
    if t._value.dtype not in (np.int32, np.int64):
        raise TypeError(
            f"{op_name}: indices must be int32 or int64, got {t.dtype.name}. Cast "
            "them: tf.cast(indices, tf.int32)."
        )
    return t


def _first_bad(bad: np.ndarray) -> tuple[int, ...] | None:
    if not bad.any():
        return None
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _check_batch_dims(batch_dims: Any, p: Tensor, idx: Tensor, op_name: str) -> int:
    bd = int(batch_dims)
    if bd < 0:
        bd += idx._value.ndim
    pshape, ishape = p._value.shape, idx._value.shape
    if not 0 <= bd <= idx._value.ndim or bd > p._value.ndim:
        raise InvalidArgumentError(
            f"{op_name}: batch_dims={batch_dims} must be in [-{idx._value.ndim}, "
            f"{idx._value.ndim}] for indices of rank {idx._value.ndim} and at most "
            f"the rank of params ({p._value.ndim}).",
            op=op_name,
        )
    if pshape[:bd] != ishape[:bd]:
        raise InvalidArgumentError(
            f"{op_name}: params.shape[:{bd}] = {list(pshape[:bd])} must equal "
            f"indices.shape[:{bd}] = {list(ishape[:bd])} (batch_dims={bd}).",
            op=op_name,
        )
    return bd


@tf_export("tf")
def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None,
           batch_dims: int = 0, name: str | None = None) -> Tensor:  # fmt: skip
    """Pick slices of ``params`` along ``axis`` at ``indices`` (any shape).

    The result has shape ``params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]``. The gradient is dense (TensorFlow returns
    ``IndexedSlices``; the values are the same) and repeated indices accumulate.

    Args:
        params: the tensor to pick from.
        indices: int32 or int64 indices into ``params.shape[axis]``.
        validate_indices: ignored, as in TensorFlow 2.
        axis: the axis to gather along; defaults to ``batch_dims``.
        batch_dims: leading axes shared by ``params`` and ``indices``, gathered
            element by element.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The gathered tensor, in ``params``' dtype.

    Raises:
        InvalidArgumentError: if an index is negative or out of range (as on
            TensorFlow's CPU), or ``axis``/``batch_dims`` do not fit.
        TypeError: if ``indices`` are not integers.

    Example:
        >>> gather([10.0, 20.0, 30.0], [2, 0, 2]).numpy()
        array([30., 10., 30.], dtype=float32)
        >>> gather([[1.0, 2.0], [3.0, 4.0]], [1], axis=1).numpy()
        array([[2.],
               [4.]], dtype=float32)
    """
    p = convert_to_tensor(params)
    idx = _int_indices(indices, "gather")
    bd = _check_batch_dims(batch_dims, p, idx, "gather")
    ndim = p._value.ndim
    ax = check_axis(bd if axis is None else axis, ndim, "gather")
    if ax < bd:
        raise InvalidArgumentError(
            f"gather: batch_dims ({bd}) must be less than or equal to axis ({ax}).",
            op="gather",
        )
    size = p._value.shape[ax]
    where = _first_bad((idx._value < 0) | (idx._value >= size))
    if where is not None:
        raise InvalidArgumentError(
            f"indices[{','.join(map(str, where))}] = {idx._value[where]} is not in "
            f"[0, {size}) (axis {ax} of params with shape {list(p._value.shape)}). "
            "Negative indices do not wrap around in tf.gather.",
            op="gather",
        )
    return apply(_gather.op, (p, idx), {"axis": ax, "batch_dims": bd})


@tf_export("tf")
def gather_nd(params: Any, indices: Any, batch_dims: int = 0,
              name: str | None = None) -> Tensor:  # fmt: skip
    """Pick elements or slices of ``params`` by coordinates in the last axis of
    ``indices``.

    ``indices[..., :]`` holds ``k`` coordinates into the first ``k`` axes of
    ``params`` (after ``batch_dims``); the result has shape
    ``indices.shape[:-1] + params.shape[batch_dims + k:]``. Repeated coordinates
    accumulate in the gradient.

    Args:
        params: the tensor to pick from.
        indices: int32 or int64 coordinates, with the coordinates in the last axis.
        batch_dims: leading axes shared by ``params`` and ``indices``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The gathered tensor, in ``params``' dtype.

    Raises:
        InvalidArgumentError: if a coordinate is out of range, or the shapes do
            not fit.
        TypeError: if ``indices`` are not integers.

    Example:
        >>> gather_nd([[1.0, 2.0], [3.0, 4.0]], [[1, 0], [0, 1]]).numpy()
        array([3., 2.], dtype=float32)
    """
    p = convert_to_tensor(params)
    idx = _int_indices(indices, "gather_nd")
    ishape, pshape = idx._value.shape, p._value.shape
    if not ishape:
        raise InvalidArgumentError(
            "gather_nd: indices must have rank >= 1 (coordinates in the last axis); "
            "wrap a single coordinate in a list: [[i, j]].",
            op="gather_nd",
        )
    bd = _check_batch_dims(batch_dims, p, idx, "gather_nd")
    depth = ishape[-1]
    if bd >= len(ishape) or depth > len(pshape) - bd:
        raise InvalidArgumentError(
            f"gather_nd: indices.shape[-1] = {depth} must be at most the rank of "
            f"params after batch_dims ({len(pshape) - bd}, params shape "
            f"{list(pshape)}), and indices need an axis beyond batch_dims={bd}.",
            op="gather_nd",
        )
    limits = np.asarray(pshape[bd : bd + depth], dtype=np.int64)
    where = _first_bad(np.any((idx._value < 0) | (idx._value >= limits), axis=-1))
    if where is not None:
        raise InvalidArgumentError(
            f"indices[{','.join(map(str, where))}] = {idx._value[where].tolist()} "
            f"does not index into param shape {list(pshape)}.",
            op="gather_nd",
        )
    return apply(_gather_nd.op, (p, idx), {"batch_dims": bd})


@tf_export("tf:slice")
def slice_(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:
    """The block of ``input_`` that starts at ``begin`` and has shape ``size``.

    This is ``tf.slice``, named ``slice_`` here so that Python's ``slice`` stays usable
    in this module. A size of -1 takes everything from ``begin`` to the end of that
    axis. The gradient puts ``g`` back into zeros at the block's place.

    Args:
        input_: the tensor to slice.
        begin: one start index per axis.
        size: one length per axis; -1 for "to the end".
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``size`` (with -1 entries filled in).

    Raises:
        InvalidArgumentError: if ``begin`` or ``size`` does not have one entry per
            axis, or the block does not fit inside ``input_``.

    Example:
        >>> t = convert_to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> slice_(t, [0, 1], [2, -1]).numpy()
        array([[2., 3.],
               [5., 6.]], dtype=float32)
    """
    x = convert_to_tensor(input_)
    starts, sizes = static_shape(begin, "slice"), static_shape(size, "slice")
    dims = x._value.shape
    if len(starts) != len(dims) or len(sizes) != len(dims):
        raise InvalidArgumentError(
            f"Expected begin and size arguments to be 1-D tensors of size "
            f"{len(dims)}, but got shapes [{len(starts)}] and [{len(sizes)}] instead "
            f"(input shape {list(dims)}): give one entry per axis.",
            op="slice",
        )
    key = []
    for i, (start, length, dim) in enumerate(zip(starts, sizes, dims)):
        if not 0 <= start <= dim:
            raise InvalidArgumentError(
                f"Expected begin[{i}] in [0, {dim}], but got {start} (input shape "
                f"{list(dims)}). Negative starts do not wrap around in tf.slice.",
                op="slice",
            )
        if length == -1:
            length = dim - start
        if not 0 <= length <= dim - start:
            raise InvalidArgumentError(
                f"Expected size[{i}] in [0, {dim - start}], but got {length}: the "
                f"block starting at {start} must fit in an axis of size {dim}. Use "
                "-1 to take the rest of the axis.",
                op="slice",
            )
        key.append(builtins.slice(start, start + length))
    return getitem_raw(x, tuple(key), shape_reads(begin) + shape_reads(size))
