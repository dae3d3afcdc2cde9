"""Ops, variable reads and assignments, as TensorFlow runs them.

:func:`on_op` is the op callback the recorder gives TensorFlow
(``op_callbacks.add_op_callback``, as ``tf.debugging`` uses): one call per op,
eager or traced. Each eager op becomes an :class:`OpEvent` under the name users
write (:mod:`~tapemagic.tf_recorder.opnames`), with the tapes that recorded it;
a ``tf.function`` call is one op named after the function (the ops traced
inside it are not heard). ``ReadVariableOp`` becomes a :class:`ReadEvent` (the
read shares the variable's id), ``AssignVariableOp`` and its add and sub forms
an :class:`AssignEvent`; a variable made while listening a :class:`VariableEvent`
(:func:`announce_variable`, from the recorder's variable creator scope).
``Where`` run by ``tf.boolean_mask`` is marked ``flat``, as the engine's
``where_indices`` there. An op TensorFlow hands a variable to reads it in C,
with no op of its own: the variable is asked whether it is trainable just
before (:func:`trainable_property` hears that), and the read is recognised by
its value. An input TensorFlow converted from Python in C is announced as a
:class:`ConvertEvent` just before the op that uses it.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import numpy as np
from tensorflow.python import pywrap_tfe
from tensorflow.python.eager import context
from tensorflow.python.framework import ops as tf_ops

from ..engine.events import (
    AssignEvent,
    ConvertEvent,
    OpEvent,
    OpInfo,
    ReadEvent,
    ValueRef,
    VariableEvent,
)
from . import opnames
from .state import STATE
from .values import (
    RESOURCE,
    EagerTensor,
    NamedVariable,
    array_of,
    as_variable,
    value_now,
    variable_of,
)

__all__ = ["announce_variable", "on_op", "op_info", "trainable_property"]

_new = tuple.__new__

_READ = "ReadVariableOp"
_ASSIGNS = {
    "AssignVariableOp": "assign",
    "AssignAddVariableOp": "assign_add",
    "AssignSubVariableOp": "assign_sub",
}
_WHERE = "Where"
# tf.boolean_mask's own functions, which run Where on the mask.
_MASKING = frozenset({"_apply_mask_1d", "boolean_mask", "boolean_mask_v2"})
_ARRAY_OPS = "tensorflow.python.ops.array_ops"
_IGNORED = frozenset(
    {"VarHandleOp", "VarIsInitializedOp", "DestroyResourceOp", "DisableCopyOnRead"}
)
# Attributes that only carry a dtype or an executor's settings.
_HIDDEN_ATTRS = frozenset(
    {"executor_type", "config_proto", "dtype", "out_type", "output_type", "Truncate"}
)
_INFOS: dict[str, OpInfo] = {}


def op_info(op_type: str) -> OpInfo:
    """The :class:`OpInfo` of a TensorFlow op type, built once per type.

    Example:
        >>> op_info("MatMul").name, op_info("ArgMax").differentiable
        ('matmul', False)
    """
    info = _INFOS.get(op_type)
    if info is None:
        registered = opnames.function_name(op_type) is not None
        if not registered:
            try:
                registered = tf_ops._gradient_registry.lookup(op_type) is not None
            except LookupError:
                registered = False
        info = _INFOS[op_type] = opnames.op_info(op_type, registered)
    return info


# -- ops -------------------------------------------------------------------------


def on_op(op_type: Any, inputs: tuple, attrs: tuple, outputs: tuple,
           op_name: Any = None, graph: Any = None) -> None:  # fmt: skip
    """TensorFlow's op callback: one call per op run, eagerly or traced."""
    if graph is None and not STATE.quiet and STATE.listeners:
        _op(op_type, inputs, attrs, outputs)
    return None


def _op(op_type: Any, inputs: tuple, attrs: tuple, outputs: tuple) -> None:
    # Listeners are called from here, two frames below TensorFlow's call: the
    # explanation log finds the op's line from there.
    state = STATE
    kind = _KINDS.get(op_type)
    if kind is None:
        kind = _kind(op_type)
    op_type, info, static, called = kind
    if info is None:  # a read, an assignment, or an op on a handle only
        if op_type == _READ:
            state.accessed = []
            _read(state, inputs[0], outputs[0])
        elif op_type in _ASSIGNS:
            _assign(state, inputs)
        return
    if state.escaping:
        return
    alias, known, plumbing, mark = state.alias, state.known, state.plumbing, state.mark
    # Variables TensorFlow read in C for this op (it passed them as inputs).
    accessed = state.accessed
    if accessed:
        state.accessed = []
    params = _params(attrs)
    shared = True  # params is _params' own until copied
    if op_type == _WHERE:
        params, shared = {"flat": _in_boolean_mask(sys._getframe(2))}, False
    input_ids: list[int] = []
    input_values: list[Any] = []
    i = -1
    for t in inputs:
        i += 1
        key = t._id
        value = array_of(t)
        if value is None:
            if t._datatype_enum() == RESOURCE:  # a variable the op reads itself
                var = variable_of(t)
                if var is not None:
                    value = value_now(var)
                    _announce_read(state, var, key, value)
                    input_ids.append(key)
                    input_values.append(value)
            continue
        key = alias.get(key, key)
        fresh = key > mark and key not in known
        if (
            (static is not None or key in plumbing)
            and value.dtype.kind in "iub"
            and (key in plumbing or fresh or key in state.made)
        ):
            # An axis, a shape: a parameter, as in tapemagic's engine.
            name = _static_name(static, i, len(inputs))
            if name is not None or key in plumbing:
                if shared:
                    params, shared = dict(params), False
                params[name or f"input{i}"] = _param_value(value)
                continue
        if fresh:
            var = _read_in_c(accessed, value) if accessed else None
            if var is not None:
                state.remember_read(key, var.handle._id)
                key = var.handle._id
                _announce_read(state, var, key, value)
            elif not state.requests:  # (a sweep's own tensors are TensorFlow's)
                _announce_input(state, key, value)
        input_ids.append(key)
        input_values.append(value)
    output_ids = []
    output_values = []
    if called:
        shown = _function_outputs(op_type, len(outputs))
        for t in outputs[shown:]:
            known.add(t._id)  # what a tf.function keeps for its gradient
        outputs = outputs[:shown]
    floating = False
    for t in outputs:
        value = array_of(t)
        if value is None:
            continue
        key = t._id
        known.add(key)
        output_ids.append(key)
        output_values.append(value)
        if value.dtype.kind in "fc":
            floating = True
    if not input_ids and not floating:
        plumbing.update(output_ids)  # shapes and axes computed from constants
        return
    # TensorFlow runs a tf.function with its tapes stopped and records the call
    # right after: it records it all the same.
    tapes = ()
    if floating and state.stack:
        tapes = _recorded(state, info, input_ids, output_ids, output_values, called)
        if tapes:
            raw = tuple([alias.get(t._id, t._id) for t in inputs])
            state.remember_outputs((op_type, raw), tuple(output_ids))
    event = _new(
        OpEvent,
        (info, params, tuple(input_ids), tuple(output_ids), tuple(input_values),
         tuple(output_values), tapes),
    )  # fmt: skip
    for listener in state.listeners:
        listener.on_op(event)


# op type (as TensorFlow passes it) -> (op type, OpInfo or None for the ops
# handled apart, static inputs, whether it calls a tf.function)
_KINDS: dict[Any, tuple] = {}


def _kind(op_type: Any) -> tuple:
    name = op_type if type(op_type) is str else op_type.decode()
    if name == _READ or name in _ASSIGNS or name in _IGNORED:
        kind = (name, None, None, False)
    else:
        called = opnames.function_name(name) is not None
        kind = (name, op_info(name), opnames.STATIC_INPUTS.get(name), called)
    _KINDS[op_type] = kind
    return kind


_FUNCTION_OUTPUTS: dict[str, int] = {}
_RETURNED = re.compile(r"^identity(_\d+)?$")


def _function_outputs(op_type: str, count: int) -> int:
    """How many of a tf.function call's outputs the function returns: a call
    made under a tape also hands out what its gradient will need. TensorFlow
    returns a function's results through identities named ``identity``,
    ``identity_1``..., first."""
    shown = _FUNCTION_OUTPUTS.get(op_type)
    if shown is None:
        try:
            names = [
                arg.name
                for arg in context.context()
                .get_function_def(op_type)
                .signature.output_arg
            ]
        except Exception:  # not a function TensorFlow knows by that name
            names = []
        shown = 0
        while shown < len(names) and _RETURNED.match(names[shown]):
            shown += 1
        shown = _FUNCTION_OUTPUTS[op_type] = shown or count
    return min(shown, count)


def _in_boolean_mask(frame: Any) -> bool:
    """Whether a Where op runs for tf.boolean_mask (its indices are the
    positions of the mask's true elements, as the engine's ``where_indices``
    with ``flat``), found among the few frames above the op."""
    for _ in range(_MASK_DEPTH):
        if frame is None:
            return False
        if (
            frame.f_code.co_name in _MASKING
            and frame.f_globals.get("__name__") == _ARRAY_OPS
        ):
            return True
        frame = frame.f_back
    return False


# How far above the op callback tf.boolean_mask's own function sits: TensorFlow
# wraps each API function in two or three frames of dispatch.
_MASK_DEPTH = 12


def _static_name(static: dict | None, i: int, count: int) -> str | None:
    if static is None:
        return None
    return static.get(i) or static.get(i - count)


def _param_value(value: np.ndarray) -> Any:
    return value.tolist() if value.size <= 16 else f"<{value.dtype} {value.shape}>"


_NO_PARAMS: dict = {}
# attrs -> params, for the attrs ops are run with (a handful per program).
_PARAMS: dict[tuple, dict] = {}


def _params(attrs: tuple) -> dict:
    """An op's attributes as parameters (shared: copy before changing)."""
    if not attrs:
        return _NO_PARAMS
    try:
        params = _PARAMS.get(attrs)
    except TypeError:  # an unhashable attribute value
        return _params_of(attrs)
    if params is None:
        params = _params_of(attrs)
        if len(_PARAMS) < 4096:
            _PARAMS[attrs] = params
    return params


def _params_of(attrs: tuple) -> dict:
    params = {}
    for i in range(0, len(attrs) - 1, 2):
        key = attrs[i]
        if key[0] == "T" or key.endswith("T") or key in _HIDDEN_ATTRS:
            continue  # the dtypes are the values' own
        value = attrs[i + 1]
        params[key] = value.decode() if isinstance(value, bytes) else value
    return params


def _recorded(state: Any, info: OpInfo, input_ids: list, output_ids: list,
              output_values: list, called: bool = False) -> tuple:  # fmt: skip
    """The tapes that recorded an op (TensorFlow's rule, as the engine's: an op
    with a gradient and a floating-point result that used a followed value)."""
    stack = state.stack
    if not stack or not info.differentiable:
        return ()
    if not called and pywrap_tfe.TFE_Py_TapeSetIsStopped():
        return ()
    floating = [k for k, v in zip(output_ids, output_values) if v.dtype.kind in "fc"]
    tapes = []
    for mirror in stack:
        connected = mirror.connected
        for key in input_ids:
            if key in connected:
                connected.update(floating)
                tape = mirror.tape()
                if tape is not None:
                    tapes.append(tape)
                break
    return tuple(tapes)


def _announce_input(state: Any, key: int, value: np.ndarray) -> None:
    """An op input TensorFlow made from a Python or NumPy value in C."""
    state.known.add(key)
    if value.ndim == 0:
        source = value.item()
        if type(source) is float:
            # The very float a tf.constant was made from, if one held this value.
            source = state.floats.get((value.dtype, source), source)
    else:
        source = np.array(value)
    state.made[key] = type(source).__name__
    ref = _new(ValueRef, (key, value.shape, value.dtype, value, None))
    event = ConvertEvent(source, "input", ref)
    for listener in state.listeners:
        listener.on_convert(event)


# -- variables -------------------------------------------------------------------


def _read(state: Any, handle: Any, out: Any) -> None:
    var = variable_of(handle)
    if var is None:
        return
    key = handle._id
    state.remember_read(out._id, key)
    value = array_of(out)
    if state.escaping:
        _watch_on_access(state, var, key, value)
        return
    _announce_read(state, var, key, value)


def _read_in_c(accessed: list, value: np.ndarray) -> Any:
    """The variable whose read in C gave ``value``, among those accessed since
    the last op, or None (the value came from Python or NumPy)."""
    for i, var in enumerate(accessed):
        if var.dtype.as_numpy_dtype != value.dtype or tuple(var.shape) != value.shape:
            continue
        if np.array_equal(value_now(var), value, equal_nan=value.dtype.kind in "fc"):
            del accessed[i]
            return var
    return None


def trainable_property() -> property:
    """``_trainable`` as a property, for ``BaseResourceVariable`` while the
    recorder listens: reading it notes the variable as accessed."""
    return property(_trainable_get, _trainable_set)


def _trainable_get(self: Any) -> bool:
    # TensorFlow asks a variable whether it is trainable each time it reads it,
    # in C too: the one Python-visible trace of a variable an op reads in C.
    state = STATE
    if state.listeners and not state.quiet:
        accessed = state.accessed
        if len(accessed) >= _ACCESSED_KEPT:
            del accessed[0]
        accessed.append(self)
    return self.__dict__["_trainable"]


def _trainable_set(self: Any, value: bool) -> None:
    self.__dict__["_trainable"] = value


# Variables remembered as accessed between two ops.
_ACCESSED_KEPT = 32


def _watch_on_access(state: Any, var: Any, key: int, value: np.ndarray) -> None:
    # TensorFlow's tapes watch a trainable variable they read, unless made
    # with watch_accessed_variables=False or stopped.
    if not state.stack or not var.trainable:
        return
    if pywrap_tfe.TFE_Py_TapeSetIsStopped():
        return
    floating = value.dtype.kind in "fc"
    for mirror in state.stack:
        tape = mirror.tape()
        if tape is not None and tape._watch_accessed_variables:
            mirror.watch_variable(key, var, floating)


def _announce_read(state: Any, var: Any, key: int, value: np.ndarray) -> None:
    _watch_on_access(state, var, key, value)
    tapes = tuple(
        [m.tape() for m in state.stack if key in m.connected and m.tape() is not None]
    )
    ref = _new(ValueRef, (key, value.shape, value.dtype, value, NamedVariable(var)))
    event = ReadEvent(ref, tapes)
    for listener in state.listeners:
        listener.on_variable_read(event)


def _assign(state: Any, inputs: tuple) -> None:
    if state.escaping:
        return
    var = variable_of(inputs[0])
    if var is None:
        return
    key = inputs[0]._id
    assigned = inputs[1]
    value_id = state.alias.get(assigned._id, assigned._id)
    python_type = state.made.get(value_id, "EagerTensor")
    if value_id > state.mark and value_id not in state.known:
        value_id = None  # a Python value TensorFlow converted in C
        python_type = _python_type(array_of(assigned))
    value = value_now(var)
    event = AssignEvent(
        _new(ValueRef, (key, value.shape, value.dtype, value, NamedVariable(var))),
        value_id,
        python_type,
    )
    for listener in state.listeners:
        listener.on_assign(event)


def announce_variable(state: Any, var: Any, initial: Any) -> None:
    """A :class:`VariableEvent`: ``var`` was made from ``initial`` (a tensor or
    variable it copies, or a Python or NumPy value; a callable is called by
    TensorFlow, in C, and reported as the tensor it made)."""
    python_type = type(initial).__name__
    if callable(initial) and not hasattr(initial, "dtype"):
        initial = None  # an initializer: its tensor is TensorFlow's own
    made_from = None
    if isinstance(initial, EagerTensor):
        value = array_of(initial)
        if value is not None:
            key = initial._id
            key = state.alias.get(key, key)
            made_from = _new(ValueRef, (key, value.shape, value.dtype, value, None))
    else:
        inner = as_variable(initial)
        if inner is not None:
            value = value_now(inner)
            made_from = _new(ValueRef, (inner.handle._id, value.shape, value.dtype,
                                        value, NamedVariable(inner)))  # fmt: skip
    value = value_now(var)
    ref = _new(ValueRef, (var.handle._id, value.shape, value.dtype, value,
                          NamedVariable(var)))  # fmt: skip
    event = VariableEvent(ref, made_from, python_type, initial)
    for listener in state.listeners:
        hear = getattr(listener, "on_variable", None)
        if hear is not None:
            hear(event)


def _python_type(value: np.ndarray | None) -> str:
    if value is None or value.ndim:
        return "ndarray"
    return type(value.item()).__name__
