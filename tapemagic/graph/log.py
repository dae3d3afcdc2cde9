"""The explanation log: what ran inside a tape, watched or not, and where.

A tape made with ``GradientTape(explain=...)`` (the ``%%tape`` magic makes one)
puts an :class:`ExplainLog` on the engine's listener list while its ``with``
block runs. The log is a listener of recorder events
(:mod:`tapemagic.engine.recorder`) and is built from them only: every op
(recorded on the tape or not), every Python or NumPy value turned into a
tensor, every value leaving the engine (``.numpy()``, ``__array__``,
``float()``, ``int()``, a copy by ``tf.constant``), every variable read and
assignment, every ``watch`` call, the tape's own start, stop, pause and reset,
and each ``gradient``/``jacobian``/``batch_jacobian`` request with the
cotangents of its sweep and its result. Each entry carries the line of the
cell (or file) it ran on: the innermost frame running that code, found by
walking up the stack from the recorder's call (a few frames per op).

The log stores recorder ids, shapes and NumPy dtypes only, in one list of tuples in
the order things happened; :func:`tapemagic.graph.from_tape.graph_from_tape`
turns it into the plain graph model. Entries (``seq`` is the index in
:attr:`ExplainLog.events`)::

    ("op", name, differentiable, input_ids, output_ids, recorded, line, state,
     request, params, other_tapes, no_gradient_inputs, singular)
    ("convert", tensor_id, origin, python_type, escape_seq, line, state)
    ("read", variable_id, line, state, other_tapes)
    ("escape", value_id, how, line, state)  # how "variable": a new variable's copy
    ("variable", variable_id, initial_id_or_None, python_type, line, state)
    ("assign", variable_id, value_id_or_None, python_type, line, state)
    ("watch", tape_number, value_id, is_variable, line, state, via)
    ("tape", event, line)            # start, stop, pause, reset of the log's tape
    ("gradient", request_number)     # the request itself is in ``requests``

``state`` is the log's tape state when it happened: ``"idle"`` (not entered
yet), ``"recording"``, ``"paused"`` (inside ``stop_recording``) or
``"stopped"``; ``request`` is the number of the gradient request whose
computation ran the op, or None.
"""

from __future__ import annotations

import linecache
import sys
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.recorder import (
    AssignEvent,
    ConvertEvent,
    CotangentsReached,
    EscapeEvent,
    GradientAnswered,
    GradientAsked,
    Listener,
    OpEvent,
    ReadEvent,
    TapeEvent,
    ValueRef,
    VariableEvent,
    WatchEvent,
)
from .frames import user_location
from .log_escapes import Escapes
from .log_names import Bindings
from .log_requests import Requests
from .previews import glimpse, summary
from .recorders import ENGINE, Surface

__all__ = ["LIVE_LOGS", "ExplainLog"]

# Every explanation log alive (held weakly: a log lives as long as its tape),
# so that a gradient asked in a later cell can be explained under that cell.
LIVE_LOGS: weakref.WeakSet = weakref.WeakSet()


class ExplainLog(Listener):
    """An observer that logs everything a tape's ``with`` block runs.

    Args:
        filename: the code whose line numbers the log reports (a cell's compiled
            name, or a script's path). By default, the file of the code that
            creates the log.
        label: how to name that code for people, e.g. ``"In[5]"``.
        lines: its source lines, line 1 first (for quoting in explanations).
        recorder: the surface of the recorder whose events the log hears
            (:data:`~tapemagic.graph.recorders.ENGINE` by default), through
            which it describes the objects it is handed.

    Attributes:
        events: the entries, in the order they happened (see the module docs).
        asked: the gradient requests, their answers and the cotangents of
            their sweeps (a :class:`~tapemagic.graph.log_requests.Requests`,
            written by its own methods only; :attr:`requests` is its list).
        named: what the user's names held after the code ran (a
            :class:`~tapemagic.graph.log_names.Bindings`, written only by
            :meth:`note_namespace`).
        values: tensor id -> ``(origin, shape, numpy dtype, seq or None)`` for
            every tensor an op used or made, or that was watched, escaped,
            assigned, asked about or bound to a name, in order of first sight;
            ``seq`` points at the event that made it, when the log saw that.
        variables: variable id -> the Variable, for variables the log has seen.
        first_id: tensors with a smaller id existed before the tape started.
        finite: tensor id -> whether every element is finite, for the outputs
            of ops with a singular point (log, sqrt, division, exp...).
        copies: tensor id -> the seq of the escape whose result it was made
            from, for ``tf.constant`` copies the log linked to their escape,
            and for variables made from a tensor (the escape ``"variable"``).
        made: variable id -> ``(line, python type of the initial value)`` for
            the variables created while the log listened.
        objects: tensor id -> a number per Python or NumPy object (floats,
            lists, arrays; not ints, which Python shares), for tensors
            converted from one; equal numbers mean the very same object.
        after: ids of tensors made after the tape stopped recording, outside
            the log's sight.
        assignment_of: finds where a user name was bound last; set by the
            magic (it reads the notebook's history).
        label_for: turns another cell's file name into a label (``"In[7]"``)
            for gradient requests made elsewhere; set by the magic.
        via: set by the magic while it makes its own gradient request.
        previews: tensor id -> its value as it was then, for watched tensors and
            the sources of gradient requests: a small copy that
            :func:`~tapemagic.graph.previews.preview` turns into a short text
            (see :func:`~tapemagic.graph.previews.glimpse`).
        shown: how many of :attr:`requests` were explained to the user already
            (by the ``%%tape`` view, or under a later cell).

    Example:
        >>> from tapemagic.engine import GradientTape, Variable
        >>> w, log = Variable(2.0), ExplainLog()
        >>> with GradientTape(explain=log) as tape:
        ...     y = w * w
        >>> [e[1] for e in log.events if e[0] == "op"]
        ['multiply']
    """

    def __init__(
        self,
        filename: str | None = None,
        *,
        label: str | None = None,
        lines: tuple[str, ...] | None = None,
        recorder: Surface = ENGINE,
    ) -> None:
        if filename is None:
            filename, _ = user_location()
        self.recorder = recorder
        self.filename = filename
        self.label = label
        self.lines = lines
        # A weak reference to the tape (the tape owns its log), called for it.
        self._tape: Callable[[], Any] = _no_tape
        self.first_id: int | None = None
        self.events: list[tuple] = []
        self.values: dict[int, tuple] = {}
        self.variables: dict[int, Any] = {}  # id -> the variable
        self.finite: dict[int, bool] = {}
        self.copies: dict[int, int] = {}
        self.made: dict[int, tuple[int | None, str]] = {}
        self.objects: dict[int, int] = {}
        self.after: set[int] = set()
        self.assignment_of: Callable[[str], tuple[str, int, str] | None] | None = None
        self.label_for: Callable[[str], str | None] | None = None
        self.via: str | None = None
        self.state = "idle"
        self._tapes: dict[int, int] = {}
        self._converted: dict[int, tuple[str, int]] = {}
        # What crossed the engine's edge (a record of its own).
        self.crossed = Escapes()
        # Id ranges when the tape was not recording after it first started:
        # [first id, last id or None, paused].
        self._gaps: list[list] = []
        # The gradient requests and what the user's names held: records of
        # their own, each written by its own methods only.
        self.asked = Requests()
        self.named = Bindings()
        # Small copies of values shown as previews (see glimpse), formatted
        # only when a view asks for them.
        self.previews: dict[int, np.ndarray | str] = {}
        # (min, max, norm, first values) of the values previewed (previews.summary).
        self.summaries: dict[int, tuple | None] = {}
        self.shown = 0
        LIVE_LOGS.add(self)

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
        self._tape = weakref.ref(tape)
        self._tapes[id(tape)] = 0

    @property
    def tape(self) -> Any:
        """The log's own tape (None before ``bind`` or once the tape is gone).

        Held weakly, so a tape and its log never form a cycle that only the
        garbage collector could free.
        """
        return self._tape()

    def version(self) -> tuple:
        """What changes whenever the log hears more: compare two to know
        whether a model built from the log is still current."""
        return (
            len(self.events),
            len(self.values),
            len(self.asked.requests),
            self.asked.open,
            len(self.asked.cotangents),
            self.named.noted,
        )

    def tape_number(self, tape: Any) -> int:
        """0 for the log's own tape; 1, 2, ... for other tapes, as first seen."""
        key = id(tape)
        number = self._tapes.get(key)
        if number is None:
            number = self._tapes[key] = len(self._tapes) + (self.tape is None)
        return number

    def _line(self, skip: int = 2) -> int | None:
        # The innermost frame running the logged code: start ``skip`` frames up
        # from the hook (above the engine call that invoked it) and walk outwards.
        filename = self.filename
        frame = sys._getframe(skip)
        while frame is not None:
            if frame.f_code.co_filename == filename:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def see(self, ref: ValueRef) -> None:
        """Note a tensor or variable (a :class:`ValueRef`) the log may not know."""
        entry = self.values.get(ref.id)
        if entry is None or (ref.variable is not None and entry[0] != "variable"):
            self._first_seen(ref.id, ref.value, ref.variable)
        elif ref.variable is not None:
            self.variables.setdefault(ref.id, ref.variable)

    def _first_seen(self, key: int, value: Any, variable: Any = None) -> None:
        # A tensor the log did not see being made: a variable, something from
        # before the tape started, or a constant made without an op.
        if variable is not None:
            self.variables.setdefault(key, variable)
            origin = "variable"
        elif key in self.variables:
            origin = "variable"
        elif key in self._converted:
            origin, seq = self._converted.pop(key)
            self.values[key] = (origin, value.shape, value.dtype, seq)
            return
        elif self.first_id is None or key < self.first_id:
            origin = "outside"
        elif self.asked.current is None and self._made_after_stop(key):
            origin = "unknown"
            self.after.add(key)
        else:
            origin = "constant"
            self._link_constant(key, value)
        self.values[key] = (origin, value.shape, value.dtype, None)

    def _made_after_stop(self, key: int) -> bool:
        # Made in a gap after the tape stopped (not in a stop_recording pause).
        for start, end, paused in self._gaps:
            if start < key and (end is None or key < end):
                return not paused
        return False

    def _link_constant(self, key: int, value: Any) -> None:
        # tf.constant converts its value into a tensor the log hears about,
        # then returns a new tensor holding the same array (or a copy of it,
        # made right after): link the returned tensor to that conversion.
        made = self.crossed.constant_of(key, value)
        if made is None:
            return
        tensor_id, seq = made
        escape = self.events[seq][4]
        if escape is not None:
            self.copies[key] = escape
        number = self.objects.get(tensor_id)
        if number is not None:
            self.objects[key] = number

    # -- events ----------------------------------------------------------------
    def on_op(self, event: OpEvent) -> None:
        """An op ran (recorded on a tape or not)."""
        # (The hottest hook: one unpacking instead of an attribute per field.)
        info, params, input_ids, output_ids, input_values, output_values, tapes = event
        values = self.values
        for key in input_ids:
            if key not in values:
                self._first_seen(key, input_values[input_ids.index(key)])
        tape = self._tape()
        recorded = tape is not None and tape in tapes
        others = ()
        if len(tapes) > recorded:
            others = tuple([self.tape_number(t) for t in tapes if t is not tape])
        name, differentiable, singular, blocked = info
        # The engine calls this hook from op._announce, itself called by the op's
        # function (or a custom gradient's wrapper): the line search (_line,
        # inlined) starts at that function's caller, since each frame looked at
        # costs a frame object.
        filename = self.filename
        frame = sys._getframe(3)
        while frame is not None:
            if frame.f_code.co_filename == filename:
                line = frame.f_lineno
                break
            frame = frame.f_back
        else:
            line = None
        events = self.events
        seq = len(events)
        events.append(
            (
                "op",
                name,
                differentiable,
                input_ids,
                output_ids,
                recorded,
                line,
                self.state,
                self.asked.current,
                params,
                others,
                blocked,
                singular,
            )
        )
        if len(output_ids) == 1:
            value = output_values[0]
            values[output_ids[0]] = ("op", value.shape, value.dtype, seq)
            if singular and value.dtype.kind in "fc":
                self.finite[output_ids[0]] = bool(np.isfinite(value).all())
            return
        for key, value in zip(output_ids, output_values):
            values[key] = ("op", value.shape, value.dtype, seq)
            if singular and value.dtype.kind in "fc":
                self.finite[key] = bool(np.isfinite(value).all())

    def on_convert(self, event: ConvertEvent) -> None:
        """A Python or NumPy value became a tensor (as an op input or a constant)."""
        value, how, tensor = event
        seq = len(self.events)
        escape = self.crossed.escape_of(value)
        if escape is None and how == "constant" and self.events:
            # tf.constant(tensor) announces its copy just before converting it.
            last = self.events[-1]
            if last[0] == "escape" and last[2] == "constant":
                escape = seq - 1
        if how == "constant":
            origin = "constant"
            self.crossed.made_constant(tensor.value, tensor.id, seq)
        elif isinstance(value, (np.ndarray, np.generic)):
            origin = "numpy"
        else:
            origin = "python"
        self._note_object(tensor.id, value)
        self.events.append(
            (
                "convert",
                tensor.id,
                origin,
                type(value).__name__,
                escape,
                self._line(),
                self.state,
            )
        )
        # The value joins `values` when it is first used: tf.constant makes
        # an intermediate tensor that is never used.
        self._converted[tensor.id] = (origin, seq)

    def _note_object(self, key: int, value: Any) -> None:
        # The same float, list or array converted again is one object; Python
        # ints are shared (small ones are cached), so never linked.
        if isinstance(value, (bool, int)) or self.recorder.describe(value) is not None:
            return
        self.objects[key] = self.crossed.number(value)

    def on_variable_read(self, event: ReadEvent) -> None:
        """A variable was read (by an op, ``read_value``, ``convert_to_tensor``...)."""
        seq = len(self.events)
        var = event.variable
        key, tape = var.id, self.tape
        self.variables.setdefault(key, var.variable)
        others = tuple([self.tape_number(t) for t in event.tapes if t is not tape])
        self.events.append(("read", key, self._line(), self.state, others))
        entry = self.values.get(key)
        if entry is None or entry[0] != "variable":
            self.values[key] = ("variable", var.shape, var.dtype, seq)

    def on_escape(self, event: EscapeEvent) -> None:
        """A value left the engine (``.numpy()``, ``float()``, a copy...)."""
        value = event.value
        self.see(value)
        seq = len(self.events)
        self.events.append(("escape", value.id, event.how, self._line(), self.state))
        self.crossed.left(event.result, seq)

    def on_assign(self, event: AssignEvent) -> None:
        """``var.assign(value)`` (also ``assign_add``/``assign_sub``) ran."""
        var = event.variable
        self.see(var)
        self.events.append(
            (
                "assign",
                var.id,
                event.value_id,
                event.python_type,
                self._line(),
                self.state,
            )
        )

    def on_variable(self, event: VariableEvent) -> None:
        """A variable was created; one made from a tensor copies it (an escape)."""
        var, initial = event.variable, event.initial
        self.see(var)
        line = self._line()
        self.made[var.id] = (line, event.python_type)
        source = getattr(event, "source", None)
        if initial is None and source is not None:
            self._note_object(var.id, source)
        if initial is not None:
            self.see(initial)
            self.copies[var.id] = len(self.events)
            self.events.append(("escape", initial.id, "variable", line, self.state))
        self.events.append(
            ("variable", var.id, initial and initial.id, event.python_type, line,
             self.state)
        )  # fmt: skip

    def on_watch(self, event: WatchEvent) -> None:
        """``tape.watch`` was called on one tensor or variable."""
        item = event.value
        self.see(item)
        self.previews[item.id] = glimpse(item.value)
        self.summaries[item.id] = summary(item.value)
        self.events.append(
            (
                "watch",
                self.tape_number(event.tape),
                item.id,
                item.variable is not None,
                None if self.via is not None else self._line(),
                self.state,
                self.via,  # %%tape's --watch, or None for a tape.watch call
            )
        )

    def on_tape(self, event: TapeEvent) -> None:
        """The log's own tape started, stopped, paused or was reset."""
        if event.tape is not self.tape:
            return  # another tape's: the log follows its own only
        kind = event.kind
        if kind == "start":
            if self.first_id is None:
                # Ids come from one counter: everything made from here on has a
                # larger id, everything older a smaller one.
                self.first_id = event.mark
            elif self._gaps and self._gaps[-1][1] is None:
                self._gaps[-1][1] = event.mark
            self.state = "recording"
        elif kind == "stop":
            self.state = "stopped"
            if self.first_id is not None:
                self._gaps.append([event.mark, None, False])
        elif kind == "pause":
            self.state = "paused"
            if self._gaps and self._gaps[-1][1] is None:
                self._gaps[-1][2] = True
        self.events.append(("tape", kind, self._line()))

    def on_gradient_asked(self, event: GradientAsked) -> None:
        """A gradient request starts; ops until its answer belong to it."""
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
        code = None
        if filename is not None and self.via is None:
            code = linecache.getline(filename, line).strip() or None
        number = self.asked.ask(
            {
                "kind": event.kind,
                "tape": self.tape_number(event.tape),
                "where": where,
                "line": line,
                "code": code,
                "here": here,
                "via": self.via,
                "targets": (),
                "sources": (),
                "results": (),
                "error": None,
                "unconnected": event.unconnected,
                "output_gradients": event.output_gradients,
            }
        )
        self.events.append(("gradient", number))

    def on_gradient_answered(self, event: GradientAnswered) -> None:
        """A gradient request finished with its results, or raised."""
        number = self.asked.close()
        # What a target that is not a tensor was, and the escape (float(),
        # .numpy()...) that handed it to the user, when the log saw it.
        kinds, escapes = [], []
        for ref, obj in zip(event.targets, getattr(event, "target_objects", ())):
            kinds.append(None if ref is not None else type(obj).__name__)
            escapes.append(None if ref is not None else self.crossed.escape_of(obj))
        answered = {
            "targets": self._ids(event.targets),
            "sources": self._ids(event.sources),
            "source_paths": tuple(getattr(event, "source_paths", ())),
            "target_types": tuple(kinds),
            "target_escapes": tuple(escapes),
        }
        error = event.error
        if error is not None:
            answered["error"] = f"{type(error).__name__}: {error}"
            self.asked.answer(number, answered, None)
            return
        results = event.results
        self.asked.answer(number, answered, results)
        for item, g in zip(event.sources, results):
            if item is not None:
                self.previews[item.id] = glimpse(item.value)
                self.summaries[item.id] = summary(item.value)
                if g is not None:
                    self.asked.result(number, item.id, g)
        self.asked.flush_norms()

    def on_cotangents(self, event: CotangentsReached) -> None:
        """The backward sweep reached these ops with these cotangents."""
        self.asked.reached(event.reached, self.values)
        self.asked.flowed(event.flowed, self.values)

    def _ids(self, refs: tuple) -> tuple:
        ids = []
        for ref in refs:
            if ref is None:
                ids.append(None)
            else:
                self.see(ref)
                ids.append(ref.id)
        return tuple(ids)

    @property
    def requests(self) -> list[dict]:
        """One dict per gradient request (see :class:`Requests`)."""
        return self.asked.requests

    # -- after the cell ------------------------------------------------------
    def note_namespace(self, before: dict, after: dict) -> None:
        """Record what the user's names held before and after the code ran
        (see :meth:`~tapemagic.graph.log_names.Bindings.note`)."""
        self.named.note(before, after, self)


def _no_tape() -> None:
    """What an unbound log's tape reference gives."""
    return None
