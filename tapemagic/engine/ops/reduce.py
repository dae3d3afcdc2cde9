"""Reductions: sum, mean, max, min, prod, logsumexp, argmax, argmin.

The VJP of a reduction reshapes ``g`` back to the input's rank (size-1 axes where
it reduced) and broadcasts. Axes are counted from the end so that cotangents with
leading batch axes need no special case.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..op import apply, defop
from ..tensor import Tensor, convert_to_tensor
from ._util import normalize_axes

__all__ = ["reduce_sum"]


def _expand_reduced(g: Tensor, x: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """``g`` (batch + reduced shape) as batch + ``x.shape``, broadcast along ``axes``."""
    from .shape import broadcast_to, reshape

    shape = x._value.shape
    batch = g._value.shape[: g._value.ndim - (len(shape) if keepdims else len(shape) - len(axes))]
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return broadcast_to(reshape(g, batch + kept), batch + shape)


def _sum_vjp(g, out, x, *, axes, keepdims):
    return (_expand_reduced(g, x, axes, keepdims),)


_reduce_sum = defop(
    "reduce_sum",
    # dtype=x.dtype: NumPy would widen int32 sums to int64; TensorFlow does not.
    lambda x, *, axes, keepdims: np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype),
    _sum_vjp,
)


def reduce_sum(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Sum over ``axis`` (all axes by default).

    Example:
        >>> reduce_sum([[1.0, 2.0], [3.0, 4.0]], axis=0).numpy()
        array([4., 6.], dtype=float32)
    """
    x = convert_to_tensor(input_tensor)
    axes = normalize_axes(axis, x._value.ndim)
    return apply(_reduce_sum.op, (x,), {"axes": axes, "keepdims": bool(keepdims)})
