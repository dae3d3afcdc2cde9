"""Recorder events from TensorFlow's eager execution: who listens, and the hooks.

While a listener listens (:func:`listen`), TensorFlow itself tells the recorder
what runs, and the recorder tells its listeners in the records of
:mod:`tapemagic.engine.events`, as tapemagic's engine does: ops, reads and
assignments (:mod:`~tapemagic.tf_recorder.ops`), conversions and escapes
(:mod:`~tapemagic.tf_recorder.crossings`), tape events
(:mod:`~tapemagic.tf_recorder.tape`). The hooks are TensorFlow's own op
callback and variable creator scope, per thread, and a few methods and
functions replaced while anyone listens (:func:`install`) and put back when the
last listener leaves. Ids are TensorFlow's (``tensor._id``, a variable's
handle's), arrays are views of TensorFlow's buffers, read-only.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from tensorflow.python.framework import constant_op, op_callbacks
from tensorflow.python.framework import ops as tf_ops
from tensorflow.python.ops import variable_scope
from tensorflow.python.ops.resource_variable_ops import BaseResourceVariable

from .crossings import constant_eager_impl, escaping
from .ops import announce_variable, on_op, op_info, trainable_property
from .state import STATE
from .values import _keras_variable_classes, register_variable

__all__ = [
    "PATCHES",
    "detach",
    "install",
    "listen",
    "listening",
    "op_info",
    "uninstall",
    "unlisten",
]

# -- listening -------------------------------------------------------------------


def listening() -> tuple:
    """The listeners hearing TensorFlow in this thread now."""
    return tuple(STATE.listeners)


def listen(listener: Any) -> bool:
    """Let ``listener`` hear everything TensorFlow runs in this thread.

    The first listener of a thread starts the hooks (:func:`install`).

    Returns:
        Whether it was added (False if it already listened).
    """
    state = STATE
    listeners = state.listeners
    if any(item is listener for item in listeners):
        return False
    if not listeners:
        _start(state)
    listeners.append(listener)
    return True


def unlisten(listener: Any) -> None:
    """Undo :func:`listen`; the last listener leaving stops the hooks."""
    state = STATE
    listeners = state.listeners
    for i in range(len(listeners) - 1, -1, -1):
        if listeners[i] is listener:
            del listeners[i]
            if not listeners:
                _stop(state)
            return


def detach(listener: Any) -> None:
    """Stop ``listener`` hearing anything in this thread (an interrupt may have
    left it on)."""
    state = STATE
    had = bool(state.listeners)
    state.listeners[:] = [item for item in state.listeners if item is not listener]
    for request in state.requests:
        request.listeners[:] = [
            item for item in request.listeners if item is not listener
        ]
    if had and not state.listeners:
        _stop(state)


def _start(state: Any) -> None:
    install()
    state.mark = tf_ops.uid()
    op_callbacks.add_op_callback(on_op)
    scope = variable_scope.variable_creator_scope(_create_variable)
    scope.__enter__()
    state.scope = scope


def _stop(state: Any) -> None:
    scope, state.scope = state.scope, None
    try:
        if scope is not None:
            scope.__exit__(None, None, None)
    finally:
        with contextlib.suppress(KeyError):  # already gone (cleared elsewhere)
            op_callbacks.remove_op_callback(on_op)
        state.forget_session()
        uninstall()


def _create_variable(next_creator: Callable, **kwargs: Any) -> Any:
    # Making a variable runs ops (its handle, its first assign): not the cell's.
    state = STATE
    state.quiet += 1
    try:
        var = next_creator(**kwargs)
    finally:
        state.quiet -= 1
    register_variable(var)
    if state.listeners and not state.quiet and not state.escaping:
        announce_variable(state, var, kwargs.get("initial_value"))
    return var


# -- replaced functions and methods ----------------------------------------------

_lock = threading.Lock()
_installed = 0
_saved: list[tuple[Any, str, Any]] = []
# Extra replacements (the tape's), added by tapemagic.tf_recorder.tape.
PATCHES: list[tuple[Any, str, Any]] = []


def install() -> None:
    """Replace the functions and methods the recorder hears through (counted:
    each :func:`install` needs an :func:`uninstall`)."""
    global _installed
    with _lock:
        _installed += 1
        if _installed > 1:
            return
        for owner, name, replacement in _patches():
            _saved.append((owner, name, owner.__dict__.get(name, _MISSING)))
            setattr(owner, name, replacement)


def uninstall() -> None:
    """Undo one :func:`install`; the last one puts every original back."""
    global _installed
    with _lock:
        _installed -= 1
        if _installed > 0:
            return
        while _saved:
            owner, name, original = _saved.pop()
            if original is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


_MISSING = object()


def _patches() -> list[tuple[Any, str, Any]]:
    found = [
        (constant_op, "_constant_eager_impl", constant_eager_impl),
        (BaseResourceVariable, "_trainable", trainable_property()),
    ]
    owners = (tf_ops._EagerTensorBase, BaseResourceVariable, *_keras_variable_classes())
    for owner in owners:
        for name, how in (("numpy", "numpy"), ("__array__", "__array__"),
                          ("__float__", "float"), ("__int__", "int")):  # fmt: skip
            original = owner.__dict__.get(name)
            if original is not None:
                found.append((owner, name, escaping(original, how)))
    return found + PATCHES
