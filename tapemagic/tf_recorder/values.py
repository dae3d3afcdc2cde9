"""TensorFlow's tensors and variables as recorder events see them.

An eager tensor's id is TensorFlow's own (``tensor._id``: one counter for
every tensor, so ids increase in creation order); a variable's id is the id of
its resource handle, made when the variable was, and every read of it shares
that id, as in tapemagic's engine. Ops read a variable through its handle, so
the recorder maps handles back to variables: those it saw created, those found
in the user's namespace (Keras models and layers included), those given to a
tape, and, for any other, the object that holds the handle.

A Keras variable (Keras 3) is described as the ``tf.Variable`` it wraps, whose
name is the Keras path (``sequential/dense/kernel:0``).
"""

from __future__ import annotations

import gc
import sys
import weakref
from typing import Any

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.framework import ops
from tensorflow.python.ops import gen_resource_variable_ops
from tensorflow.python.ops.resource_variable_ops import BaseResourceVariable

from ..engine.events import ValueRef
from .state import STATE

__all__ = [
    "EagerTensor",
    "NamedVariable",
    "array_of",
    "as_variable",
    "describe",
    "flatten",
    "is_value",
    "note_namespace",
    "register_variable",
    "value_now",
    "variable_id",
    "variable_of",
]

EagerTensor = ops.EagerTensor
RESOURCE = tf.resource.as_datatype_enum

_new = tuple.__new__

# Handle id -> the variable, for every variable the recorder has met.
_VARIABLES: weakref.WeakValueDictionary[int, BaseResourceVariable] = (
    weakref.WeakValueDictionary()
)
# Handle ids no object was found for (so the heap is searched once each).
_ORPHANS: set[int] = set()
# Handle id -> the Keras path of the Keras variable that wraps the variable.
_PATHS: dict[int, str] = {}


class NamedVariable:
    """A ``tf.Variable`` as events show it: named by its Keras path when a
    Keras variable wraps it (``sequential/dense/kernel:0``; the ``tf.Variable``
    of a layer built inside a model's call is named ``net/kernel:0``), else by
    its own name. The path is looked up when the name is read, so a layer
    built while recording is named once Keras gave it its path.

    Attributes:
        variable: the ``tf.Variable``.
    """

    __slots__ = ("variable",)

    def __init__(self, variable: BaseResourceVariable) -> None:
        self.variable = variable

    @property
    def name(self) -> str:
        path = _PATHS.get(self.variable.handle._id)
        return self.variable.name if path is None else f"{path}:0"

    @property
    def path(self) -> str | None:
        """The Keras path of the Keras variable that wraps it, or None."""
        return _PATHS.get(self.variable.handle._id)

    @property
    def trainable(self) -> bool:
        return self.variable.trainable

    def __repr__(self) -> str:
        return f"<variable {self.name!r}>"


def array_of(t: Any) -> np.ndarray | None:
    """An eager tensor's value as a read-only NumPy array (no copy on CPU);
    None for values NumPy cannot hold (resource handles, variants)."""
    try:
        value = t._numpy_internal()
    except Exception:  # resource handles and variants have no NumPy value
        return None
    if type(value) is np.ndarray:
        value.flags.writeable = False
        return value
    return np.asarray(value)


def as_variable(obj: Any) -> BaseResourceVariable | None:
    """The ``tf.Variable`` behind ``obj`` (itself, a Keras variable's, a
    :class:`NamedVariable`'s), or None."""
    if isinstance(obj, BaseResourceVariable):
        return obj
    if isinstance(obj, NamedVariable):
        return obj.variable
    inner = getattr(obj, "_value", None)
    if isinstance(inner, BaseResourceVariable) and _is_keras_variable(obj):
        return inner
    return None


def _is_keras_variable(obj: Any) -> bool:
    return type(obj).__module__.startswith("keras.") and hasattr(obj, "path")


def is_value(obj: Any) -> bool:
    """Whether ``obj`` is an eager tensor or a variable (Keras variables too)."""
    return isinstance(obj, EagerTensor) or as_variable(obj) is not None


def variable_id(var: BaseResourceVariable) -> int:
    """A variable's id in events: its handle's."""
    return var.handle._id


def register_variable(var: Any) -> None:
    """Let the recorder name reads of ``var`` (a variable or Keras variable)."""
    inner = as_variable(var)
    if inner is not None:
        key = inner.handle._id
        _VARIABLES[key] = inner
        if _is_keras_variable(var):
            _PATHS[key] = var.path


def variable_of(handle: Any) -> BaseResourceVariable | None:
    """The variable a resource handle belongs to, or None (a lookup table...)."""
    key = handle._id
    var = _VARIABLES.get(key)
    if var is not None or key in _ORPHANS:
        return var
    var = _holder_of(handle)
    if var is None:
        _ORPHANS.add(key)
    else:
        _VARIABLES[key] = var
    return var


def _holder_of(handle: Any) -> BaseResourceVariable | None:
    # A variable holds its handle as an attribute: in its own inline values, or
    # in its __dict__ once that exists. A heap search, done once per variable
    # the recorder never met otherwise.
    for holder in gc.get_referrers(handle):
        if isinstance(holder, BaseResourceVariable) and holder.handle is handle:
            return holder
        if isinstance(holder, dict) and holder.get("_handle") is handle:
            for var in gc.get_referrers(holder):
                if isinstance(var, BaseResourceVariable) and var.handle is handle:
                    return var
    return None


def value_now(var: BaseResourceVariable) -> np.ndarray:
    """A variable's value now, read without any tape or listener noticing."""
    STATE.quiet += 1
    try:
        with record.stop_recording():
            t = gen_resource_variable_ops.read_variable_op(var.handle, var.dtype)
    finally:
        STATE.quiet -= 1
    return array_of(t)


def describe(obj: Any) -> ValueRef | None:
    """A tensor or variable as a :class:`ValueRef`; None for anything else.

    A tensor read from a variable is described as that variable's read (its
    id); a variable with its value now. No listener hears of it.
    """
    if isinstance(obj, EagerTensor):
        if obj._datatype_enum() == RESOURCE:
            return None
        key = obj._id
        value = array_of(obj)
        if value is None:
            return None
        return _new(ValueRef, (STATE.alias.get(key, key), value.shape, value.dtype,
                               value, None))  # fmt: skip
    var = as_variable(obj)
    if var is None:
        return None
    register_variable(obj)
    value = value_now(var)
    return _new(
        ValueRef, (var.handle._id, value.shape, value.dtype, value, NamedVariable(var))
    )


def flatten(structure: Any) -> list:
    """The leaves of a nested structure in ``tf.nest`` order (a gradient's)."""
    return tf.nest.flatten(structure)


def note_namespace(namespace: dict) -> None:
    """Register the variables a namespace holds: bound directly, in lists,
    tuples or dicts of them, or in Keras layers, models and optimizers and
    ``tf.Module`` objects (their ``variables``)."""
    for value in list(namespace.values()):
        for item in _shallow(value):
            _register_held(item)


def _shallow(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    return [value]


def _register_held(obj: Any) -> None:
    if isinstance(obj, (str, bytes, int, float, type, np.ndarray, EagerTensor)):
        return
    if as_variable(obj) is not None:
        register_variable(obj)
        return
    module = type(obj).__module__
    if not module.startswith(("keras.", "tensorflow.")):
        return
    try:
        held = getattr(obj, "variables", None)
        items = [] if held is None or callable(held) else list(held)
    except Exception:  # an object whose variables cannot be listed (unbuilt...)
        return
    for item in items:
        register_variable(item)


def _keras_variable_classes() -> tuple[type, ...]:
    """Keras 3's variable classes, when Keras is loaded (never imported here)."""
    classes = []
    for module, name in (
        ("keras.src.backend.common.variables", "Variable"),
        ("keras.src.backend.tensorflow.core", "Variable"),
    ):
        loaded = sys.modules.get(module)
        cls = getattr(loaded, name, None) if loaded is not None else None
        if isinstance(cls, type):
            classes.append(cls)
    return tuple(classes)
