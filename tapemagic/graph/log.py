"""The explanation log: what ran inside a tape, watched or not, and where.

A tape made with ``GradientTape(explain=...)`` (the ``%%tape`` magic makes one)
puts an :class:`ExplainLog` on the engine's observer list while its ``with``
block runs. The engine then tells the log about every op (recorded on the tape
or not), every Python or NumPy value turned into a tensor, every value leaving
the engine (``.numpy()``, ``__array__``, ``float()``, ``int()``, a copy by
``tf.constant``), every variable read and assignment, every ``watch`` call, the
tape's own start, stop, pause and reset, and each ``gradient``/``jacobian``/
``batch_jacobian`` request with its result. Each entry carries the line of the
cell (or file) it ran on: the innermost frame running that code, found by
walking up the stack from the engine's hook (a few frames per op).

The log stores engine ids, shapes and NumPy dtypes only, in one list of tuples in
the order things happened; :func:`tapemagic.graph.from_tape.graph_from_tape`
turns it into the plain graph model. Entries (``seq`` is the index in
:attr:`ExplainLog.events`)::

    ("op", name, differentiable, input_ids, output_ids, recorded, line, state,
     request, params)
    ("convert", tensor_id, origin, python_type, escape_seq, line, state)
    ("read", variable_id, line, state)
    ("escape", value_id, how, line, state)
    ("assign", variable_id, value_id_or_None, python_type, line, state)
    ("watch", tape_number, value_id, is_variable, line, state)
    ("tape", event, line)            # start, stop, pause, reset of the log's tape
    ("gradient", request_number)     # the request itself is in ``requests``

``state`` is the log's tape state when it happened: ``"idle"`` (not entered
yet), ``"recording"``, ``"paused"`` (inside ``stop_recording``) or
``"stopped"``; ``request`` is the number of the gradient request whose
computation ran the op, or None.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import nest
from ..engine.context import new_id
from ..engine.tape import set_explain_factory
from ..engine.tensor import Tensor, Variable

__all__ = ["ExplainLog", "user_location"]

# Packages whose frames are never "the user's line".
_INTERNAL = ("tapemagic.", "IPython.", "ipykernel.")

# How many escaped objects the log keeps to recognise them when they come back.
_ESCAPES_KEPT = 256


def user_location() -> tuple[str, int] | tuple[None, None]:
    """The file and line of the innermost frame that is not tapemagic or IPython.

    Returns:
        ``(filename, lineno)``, or ``(None, None)`` when every frame is internal.

    Example:
        >>> filename, line = user_location()
        >>> isinstance(line, int)
        True
    """
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != "tapemagic" and not name.startswith(_INTERNAL):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None, None


class ExplainLog:
    """An observer that logs everything a tape's ``with`` block runs.

    Args:
        filename: the code whose line numbers the log reports (a cell's compiled
            name, or a script's path). By default, the file of the code that
            creates the log.
        label: how to name that code for people, e.g. ``"In[5]"``.
        lines: its source lines, line 1 first (for quoting in explanations).

    Attributes:
        events: the entries, in the order they happened (see the module docs).
        requests: one dict per gradient request (kind, tape, targets, sources,
            results, error, line).
        values: tensor id -> ``(origin, shape, numpy dtype, seq or None)`` for
            every tensor an op used or made, or that was watched, escaped,
            assigned, asked about or bound to a name, in order of first sight;
            ``seq`` points at the event that made it, when the log saw that.
        variables: variable id -> the Variable, for variables the log has seen.
        first_id: tensors with a smaller id existed before the tape started.
        bindings, names: filled in by the magic from the user namespace (see
            :meth:`note_namespace`).
        label_for: turns another cell's file name into a label (``"In[7]"``)
            for gradient requests made elsewhere; set by the magic.
        via: set by the magic while it makes its own gradient request.

    Example:
        >>> from tapemagic.engine import GradientTape, Variable
        >>> w = Variable(2.0)
        >>> with GradientTape(explain=ExplainLog()) as tape:
        ...     y = w * w
        >>> [e[1] for e in tape._explain.events if e[0] == "op"]
        ['multiply']
    """

    def __init__(
        self,
        filename: str | None = None,
        *,
        label: str | None = None,
        lines: tuple[str, ...] | None = None,
    ) -> None:
        if filename is None:
            filename, _ = user_location()
        self.filename = filename
        self.label = label
        self.lines = lines
        self.tape: Any = None
        self.first_id: int | None = None
        self.events: list[tuple] = []
        self.requests: list[dict] = []
        self.values: dict[int, tuple] = {}
        self.variables: dict[int, Variable] = {}
        self.bindings: tuple = ()
        self.names: dict[int, tuple[str, ...]] = {}
        self.label_for: Callable[[str], str | None] | None = None
        self.via: str | None = None
        self.state = "idle"
        self._request: int | None = None
        self._pending: list[int] = []
        self._tapes: dict[int, int] = {}
        self._escaped: dict[int, tuple[Any, int]] = {}
        self._converted: dict[int, tuple[str, int]] = {}

    # -- wiring --------------------------------------------------------------
    def bind(self, tape: Any) -> None:
        """Make ``tape`` the log's own tape (``GradientTape`` calls this).

        Raises:
            ValueError: if the log already belongs to another tape.
        """
        if self.tape is not None and self.tape is not tape:
            raise ValueError(
                "This ExplainLog already belongs to another GradientTape; give each "
                "tape its own log: GradientTape(explain=True)."
            )
        self.tape = tape
        self._tapes[id(tape)] = 0

    def tape_number(self, tape: Any) -> int:
        """0 for the log's own tape; 1, 2, ... for other tapes, as first seen."""
        key = id(tape)
        number = self._tapes.get(key)
        if number is None:
            number = self._tapes[key] = len(self._tapes) + (self.tape is None)
        return number

    def _line(self) -> int | None:
        # The innermost frame running the logged code: start above the engine
        # call that invoked the hook (two frames up) and walk outwards.
        filename = self.filename
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == filename:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def _see(self, t: Any) -> None:
        entry = self.values.get(t._id)
        if entry is None or (isinstance(t, Variable) and entry[0] != "variable"):
            self._first_seen(t)
        elif isinstance(t, Variable):
            self.variables.setdefault(t._id, t)

    def _first_seen(self, t: Any) -> None:
        # A tensor the log did not see being made: a variable, something from
        # before the tape started, or a constant made without an op.
        if isinstance(t, Variable):
            self.variables.setdefault(t._id, t)
            origin = "variable"
        elif t._id in self.variables:
            origin = "variable"
        elif t._id in self._converted:
            origin, seq = self._converted.pop(t._id)
            value = t._value
            self.values[t._id] = (origin, value.shape, value.dtype, seq)
            return
        elif self.first_id is None or t._id < self.first_id:
            origin = "outside"
        else:
            origin = "constant"
        value = t._value
        self.values[t._id] = (origin, value.shape, value.dtype, None)

    # -- engine hooks --------------------------------------------------------
    def on_op(self, op: Any, inputs: tuple, outputs: tuple, params: dict) -> None:
        """An op ran (engine hook, called after every op while the log listens)."""
        values = self.values
        for t in inputs:
            if t._id not in values:
                self._first_seen(t)
        tape = self.tape
        recorded = tape is not None and outputs[0]._id in tape._tracked
        seq = len(self.events)
        self.events.append(
            (
                "op",
                op.name,
                op.vjp is not None,
                tuple([t._id for t in inputs]),
                tuple([o._id for o in outputs]),
                recorded,
                self._line(),
                self.state,
                self._request,
                params,
            )
        )
        for o in outputs:
            value = o._value
            values[o._id] = ("op", value.shape, value.dtype, seq)

    def on_convert(self, value: Any, tensor: Tensor, how: str) -> None:
        """A Python or NumPy value became ``tensor`` (``how``: input or constant)."""
        seq = len(self.events)
        kept = self._escaped.get(id(value))
        escape = kept[1] if kept is not None and kept[0] is value else None
        if how == "constant":
            origin = "constant"
        elif isinstance(value, (np.ndarray, np.generic)):
            origin = "numpy"
        else:
            origin = "python"
        self.events.append(
            (
                "convert",
                tensor._id,
                origin,
                type(value).__name__,
                escape,
                self._line(),
                self.state,
            )
        )
        # The value joins `values` when it is first used: tf.constant makes
        # an intermediate tensor that is never used.
        self._converted[tensor._id] = (origin, seq)

    def on_variable_read(self, var: Variable) -> None:
        """A variable was read (by an op, ``read_value``, ``convert_to_tensor``...)."""
        seq = len(self.events)
        self.variables.setdefault(var._id, var)
        self.events.append(("read", var._id, self._line(), self.state))
        entry = self.values.get(var._id)
        if entry is None or entry[0] != "variable":
            value = var._snapshot._value
            self.values[var._id] = ("variable", value.shape, value.dtype, seq)

    def on_escape(self, obj: Any, how: str, result: Any = None) -> None:
        """A value left the engine as ``result``.

        ``how`` is ``numpy``, ``__array__``, ``float``, ``int``, or ``constant``
        (``tf.constant`` copying a tensor or variable; no result is passed).
        """
        self._see(obj)
        seq = len(self.events)
        self.events.append(("escape", obj._id, how, self._line(), self.state))
        # Python ints are shared objects (small ones are cached), so only arrays,
        # NumPy scalars and floats can be recognised when they come back.
        if result is not None and not isinstance(result, int):
            escaped = self._escaped
            if len(escaped) >= _ESCAPES_KEPT:
                del escaped[next(iter(escaped))]
            escaped[id(result)] = (result, seq)

    def on_assign(self, var: Variable, value: Any) -> None:
        """``var.assign(value)`` (also ``assign_add``/``assign_sub``) ran."""
        self._see(var)
        value_id = value._id if isinstance(value, (Tensor, Variable)) else None
        self.events.append(
            (
                "assign",
                var._id,
                value_id,
                type(value).__name__,
                self._line(),
                self.state,
            )
        )

    def on_watch(self, tape: Any, item: Any) -> None:
        """``tape.watch`` was called on ``item`` (one tensor or variable)."""
        self._see(item)
        self.events.append(
            (
                "watch",
                self.tape_number(tape),
                item._id,
                isinstance(item, Variable),
                self._line(),
                self.state,
            )
        )

    def on_tape(self, tape: Any, event: str) -> None:
        """The log's own tape started, stopped, paused or was reset."""
        if event == "start":
            if self.first_id is None:
                # Ids come from one counter: everything made from here on has a
                # larger id, everything older a smaller one.
                self.first_id = new_id()
            self.state = "recording"
        elif event == "stop":
            self.state = "stopped"
        elif event == "pause":
            self.state = "paused"
        self.events.append(("tape", event, self._line()))

    def on_gradient_begin(self, tape: Any, kind: str, call: dict) -> None:
        """A gradient request starts; ops until its end belong to it."""
        filename, line = user_location()
        if self.via is not None:
            # The %%tape magic itself asks, on its own line.
            filename, line = self.filename, 1
        here = filename is not None and filename == self.filename
        if filename is None:
            where = None
        elif here:
            where = self.label
        else:
            where = self.label_for(filename) if self.label_for is not None else None
            where = where or filename
        number = len(self.requests)
        self.requests.append(
            {
                "kind": kind,
                "tape": self.tape_number(tape),
                "where": where,
                "line": line,
                "here": here,
                "via": self.via,
                "targets": (),
                "sources": (),
                "results": (),
                "error": None,
                "unconnected": _mode_name(call.get("unconnected_gradients")),
                "output_gradients": call.get("output_gradients") is not None,
            }
        )
        self.events.append(("gradient", number))
        self._pending.append(number)
        self._request = number

    def on_gradient_end(
        self, tape: Any, kind: str, call: dict, result: Any, error: Any
    ) -> None:
        """A gradient request finished with ``result`` or raised ``error``."""
        number = self._pending.pop()
        self._request = self._pending[-1] if self._pending else None
        request = self.requests[number]
        target = call.get("target")
        sources = call.get("sources", call.get("source"))
        request["targets"] = self._ids(target)
        request["sources"] = self._ids(sources)
        if error is not None:
            request["error"] = f"{type(error).__name__}: {error}"
            return
        flat = [result] if kind == "batch_jacobian" else nest.flatten(result)
        request["results"] = tuple(_summary(g) for g in flat)

    def _ids(self, structure: Any) -> tuple:
        ids = []
        for item in nest.flatten(structure):
            if isinstance(item, (Tensor, Variable)):
                self._see(item)
                ids.append(item._id)
            else:
                ids.append(None)
        return tuple(ids)

    # -- after the cell ------------------------------------------------------
    def note_namespace(self, before: dict, after: dict) -> None:
        """Record what the user's names held before and after the code ran.

        Args:
            before, after: name -> the object it held, for the names worth
                recording (see ``tapemagic.magic``): tensors, variables, and
                names that held one of them before.
        """
        bindings = []
        names: dict[int, list[str]] = {}
        for name in sorted(set(before) | set(after)):
            old = before.get(name, _MISSING)
            new = after.get(name, _MISSING)
            is_tensor = isinstance(new, (Tensor, Variable))
            if old is not new:
                if is_tensor:
                    self._see(new)
                bindings.append(
                    (
                        name,
                        new._id if is_tensor else None,
                        _kind(new),
                        _kind(old),
                        None if new is _MISSING else type(new).__name__,
                    )
                )
            if is_tensor and new._id in self.values:
                names.setdefault(new._id, []).append(name)
        self.bindings = tuple(bindings)
        self.names = {key: tuple(value) for key, value in names.items()}


_MISSING = object()


def _kind(obj: Any) -> str | None:
    if obj is _MISSING:
        return None
    if isinstance(obj, Variable):
        return "variable"
    if isinstance(obj, Tensor):
        return "tensor"
    if isinstance(obj, (np.ndarray, np.generic)):
        return "numpy"
    if isinstance(obj, (bool, int, float, complex)):
        return "python"
    return "other"


def _mode_name(mode: Any) -> str:
    return str(getattr(mode, "value", mode) or "none").lower()


def _summary(g: Any) -> tuple:
    """``(is_none, shape, numpy dtype, preview text)`` of one gradient result."""
    if g is None:
        return (True, None, None, None)
    array = g._value if isinstance(g, (Tensor, Variable)) else np.asarray(g)
    preview = np.array2string(
        np.asarray(array), precision=4, threshold=8, edgeitems=3, separator=", "
    )
    return (False, array.shape, array.dtype, " ".join(preview.split()))


set_explain_factory(ExplainLog)
