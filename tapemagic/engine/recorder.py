"""Recorder events: what the engine tells its listeners, as plain records.

A listener (the explanation log of ``tapemagic.graph`` is one) hears about
everything that runs while it listens: each op, each value converted into the
engine or leaving it, each variable read and assignment, each ``watch``, each
tape starting, stopping, pausing or being reset, and each gradient request with
the cotangents its backward sweep reaches. Every event is a small named tuple
built once per event; ids are the recorder's (for this engine, ``id_of``), and
arrays are the recorder's own, to be read and never changed. A second recorder
(real TensorFlow's eager op callbacks, say) emits the same records, so listeners
never touch an engine object's private state. docs/DESIGN.md ("Recorder events")
gives the protocol: who emits each event, in what order.

Listeners are objects with the methods of :class:`Listener`. A tape made with
``GradientTape(explain=listener)`` puts its listener on the thread's listener
list while its ``with`` block runs (see :func:`listening`); nothing is built
while that list is empty, so a plain tape pays nothing for events.

This module also describes engine objects for code outside the engine:
:func:`describe` (a tensor or variable), :func:`describe_all` (a nested
structure of them) and :func:`describe_tape` (a tape's public state).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import nest
from . import op as _op
from .backprop import sweep_observers
from .context import state
from .dtypes import from_numpy
from .events import (
    AssignEvent,
    ConvertEvent,
    CotangentsReached,
    EscapeEvent,
    GradientAnswered,
    GradientAsked,
    Listener,
    NodeRecord,
    OpEvent,
    OpInfo,
    ReadEvent,
    TapeEvent,
    TapeState,
    ValueRef,
    VariableEvent,
    WatchEvent,
)
from .tape import GradientTape
from .tensor import Tensor, Variable

__all__ = [
    "AssignEvent",
    "CotangentsReached",
    "ConvertEvent",
    "EscapeEvent",
    "GradientAnswered",
    "GradientAsked",
    "Listener",
    "NodeRecord",
    "OpEvent",
    "OpInfo",
    "ReadEvent",
    "TapeEvent",
    "TapeState",
    "ValueRef",
    "VariableEvent",
    "WatchEvent",
    "describe",
    "describe_all",
    "describe_tape",
    "detach",
    "escape_event",
    "dtype_name",
    "explain_listener",
    "flatten",
    "is_tape",
    "listening",
    "op_info",
]


# -- building records (engine side) ------------------------------------------------

_new = tuple.__new__  # builds a record without the named tuple's Python __new__


def op_info(op: Any) -> OpInfo:
    """The :class:`OpInfo` of an engine op, built once per op of the op table.

    Example:
        >>> from tapemagic.engine.op import OP_TABLE
        >>> info = op_info(OP_TABLE["argmax"])
        >>> info.name, info.differentiable, op_info(OP_TABLE["log"]).singular
        ('argmax', False, 'derivative')
    """
    return _op._op_info(op)


def escape_event(obj: Tensor | Variable, how: str, result: Any = None) -> EscapeEvent:
    """The record of a value leaving the engine from ``obj``.

    Example:
        >>> escape_event(Tensor(np.float32(2.0)), "float", 2.0).how
        'float'
    """
    return EscapeEvent(describe(obj), how, result)


# -- describing engine objects -----------------------------------------------------


def describe(obj: Any) -> ValueRef | None:
    """A tensor or variable as a :class:`ValueRef`; None for anything else.

    A variable is described with its value now. Nothing is copied and no
    listener hears of it (unlike ``.numpy()``).

    Example:
        >>> v = Variable([1.0, 2.0])
        >>> ref = describe(v)
        >>> ref.shape, ref.dtype.name, ref.variable is v, describe(3.0)
        ((2,), 'float32', True, None)
    """
    if isinstance(obj, Tensor):
        value = obj._value
        return _new(ValueRef, (obj._id, value.shape, value.dtype, value, None))
    if isinstance(obj, Variable):
        value = obj._snapshot._value
        return _new(ValueRef, (obj._id, value.shape, value.dtype, value, obj._handle))
    return None


def describe_all(structure: Any) -> tuple[ValueRef | None, ...]:
    """:func:`describe` of each leaf of a nested structure, in ``nest`` order.

    Example:
        >>> refs = describe_all({"a": Tensor(np.zeros(2)), "b": None})
        >>> [r if r is None else r.shape for r in refs]
        [(2,), None]
    """
    return tuple([describe(item) for item in nest.flatten(structure)])


def flatten(structure: Any) -> list:
    """The leaves of a nested structure (lists, tuples, dicts), in ``nest`` order:
    the order of :func:`describe_all` and of a gradient's sources.

    Example:
        >>> flatten({"b": [1, 2], "a": 3})
        [3, 1, 2]
    """
    return nest.flatten(structure)


def dtype_name(dtype: np.dtype) -> str:
    """TensorFlow's name for a NumPy dtype (``"float32"``); its NumPy name if none.

    Example:
        >>> dtype_name(np.dtype(np.float64)), dtype_name(np.dtype(np.uint16))
        ('float64', 'uint16')
    """
    try:
        return from_numpy(dtype).name
    except (KeyError, TypeError, ValueError):
        return str(dtype)


def _node_value(t: Any) -> ValueRef:
    value = t._value
    if isinstance(t, Tensor):
        return ValueRef(t._id, value.shape, value.dtype, value)
    return ValueRef(t._id, value.shape, value.dtype, None)  # a stub: no array


def describe_tape(tape: Any, nodes: bool = True) -> TapeState:
    """The public state of a ``GradientTape``, as plain records.

    Args:
        tape: a GradientTape.
        nodes: whether to list the recorded nodes too.

    Returns:
        A :class:`TapeState`.

    Example:
        >>> from tapemagic.engine import GradientTape
        >>> w = Variable(2.0)
        >>> with GradientTape() as tape:
        ...     y = w * w
        >>> s = describe_tape(tape)
        >>> s.status, [n.op.name for n in s.nodes], s.variables[0].variable is w
        ('stopped', ['multiply'], True)
    """
    if tape._recording:
        status = "recording"
    elif tape._nodes is None:
        status = "answered" if tape._used else "new"
    else:
        status = "stopped"
    records = ()
    if nodes:
        records = tuple(
            NodeRecord(
                op_info(op),
                params,
                tuple([_node_value(t) for t in inputs]),
                tuple([_node_value(t) for t in outputs]),
            )
            for op, inputs, outputs, params in tape._nodes or ()
        )
    return TapeState(
        persistent=tape._persistent,
        watch_accessed_variables=tape._watch_accessed,
        status=status,
        variables=tuple([describe(v) for v in tape._variables.values()]),
        watched=tuple([describe(t) for t in tape._watched.values()]),
        nodes=records,
    )


def is_tape(obj: Any) -> bool:
    """Whether ``obj`` is a GradientTape of this engine.

    Example:
        >>> from tapemagic.engine import GradientTape
        >>> is_tape(GradientTape()), is_tape("tape")
        (True, False)
    """
    return isinstance(obj, GradientTape)


def explain_listener(tape: Any) -> Any:
    """The listener a tape was made with (``GradientTape(explain=...)``), or None.

    Example:
        >>> from tapemagic.engine import GradientTape
        >>> explain_listener(GradientTape()) is None
        True
    """
    return tape._explain


def listening() -> tuple:
    """The listeners hearing every op in this thread now, outermost first.

    Example:
        >>> listening()
        ()
    """
    return tuple(state.observers)


def detach(listener: Any) -> None:
    """Stop ``listener`` hearing anything in this thread.

    A tape takes its listener off when its ``with`` block ends and a gradient
    request when it answers; an interrupt at the wrong moment can leave it on.

    Example:
        >>> detach(Listener())
        >>> listening()
        ()
    """
    for observers in (state.observers, sweep_observers.observers):
        observers[:] = [o for o in observers if o is not listener]
