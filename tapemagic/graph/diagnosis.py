"""Why a gradient is None: the cause, the place and the fix, from the graph model.

:func:`diagnose` reads only a :class:`~tapemagic.graph.model.Graph` (never the
engine, never a tensor) and returns :class:`~tapemagic.graph.findings.Finding`
objects: for every gradient that came out None, or zeros standing for None
under ``UnconnectedGradients.ZERO``, one finding per place where the path from
the source to the target broke; and a warning for every gradient holding NaN
or Inf. It explains results and never changes them.

Three reachability questions answer almost everything:

1. Which values was the target computed from (through ops, through values
   copied out of the engine and back, and through assignments to variables),
   whatever the tape recorded? A source outside that set is not linked to the
   target at all.
2. Which values could a gradient reach from the source through ops that have
   one? Where that set meets the target's inputs but stops short of the target,
   the path broke for good: an op without a gradient, a cast to an integer, a
   copy to NumPy, an assignment.
3. Which values did the asked tape record from the source? Where that set
   stops short of question 2's, the tape was paused, stopped, reset, never
   watched the source, or another tape was asked.

Messages name values as the user does: their names after the cell ran, the
expressions in the ``gradient(...)`` call, the name a line assigns, and quote
the cell line where the path broke. A gradient call repeated in a loop is
explained once per source and call site.

Where the model cannot be sure, the sentence says what it saw and hedges: a
tensor made before the tape started may or may not come from the source (only
values made after the source are suspected, "if h depends on w, ..."); the
tensor added by ``assign_add``/``assign_sub`` is taken to be the value computed
on that line just before; a value copied out by a NumPy function that returns
a new array is tied to its copy by time only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .findings import Finding, Findings
from .model import GradientRequest, GradientResult, Graph, OpNode
from .source import assigned_name, gradient_call, in_place_update, option_call

__all__ = ["assert_no_none_gradients", "diagnose"]

_COMPARISONS = {
    "equal": "==",
    "not_equal": "!=",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
}

_CODE_SHOWN = 60


def diagnose(
    graph: Graph, target: Any = None, sources: Any = None
) -> tuple[Finding, ...]:
    """Explain every None (and NaN) gradient of a tape's graph model.

    Args:
        graph: the model of one tape, built with its explanation log.
        target: a value id (``"t5"``) or user name (``"loss"``), or a list of
            them; None for every gradient request in the model.
        sources: the same, for the sources; None for all of them.

    Returns:
        The findings, in the order of the requests and sources. With
        ``target`` or ``sources`` given, a pair no request asked about yet is
        predicted: it gets findings when its gradient would be None.

    Example:
        >>> from tapemagic.graph.model import (
        ...     Cell, GradientRequest, GradientResult, OpNode, TapeInfo, Value)
        >>> g = Graph(
        ...     tape=TapeInfo("tape", False, True, "answered", True),
        ...     cell=Cell("In[1]", None, ("%%tape", "c = tf.constant(2.0)",
        ...                               "y = c * c", "g = tape.gradient(y, c)")),
        ...     values=(Value("t1", "constant", (), "float32", True, names=("c",)),
        ...             Value("t2", "op", (), "float32", True, 3, op="op1",
        ...                   names=("y",))),
        ...     ops=(OpNode("op1", 2, "multiply", ("t1", "t1"), ("t2",), True,
        ...                 False, 3, "recording"),),
        ...     gradients=(GradientRequest("g1", 4, "gradient", 0, ("t2",),
        ...                ("t1",), (GradientResult("t1", True),), line=4,
        ...                here=True),),
        ... )
        >>> (finding,) = diagnose(g)
        >>> finding.cause, finding.line
        ('not_watched', 3)
        >>> print(finding.message)
        c: None because c is a constant and was never watched, so the tape did \
not record its use at line 3 (y = c * c).
    """
    if not graph.tape.explained:
        return ()
    facts = _Facts(graph)
    found: list[Finding] = []
    seen: set[tuple] = set()
    sites: set[tuple] = set()
    for query in facts.queries(target, sources):
        # A gradient call in a loop asks the same question each time round:
        # explain it once per source and call site.
        site = facts.site(query)
        if site in sites:
            continue
        sites.add(site)
        for finding in facts.explain(query):
            key = (
                finding.source,
                finding.target,
                finding.cause,
                finding.op_name,
                finding.line,
            )
            if key not in seen:
                seen.add(key)
                found.append(finding)
    return tuple(found)


def assert_no_none_gradients(
    tape: Any, target: Any = None, sources: Any = None
) -> None:
    """Raise if a gradient of ``tape`` is (or would be) None, saying why.

    Meant for autograded exercises: the error lists each cause with its fix.
    NaN or Inf gradients are not None and do not raise.

    Args:
        tape: a ``GradientTape`` with an explanation log (a ``%%tape`` cell's
            tape, or ``GradientTape(explain=True)``), or a graph model.
        target, sources: what to check, as for ``tape.explain``; None checks
            every gradient asked so far.

    Raises:
        AssertionError: listing the findings, when a gradient is None.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> assert_no_none_gradients(Graph(TapeInfo("t", False, True, "new", True),
        ...                                Cell(None, None)))
    """
    if isinstance(tape, Graph):
        findings = Findings(diagnose(tape, target, sources))
    else:
        findings = Findings(tape.explain(target, sources))
    errors = findings.errors
    if errors:
        count = len(errors)
        head = "1 gradient is None" if count == 1 else f"{count} None gradients found"
        lines = "\n".join(f"- {f.message} {f.fix}" for f in errors)
        raise AssertionError(f"{head}:\n{lines}")


@dataclass(frozen=True)
class _Query:
    """One source of one gradient request (or of a predicted one)."""

    source: str
    targets: tuple[str, ...]
    tape: int
    before: float
    request: GradientRequest | None = None
    result: GradientResult | None = None
    index: int = 0


@dataclass
class _Break:
    """Where a path broke: the cause and the event (op, escape, assign) there."""

    cause: str
    op: OpNode | None = None
    line: int | None = None
    seq: float = math.inf
    detail: Any = None
    value: str | None = None


class _Facts:
    """Indexes over one graph model, and the reasoning that reads them."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.index = index = graph.index
        self.values = index.values
        self.escapes = index.escapes
        self.forward_ops = index.forward_ops
        self.resets = index.resets
        self.names = _Names(self)

    # -- the questions ---------------------------------------------------------
    def queries(self, target: Any, sources: Any) -> list[_Query]:
        graph = self.graph
        targets = self._resolve(target)
        wanted = self._resolve(sources)
        queries = []
        covered: set[tuple] = set()
        for request in graph.gradients:
            if request.error is not None:
                continue
            if targets is not None and not set(targets) & set(request.targets):
                continue
            ys = tuple(t for t in request.targets if t is not None)
            for index, (source, result) in enumerate(
                zip(request.sources, request.results)
            ):
                if source is None or (wanted is not None and source not in wanted):
                    continue
                covered.add((source, ys))
                queries.append(
                    _Query(
                        source, ys, request.tape, request.seq, request, result, index
                    )
                )
        if targets is None and wanted is None:
            return queries
        ys = tuple(targets) if targets is not None else graph.targets
        if not ys:
            return queries
        candidates = wanted if wanted is not None else [s.value for s in graph.sources]
        for source in candidates:
            if (source, ys) not in covered and all(
                source not in r.sources or set(ys) != set(r.targets)
                for r in graph.gradients
                if r.error is None
            ):
                queries.append(_Query(source, ys, 0, math.inf))
        return queries

    def site(self, q: _Query) -> tuple:
        """What makes two questions the same: source, call site and answer."""
        request, result = q.request, q.result
        if request is None or request.line is None:
            return (q.source, q.targets, q.before)
        flags = (result.none, result.zero, result.nan, result.inf)
        name = self.names.of(q.source, q)
        return (name, request.where, request.line, request.via, q.index, flags)

    def _resolve(self, spec: Any) -> list[str] | None:
        if spec is None:
            return None
        items = [spec] if isinstance(spec, str) else list(_flatten(spec))
        ids = []
        for item in items:
            if item is None:
                continue
            if item in self.values:
                ids.append(item)
                continue
            named = [v.id for v in self.graph.values if item in v.names]
            if not named:
                named = [
                    v.id
                    for v in self.graph.values
                    if v.variable is not None and v.variable.split(":")[0] == item
                ]
            if not named:
                raise KeyError(
                    f"{item!r} is neither a value id nor a name the tape saw; pass a "
                    "tensor or variable used inside the tape, or its name."
                )
            ids.append(named[-1])
        return ids

    def explain(self, q: _Query) -> list[Finding]:
        if not q.targets or q.source in q.targets:
            return []  # gradient(x, x) is ones
        result = q.result
        if result is None:
            if self.connected(q):
                return []
            return self.why_none(q)
        if result.none:
            return self.why_none(q)
        request = q.request
        stands_for_none = result.zero and (
            request.unconnected == "zero" or request.kind == "batch_jacobian"
        )
        if stands_for_none and not self.connected(q):
            return self.why_none(q)
        if result.nan or result.inf:
            return [self.nan_finding(q)]
        return []

    # -- reachability ------------------------------------------------------------
    def reset_before(self, q: _Query) -> int:
        if q.tape != 0:
            return -1
        return max((s for s in self.resets if s < q.before), default=-1)

    def recorded_on(self, op: OpNode, tape: int) -> bool:
        return self.index.recorded_on(op, tape)

    def carries(self, op: OpNode, index: int) -> bool:
        """Whether the op has a gradient for that input at all."""
        return self.index.carries(op, index)

    def forward(self, q: _Query, recorded: bool) -> set[str]:
        """Values a gradient can reach from the source; on the tape, if recorded."""
        if not recorded:
            return self.index.gradient_reach(q.source, q.before)
        return self.index.gradient_reach(
            q.source, q.before, self.reset_before(q), q.tape
        )

    def tracked(self, q: _Query, source: str | None = None) -> bool:
        """Whether the asked tape watched the source (or computed it) in time."""
        s = q.source if source is None else source
        value = self.values[s]
        reset = self.reset_before(q)
        for w in self.graph.watches:
            if w.tape == q.tape and w.value == s and reset < w.seq < q.before:
                return True
        if value.origin == "variable":
            for r in self.graph.reads:
                if r.value != s or not reset < r.seq < q.before:
                    continue
                if q.tape == 0:
                    if (
                        r.tape_state == "recording"
                        and value.trainable
                        and self.graph.tape.watch_accessed_variables
                    ):
                        return True
                elif q.tape in r.other_tapes:
                    return True
        op = self.index.producer(s)
        return (
            op is not None
            and reset < op.seq < q.before
            and self.recorded_on(op, q.tape)
            and value.differentiable
        )

    def connected(self, q: _Query) -> bool:
        if not self.values[q.source].differentiable or not self.tracked(q):
            return False
        reach = self.forward(q, recorded=True)
        return any(y in reach for y in q.targets)

    def ancestors(self, q: _Query) -> tuple[set[str], set[str], set[int]]:
        """What the targets were computed from, the escapes and assigns on the way."""
        return self.index.ancestors(q.targets, q.before)

    def descendants(self, start: str, before: float) -> set[str]:
        """Everything computed from ``start``, through ops, copies and assigns."""
        return self.index.descendants(start, before)

    # -- None: why -------------------------------------------------------------
    def why_none(self, q: _Query) -> list[Finding]:
        source = self.values[q.source]
        if not source.differentiable:
            return [self.finding(q, self.integer_source(q))]
        anc, escapes, assigns = self.ancestors(q)
        if q.source not in anc:
            return [self.finding(q, self.unlinked(q, anc))]
        found = []
        watched_cause = self.watch_cause(q)
        if watched_cause is not None:
            found.append(watched_cause)
        reach = self.forward(q, recorded=False)
        if assigns and q.source in self.index.ancestors(q.targets, q.before, False)[0]:
            # The target also depends on the source without going through a
            # variable: those paths, not the assignments, are the story (an
            # optimizer step assigning gradients is no bug).
            assigns = set()
        broken = self.breaks(q, reach, anc, escapes, assigns)
        if broken or watched_cause is not None:
            return [self.finding(q, b) for b in found + broken]
        if not self.tracked(q):
            return [self.finding(q, self.usage_cause(q, anc))]
        on_tape = self.forward(q, recorded=True)
        missed = self.recording_breaks(q, on_tape, reach, anc)
        if missed:
            return [self.finding(q, b) for b in missed]
        return [self.finding(q, self.unexplained(q, reach))]

    def breaks(self, q: _Query, reach: set[str], anc: set[str], escapes: set[str],
               assigns: set[int]) -> list[_Break]:  # fmt: skip
        """The edges leaving ``reach`` towards the target: where paths broke."""
        found: dict[tuple, _Break] = {}
        for value in sorted(reach, key=self._order):
            for op, i in self.index.uses(value):
                if op.seq >= q.before or self.carries(op, i):
                    continue
                if not any(o in anc and o not in reach for o in op.outputs):
                    continue
                found.setdefault(("op", op.id), self.op_break(op, i, value))
            for e in self.index.escapes_of.get(value, ()):
                if e.id in escapes and e.seq < q.before:
                    found.setdefault(
                        ("escape", e.id),
                        _Break("numpy_copy", None, e.line, e.seq, (e, True), value),
                    )
            for a in self.index.assigns_of.get(value, ()):
                if a.seq in assigns:
                    found.setdefault(
                        ("assign", a.seq),
                        _Break("assign_cut", None, a.line, a.seq, a, value),
                    )
        return sorted(found.values(), key=lambda b: b.seq)

    def op_break(self, op: OpNode, index: int, value: str) -> _Break:
        out = self.values[op.outputs[0]]
        if op.op == "stop_gradient":
            cause = "stop_gradient"
        elif op.op == "cast" and not out.differentiable:
            cause = "integer_cast"
        else:
            cause = "non_differentiable"
        return _Break(cause, op, op.line, op.seq, index, value)

    def recording_breaks(self, q: _Query, on_tape: set[str], reach: set[str],
                         anc: set[str]) -> list[_Break]:  # fmt: skip
        """Ops with a gradient on the path that the asked tape did not record."""
        reset = self.reset_before(q)
        found: dict[str, _Break] = {}
        for value in sorted(on_tape, key=self._order):
            for op, i in self.index.uses(value):
                if op.seq >= q.before or not self.carries(op, i):
                    continue
                if not any(o in anc and o in reach and o not in on_tape
                           for o in op.outputs):  # fmt: skip
                    continue
                if self.recorded_on(op, q.tape) and op.seq <= reset:
                    cause = "wrong_tape"
                    detail: Any = ("reset", reset)
                elif q.tape != 0:
                    cause, detail = "outside_tape", ("other", None)
                elif op.tape_state == "paused":
                    cause, detail = "stop_recording", None
                elif op.tape_state in ("stopped", "idle"):
                    cause, detail = "outside_tape", ("stopped", None)
                else:
                    cause, detail = "not_watched", ("late", value)
                found.setdefault(
                    op.id, _Break(cause, op, op.line, op.seq, detail, value)
                )
        return sorted(found.values(), key=lambda b: b.seq)

    def watch_cause(self, q: _Query) -> _Break | None:
        """Why the asked tape would not watch the source, however it is used."""
        s = q.source
        value = self.values[s]
        if self.tracked(q):
            return None
        first = self.first_use(q)
        line = first.line if first is not None else None
        seq = first.seq if first is not None else math.inf
        rebound = self.rebound(q)
        if rebound is not None:
            return rebound
        if value.origin == "variable":
            if value.trainable is False and not self._watched_anywhere(s):
                return _Break("not_trainable", first, line, seq, None, s)
            if q.tape == 0 and not self.graph.tape.watch_accessed_variables:
                return _Break("watch_accessed_off", first, line, seq, None, s)
            return None
        watches = [w for w in self.graph.watches if w.value == s]
        elsewhere = [w for w in watches if w.tape != q.tape]
        reset = self.reset_before(q)
        if q.tape == 0 and any(w.tape == 0 and w.seq < reset for w in watches):
            return _Break("wrong_tape", None, self._line_of_seq(reset), reset,
                          ("reset", reset), s)  # fmt: skip
        if any(w.tape == q.tape and w.seq > q.before for w in watches):
            late = next(w for w in watches if w.tape == q.tape and w.seq > q.before)
            return _Break("not_watched", None, late.line, late.seq,
                          ("after_request", late), s)  # fmt: skip
        if elsewhere:
            if q.tape != 0 and self.connected(_Query(s, q.targets, 0, q.before)):
                return None  # the usage cause names the tape that has the path
            w = elsewhere[0]
            return _Break("wrong_tape", None, w.line, w.seq, ("watched", w), s)
        if self.index.producer(s) is not None and self.tracked(
            _Query(s, q.targets, 0, q.before)
        ):
            return None  # computed on the %%tape tape; another tape was asked
        return _Break("not_watched", first, line, seq, ("never", None), s)

    def usage_cause(self, q: _Query, anc: set[str]) -> _Break:
        """The source would be watched, but was not used while the tape recorded."""
        s = q.source
        first = self.first_use(q)
        line = first.line if first is not None else None
        if q.tape != 0:
            home = _Query(s, q.targets, 0, q.before)
            if self.connected(home):
                return _Break("wrong_tape", None, q.request.line if q.request else None,
                              q.before, ("asked", None), s)  # fmt: skip
            return _Break("outside_tape", first, line, math.inf, ("other", None), s)
        reset = self.reset_before(q)
        reads = [
            r
            for r in self.graph.reads
            if r.value == s and r.seq < q.before and r.tape_state == "recording"
        ]
        if reads and all(r.seq < reset for r in reads):
            return _Break("wrong_tape", None, self._line_of_seq(reset), reset,
                          ("reset", reset), s)  # fmt: skip
        states = {r.tape_state for r in self.graph.reads if r.value == s}
        if "paused" in states and "recording" not in states:
            paused = next(
                r for r in self.graph.reads if r.value == s and r.tape_state == "paused"
            )
            return _Break("stop_recording", first, paused.line, paused.seq, None, s)
        return _Break("outside_tape", first, line, math.inf, ("stopped", None), s)

    def unlinked(self, q: _Query, anc: set[str]) -> _Break:
        """No computation links the source to the target: why, if we can tell."""
        s = q.source
        desc = self.descendants(s, q.before)
        fresh = [
            v
            for v in anc
            if self.values[v].origin in ("numpy", "python", "constant")
            and self.values[v].escape is None
        ]
        for e in sorted(self.graph.escapes, key=lambda e: e.seq):
            if e.value not in desc or e.seq >= q.before:
                continue
            if any(self._first_use_seq(v) > e.seq for v in fresh):
                return _Break("numpy_copy", None, e.line, e.seq, (e, False), e.value)
        value = self.values[s]
        anchor = value.same_as or s
        twins = [
            v.id for v in self.graph.values if v.id != s and anchor in (v.id, v.same_as)
        ]
        used = [v for v in twins if v in anc]
        if used:
            twin = self.values[used[0]]
            first = self._first_consumer(used[0], anc)
            line = (
                twin.line if twin.line is not None else (first.line if first else None)
            )
            return _Break("python_number", first, line, math.inf, twin, used[0])
        after = [y for y in q.targets if self.values[y].after_tape]
        if after:
            return _Break("outside_tape", None, None, math.inf, ("after", after[0]), s)
        # Made before the tape started, and after the source existed: it may
        # have been computed from it (a value older than the source cannot).
        made = self.values[s].created
        outside = [
            v
            for v in anc
            if self.values[v].origin == "outside"
            and self.values[v].differentiable
            and v != s
            and made is not None
            and (self.values[v].created or 0) > made
        ]
        used_inside = self.index.used(s) or any(
            r.value == s and r.tape_state == "recording" for r in self.graph.reads
        )
        if outside and not used_inside:
            v = sorted(outside, key=self._order)[0]
            first = self._first_consumer(v, anc)
            return _Break("outside_tape", first, first.line if first else None,
                          math.inf, ("before", v), s)  # fmt: skip
        y = q.targets[0]
        made = self.index.producer(y)
        return _Break("not_connected", None, made.line if made else None, math.inf,
                      None, s)  # fmt: skip

    def rebound(self, q: _Query) -> _Break | None:
        """A plain tensor under a name that held a Variable (``w = w - lr * g``)."""
        s = q.source
        value = self.values[s]
        if value.origin == "variable":
            return None
        if value.rebound_from is not None:
            name = self.names.of(s, q)
            return _Break("rebound_variable", None, None, math.inf,
                          (name, value.rebound_from), s)  # fmt: skip
        for b in self.graph.bindings:
            if (
                b.previous_kind != "variable"
                or b.kind != "tensor"
                or b.previous is None
            ):
                continue
            op = self.index.producer(s)
            # The name held this very tensor: bound to it at the end, or a line
            # `name = ...` made it (in a loop, an earlier turn's value).
            held = b.value == s or (
                op is not None and self.names.assigned_name(op) == b.name
            )
            if held and s in self.descendants(b.previous, math.inf):
                line = op.line if op is not None else None
                variable = self.values[b.previous].variable
                return _Break("rebound_variable", op, line, math.inf,
                              (b.name, variable), s)  # fmt: skip
        return None

    def integer_source(self, q: _Query) -> _Break:
        s = q.source
        watch = next((w for w in self.graph.watches if w.value == s), None)
        if watch is not None:
            return _Break("integer_source", None, watch.line, math.inf, "watch", s)
        first = self.first_use(q)
        line = first.line if first is not None else self.values[s].line
        return _Break("integer_source", first, line, math.inf, "use", s)

    def unexplained(self, q: _Query, reach: set[str]) -> _Break:
        """The model shows a recorded path, yet the answer was None."""
        custom = [
            op
            for op in self.graph.ops
            if op.op.startswith("custom_gradient/") and set(op.inputs) & reach
        ]
        if custom:
            op = custom[0]
            return _Break("non_differentiable", op, op.line, op.seq, "custom", q.source)
        return _Break("not_connected", None, None, math.inf, "unknown", q.source)

    # -- NaN -------------------------------------------------------------------
    def nan_finding(self, q: _Query) -> Finding:
        reach = self.forward(q, recorded=True)
        anc, _, _ = self.ancestors(q)
        path = [
            op
            for op in self.graph.ops
            if op.seq < q.before
            and op.during is None
            and set(op.inputs) & reach
            and any(o in anc and o in reach for o in op.outputs)
        ]
        located = next(
            (
                op
                for op in path
                if any(self.values[o].finite is False for o in op.outputs)
            ),
            None,
        )
        if located is None:
            located = next((op for op in path if op.singular == "derivative"), None)
        mask = None
        if located is not None:
            below = {o for o in located.outputs}
            for op in path:
                if op.seq <= located.seq:
                    continue
                if set(op.inputs) & below:
                    if op.op == "where" and set(op.inputs[1:]) & below:
                        mask = op
                        break
                    below.update(op.outputs)
        b = _Break("nan_gradient", located, located.line if located else None,
                   located.seq if located else math.inf, mask, q.source)  # fmt: skip
        return self.finding(q, b, severity="warning")

    # -- small helpers -----------------------------------------------------------
    def first_use(self, q: _Query) -> OpNode | None:
        """The first op that used the source on the way to the targets."""
        anc, _, _ = self.ancestors(q)
        return self._first_consumer(q.source, anc)

    def _first_consumer(self, value: str, anc: set[str]) -> OpNode | None:
        uses = [
            op
            for op, _ in self.index.uses(value)
            if op.during is None and any(o in anc for o in op.outputs)
        ]
        if not uses:
            uses = [op for op, _ in self.index.uses(value) if op.during is None]
        return min(uses, key=lambda op: op.seq) if uses else None

    def _first_use_seq(self, value: str) -> float:
        uses = [op.seq for op, _ in self.index.uses(value)]
        return min(uses) if uses else math.inf

    def _watched_anywhere(self, value: str) -> bool:
        return any(w.value == value for w in self.graph.watches)

    def _line_of_seq(self, seq: int) -> int | None:
        for e in self.graph.tape_events:
            if e.seq == seq:
                return e.line
        return None

    def _order(self, value: str) -> tuple:
        return (int(value[1:]) if value[1:].isdigit() else 0, value)

    # -- sentences -------------------------------------------------------------
    def finding(self, q: _Query, b: _Break, severity: str = "error") -> Finding:
        words = _Words(self, q)
        message, fix = words.sentences(b)
        op = b.op
        return Finding(
            source=words.source,
            target=words.target,
            cause=b.cause,
            message=message,
            fix=fix,
            source_id=q.source,
            target_id=q.targets[0] if q.targets else None,
            request=q.request.id if q.request is not None else None,
            op=op.id if op is not None else None,
            op_name=op.op if op is not None else None,
            line=b.line,
            code=self.code(b.line),
            severity=severity,
        )

    def code(self, line: int | None) -> str | None:
        text = self.graph.cell.line(line)
        return None if text is None else text.strip()


class _Names:
    """The names a user knows values by."""

    def __init__(self, facts: _Facts) -> None:
        self.facts = facts
        self._assigned: dict[int, str | None] = {}
        self._next_line: dict[str, int | None] | None = None
        self._calls: dict[tuple, tuple | None] = {}

    def of(self, value_id: str, q: _Query | None = None) -> str:
        facts = self.facts
        value = facts.values[value_id]
        if value.names:
            return value.names[0]
        if q is not None and q.request is not None:
            written = self.written(q, value_id)
            if written is not None:
                return written
        if value.variable is not None:
            return value.variable.split(":")[0]
        op = facts.index.producer(value_id)
        if op is not None:
            name = self.assigned_name(op)
            if name is not None:
                return name
        if q is not None and value_id == q.source:
            if q.request is None or len(q.request.sources) == 1:
                return "the source"
            return f"source #{q.index + 1}"
        if q is not None and value_id in q.targets:
            return "the target"
        if op is not None:
            return f"the result of {_op_words(facts, op)} {_at(op.line)}".rstrip()
        if value.origin == "numpy":
            return "a NumPy array"
        if value.origin == "python":
            return f"a Python {value.python_type or 'value'}"
        if value.origin == "constant":
            return "a constant"
        return "a tensor"

    def written(self, q: _Query, value_id: str) -> str | None:
        """How the ``gradient(...)`` call spelled the target or this source."""
        request = q.request
        key = (request.via, request.here, request.line)
        if key not in self._calls:
            self._calls[key] = self._call_texts(request)
        parsed = self._calls[key]
        if parsed is None:
            return None
        targets, sources = parsed
        if value_id == q.source and len(sources) == len(request.sources):
            return sources[q.index]
        if value_id in request.targets and len(targets) == len(request.targets):
            return targets[request.targets.index(value_id)]
        return None

    def _call_texts(self, request: GradientRequest) -> tuple | None:
        if request.via is not None:
            call = option_call(request.via)
        elif request.here:
            code = self.facts.graph.cell.line(request.line)
            call = gradient_call(code, request.kind)
        else:
            return None
        if call is None:
            return None
        return call.targets, call.source_list

    def assigned_name(self, op: OpNode) -> str | None:
        """``name`` when the op is the last one on a line ``name = ...``."""
        if op.line is None or op.during is not None:
            return None
        if self._next_line is None:
            lines = [o.line for o in self.facts.forward_ops]
            self._next_line = {
                o.id: lines[i + 1] if i + 1 < len(lines) else None
                for i, o in enumerate(self.facts.forward_ops)
            }
        if self._next_line.get(op.id) == op.line:
            return None
        if op.line not in self._assigned:
            self._assigned[op.line] = assigned_name(self.facts.graph.cell.line(op.line))
        return self._assigned[op.line]


class _Words:
    """The two sentences of one finding: what happened, and what to do."""

    def __init__(self, facts: _Facts, q: _Query) -> None:
        self.facts = facts
        self.q = q
        names = facts.names
        self.source = names.of(q.source, q)
        self.target = " and ".join(dict.fromkeys(names.of(y, q) for y in q.targets))
        result = q.result
        if result is None:
            self.head = f"{self.source}: would be None because"
        elif result.none:
            self.head = f"{self.source}: None because"
        elif result.nan or result.inf:
            holds = " and ".join(
                word
                for word, flag in (("NaN", result.nan), ("Inf", result.inf))
                if flag
            )
            self.head = f"{self.source}: the gradient holds {holds} because"
        elif q.request.unconnected == "zero":
            self.head = (
                f"{self.source}: zeros that stand for None "
                "(unconnected_gradients=ZERO) because"
            )
        else:
            self.head = (
                f"{self.source}: zeros that stand for None (batch_jacobian gives "
                "zeros where the gradient is None) because"
            )

    def at(self, line: int | None) -> str:
        return _at(line, self.facts.code(line))

    def name(self, value_id: str) -> str:
        return self.facts.names.of(value_id, self.q)

    def sentences(self, b: _Break) -> tuple[str, str]:
        method = getattr(self, f"_{b.cause}")
        cause, fix = method(b)
        return f"{self.head} {cause}.", f"{fix}."

    # One method per cause: (what happened, what to do), without the final dot.
    def _not_watched(self, b: _Break) -> tuple[str, str]:
        s, t = self.source, self.target
        kind, detail = b.detail
        if kind == "after_request":
            return (
                f"tape.watch({s}) {self.at(b.line)} came after the gradient was asked",
                f"Call tape.watch({s}) before computing {t} and asking for its "
                "gradient",
            )
        if kind == "late":
            watch = next(
                (w for w in self.facts.graph.watches if w.value == b.value), None
            )
            when = _at(watch.line) if watch is not None else ""
            return (
                f"{s} was used {self.at(b.line)} before tape.watch({s}) {when}, "
                "and the tape records only what happens after the watch",
                f"Call tape.watch({s}) before the line that uses it",
            )
        value = self.facts.values[b.value]
        if value.origin == "constant":
            what = f"{s} is a constant and was never watched"
        elif value.origin == "outside":
            what = f"{s} is a plain tensor (not a tf.Variable) and was never watched"
        elif value.origin in ("numpy", "python"):
            what = f"{s} was made from a {value.python_type} and was never watched"
        elif value.origin == "op":
            what = (
                f"{s} is a plain tensor computed from values the tape does not "
                "watch, and was never watched itself"
            )
        else:
            what = f"{s} is a tensor the tape never watched"
        if b.op is not None:
            what += f", so the tape did not record its use {self.at(b.line)}"
        return what, f"Call tape.watch({s}) inside the tape, or make it a tf.Variable"

    def _not_trainable(self, b: _Break) -> tuple[str, str]:
        s = self.source
        return (
            f"{s} is a tf.Variable made with trainable=False, so the tape does not "
            "watch it when it is read"
            + (f" {self.at(b.line)}" if b.line is not None else ""),
            f"Call tape.watch({s}) inside the tape, or create it with trainable=True",
        )

    def _watch_accessed_off(self, b: _Break) -> tuple[str, str]:
        s = self.source
        magic = self.facts.graph.cell.line(1) or ""
        how = (
            "the %%tape cell runs with --no-watch-accessed"
            if magic.lstrip().startswith("%%tape")
            else "the tape was made with watch_accessed_variables=False"
        )
        return (
            f"{how}, so reading {s}"
            + (f" {self.at(b.line)}" if b.line is not None else "")
            + f" does not watch it, and tape.watch({s}) was never called",
            f"Call tape.watch({s}) inside the tape before using {s}, or let the "
            "tape watch the variables it reads",
        )

    def _outside_tape(self, b: _Break) -> tuple[str, str]:
        s, t = self.source, self.target
        kind, detail = b.detail
        if kind == "after":
            return (
                f"{self.name(detail)} was computed after the tape stopped recording, "
                "so the tape never saw how it was made",
                f"Compute {self.name(detail)} inside the tape (the %%tape cell or "
                "the with block), then ask for its gradient",
            )
        if kind == "before":
            early = self.name(detail)
            return (
                f"{s} is not used inside the tape: {t} is computed"
                f" {self.at(b.line)} from {early}, which was made before the tape "
                "started, so the tape cannot see how it depends on anything",
                f"If {early} depends on {s}, compute it inside the tape",
            )
        if kind == "other":
            return (
                f"the path from {s} to {t} goes through {self.op(b.op)}"
                f" {self.at(b.line)}, which ran while the tape asked"
                f"{self.request_place()} was not recording (outside its with block)",
                f"Compute {t} inside the with block of the tape you ask for the "
                "gradient",
            )
        where = f"{self.op(b.op)} {self.at(b.line)}" if b.op else f"{s}"
        return (
            f"the path from {s} to {t} goes through {where}, which ran after the "
            "tape stopped recording (a tape that is not persistent stops at its "
            "first gradient call)",
            f"Compute {t} before asking for a gradient, or make the tape persistent "
            "(tf.GradientTape(persistent=True), %%tape --persistent)",
        )

    def _numpy_copy(self, b: _Break) -> tuple[str, str]:
        s, t = self.source, self.target
        escape, linked = b.detail
        if escape.value == self.q.source:
            value = whose = s
        elif self.facts.values[escape.value].names:
            value = self.name(escape.value)
            whose = f"{value} (computed from {s})"
        else:
            value = "it"
            whose = f"a value computed from {s}"
        how = {
            "numpy": "converted to a NumPy array by .numpy()",
            "__array__": "converted to a NumPy array (np.asarray or a NumPy function)",
            "float": "turned into a Python float by float()",
            "int": "turned into a Python int by int()",
            "constant": "copied into a new tensor by tf.constant()",
        }.get(escape.how, f"copied out of the tensor ({escape.how})")
        if escape.how in ("float", "int"):
            then = (
                f"{t} is then computed from that Python number, which the tape "
                "cannot follow"
            )
        elif linked:
            then = f"the path to {t} continues from a constant made of its values"
        else:
            then = (
                f"{t} is then computed from those copied values, which the tape "
                "cannot follow"
            )
        fix = {
            "float": f"Keep {value} a tensor: use it in tf ops instead of float()",
            "int": f"Keep {value} a tensor: use it in tf ops instead of int()",
            "constant": f"Use {value} itself instead of tf.constant({value})",
            "__array__": f"Use {value} directly in tf ops (tf.math instead of NumPy "
            "functions)",
        }.get(escape.how, f"Use {value} directly in tf ops")
        return f"{whose} was {how} {self.at(b.line)}; {then}", fix

    def _integer_cast(self, b: _Break) -> tuple[str, str]:
        return (
            f"the path from {self.source} to {self.target} goes through "
            f"{self.op(b.op)} {self.at(b.line)}, which has no gradient",
            "Keep the values floating point: cast to a float dtype such as "
            "tf.float32, or leave the cast out",
        )

    def _non_differentiable(self, b: _Break) -> tuple[str, str]:
        s, t, op = self.source, self.target, b.op
        if b.detail == "custom":
            return (
                f"the custom gradient {self.op(op)} {self.at(b.line)} returned None "
                f"for {s}",
                f"Return a gradient for {s} from the custom gradient function",
            )
        if op.op == "where" and b.detail == 0:
            return (
                f"{s} reaches {t} only through the condition of tf.where "
                f"{self.at(b.line)}, and a condition has no gradient",
                f"Let {s} flow into the values tf.where picks from (its second or "
                "third argument) if the gradient should reach it",
            )
        if b.detail in op.no_gradient_inputs:
            return (
                f"{s} reaches {t} only through an argument of {self.op(op)} "
                f"{self.at(b.line)} that has no gradient (its indices)",
                f"Let {s} flow into the values {op.op} picks from, not into its "
                "indices",
            )
        picks = ""
        if op.op in _COMPARISONS and any(
            user.op == "where" and i == 0
            for out in op.outputs
            for user, i in self.facts.index.uses(out)
        ):
            picks = " (its True or False only picks the branch of tf.where)"
        return (
            f"the path from {s} to {t} goes through {self.op(op)} "
            f"{self.at(b.line)}, which has no gradient{picks}",
            _non_differentiable_fix(op.op),
        )

    def _stop_gradient(self, b: _Break) -> tuple[str, str]:
        return (
            f"the path from {self.source} to {self.target} goes through "
            f"tf.stop_gradient {self.at(b.line)}, which blocks the gradient on "
            "purpose",
            f"Remove tf.stop_gradient from the path if {self.source} should get a "
            "gradient",
        )

    def _stop_recording(self, b: _Break) -> tuple[str, str]:
        what = f"{self.op(b.op)} " if b.op is not None else f"reading {self.source} "
        if b.op is not None and b.line is not None:
            what = f"{self.op(b.op)} "
        return (
            f"{what}{self.at(b.line)} ran inside tape.stop_recording(), so the "
            f"tape did not record the path from {self.source} to {self.target}",
            "Move that computation out of the stop_recording() block",
        )

    def _python_number(self, b: _Break) -> tuple[str, str]:
        twin = b.detail
        kind = {"numpy": "NumPy array", "python": f"Python {twin.python_type}"}.get(
            twin.origin, "Python value"
        )
        return (
            f"{self.target} is computed {self.at(b.line)} from the {kind} that "
            f"{self.source} was made from, not from the tensor {self.source}, and "
            "the tape only follows tensors",
            f"Use the tensor {self.source} in the computation of {self.target}",
        )

    def _rebound_variable(self, b: _Break) -> tuple[str, str]:
        name, variable = b.detail
        variable = (variable or name).split(":")[0]
        if b.line is None:
            what = (
                f"the name {name} held the tf.Variable {variable} in an earlier "
                "cell but now holds a plain tensor (a line such as "
                f"{name} = {name} - lr * g rebinds it), and the tape does not watch "
                "plain tensors"
            )
        else:
            what = (
                f"the name {name} held the tf.Variable {variable}, but the "
                f"assignment {self.at(b.line)} rebound it to a plain tensor, which "
                "the tape does not watch"
            )
        update = in_place_update(self.facts.graph.cell.line(b.line), name)
        fix = (
            f"Update the variable in place ({update}) so that {name} stays a "
            "tf.Variable"
        )
        if b.line is None:
            fix += ", and create it again with tf.Variable"
        return what, fix

    def _integer_source(self, b: _Break) -> tuple[str, str]:
        s = self.source
        dtype = self.facts.values[self.q.source].dtype
        if b.detail == "watch":
            then = f", so tape.watch({s}) {_at(b.line)} does nothing"
        elif b.line is not None:
            then = f", so its use {self.at(b.line)} carries no gradient"
        else:
            then = ""
        return (
            f"{s} has dtype {dtype}, and only floating-point tensors can have "
            f"gradients{then}",
            f"Make it floating point, e.g. tf.constant(3.0) instead of "
            f"tf.constant(3), or watch tf.cast({s}, tf.float32) and use that",
        )

    def _not_connected(self, b: _Break) -> tuple[str, str]:
        s, t = self.source, self.target
        if b.detail == "unknown":
            return (
                f"the tape has no gradient path from {s} to {t}",
                f"Check that {t} is computed from {s} with tf ops inside the tape",
            )
        made = f", computed {self.at(b.line)}," if b.line is not None else ""
        return (
            f"{t}{made} does not depend on {s}: nothing computed from {s} leads to {t}",
            f"Use {s} when computing {t}, or leave {s} out of the sources",
        )

    def _wrong_tape(self, b: _Break) -> tuple[str, str]:
        s, t = self.source, self.target
        kind, detail = b.detail
        if kind == "reset":
            return (
                f"tape.reset() {_at(b.line)} erased everything the tape had "
                f"recorded and watched before it, including the path from {s} to {t}",
                f"Compute {t} (and call tape.watch({s}) if needed) after "
                "tape.reset(), or remove the reset",
            )
        if kind == "watched":
            return (
                f"{s} was watched by another tape {self.at(b.line)}, not by the tape "
                "asked for the gradient",
                f"Call tape.watch({s}) on the tape you ask for the gradient, or ask "
                "that other tape",
            )
        return (
            f"the gradient was asked of another tape{self.request_place()}, but "
            f"the path from {s} to {t} was recorded by {self.tape_name()}",
            f"Ask that tape for the gradient: {self.tape_call()}",
        )

    def _assign_cut(self, b: _Break) -> tuple[str, str]:
        assign = b.detail
        variable = self.name(assign.variable)
        method = "assign"
        for name in ("assign_add", "assign_sub"):
            if f".{name}(" in (self.facts.code(b.line) or ""):
                method = name
        return (
            f"the path from {self.source} to {self.target} goes through "
            f"{variable}.{method}(...) {self.at(b.line)}: assigning to a variable "
            "copies the value, and the gradient does not flow through the copy",
            f"Use the computed tensor directly instead of assigning it to "
            f"{variable} inside the tape",
        )

    def _nan_gradient(self, b: _Break) -> tuple[str, str]:
        op, mask = b.op, b.detail
        if op is None:
            return (
                f"some values on the path from {self.source} to {self.target} are "
                "NaN or infinite",
                "Check the inputs with tf.debugging.check_numerics and keep each op "
                "inside its domain",
            )
        name = self.op(op)
        if mask is not None:
            where = "on that line" if mask.line == b.line else self.at(mask.line)
            return (
                f"{name} {self.at(b.line)} is infinite or NaN for some elements, "
                f"and tf.where {where} hides them only in the forward "
                "pass: their gradient is still computed and 0 times infinity is NaN",
                f"Make the input of {op.op} safe before the op as well, e.g. "
                f"tf.where(mask, x, 1.0) inside it, so no element hits its bad point",
            )
        return (
            f"{name} {self.at(b.line)} has an infinite or undefined derivative at "
            "some of its inputs (for example sqrt or log at 0, or a division by 0)",
            f"Keep the input of {op.op} away from those points, e.g. add a small "
            "epsilon or clip it with tf.maximum",
        )

    # -- pieces ------------------------------------------------------------------
    def op(self, op: OpNode | None) -> str:
        return "an op" if op is None else _op_words(self.facts, op)

    def tape_name(self) -> str:
        name = self.facts.graph.tape.name
        magic = (self.facts.graph.cell.line(1) or "").lstrip().startswith("%%tape")
        if name and magic:
            return f"{name}, the tape of the %%tape cell"
        if name:
            return name
        return "the tape of the %%tape cell" if magic else "the explained tape"

    def tape_call(self) -> str:
        name = self.facts.graph.tape.name or "tape"
        return f"{name}.gradient({self.target}, {self.source})"

    def request_place(self) -> str:
        request = self.q.request
        if request is None or request.line is None:
            return ""
        if request.here:
            return f" {self.at(request.line)}"
        where = f" in {request.where}" if request.where else ""
        return f"{where} at line {request.line}"


# -- text helpers --------------------------------------------------------------------


def _at(line: int | None, code: str | None = None) -> str:
    if line is None:
        return ""
    if not code:
        return f"at line {line}"
    if len(code) > _CODE_SHOWN:
        code = code[: _CODE_SHOWN - 3] + "..."
    return f"at line {line} ({code})"


def _op_words(facts: _Facts, op: OpNode) -> str:
    name = op.op
    if name == "cast":
        before = facts.values[op.inputs[0]].dtype
        after = facts.values[op.outputs[0]].dtype
        return f"cast({before} -> {after})"
    if name in _COMPARISONS:
        return f"the comparison {_COMPARISONS[name]}"
    if name.startswith("custom_gradient/"):
        return name.split("/", 1)[1]
    if name in ("where", "stop_gradient"):
        return f"tf.{name}"
    return name


def _non_differentiable_fix(name: str) -> str:
    if name in _COMPARISONS or name.startswith("logical_") or name.startswith("is_"):
        return (
            "A comparison only gives True or False: use the compared values "
            "themselves in the computation, e.g. in the branches of tf.where"
        )
    if name in ("round", "floor", "ceil", "floordiv"):
        return (
            f"Use a smooth stand-in for {name} on the gradient path, e.g. the value "
            f"itself, or x + tf.stop_gradient(tf.{name}(x) - x) to keep the "
            "rounded value with the gradient of x"
        )
    if name in ("argmax", "argmin", "argsort"):
        return (
            f"Use a differentiable stand-in for {name}, e.g. tf.nn.softmax weights "
            "instead of an index"
        )
    if name in ("zeros_like", "ones_like"):
        return (
            f"{name} uses only the shape of its input: compute the values from the "
            "source instead"
        )
    return f"Use ops with a gradient on the path instead of {name}"


def _flatten(spec: Any) -> Iterable[Any]:
    if isinstance(spec, (list, tuple)):
        for item in spec:
            yield from _flatten(item)
    elif isinstance(spec, dict):
        for key in sorted(spec):
            yield from _flatten(spec[key])
    else:
        yield spec
