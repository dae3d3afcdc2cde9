"""``linspace``, composed of the engine ops in ``shape`` and ``math`` as in
TensorFlow, so gradients reach ``start`` and ``stop``. It needs no VJP of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..tensor import Tensor, Variable, convert_to_tensor
from . import math as _math
from . import shape as _shape

__all__ = ["linspace"]


@tf_export("tf")
def linspace(
    start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0
) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop``, both included.

    Follows TensorFlow's ``linspace``: the dtype is ``start``'s (float32 for Python
    floats; integer starts give float64), ``start`` and ``stop`` may be tensors that
    broadcast, the values run along ``axis``, and the result is built from engine
    ops, so gradients reach ``start`` and ``stop``.

    Args:
        start: first value(s).
        stop: last value(s); converted to ``start``'s dtype.
        num: how many values (an int >= 0).
        name: ignored.
        axis: where the new axis of length ``num`` goes.

    Returns:
        A Tensor.

    Raises:
        TypeError: if ``num`` is not an integer.
        InvalidArgumentError: if ``num`` is negative.

    Example:
        >>> linspace(10.0, 12.0, 3).numpy()
        array([10., 11., 12.], dtype=float32)
    """
    count = _count(num)
    first = convert_to_tensor(start)
    last = convert_to_tensor(stop, dtype=dtypes.from_numpy(first._value.dtype))
    shape = np.broadcast_shapes(first._value.shape, last._value.shape)
    ndim = len(shape) + 1
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"linspace: axis {axis} is out of range for a result of rank {ndim}; use "
            f"an axis in [{-ndim}, {ndim}).",
            op="linspace",
        )
    axis %= ndim
    first = _shape.expand_dims(_shape.broadcast_to(first, shape), axis)
    last = _shape.expand_dims(_shape.broadcast_to(last, shape), axis)
    steps = max(count - 1, 1)
    # As TensorFlow: start + delta * k for the inner points, then the exact
    # endpoints are concatenated and the first `num` values kept.
    delta = _math.truediv(
        _math.subtract(last, first), np.asarray(steps, first._value.dtype)
    )
    target = dtypes.from_numpy(delta._value.dtype)
    first, last = _math.cast(first, target), _math.cast(last, target)
    k_shape = [1] * ndim
    k_shape[axis] = max(count - 2, 0)
    k = np.arange(1, steps, dtype=np.int64).astype(delta._value.dtype)
    inner = _math.add(first, _math.multiply(delta, k.reshape(k_shape)))
    values = _shape.concat([first, inner, last], axis=axis)
    key = (slice(None),) * axis + (slice(0, count),)
    return _shape.getitem(values, key)


def _count(num: Any) -> int:
    value = num._value if isinstance(num, (Tensor, Variable)) else np.asarray(num)
    if value.dtype.kind not in "iu" or value.ndim != 0:
        raise TypeError(
            f"linspace: num must be a scalar integer, got {num!r}. Pass e.g. num=5."
        )
    count = int(value)
    if count < 0:
        raise InvalidArgumentError(
            f"linspace: num must be >= 0, got {count}.", op="linspace"
        )
    return count
