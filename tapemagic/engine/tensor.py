"""Tensors and variables as ops meet them: conversion of every input to a tensor.

Conversion follows TensorFlow: Python floats become float32 and ints int32; NumPy
values keep their dtype; in an op with a tensor, other values take that tensor's
dtype; two tensors of different dtypes are never promoted. This module also
gathers the engine's tensor types under one name: :class:`Tensor`
(engine/eager_tensor.py), :class:`Variable` (engine/variable.py) and
:class:`TensorShape`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from .context import state
from .eager_tensor import (
    EagerTensor,
    Tensor,
    _notify_convert,
    contains_tensor,
    pack_tensors,
    tensor_of,
    to_array,
)
from .errors import InvalidArgumentError
from .tensor_shape import TensorShape
from .variable import ResourceVariable, Variable

__all__ = [
    "EagerTensor",
    "ResourceVariable",
    "Tensor",
    "TensorShape",
    "Variable",
    "array_of",
    "convert_inputs",
    "convert_to_tensor",
    "id_of",
    "is_tensor",
    "tensor_of",
]


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a tapemagic Tensor or Variable."""
    return isinstance(value, (Tensor, Variable))


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: str | None = None) -> Tensor:  # fmt: skip
    """Turn ``value`` into a Tensor, keeping it on the tape when it already is one.

    A Tensor comes back as itself and a Variable as a (watched) read of it, so
    neither breaks a gradient path. Lists that hold tensors are stacked by a
    recorded op.

    Args:
        value: a Tensor, Variable, number, nested list, or NumPy array.
        dtype: the dtype the result must have.
        dtype_hint: the dtype to use when ``value`` does not already fix one.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A Tensor.

    Raises:
        TypeError: if ``value`` is not numeric or cannot take ``dtype``.
        ValueError: if a tensor's dtype differs from ``dtype``.

    Example:
        >>> convert_to_tensor([1, 2]).dtype, convert_to_tensor(1.5).dtype
        (tf.int32, tf.float32)
    """
    if isinstance(value, Tensor):
        if dtype is not None and value._value.dtype != dtypes.as_dtype(dtype)._np:
            to_array(value, dtype)  # raises the conversion error
        return value
    if isinstance(value, Variable):
        if dtype is not None:
            to_array(value, dtype)
        return value._read()
    if contains_tensor(value):
        return convert_to_tensor(pack_tensors(value), dtype)
    array = None
    if dtype is None and dtype_hint is not None:
        try:
            array = to_array(value, dtype_hint)
        except TypeError:
            array = None  # the hint does not fit: use the default dtype instead
    t = tensor_of(to_array(value, dtype) if array is None else array)
    if state.observers:
        _notify_convert(value, t, "constant")
    return t


# The concrete classes: the fast paths below test `type(x) is ...` against them.
_TENSORS = (EagerTensor, ResourceVariable)


def convert_inputs(args: tuple) -> tuple[Tensor, ...]:
    """Convert an op's tensor inputs to one common dtype, the TensorFlow way.

    The dtype of the first Tensor or Variable wins; numbers, lists and NumPy arrays
    are converted to it. Tensors of different dtypes are an error, never promoted.
    """
    # The common case, tensors of one dtype, needs no conversion at all.
    first = args[0] if args else None
    if type(first) is EagerTensor:
        dtype = first._value.dtype
        for arg in args:
            if type(arg) is not EagerTensor or arg._value.dtype != dtype:
                break
        else:
            return args
    if len(args) == 2 and not state.observers:
        # A tensor and a Python number (lr * g, 1 - out): the number's cached
        # tensor in the tensor's dtype.
        x, y = args
        if type(y) is EagerTensor and (type(x) is float or type(x) is int):
            return (_python_scalar(x, y._value.dtype), y)
        if type(x) is EagerTensor and (type(y) is float or type(y) is int):
            return (x, _python_scalar(y, x._value.dtype))
    if len(args) == 2 and type(args[0]) in _TENSORS and type(args[1]) in _TENSORS:
        # Tensors and variables (h @ w, h + b): read the variables, no more.
        x, y = args
        if type(x) is ResourceVariable:
            x = x._read()
        if type(y) is ResourceVariable:
            y = y._read()
        if x._value.dtype != y._value.dtype:
            raise _dtype_mismatch(1, y._value.dtype, x._value.dtype, args)
        return (x, y)
    dtype = None
    for arg in args:
        if isinstance(arg, (Tensor, Variable)):
            dtype = arg._value.dtype
            break
    out = []
    for i, arg in enumerate(args):
        cls = type(arg)
        if cls is EagerTensor:
            t = arg
        elif cls is ResourceVariable or isinstance(arg, Variable):
            t = arg._read()
        elif isinstance(arg, Tensor):
            t = arg
        elif dtype is not None and (cls is float or cls is int) and not state.observers:
            t = _python_scalar(arg, dtype)
        else:
            if dtype is None:
                array = to_array(arg)
                dtype = array.dtype
            else:
                array = to_array(arg, dtypes.from_numpy(dtype), what=f"input #{i}")
            t = tensor_of(array)
            if state.observers:
                _notify_convert(arg, t, "input")
        if t._value.dtype != dtype:
            raise _dtype_mismatch(i, t._value.dtype, dtype, args)
        out.append(t)
    return tuple(out)


# Python numbers in ops (``1 - x``, ``g * 0.5``) recur constantly, in VJPs above
# all; tensors are immutable, so one tensor per (type, number, dtype) serves them
# all. Not used while an explanation log listens: it wants each conversion's line.
_SCALARS: dict[tuple, Tensor] = {}


def _python_scalar(value: float | int, dtype: np.dtype) -> Tensor:
    key = (type(value), value, dtype)
    t = _SCALARS.get(key)
    if t is None:
        t = tensor_of(to_array(value, dtypes.from_numpy(dtype), what="a Python number"))
        # -0.0 equals 0.0 and NaN equals nothing: neither can share a cache slot.
        if len(_SCALARS) < 4096 and value and value == value:
            _SCALARS[key] = t
    return t


def _dtype_mismatch(i: int, got: np.dtype, want: np.dtype, args: tuple) -> Exception:
    got_name = dtypes.from_numpy(got).name if got in dtypes._BY_NP else str(got)
    want_name = dtypes.from_numpy(want).name
    return InvalidArgumentError(
        f"Input #{i} has dtype {got_name} but the op's other inputs are {want_name}; "
        "TensorFlow never converts between tensor dtypes implicitly. Cast one of "
        f"them, e.g. tf.cast(x, tf.{want_name})."
    )


def array_of(x: Tensor | Variable) -> np.ndarray:
    """The NumPy array behind a tensor, or a variable's current value.

    For tapemagic's own layers (keras, the graph log): no copy is made and no
    observer hears of it, unlike ``x.numpy()``, which a tape's explanation log
    notes as the value leaving the engine. Treat the array as read-only.

    Example:
        >>> array_of(Tensor(np.array([1.0, 2.0])))
        array([1., 2.])
    """
    return x._value


def id_of(x: Tensor | Variable) -> int:
    """The engine's id of a tensor or variable: unique, in creation order.

    Example:
        >>> a, b = Tensor(np.zeros(2)), Tensor(np.zeros(2))
        >>> id_of(a) < id_of(b)
        True
    """
    return x._id
