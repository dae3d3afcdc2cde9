"""Argument checks the op modules share (the VJPs' helpers are in namespace.py)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor, convert_to_tensor

__all__ = ["float_tensor", "normalize_axes"]


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


def float_tensor(value: Any, op_name: str) -> Tensor:
    """``value`` as a tensor, which must be floating point.

    Raises:
        TypeError: for any other dtype, naming the op and the cast to use.
    """
    x = convert_to_tensor(value)
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name}. Cast it "
            "first: tf.cast(x, tf.float32)."
        )
    return x
