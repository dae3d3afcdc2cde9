"""Sorting: the ``argsort`` primitive (a gradient of zeros) beside its
TensorFlow-signature wrapper, and ``sort`` and ``top_k``, composed of it and a
``gather`` so the gradient of each entry goes back to where it came from.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..accepts import RELU6, SIGNED, Accepts
from ..eager_tensor import tensor_of
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, Variable, convert_to_tensor
from . import indexing as _indexing
from . import shape as _shape
from ._util import check_axis

__all__ = ["TopKV2", "argsort", "sort", "top_k"]


# -- sorting: argsort (zero gradient), sort and top_k (composed with gather) ---------


def _argsort_forward(
    x: np.ndarray, *, axis: int, descending: bool, dtype: np.dtype, k: int = -1
) -> np.ndarray:
    """The order along ``axis``; with ``k`` >= 0 its first ``k`` (on the last axis)."""
    if not descending:
        order = np.argsort(x, axis=axis, kind="stable")
    else:
        # Descending with the lower index first on a tie (TensorFlow's top_k):
        # sort the reversed axis ascending, stably, and reverse the result.
        flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
        order = x.shape[axis] - 1 - np.flip(flipped, axis)
    if k >= 0:
        order = order[..., :k]
    return order.astype(dtype)


def _argsort_vjp(ns, g, out, x, *, axis, descending, dtype, k=-1):
    # The order is piecewise constant in the values: a gradient of zeros, as
    # TensorFlow's, which sorts with top_k (whose gradient scatters the values'
    # cotangent, none here) and, ascending, on the negated values: -0. then.
    shape = ns.shape(g)[: ns.nb(g, out)] + ns.shape(x)
    return (ns.constant(np.full(shape, 0.0 if descending else -0.0, ns.dtype(x))),)


_argsort = defop(
    "argsort", _argsort_forward, _argsort_vjp, saves=(), integer_gradient=True
)


def _sort_direction(direction: Any) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(
            f"direction should be one of ['ASCENDING', 'DESCENDING'], got "
            f"{direction!r} (upper case)."
        )
    return direction == "DESCENDING"


def _take_along(x: Tensor, order: np.ndarray, axis: int) -> Tensor:
    """NumPy's ``take_along_axis``, as a ``gather`` batched over the other axes."""
    ndim = x._value.ndim
    perm = tuple(a for a in range(ndim) if a != axis) + (axis,)
    index = tensor_of(np.ascontiguousarray(np.transpose(order, perm)))
    picked = _indexing.gather(
        _shape.transpose(x, perm), index, axis=ndim - 1, batch_dims=ndim - 1
    )
    return _shape.transpose(picked, tuple(int(p) for p in np.argsort(perm)))


# TensorFlow sorts with top_k, negating first (ascending): that negation
# refuses bool; top_k itself refuses bool and complex
_SORT = Accepts(SIGNED.allowed, op="Neg", also="uint8")
_TOP_K = RELU6.for_op("TopKV2")


@tf_export("tf")
def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING",
            stable: bool = False, name: str | None = None) -> Tensor:  # fmt: skip
    """The int32 indices that sort ``values`` along ``axis``.

    Equal values keep their order (the lower index first) in both directions,
    as TensorFlow's sort does. The order does not change with small changes
    of the values, so its gradient is zeros (``-0.`` ascending, as TensorFlow
    gives); an index used to gather passes no gradient to the values it came
    from (``None``).

    Args:
        values: a numeric tensor of rank >= 1.
        axis: the axis to sort along (default the last).
        direction: ``'ASCENDING'`` or ``'DESCENDING'``.
        stable: accepted for TensorFlow compatibility; the order is always stable.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        An int32 tensor of ``values``' shape.

    Raises:
        ValueError: for an unknown ``direction``.
        InvalidArgumentError: if ``axis`` is out of range.

    Example:
        >>> argsort([30.0, 10.0, 20.0]).numpy()
        array([1, 2, 0], dtype=int32)
    """
    x = convert_to_tensor(values)
    _SORT.check(x)
    descending = _sort_direction(direction)
    ndim = x._value.ndim
    ax = check_axis(axis, ndim, "argsort")
    if ax == ndim - 1:
        return _order(x, ax, descending)
    # NOTE: another axis is swapped with the last one and back, as TensorFlow
    # does: a transpose of the integer order is not recorded, so the gradient
    # is None there rather than zeros.
    perm = list(range(ndim))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    order = _order(_shape.transpose(x, perm), ndim - 1, descending)
    return _shape.transpose(order, perm)


_INT32 = np.dtype(np.int32)


def _order(x: Tensor, axis: int, descending: bool, k: int = -1,
           dtype: np.dtype = _INT32) -> Tensor:  # fmt: skip
    """The argsort primitive along ``axis``; its first ``k`` when ``k`` >= 0."""
    params = {"axis": axis, "descending": descending, "dtype": dtype, "k": k}
    return apply(_argsort.op, (x,), params)


@tf_export("tf")
def sort(values: Any, axis: int = -1, direction: str = "ASCENDING",
         name: str | None = None) -> Tensor:  # fmt: skip
    """``values`` sorted along ``axis``.

    Composed of :func:`argsort` and a ``gather``, so the gradient of each sorted
    entry goes back to where it came from.

    Args:
        values: a numeric tensor of rank >= 1.
        axis: the axis to sort along (default the last).
        direction: ``'ASCENDING'`` or ``'DESCENDING'``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``values``' shape and dtype.

    Raises:
        ValueError: for an unknown ``direction``.
        InvalidArgumentError: if ``axis`` is out of range.

    Example:
        >>> sort([[3.0, 1.0, 2.0]], direction="DESCENDING").numpy()
        array([[3., 2., 1.]], dtype=float32)
    """
    x = convert_to_tensor(values)
    _SORT.check(x)
    ax = check_axis(axis, x._value.ndim, "sort")
    order = _order(x, ax, _sort_direction(direction))
    return _take_along(x, order._value, ax)


class TopKV2(NamedTuple):
    """What :func:`top_k` returns: the largest ``values`` and their ``indices``."""

    values: Tensor
    indices: Tensor


@tf_export("tf.math", "tf.nn")
def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32,
          name: str | None = None) -> TopKV2:  # fmt: skip
    """The ``k`` largest entries along the last axis, and their indices.

    Equal values come lower index first, as in TensorFlow. The values are
    gathered at the indices, so their gradient goes back to those positions
    (scattered into zeros); the indices' gradient is zeros, as TensorFlow's.

    Args:
        input: a numeric tensor of rank >= 1 whose last axis has >= ``k`` entries.
        k: how many entries to keep (an int >= 0).
        sorted: accepted for TensorFlow compatibility; the result is always
            sorted, largest first (TensorFlow leaves the order unspecified when
            False).
        index_type: tf.int32 (the default) or tf.int64.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``TopKV2(values, indices)``, both of shape ``input.shape[:-1] + [k]``.

    Raises:
        InvalidArgumentError: if ``input`` is a scalar, ``k`` is negative or
            larger than the last axis.
        TypeError: if ``index_type`` is not int32 or int64.

    Example:
        >>> values, indices = top_k([1.0, 9.0, 3.0, 9.0], k=3)
        >>> values.numpy(), indices.numpy()
        (array([9., 9., 3.], dtype=float32), array([1, 3, 2], dtype=int32))
    """
    x = convert_to_tensor(input)
    _TOP_K.check(x)
    shape = x._value.shape
    if not shape:
        raise InvalidArgumentError(
            "top_k: input must be >= 1-D, got a scalar. Pass a vector (or a batch "
            "of vectors along the last axis).",
            op="top_k",
        )
    count = int(k._value) if isinstance(k, (Tensor, Variable)) else int(k)
    if count < 0:
        raise InvalidArgumentError(f"Need k >= 0, got {count}.", op="top_k")
    if count > shape[-1]:
        raise InvalidArgumentError(
            f"input must have at least k columns. Had {shape[-1]}, needed {count} "
            f"(input shape {list(shape)}); use a smaller k.",
            op="top_k",
        )
    index_dtype = dtypes.as_dtype(index_type)
    if index_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"top_k: index_type must be tf.int32 or tf.int64, got {index_dtype!r}."
        )
    ndim = len(shape)
    indices = _order(x, ndim - 1, True, count, index_dtype._np)
    values = _indexing.gather(x, indices, axis=ndim - 1, batch_dims=ndim - 1)
    return TopKV2(values, indices)
