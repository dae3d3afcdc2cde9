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
    ("watch", tape_number, value_id, is_variable, line, state)
    ("tape", event, line)            # start, stop, pause, reset of the log's tape
    ("gradient", request_number)     # the request itself is in ``requests``

``state`` is the log's tape state when it happened: ``"idle"`` (not entered
yet), ``"recording"``, ``"paused"`` (inside ``stop_recording``) or
``"stopped"``; ``request`` is the number of the gradient request whose
computation ran the op, or None.
"""

from __future__ import annotations

import linecache
import math
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
from .recorders import ENGINE, Surface

__all__ = ["LIVE_LOGS", "ExplainLog", "preview", "user_location", "user_namespace"]

# Packages whose frames are never "the user's line".
_INTERNAL = ("tapemagic.", "IPython.", "ipykernel.")

# How many escaped objects the log keeps to recognise them when they come back.
_ESCAPES_KEPT = 256

# User names that held a Variable at the end of a %%tape cell (name -> the
# variable's id, name, shape and dtype): a later cell finding a plain tensor
# under that name knows the name was rebound in between (``w = w - lr * g`` in
# a plain cell), whether or not the variable itself still exists.
_NAMED_VARIABLES: dict[str, tuple[int, str, tuple, np.dtype]] = {}

# Every explanation log alive (held weakly: a log lives as long as its tape),
# so that a gradient asked in a later cell can be explained under that cell.
LIVE_LOGS: weakref.WeakSet = weakref.WeakSet()


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


def user_namespace() -> dict:
    """The names of the innermost frame that is not tapemagic or IPython.

    Returns:
        Its globals updated with its locals; empty when every frame is internal.

    Example:
        >>> scope = {"__name__": "__main__", "user_namespace": user_namespace}
        >>> exec("answer = 42; found = user_namespace()['answer']", scope)
        >>> scope["found"]
        42
    """
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != "tapemagic" and not name.startswith(_INTERNAL):
            return {**frame.f_globals, **frame.f_locals}
        frame = frame.f_back
    return {}


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
        requests: one dict per gradient request (kind, tape, targets, sources,
            results, error, line).
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
        previous: user name -> the id of the tensor or variable it held before
            the code rebound it (see :meth:`note_namespace`).
        rebound_from: tensor id -> the variable's name (``"w:0"``), for a plain
            tensor bound to a user name that held that Variable at the end of
            an earlier ``%%tape`` cell.
        rebound_at: for such a tensor, where the name was bound last
            (``("In[4]", 2, "w = w - lr * g")``), when :attr:`assignment_of`
            (set by the magic, reading the notebook's history) finds it.
        bindings, names: filled in by the magic from the user namespace (see
            :meth:`note_namespace`).
        label_for: turns another cell's file name into a label (``"In[7]"``)
            for gradient requests made elsewhere; set by the magic.
        via: set by the magic while it makes its own gradient request.
        cotangents: ``(request number, tensor id, shape, norm, is_result)`` for
            the cotangent reaching each node of a request's backward sweep, in
            sweep order, then one per source for the gradient it got.
        previews: tensor id -> its value as it was then, for watched tensors and
            the sources of gradient requests: a small copy that :func:`preview`
            turns into a short text (see :func:`_glimpse`).
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
        self.requests: list[dict] = []
        self.values: dict[int, tuple] = {}
        self.variables: dict[int, Any] = {}  # id -> the variable
        self.finite: dict[int, bool] = {}
        self.copies: dict[int, int] = {}
        self.made: dict[int, tuple[int | None, str]] = {}
        self.objects: dict[int, int] = {}
        self.after: set[int] = set()
        self.previous: dict[str, int] = {}
        self.rebound_from: dict[int, str] = {}
        self.rebound_at: dict[int, tuple[str, int, str]] = {}
        self.assignment_of: Callable[[str], tuple[str, int, str] | None] | None = None
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
        # What tf.constant / convert_to_tensor made, as (array, tensor id,
        # convert seq), by id of the array and by tensor id: tf.constant returns
        # a new tensor holding that array, or a copy of it made right after.
        self._made_arrays: dict[int, tuple[Any, int, int]] = {}
        self._made_tensors: dict[int, tuple[Any, int, int]] = {}
        # Python and NumPy objects converted (id -> the object, its number).
        self._sources: dict[int, tuple[Any, int]] = {}
        # Id ranges when the tape was not recording after it first started:
        # [first id, last id or None, paused].
        self._gaps: list[list] = []
        self.cotangents: list[tuple] = []
        # Cotangents whose norms are still to be computed, in one NumPy pass
        # per gradient request (or per _NORM_BATCH_BYTES): their positions in
        # self.cotangents, where they hold the array in the norm's place.
        self._unnormed: list[int] = []
        self._unnormed_bytes = 0
        # Small copies of values shown as previews (see _glimpse), formatted
        # only when a view asks for them.
        self.previews: dict[int, np.ndarray | str] = {}
        self.shown = 0
        self._namespaces_noted = 0
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
            len(self.requests),
            len(self._pending),
            len(self.cotangents),
            self._namespaces_noted,
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
        elif self._request is None and self._made_after_stop(key):
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
        made = self._made_arrays.get(id(value))
        if made is None or made[0] is not value:
            made = self._made_tensors.get(key - 1)
            if made is None or not (
                made[0].shape == value.shape
                and made[0].dtype == value.dtype
                and np.array_equal(made[0], value, equal_nan=value.dtype.kind in "fc")
            ):
                return
        _, tensor_id, seq = made
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
                self._request,
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
        kept = self._escaped.get(id(value))
        escape = kept[1] if kept is not None and kept[0] is value else None
        if escape is None and how == "constant" and self.events:
            # tf.constant(tensor) announces its copy just before converting it.
            last = self.events[-1]
            if last[0] == "escape" and last[2] == "constant":
                escape = seq - 1
        if how == "constant":
            origin = "constant"
            made = (tensor.value, tensor.id, seq)
            _remember(self._made_arrays, id(tensor.value), made)
            _remember(self._made_tensors, tensor.id, made)
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
        kept = self._sources.get(id(value))
        if kept is None or kept[0] is not value:
            kept = (value, len(self._sources) + 1)
            _remember(self._sources, id(value), kept)
        self.objects[key] = kept[1]

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
        # Python ints are shared objects (small ones are cached), so only arrays,
        # NumPy scalars and floats can be recognised when they come back.
        result = event.result
        if result is not None and not isinstance(result, int):
            _remember(self._escaped, id(result), (result, seq))

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
        self.previews[item.id] = _glimpse(item.value)
        self.events.append(
            (
                "watch",
                self.tape_number(event.tape),
                item.id,
                item.variable is not None,
                self._line(),
                self.state,
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
        number = len(self.requests)
        code = None
        if filename is not None and self.via is None:
            code = linecache.getline(filename, line).strip() or None
        self.requests.append(
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
        self._pending.append(number)
        self._request = number

    def on_gradient_answered(self, event: GradientAnswered) -> None:
        """A gradient request finished with its results, or raised."""
        self._flush_norms()
        number = self._pending.pop()
        self._request = self._pending[-1] if self._pending else None
        request = self.requests[number]
        request["targets"] = self._ids(event.targets)
        request["sources"] = self._ids(event.sources)
        request["source_paths"] = tuple(getattr(event, "source_paths", ()))
        # What a target that is not a tensor was, and the escape (float(),
        # .numpy()...) that handed it to the user, when the log saw it.
        kinds, escapes = [], []
        for ref, obj in zip(event.targets, getattr(event, "target_objects", ())):
            kept = None if ref is not None else self._escaped.get(id(obj))
            kinds.append(None if ref is not None else type(obj).__name__)
            escapes.append(kept[1] if kept is not None and kept[0] is obj else None)
        request["target_types"] = tuple(kinds)
        request["target_escapes"] = tuple(escapes)
        error = event.error
        if error is not None:
            request["error"] = f"{type(error).__name__}: {error}"
            return
        results = event.results
        request["results"] = tuple(_summary(g) for g in results)
        request["flags"] = tuple(_flags(g) for g in results)
        for item, g in zip(event.sources, results):
            if item is not None:
                self.previews[item.id] = _glimpse(item.value)
                if g is not None:
                    self._add_cotangent(number, item.id, g, True)
        self._flush_norms()

    def on_cotangents(self, event: CotangentsReached) -> None:
        """The backward sweep reached these ops with these cotangents."""
        if not self._pending:
            return
        number = self._pending[-1]
        values, cotangents, unnormed = self.values, self.cotangents, self._unnormed
        held = 0
        for output_ids, g in event.reached:
            if type(g) is not tuple:  # one output: the common case
                key = output_ids[0]
                if key in values:
                    unnormed.append(len(cotangents))
                    cotangents.append((number, key, g.shape, g, False))
                    held += g.nbytes
                continue
            for key, array in zip(output_ids, g):
                if key in values:
                    self._add_cotangent(number, key, array, False)
        self._unnormed_bytes += held
        if self._unnormed_bytes > _NORM_BATCH_BYTES:
            self._flush_norms()

    def _add_cotangent(self, number: int, key: int, array: Any, result: bool) -> None:
        cotangents = self.cotangents
        self._unnormed.append(len(cotangents))
        cotangents.append((number, key, array.shape, array, result))
        self._unnormed_bytes += array.nbytes
        if self._unnormed_bytes > _NORM_BATCH_BYTES:
            self._flush_norms()

    def _flush_norms(self) -> None:
        """Put the norms of the kept cotangents in their place, and drop them."""
        if not self._unnormed:
            return
        cotangents = self.cotangents
        norms = _norms([cotangents[i][3] for i in self._unnormed])
        for i, norm in zip(self._unnormed, norms):
            number, key, shape, _, result = cotangents[i]
            cotangents[i] = (number, key, shape, norm, result)
        self._unnormed = []
        self._unnormed_bytes = 0

    def _ids(self, refs: tuple) -> tuple:
        ids = []
        for ref in refs:
            if ref is None:
                ids.append(None)
            else:
                self.see(ref)
                ids.append(ref.id)
        return tuple(ids)

    # -- after the cell ------------------------------------------------------
    def note_namespace(self, before: dict, after: dict) -> None:
        """Record what the user's names held before and after the code ran.

        Args:
            before, after: name -> the object it held, for the names worth
                recording (see ``tapemagic.magic``): tensors, variables, and
                names that held one of them before.
        """
        describe = self.recorder.describe
        bindings = []
        names: dict[int, list[str]] = {}
        for name in sorted(set(before) | set(after)):
            old = before.get(name, _MISSING)
            new = after.get(name, _MISSING)
            old_ref, new_ref = describe(old), describe(new)
            if old_ref is not None and old_ref.variable is None:
                held = _NAMED_VARIABLES.get(name)
                if held is not None and old_ref.id in self.values:
                    # Made after the variable, with its shape and dtype: most
                    # likely computed from it (w = w - lr * g).
                    var_id, var_name, shape, dtype = held
                    same = old_ref.shape == shape and old_ref.dtype == dtype
                    if same and old_ref.id > var_id:
                        self.rebound_from[old_ref.id] = var_name
                        if self.assignment_of is not None:
                            found = self.assignment_of(name)
                            if found is not None:
                                self.rebound_at[old_ref.id] = found
            if old is not new:
                if old_ref is not None:
                    # What the name held before (a source list may still hold it).
                    self.see(old_ref)
                    self.previous[name] = old_ref.id
                if new_ref is not None:
                    self.see(new_ref)
                bindings.append(
                    (
                        name,
                        None if new_ref is None else new_ref.id,
                        _kind(new, new_ref),
                        _kind(old, old_ref),
                        None if new is _MISSING else type(new).__name__,
                    )
                )
            if new_ref is not None and new_ref.id in self.values:
                names.setdefault(new_ref.id, []).append(name)
        self.bindings = tuple(bindings)
        self._namespaces_noted += 1
        self.names = {key: tuple(value) for key, value in names.items()}
        # Remember which names hold a Variable now; a name rebound to a plain
        # tensor keeps its entry, so the next cell can still tell.
        for name, new in after.items():
            ref = describe(new)
            if ref is not None and ref.variable is not None:
                _NAMED_VARIABLES[name] = (ref.id, new.name, ref.shape, ref.dtype)


_MISSING = object()


def _no_tape() -> None:
    """What an unbound log's tape reference gives."""
    return None


def _kind(obj: Any, ref: ValueRef | None) -> str | None:
    if obj is _MISSING:
        return None
    if ref is not None:
        return "tensor" if ref.variable is None else "variable"
    if isinstance(obj, (np.ndarray, np.generic)):
        return "numpy"
    if isinstance(obj, (bool, int, float, complex)):
        return "python"
    return "other"


def _remember(kept: dict, key: int, entry: tuple) -> None:
    """Keep ``entry`` under ``key``, forgetting the oldest beyond a bound."""
    if len(kept) >= _ESCAPES_KEPT and key not in kept:
        del kept[next(iter(kept))]
    kept[key] = entry


def _flags(g: Any) -> tuple[bool, bool, bool]:
    """``(has NaN, has Inf, all zeros)`` of one gradient result (an array)."""
    if g is None:
        return (False, False, False)
    array = np.asarray(g)
    if array.dtype.kind not in "fc":
        return (False, False, not array.any())
    return (bool(np.isnan(array).any()), bool(np.isinf(array).any()), not array.any())


def _summary(g: Any) -> tuple:
    """``(is_none, shape, numpy dtype, glimpse)`` of one gradient result."""
    if g is None:
        return (True, None, None, None)
    array = np.asarray(g)
    return (False, array.shape, array.dtype, _glimpse(array))


_EDGE = 3  # items shown at each end of a long axis
_THRESHOLD = 8  # arrays with more items than this are elided


def preview(array: Any) -> str:
    """A value on one short line: ``[[1., 2.], [3., 4.]]``, elided past 8 items.

    Args:
        array: an array (or what :func:`_glimpse` kept of one; text passes
            through).

    Returns:
        The text.

    Example:
        >>> preview(np.arange(12.0))
        '[ 0., 1., 2., ..., 9., 10., 11.]'
    """
    if isinstance(array, str):
        return array
    text = np.array2string(
        np.asarray(array),
        precision=4,
        threshold=_THRESHOLD,
        edgeitems=_EDGE,
        separator=", ",
    )
    return " ".join(text.split())


def _glimpse(array: Any) -> np.ndarray | str:
    """A small copy of ``array`` with the same :func:`preview`, to format later.

    Formatting costs tens of microseconds, so the log keeps what the preview
    shows instead of the text: an elided preview shows and takes its number
    format from the first and last three items of each axis, so any axis
    longer than nine keeps those and three of its middle items (which keeps the
    copy elided). Values too big even so are formatted at once.
    """
    a = np.asarray(array)
    if a.size <= _THRESHOLD:
        return a.copy()
    if math.prod(min(n, 3 * _EDGE) for n in a.shape) > 4096:
        return preview(a)
    for axis, n in enumerate(a.shape):
        if n > 3 * _EDGE:
            middle = n // 2 - 1
            keep = [*range(_EDGE), middle, middle + 1, middle + 2,
                    *range(n - _EDGE, n)]  # fmt: skip
            a = np.take(a, keep, axis=axis)
    return a.copy() if a is array else a


# The log keeps cotangents for their norms only until this many bytes are held.
_NORM_BATCH_BYTES = 1 << 20


def _norms(arrays: list) -> list[float]:
    """Frobenius norms of several arrays, in one NumPy pass over all of them.

    NaN or inf in an array gives a NaN or inf norm; an empty array's is 0.
    A backward sweep reaches hundreds of small cotangents: a NumPy call each
    would cost more than the sweep.
    """
    flat = [a.ravel() for a in arrays]  # arrays and NumPy scalars alike
    sizes = np.array([f.size for f in flat], dtype=np.intp)
    # in double precision: float32 squares under- and overflow long before
    # the norms they add up to would
    values = np.concatenate(flat)
    values = values.astype(np.result_type(values.dtype, np.float64), copy=False)
    if values.dtype.kind == "c":
        squares = values.real * values.real + values.imag * values.imag
    else:
        squares = values * values
    sums = np.zeros(len(flat), dtype=squares.dtype)
    filled = sizes > 0
    if filled.any():
        starts = np.cumsum(sizes) - sizes
        sums[filled] = np.add.reduceat(squares, starts[filled])
    return np.sqrt(sums).tolist()
