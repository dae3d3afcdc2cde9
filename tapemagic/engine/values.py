"""Python and NumPy values as NumPy arrays, by TensorFlow's conversion rules.

Python floats become float32 and ints int32 (int64 beyond its range); NumPy
values keep their dtype (NumPy-only dtypes take the nearest TensorFlow one);
lists take the dtype of their elements. A Python value converts to another
dtype only without loss (1 may become 1.0, but 1.5 never becomes an int); a
NumPy value converts to any dtype, as NumPy's ``astype`` casts it (an int
tensor times ``np.float64(2.5)`` multiplies by 2), as in TensorFlow. Tensors are
not values here: engine/eager_tensor.py reads their arrays.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import dtypes
from .dtypes import DType

__all__ = ["cast_value", "default_array", "short"]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def default_array(value: Any) -> np.ndarray:
    """A Python or NumPy value as an array with TensorFlow's default dtype.

    Raises:
        TypeError: for values that are not numbers, booleans or lists of them.
        ValueError: for a ragged list.

    Example:
        >>> default_array(1.5).dtype, default_array([1, 2]).dtype
        (dtype('float32'), dtype('int32'))
    """
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind not in "biufc":
            raise TypeError(
                f"Cannot convert a NumPy array of dtype {array.dtype} to a tensor; "
                "use numbers or booleans."
            )
        if array.dtype not in dtypes._BY_NP:
            array = array.astype(_wider(array.dtype))
        return array
    if isinstance(value, bool):
        return np.asarray(value)
    if isinstance(value, int):
        if _INT32_MIN <= value <= _INT32_MAX:
            return np.asarray(value, np.int32)
        if not -(2**63) <= value < 2**63:
            raise TypeError(
                f"Cannot convert {short(value)} to EagerTensor of dtype int64: it is "
                "out of its range. Use a float, e.g. float(value), or a smaller value."
            )
        return np.asarray(value, np.int64)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    if isinstance(value, complex):
        return np.asarray(value, np.complex128)
    if isinstance(value, (list, tuple)):
        try:
            array = np.asarray(value)
        except ValueError as err:
            raise ValueError(
                f"Cannot convert a ragged list to a tensor: {err}. Every row must "
                "have the same length."
            ) from None
        kind = array.dtype.kind
        if kind == "f":
            return array.astype(np.float32)
        if kind in "iu":
            if array.size and (array.min() < _INT32_MIN or array.max() > _INT32_MAX):
                return array.astype(np.int64)
            return array.astype(np.int32)
        if kind in "bc":
            return array
        raise TypeError(
            f"Cannot convert {short(value)} to a tensor: its elements are "
            f"{array.dtype} values, not numbers."
        )
    if isinstance(value, numbers.Number):
        return np.asarray(value)
    raise TypeError(
        f"Cannot convert {short(value)} of type {type(value).__name__} to a tensor. "
        "Pass a number, a list of numbers, a NumPy array or a tensor."
    )


def _wider(np_dtype: np.dtype) -> np.dtype:
    # uint16/32/64 and other NumPy-only kinds map to the nearest TF dtype.
    if np_dtype.kind == "u":
        return np.dtype(np.int64)
    if np_dtype.kind == "f":
        return np.dtype(np.float64)
    return np_dtype


def short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def cast_value(value: Any, array: np.ndarray, dtype: DType, what: str) -> np.ndarray:
    """``array`` (``default_array(value)``) in ``dtype``.

    A NumPy value is cast as NumPy casts it; a Python value only if no value
    is lost.

    Raises:
        TypeError: if a Python value would lose values (a float to an int, an
            int to a bool, a complex to a real) or overflow.

    Example:
        >>> cast_value(1, default_array(1), dtypes.float64, "x").dtype
        dtype('float64')
        >>> cast_value(np.float64(2.5), np.asarray(2.5), dtypes.int32, "x")
        array(2, dtype=int32)
    """
    target = dtype._np
    if array.dtype == target:
        return array
    if isinstance(value, (np.ndarray, np.generic)):
        return array.astype(target)
    src, dst = array.dtype.kind, target.kind
    lossy = (src == "f" and dst in "iub") or (src == "c" and dst != "c")
    if lossy or (src in "iu" and dst == "b"):
        raise TypeError(
            f"Cannot convert {short(value)} to EagerTensor of dtype {dtype.name}: "
            f"{what} would lose its {array.dtype} values. Use a tf.{dtype.name} value "
            f"or cast explicitly with tf.cast."
        )
    # Python numbers convert straight to the target dtype: 0.1 as float64 must
    # not pass through float32 on the way.
    try:
        return np.asarray(value, dtype=target)
    except OverflowError:
        raise TypeError(
            f"Cannot convert {short(value)} to EagerTensor of dtype "
            f"{dtype.name}: {what} is out of its range. Use a wider dtype, e.g. "
            f"tf.cast(x, tf.int64), or a smaller value."
        ) from None
