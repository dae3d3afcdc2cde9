"""Helpers that VJPs share: batch axes and undoing broadcasting."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = ["nb", "normalize_axes", "unbroadcast", "unbroadcast_array"]


def nb(g: Tensor, out: Tensor) -> int:
    """How many leading batch axes the cotangent ``g`` carries beyond ``out``."""
    return g._value.ndim - out._value.ndim


def _summed_axes(gshape: tuple, shape: tuple, nbatch: int) -> tuple[list, list]:
    """The axes of ``g`` that broadcasting to ``batch + shape`` added or stretched."""
    lead = len(gshape) - nbatch - len(shape)
    prepended = list(range(nbatch, nbatch + lead))
    stretched = [
        nbatch + lead + i
        for i, d in enumerate(shape)
        if d == 1 and gshape[nbatch + lead + i] != 1
    ]
    return prepended, stretched


def unbroadcast(g: Tensor, shape: tuple, nbatch: int) -> Tensor:
    """Sum ``g`` down to ``batch + shape``, undoing NumPy broadcasting.

    The first ``nbatch`` axes of ``g`` are batch axes and are kept. Axes that
    broadcasting prepended are summed away; axes it stretched from 1 are summed
    with keepdims. Written with engine ops, so outer tapes record it.
    """
    gshape = g._value.shape
    if gshape[nbatch:] == shape:
        return g
    from .reduce import reduce_sum
    from .shape import reshape

    prepended, stretched = _summed_axes(gshape, shape, nbatch)
    if not stretched:  # only prepended axes (a bias): one sum gives the shape
        return reduce_sum(g, axis=tuple(prepended))
    summed = reduce_sum(g, axis=tuple(prepended + stretched), keepdims=True)
    return reshape(summed, gshape[:nbatch] + tuple(shape))


def unbroadcast_array(g: np.ndarray, shape: tuple, nbatch: int) -> np.ndarray:
    """:func:`unbroadcast` on NumPy arrays, for the ``raw_vjp`` rules."""
    gshape = g.shape
    if gshape[nbatch:] == shape:
        return g
    prepended, stretched = _summed_axes(gshape, shape, nbatch)
    if not stretched:
        return np.add.reduce(g, axis=tuple(prepended))
    summed = np.add.reduce(g, axis=tuple(prepended + stretched), keepdims=True)
    return summed.reshape(gshape[:nbatch] + tuple(shape))


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int, a sequence or an int tensor) as sorted non-negative ints.

    Raises:
        ValueError: if an axis is out of range for ``ndim`` dimensions.
    """
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        axis = axis._value.tolist()
    items = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]
    out = []
    for a in items:
        if not -ndim <= a < ndim:
            raise ValueError(
                f"axis {a} is out of range for a tensor of rank {ndim}; use an axis "
                f"in [{-ndim}, {ndim})."
            )
        out.append(a % ndim)
    return tuple(sorted(set(out)))
