"""Tracing: what a function did to tensors, heard once, as a list of steps.

A :class:`Tracer` is a recorder listener (engine/recorder.py). While a
``tf.function`` runs its Python function for the first time with a given
signature, the tracer hears every op (the backward sweep of a tape inside runs
its VJPs as engine ops while anyone listens, so gradients are heard too), every
variable read and assignment, every conversion of a Python value, every random
draw and every ``tf.print``, and writes them down as steps on numbered slots.
engine/plan.py compiles the steps into straight-line NumPy code.

What cannot be replayed makes the trace *untraceable*, with the user's line:
Python using a tensor's value (``bool(t)``, ``if t > 0``, iterating over a
tensor, ``t.numpy()``, ``float(t)``), an op outside the op table (a custom
gradient), a slice assignment, a tensor's value used as a shape or index, or
a tensor made outside the ops (NumPy on tensors' values inside tapemagic: a
value made from constants alone is announced with ``constant_of``). A NumPy
value converted or assigned in the user's own code is a constant, as
TensorFlow captures it.

A host call (:func:`host_call`: ``tf.print``, a Keras optimizer's update, a
metric) is one step: the function runs again on every replay, and what it
does inside is not traced.

Steps (tuples, first item the kind):

- ``("arg", slot, position)``: the argument tensor at ``position``;
- ``("const", slot, array)``: a value fixed for the trace (a constant, a
  captured tensor, a shape);
- ``("read", slot, variable)``: the variable's value now;
- ``("op", op, params, in_slots, out_slots, meta)``: an op of the op table;
  ``meta`` gives each output's shape, dtype and whether it owns its memory;
- ``("assign", variable, how, slot)``: ``assign``, ``assign_add`` or
  ``assign_sub`` of the value in ``slot``;
- ``("fresh", slot, draw)``: random values, ``draw()`` each time;
- ``("call", fn, in_slots, out_slots)``: a host function called with tensors
  of the slots' values; the tensors of its result, in ``nest`` order, fill
  ``out_slots``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from . import eager_tensor as _eager
from . import nest
from . import op as _op
from .context import new_id, state
from .events import (
    AssignEvent,
    ConvertEvent,
    EscapeEvent,
    Listener,
    OpEvent,
    ReadEvent,
    VariableEvent,
)
from .tensor import Tensor, Variable

__all__ = ["Tracer", "Untraceable", "VariableCreated", "host_call"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SCALARS = ("int", "float", "bool", "complex")

# Ops whose result depends on their inputs' shapes only: fixed for one trace.
SHAPE_OPS = frozenset({"shape", "size", "rank", "shape_n"})

# Ops whose randomness is drawn before the op runs (a parameter): a replay
# would repeat the draw.
DRAWN_OUTSIDE = frozenset({"random_shuffle"})

# TensorFlow's names for the symbolic tensors of common ops (``x * 2`` is
# "mul:0"); the others show the op's own name.
_SYMBOLIC_NAMES = {
    "multiply": "mul",
    "subtract": "sub",
    "divide": "truediv",
    "truediv": "truediv",
    "negative": "Neg",
    "matmul": "MatMul",
}


class Untraceable(Exception):
    """What a trace heard that no plan can replay; ``line`` is the user's."""

    def __init__(self, reason: str, filename: str, lineno: int,
                 kind: str = "other") -> None:  # fmt: skip
        super().__init__(reason)
        self.reason = reason
        self.kind = kind  # "branch", "escape" or "other"
        self.filename = filename
        self.lineno = lineno


class VariableCreated(Exception):
    """A variable was created while a trace forbade it (TensorFlow's rule)."""


class Tracer(Listener):
    """A listener that writes down what runs as steps (see the module docstring).

    Args:
        arguments: the argument tensors, in order; their ids become slots.
        names: for each argument, the name and shape text TensorFlow shows for
            it while tracing (``("x:0", "(None,)")``), or None.
        forbid_variables: raise :class:`VariableCreated` with this message on
            a new variable (None: allow them).

    Example:
        >>> from .ops import math
        >>> x = _eager.tensor_of(np.float32(2.0))
        >>> with Tracer([x]) as tracer:
        ...     y = math.exp(x)
        >>> [step[0] for step in tracer.steps], tracer.output(y)
        (['arg', 'op'], ('slot', 2))
    """

    def __init__(self, arguments: list[Tensor], names: list | None = None,
                 forbid_variables: str | None = None) -> None:  # fmt: skip
        self.steps: list[tuple] = []
        self.slots: dict[int, int] = {}
        self.static: set[int] = set()  # slots fixed for the trace
        self.count = 0
        self.untraceable: Untraceable | None = None
        self.forbid_variables = forbid_variables
        self.created: list[Variable] = []
        # The value of each variable before the trace first changed it.
        self.before: dict[int, tuple[Variable, Any]] = {}
        self.start = new_id()
        self.depth = 0  # inside host calls: hear nothing
        self.reads: dict[int, list] = {}  # variable id -> [(slot, array)]
        self._names: dict[str, int] = {}
        self._shown: list[int] = []
        for position, t in enumerate(arguments):
            slot = self._new_slot()
            self.steps.append(("arg", slot, position))
            self.slots[t._id] = slot
            if names is not None and names[position] is not None:
                self._show(t._id, *names[position])

    # -- running ------------------------------------------------------------------
    def __enter__(self) -> Tracer:
        state.observers.append(self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        observers = state.observers
        for i in range(len(observers) - 1, -1, -1):
            if observers[i] is self:
                del observers[i]
                break
        for key in self._shown:
            _eager.TRACED.pop(key, None)
        self._shown = []

    def restore(self) -> None:
        """Put back the values of the variables the trace changed."""
        for variable, value in self.before.values():
            variable._snapshot = _eager_snapshot(value, variable._id)

    # -- slots --------------------------------------------------------------------
    def _new_slot(self) -> int:
        self.count += 1
        return self.count

    def slot_of(self, key: int, value: Any) -> int:
        """The slot of the tensor with id ``key``: a constant if unheard (made
        before the trace: captured by value, as TensorFlow captures it)."""
        slot = self.slots.get(key)
        if key in self.reads:
            slot = self._read_slot(key, value)
            if slot is None:
                self._refuse("uses a value of a variable that the trace cannot tell")
                slot = self.slots[key]
        if slot is None:
            if key > self.start:
                self._refuse(
                    "computes a tensor outside the engine's ops (NumPy on a "
                    "tensor's values)"
                )
            slot = self._new_slot()
            self.steps.append(("const", slot, value))
            self.static.add(slot)
            self.slots[key] = slot
        return slot

    def output(self, value: Any) -> tuple:
        """What a plan returns for one leaf of the function's result."""
        if isinstance(value, Tensor):
            return ("slot", self.slot_of(value._id, value._value))
        return ("value", value)

    def _show(self, key: int, name: str, shape: str | None) -> None:
        _eager.TRACED[key] = (name, shape)
        self._shown.append(key)

    def _refuse(self, reason: str, kind: str = "other") -> None:
        if self.untraceable is None:
            filename, lineno = _user_line()
            self.untraceable = Untraceable(reason, filename, lineno, kind)

    # -- what the tracer hears ----------------------------------------------------
    def on_op(self, event: OpEvent) -> None:
        if self.depth:
            return
        info = event.op
        op = _op.OP_TABLE.get(info.name)
        if op is None or op.name != info.name:
            self._refuse(f"runs {info.name}, which has no NumPy forward to replay")
            return
        if info.name in DRAWN_OUTSIDE:
            self._refuse(f"runs {info.name}, whose random draw is not part of the op")
            return
        base = _op._op_info(op).no_gradient_inputs
        n = len(event.input_ids) - (len(info.no_gradient_inputs) - len(base))
        slots = [
            self.slot_of(key, value)
            for key, value in zip(event.input_ids, event.input_values)
        ]
        if any(slot not in self.static for slot in slots[n:]):
            self._refuse(
                f"uses the value of a tensor as a parameter of {info.name} (a "
                "shape, an index or a mask computed from the inputs)"
            )
        fixed = info.name in SHAPE_OPS or (
            all(slot in self.static for slot in slots[:n]) and "random" not in info.name
        )
        outs = []
        for key, value in zip(event.output_ids, event.output_values):
            slot = self._new_slot()
            self.slots[key] = slot
            outs.append(slot)
            if fixed:
                # Computed from values fixed for the trace: a constant.
                self.steps.append(("const", slot, value))
                self.static.add(slot)
            self._name_output(key, info.name, value, len(outs) - 1)
        if not fixed:
            inputs = event.input_values
            # Per output: its shape, dtype, and whether it owns its memory (is
            # no view of an input), for the plan's reuse of buffers.
            meta = tuple(
                [
                    (
                        np.shape(value),
                        getattr(value, "dtype", None),
                        not isinstance(value, np.ndarray)
                        or (value.base is None and not any(value is x for x in inputs)),
                    )
                    for value in event.output_values
                ]
            )
            self.steps.append(
                ("op", op, event.params, tuple(slots[:n]), tuple(outs), meta)
            )

    def _name_output(self, key: int, name: str, value: Any, index: int) -> None:
        base = _SYMBOLIC_NAMES.get(name, name)
        used = self._names.get(base, 0)
        self._names[base] = used + 1
        node = base if not used else f"{base}_{used}"
        self._show(key, f"{node}:{index}", str(tuple(np.shape(value))))

    def on_convert(self, event: ConvertEvent) -> None:
        if self.depth:
            return
        ref = event.tensor
        if ref.id in self.slots:
            return
        if isinstance(event.source, (np.ndarray, np.generic)) and _inside_package():
            # tapemagic's own code made an array into a tensor: from what?
            self._refuse(
                "converts a NumPy value computed inside tapemagic into a tensor"
            )
        slot = self._new_slot()
        self.steps.append(("const", slot, ref.value))
        self.static.add(slot)
        self.slots[ref.id] = slot

    def on_constant(self, tensor: Tensor) -> None:
        if self.depth:
            return
        slot = self._new_slot()
        self.steps.append(("const", slot, tensor._value))
        self.static.add(slot)
        self.slots[tensor._id] = slot

    def on_variable_read(self, event: ReadEvent) -> None:
        if self.depth:
            return
        ref = event.variable
        slot = self._new_slot()
        self.steps.append(("read", slot, ref.variable))
        self.slots[ref.id] = slot
        # A read shares its variable's id: which read an op used is told by
        # its array (an earlier read, held across an assignment, differs).
        self.reads.setdefault(ref.id, []).append((slot, ref.value))

    def _read_slot(self, key: int, value: Any) -> int | None:
        for slot, array in reversed(self.reads.get(key, ())):
            if array is value:
                return slot
        return None

    def on_assigning(self, variable: Variable) -> None:
        if variable._id not in self.before:
            self.before[variable._id] = (variable, variable._snapshot._value)

    def on_assign(self, event: AssignEvent) -> None:
        if self.depth:
            return
        variable = event.variable.variable
        if event.how == "assign_slice" or event.operand is None:
            self._refuse(f"assigns to a slice of {variable.name}")
            return
        if event.value_id is not None and event.value_id in self.slots:
            slot = self.slots[event.value_id]
        elif event.value_id is not None and event.value_id > self.start:
            self._refuse("assigns a tensor made outside the engine's ops")
            return
        else:
            if event.python_type not in _SCALARS and _inside_package():
                self._refuse(
                    f"assigns to {variable.name} a value computed with NumPy "
                    "inside tapemagic"
                )
                return
            slot = self._new_slot()
            self.steps.append(("const", slot, event.operand))
            self.static.add(slot)
        self.steps.append(("assign", variable, event.how, slot))

    def on_variable(self, event: VariableEvent) -> None:
        variable = event.variable.variable
        if self.forbid_variables is not None:
            raise VariableCreated(self.forbid_variables)
        self.created.append(variable)
        self.before.setdefault(variable._id, (variable, event.variable.value))

    def on_escape(self, event: EscapeEvent) -> None:
        if self.depth:
            return
        if event.how == "constant" and event.value.variable is None:
            return  # tf.constant(t) of a tensor is that tensor
        what = {
            "numpy": "t.numpy()",
            "__array__": "np.asarray(t)",
            "constant": "tf.constant(v) of a variable; tf.identity(v) is an op",
        }.get(event.how, f"{event.how}(t)")
        self._refuse(f"takes a tensor's value into Python ({what})", "escape")

    def on_python_use(self, event: EscapeEvent) -> None:
        if self.depth:
            return
        what = {
            "bool": "branches on a tensor's value (bool(t), if t > 0: ...)",
            "iter": "iterates over a tensor (for row in t: ...)",
            "index": "uses a tensor's value as a Python int",
        }[event.how]
        self._refuse(what, "escape" if event.how == "index" else "branch")

    def on_fresh(self, tensor: Tensor, draw: Callable[[], Any]) -> None:
        if self.depth:
            return
        slot = self._new_slot()
        self.steps.append(("fresh", slot, draw))
        self.slots[tensor._id] = slot

    def on_host_call(self, fn: Callable, tensors: tuple, result: Any) -> None:
        if self.depth:
            return
        slots = tuple([self.slot_of(t._id, t._value) for t in tensors])
        outs = []
        for leaf in nest.flatten(result):
            if isinstance(leaf, Tensor):
                slot = self._new_slot()
                self.slots[leaf._id] = slot
                outs.append(slot)
        self.steps.append(("call", fn, slots, tuple(outs)))


def host_call(fn: Callable[..., Any], *tensors: Tensor) -> Any:
    """Call ``fn(*tensors)`` now, and on every replay of a trace that hears it.

    What ``tf.print`` does inside a ``tf.function``: it runs on every call,
    with the values of that call, where a Python ``print`` runs only while
    tracing.

    Example:
        >>> host_call(lambda t: print(t.numpy()), _eager.tensor_of(np.int32(3)))
        3
    """
    tracers = [o for o in state.observers if hasattr(o, "on_host_call")]
    if not tracers:
        return fn(*tensors)
    for tracer in tracers:
        tracer.depth += 1
    try:
        result = fn(*tensors)
    finally:
        for tracer in tracers:
            tracer.depth -= 1
    for tracer in tracers:
        tracer.on_host_call(fn, tensors, result)
    return result


def _eager_snapshot(value: Any, key: int) -> Tensor:
    t = _eager.tensor_of(value)
    t._id = key
    return t


def _inside_package() -> bool:
    """Whether the code that led here, past the engine's own frames, is
    tapemagic's (Keras, tf.data) rather than the user's."""
    engine = os.path.join(_PACKAGE_DIR, "engine")
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(engine):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR)


def _user_line() -> tuple[str, int]:
    """File and line of the innermost frame outside tapemagic."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0
    return frame.f_code.co_filename, frame.f_lineno
