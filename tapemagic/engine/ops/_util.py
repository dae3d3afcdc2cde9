"""Argument checks the op modules share (the VJPs' helpers are in namespace.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..tensor import Tensor, Variable, convert_to_tensor

__all__ = [
    "check_axis",
    "float_tensor",
    "normalize_axes",
    "read_tensors",
    "require_float",
    "static_shape",
]


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


def read_tensors(*values: Any) -> tuple[Tensor, ...]:
    """The tensors among ``values`` (variables read as tensors), for ``apply``'s
    ``reads``: parameters such as a shape given as a tensor, which listeners
    hear as inputs without a gradient.

    Example:
        >>> t = convert_to_tensor([2, 3])
        >>> read_tensors([2, 3], t) == (t,)
        True
    """
    return tuple(
        [
            v if isinstance(v, Tensor) else convert_to_tensor(v)
            for v in values
            if isinstance(v, (Tensor, Variable))
        ]
    )


def static_shape(shape: Any) -> tuple[int, ...]:
    """A shape given as an int, a sequence or an int tensor, as a tuple of ints."""
    if isinstance(shape, (Tensor, Variable)):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def check_axis(axis: Any, ndim: int, op_name: str) -> int:
    """``axis`` as a non-negative int.

    Raises:
        InvalidArgumentError: if it is out of range, naming the range.
    """
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{op_name}: axis {axis} is out of range for a tensor of rank {ndim}; use "
            f"an axis in [{-ndim}, {ndim}).",
            op=op_name,
        )
    return axis % ndim


def require_float(x: Tensor, op_name: str) -> None:
    if x._value.dtype.kind not in "fc":
        raise TypeError(
            f"{op_name}: input must be either real or complex. Received "
            f"{x.dtype.name} input; cast it first: tf.cast(x, tf.float32)."
        )
