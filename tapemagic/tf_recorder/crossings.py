"""Values crossing into TensorFlow and out of it: conversions and escapes.

:func:`constant_eager_impl` stands in for TensorFlow's
``constant_op._constant_eager_impl``, which ``tf.constant``,
``tf.convert_to_tensor`` and every conversion of a Python or NumPy argument go
through: a :class:`ConvertEvent`, "constant" when the user asked for a constant,
"input" when an op converted its argument. ``tf.constant`` of a variable copies
it: an :class:`EscapeEvent` first. :func:`escaping` wraps ``.numpy()``,
``__array__`` (NumPy functions, ``np.asarray``), ``float()`` and ``int()`` of
tensors and variables: an :class:`EscapeEvent` with what the user got, unless
TensorFlow's or Keras's own code asked.

Known limit: NumPy reads an eager *tensor* (not a variable) through the buffer
protocol, which runs no Python code, so ``np.asarray(tensor)`` and NumPy
functions on a tensor are not seen as escapes; ``.numpy()`` and ``float()``
are.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from tensorflow.python.framework import constant_op
from tensorflow.python.ops.resource_variable_ops import BaseResourceVariable

from ..engine.events import ConvertEvent, EscapeEvent, ValueRef
from .state import STATE
from .values import (
    EagerTensor,
    NamedVariable,
    array_of,
    as_variable,
    register_variable,
    value_now,
)

__all__ = ["constant_eager_impl", "escaping"]

_new = tuple.__new__

# Frames of functions that only wrap the API function a user called.
_WRAPPERS = frozenset({"error_handler", "op_dispatch_handler", "wrapper", "wrapped"})
# The API functions that make a constant on purpose.
_EXPLICIT = frozenset(
    {
        "constant",
        "constant_v1",
        "convert_to_tensor_v2_with_dispatch",
        "convert_to_tensor_v1_with_dispatch",
        "convert_to_tensor_v2",
    }  # fmt: skip
)
_LIBRARIES = ("tensorflow.", "keras.", "tapemagic.")

# -- values made into tensors, and values leaving ------------------------------------

_original_constant = constant_op._constant_eager_impl


def constant_eager_impl(ctx: Any, value: Any, dtype: Any, shape: Any,
                         verify_shape: Any) -> Any:  # fmt: skip
    """``tf.constant`` and every conversion of a Python or NumPy value."""
    state = STATE
    if state.quiet or state.escaping or state.requests or not state.listeners:
        # (a gradient request's constants are TensorFlow's, not the user's)
        return _original_constant(ctx, value, dtype, shape, verify_shape)
    if isinstance(value, EagerTensor):  # tf.constant(tensor) is the tensor
        return _original_constant(ctx, value, dtype, shape, verify_shape)
    how = _conversion_kind(sys._getframe(1))
    var = as_variable(value)
    if var is not None:
        ref = _variable_ref(var)
        event = EscapeEvent(ref, "constant", None)
        for listener in state.listeners:
            listener.on_escape(event)
    state.escaping += 1
    try:
        t = _original_constant(ctx, value, dtype, shape, verify_shape)
    finally:
        state.escaping -= 1
    key = t._id
    state.known.add(key)
    array = array_of(t)
    if array is None:
        return t
    state.made[key] = type(value).__name__
    if how == "constant" and type(value) is float and array.ndim == 0:
        state.floats[(array.dtype, array.item())] = value
    event = ConvertEvent(value, how, _new(ValueRef, (key, array.shape, array.dtype,
                                                    array, None)))  # fmt: skip
    for listener in state.listeners:
        listener.on_convert(event)
    return t


def _conversion_kind(frame: Any) -> str:
    """``"constant"`` when the user called tf.constant or tf.convert_to_tensor,
    ``"input"`` when an op converted its argument."""
    called = []
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
        "tensorflow."
    ):
        called.append(frame.f_code.co_name)
        frame = frame.f_back
    for name in reversed(called):
        if name not in _WRAPPERS:
            return "constant" if name in _EXPLICIT else "input"
    return "input"


def _variable_ref(var: BaseResourceVariable) -> ValueRef:
    value = value_now(var)
    named = NamedVariable(var)
    return _new(ValueRef, (var.handle._id, value.shape, value.dtype, value, named))


def escaping(original: Callable, how: str) -> Callable:
    """A method that tells the listeners of the value it hands out."""

    def escape(self: Any, *args: Any, **kwargs: Any) -> Any:
        state = STATE
        if (
            state.quiet
            or state.escaping
            or not state.listeners
            or sys._getframe(1).f_globals.get("__name__", "").startswith(_LIBRARIES)
        ):
            return original(self, *args, **kwargs)
        state.escaping += 1
        try:
            result = original(self, *args, **kwargs)
        finally:
            state.escaping -= 1
        ref = _escape_ref(state, self)
        if ref is not None:
            event = EscapeEvent(ref, how, result)
            for listener in state.listeners:
                listener.on_escape(event)
        return result

    escape.__name__ = getattr(original, "__name__", how)
    escape.__doc__ = getattr(original, "__doc__", None)
    escape.__wrapped__ = original
    return escape


def _escape_ref(state: Any, obj: Any) -> ValueRef | None:
    if isinstance(obj, EagerTensor):
        value = array_of(obj)
        if value is None:
            return None
        key = obj._id
        return _new(ValueRef, (state.alias.get(key, key), value.shape, value.dtype,
                               value, None))  # fmt: skip
    var = as_variable(obj)
    if var is None:
        return None
    register_variable(obj)
    return _variable_ref(var)
