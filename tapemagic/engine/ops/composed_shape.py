"""Ops that move elements, composed of the primitives in ``shape`` and
``indexing``: ``boolean_mask`` and ``repeat`` (a reshape and a gather) and
``meshgrid`` (reshapes and broadcasts). They need no VJP of their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..eager_tensor import tensor_of
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..tensor import Tensor, Variable, convert_to_tensor
from . import indexing as _indexing
from . import math as _math
from . import shape as _shape
from ._util import check_axis

__all__ = ["boolean_mask", "meshgrid", "repeat"]


# -- boolean_mask, repeat (composed of reshape and gather) -------------------------


@tf_export("tf")
def boolean_mask(tensor: Any, mask: Any, axis: Any = None,
                 name: str = "boolean_mask") -> Tensor:  # fmt: skip
    """The entries of ``tensor`` where ``mask`` is true, in row-major order.

    ``mask`` (K axes) covers axes ``axis .. axis + K - 1`` of ``tensor``; those
    axes become one axis holding the selected entries. Composed as TensorFlow
    composes it: a reshape and a ``gather`` at the true positions, so the
    gradient puts ``g`` back where the mask is true and zeros elsewhere.

    Args:
        tensor: the tensor to mask.
        mask: a bool tensor (nonzero numbers count as true) whose shape equals
            ``tensor.shape[axis:axis + K]``.
        axis: the first axis the mask covers (default 0); negative counts from
            the end.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``tensor.shape[:axis] + [count] +
        tensor.shape[axis + K:]``.

    Raises:
        ValueError: if ``mask`` is a scalar or its shape does not match.

    Example:
        >>> boolean_mask([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [True, False, True]
        ...              ).numpy()
        array([[1., 2.],
               [5., 6.]], dtype=float32)
    """
    x = convert_to_tensor(tensor)
    mask_tensor = convert_to_tensor(mask)
    m = mask_tensor._value
    if m.ndim == 0:
        raise ValueError(
            f"mask cannot be scalar (got {m!r}). Give a mask with the shape of the "
            "axes to select from, e.g. [True, False, True]."
        )
    shape = x._value.shape
    ndim = len(shape)
    start = 0 if axis is None else int(axis)
    if start < 0:
        start += ndim
    covered = shape[start : start + m.ndim]
    if start < 0 or start + m.ndim > ndim or covered != m.shape:
        raise ValueError(
            f"Shapes {list(covered)} and {list(m.shape)} are incompatible: the mask "
            f"must have the shape of axes {start}..{start + m.ndim - 1} of the tensor "
            f"of shape {list(shape)}."
        )
    count = int(np.prod(m.shape, dtype=np.int64))
    flat = _shape.reshape(x, shape[:start] + (count,) + shape[start + m.ndim :])
    # The true positions come from an op on the mask, as in TensorFlow (a
    # Where before the GatherV2), so the mask is an input of what is picked.
    picked = _math.where_positions(mask_tensor)
    return _indexing.gather(flat, picked, axis=start)


@tf_export("tf")
def repeat(input: Any, repeats: Any, axis: Any = None, name: str | None = None
           ) -> Tensor:  # fmt: skip
    """Repeat each slice of ``input`` along ``axis`` ``repeats[i]`` times.

    Composed as one ``gather`` with every index repeated, so the gradient of
    each slice is the sum of the gradients of its copies.

    Args:
        input: the tensor to repeat.
        repeats: a non-negative int, or one per slice along ``axis``.
        axis: the axis to repeat along; None flattens ``input`` first (as
            TensorFlow and NumPy do).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The repeated tensor.

    Raises:
        InvalidArgumentError: if ``axis`` is out of range, ``repeats`` has the
            wrong length, or a repeat count is negative.
        TypeError: if ``repeats`` are not integers.

    Example:
        >>> repeat([[1.0, 2.0], [3.0, 4.0]], [2, 1], axis=0).numpy()
        array([[1., 2.],
               [1., 2.],
               [3., 4.]], dtype=float32)
        >>> repeat([1.0, 2.0], 2).numpy()
        array([1., 1., 2., 2.], dtype=float32)
    """
    x = convert_to_tensor(input)
    if axis is None:
        x = _shape.reshape(x, (x._value.size,))
        ax = 0
    else:
        ax = check_axis(axis, x._value.ndim, "repeat")
    if isinstance(repeats, (Tensor, Variable)):
        repeats = repeats._value
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu":
        raise TypeError(
            f"repeat: repeats must be integers, got {counts.tolist()!r}. Cast them: "
            "tf.cast(repeats, tf.int32)."
        )
    dim = x._value.shape[ax]
    if counts.ndim > 1 or counts.size not in (1, dim):
        raise InvalidArgumentError(
            f"repeat: repeats {counts.tolist()!r} must be a scalar or a vector of "
            f"length 1 or {dim} (the size of axis {ax}).",
            op="repeat",
        )
    if np.any(counts < 0):
        raise InvalidArgumentError(
            f"repeat: repeats must be non-negative, got {counts.tolist()!r}.",
            op="repeat",
        )
    index = np.repeat(np.arange(dim, dtype=np.int64), np.broadcast_to(counts, (dim,)))
    return _indexing.gather(x, tensor_of(index), axis=ax)


# -- meshgrid (composed of reshape and broadcast_to) ----------------------------------


@tf_export("tf")
def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from N vectors: N tensors of the same N-D shape.

    With the default ``indexing='xy'`` the first two axes are swapped (the first
    vector runs along axis 1, as for image coordinates); ``'ij'`` keeps the
    order. Each output is its vector reshaped and broadcast, so its gradient is
    the sum over the copies.

    Args:
        *args: tensors, each flattened to a vector.
        **kwargs: ``indexing`` (``'xy'`` or ``'ij'``) and ``name`` (ignored).

    Returns:
        A list of N tensors of shape ``[len(args[1]), len(args[0]), ...]`` for
        ``'xy'`` and ``[len(args[0]), len(args[1]), ...]`` for ``'ij'``.

    Raises:
        ValueError: for an unknown ``indexing``.
        TypeError: for an unknown keyword argument.

    Example:
        >>> xs, ys = meshgrid([1.0, 2.0, 3.0], [4.0, 5.0])
        >>> xs.numpy()
        array([[1., 2., 3.],
               [1., 2., 3.]], dtype=float32)
        >>> ys.numpy()
        array([[4., 4., 4.],
               [5., 5., 5.]], dtype=float32)
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(
            f"{next(iter(kwargs))!r} is an invalid keyword argument for meshgrid; it "
            "takes indexing='xy' or 'ij' and name."
        )
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"indexing parameter must be either 'xy' or 'ij', got {indexing!r}."
        )
    vectors = []
    for arg in args:
        t = convert_to_tensor(arg)
        vectors.append(_shape.reshape(t, (t._value.size,)))
    ndim = len(vectors)
    places = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        places[0], places[1] = 1, 0
    full = [1] * ndim
    for v, place in zip(vectors, places):
        full[place] = v._value.size
    grids = []
    for v, place in zip(vectors, places):
        column = [1] * ndim
        column[place] = v._value.size
        grids.append(_shape.broadcast_to(_shape.reshape(v, tuple(column)), tuple(full)))
    return grids
