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

Each cause is declared once, with its detectors and its words, in
:mod:`tapemagic.graph.causes` (see :mod:`tapemagic.graph.cause` for how);
:mod:`tapemagic.graph.facts` holds the reasoning the causes share, on the
graph's :class:`~tapemagic.graph.index.GraphIndex`, and
:mod:`tapemagic.graph.words` the names and sentence pieces. A gradient call
repeated in a loop is explained once per source and call site.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from . import causes as _causes  # noqa: F401  (declares every cause)
from .cause import REGISTRY, Break, Query, find_break
from .facts import Facts
from .findings import Finding
from .model import Graph
from .words import Words

__all__ = ["diagnose"]


def diagnose(
    graph: Graph,
    target: Any = None,
    sources: Any = None,
    requests: Any = None,
) -> tuple[Finding, ...]:
    """Explain every None (and NaN) gradient of a tape's graph model.

    Args:
        graph: the model of one tape, built with its explanation log.
        target: a value id (``"t5"``) or user name (``"loss"``), or a list of
            them; None for every gradient request in the model.
        sources: the same, for the sources; None for all of them.
        requests: the ids of the gradient requests to explain (``{"g3"}``);
            None for all of them.

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
    facts = _Diagnosis(graph)
    found: list[Finding] = []
    seen: set[tuple] = set()
    sites: set[tuple] = set()
    for query in facts.queries(target, sources):
        if requests is not None and (
            query.request is None or query.request.id not in requests
        ):
            continue
        # A gradient call in a loop asks the same question each time round:
        # explain it once per source and call site.
        site = facts.site(query)
        if site in sites:
            continue
        sites.add(site)
        for finding in facts.explain(query):
            # One finding per None gradient: two sources that share a name
            # (two layers' kernels) are two findings.
            key = (
                finding.source_id,
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


class _Diagnosis:
    """The questions asked of one graph model, and the order they are asked in."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.facts = Facts(graph)
        self.values = self.facts.values

    # -- the questions ---------------------------------------------------------
    def queries(self, target: Any, sources: Any) -> list[Query]:
        graph = self.graph
        targets = self._resolve(target)
        wanted = self._resolve(sources)
        queries = []
        covered: set[tuple] = set()
        for request in graph.gradients:
            if request.error is not None:
                if any(kind is not None for kind in request.target_types):
                    # The call failed on a target that is not a tensor: one
                    # question about the call itself.
                    source = next((s for s in request.sources if s), None)
                    if source is not None:
                        queries.append(
                            Query(source, (), request.tape, request.seq, request)
                        )
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
                    Query(source, ys, request.tape, request.seq, request, result, index)
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
                queries.append(Query(source, ys, 0, math.inf))
        return queries

    def site(self, q: Query) -> tuple:
        """What makes two questions the same: source, call site and answer."""
        request, result = q.request, q.result
        if request is None or request.line is None:
            return (q.source, q.targets, q.before)
        if result is None:
            flags = ("error", request.error)
        else:
            flags = (result.none, result.zero, result.nan, result.inf)
        name = self.facts.names.of(q.source, q)
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

    def explain(self, q: Query) -> list[Finding]:
        misuse = find_break("call", self.facts, q)
        if misuse is not None:
            return [self.finding(q, misuse)]
        if not q.targets or q.source in q.targets:
            return []
        result = q.result
        if result is None:
            if self.facts.connected(q):
                return []
            return self.why_none(q)
        if result.none:
            return self.why_none(q)
        request = q.request
        stands_for_none = result.zero and (
            request.unconnected == "zero" or request.kind == "batch_jacobian"
        )
        if stands_for_none and not self.facts.connected(q):
            return self.why_none(q)
        if result.nan or result.inf:
            return [self.finding(q, find_break("nan", self.facts, q))]
        if result.zero:  # connected: real zeros
            note = find_break("zero", self.facts, q)
            return [] if note is None else [self.finding(q, note)]
        return []

    # -- None: why -------------------------------------------------------------
    def why_none(self, q: Query) -> list[Finding]:
        """The stages, in order: can the source have a gradient at all; is it
        linked to the target; would the tape watch it, and where was a path
        cut; was it used while the tape recorded; which ops on the path did
        the tape not record; else a None the model cannot explain."""
        facts = self.facts
        broke = find_break("source", facts, q)
        if broke is not None:
            return [self.finding(q, broke)]
        anc, escapes, assigns = facts.ancestors(q)
        if q.source not in anc:
            return [self.finding(q, find_break("unlinked", facts, q, anc))]
        found = []
        watched_cause = None if facts.tracked(q) else find_break("watch", facts, q)
        if watched_cause is not None:
            found.append(watched_cause)
        reach = facts.forward(q, recorded=False)
        if assigns and q.source in facts.index.ancestors(q.targets, q.before, False)[0]:
            # The target also depends on the source without going through a
            # variable: those paths, not the assignments, are the story (an
            # optimizer step assigning gradients is no bug).
            assigns = set()
        broken = self.cuts(q, reach, anc, escapes, assigns)
        if broken or watched_cause is not None:
            return [self.finding(q, b) for b in found + broken]
        if not facts.tracked(q):
            return [self.finding(q, find_break("usage", facts, q, anc))]
        on_tape = facts.forward(q, recorded=True)
        missed = self.recording_breaks(q, on_tape, reach, anc)
        if missed:
            return [self.finding(q, b) for b in missed]
        return [self.finding(q, find_break("unexplained", facts, q, reach))]

    def cuts(self, q: Query, reach: set[str], anc: set[str], escapes: set[str],
             assigns: set[int]) -> list[Break]:  # fmt: skip
        """The edges leaving ``reach`` towards the target: where paths broke."""
        facts, index = self.facts, self.facts.index
        found: dict[tuple, Break] = {}

        def cut(key: tuple, event: Any, i: int, value: str) -> None:
            if key not in found:
                found[key] = find_break("cut", facts, q, event, i, value)

        for value in sorted(reach, key=facts.order):
            for op, i in index.uses(value):
                if op.seq >= q.before or index.carries(op, i):
                    continue
                if not any(o in anc and o not in reach for o in op.outputs):
                    continue
                cut(("op", op.id), op, i, value)
            for e in index.escapes_of.get(value, ()):
                if e.id in escapes and e.seq < q.before:
                    cut(("escape", e.id), e, 0, value)
            for a in index.assigns_of.get(value, ()):
                if a.seq in assigns:
                    cut(("assign", a.seq), a, 0, value)
        return sorted(found.values(), key=lambda b: b.seq)

    def recording_breaks(self, q: Query, on_tape: set[str], reach: set[str],
                         anc: set[str]) -> list[Break]:  # fmt: skip
        """Ops with a gradient on the path that the asked tape did not record."""
        facts, index = self.facts, self.facts.index
        reset = facts.reset_before(q)
        found: dict[str, Break] = {}
        for value in sorted(on_tape, key=facts.order):
            for op, i in index.uses(value):
                if op.seq >= q.before or not index.carries(op, i):
                    continue
                if not any(o in anc and o in reach and o not in on_tape
                           for o in op.outputs):  # fmt: skip
                    continue
                if op.id not in found:
                    found[op.id] = find_break("recording", facts, q, op, value, reset)
        return sorted(found.values(), key=lambda b: b.seq)

    # -- sentences -------------------------------------------------------------
    def finding(self, q: Query, b: Break) -> Finding:
        words = Words(self.facts, q)
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
            line_text=self.facts.line_text(b.line),
            severity=REGISTRY[b.cause].severity,
        )


# -- text helpers --------------------------------------------------------------------


def _flatten(spec: Any) -> Iterable[Any]:
    if isinstance(spec, (list, tuple)):
        for item in spec:
            yield from _flatten(item)
    elif isinstance(spec, dict):
        for key in sorted(spec):
            yield from _flatten(spec[key])
    else:
        yield spec
