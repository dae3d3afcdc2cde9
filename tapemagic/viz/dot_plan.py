"""Choosing what a view of a graph model shows: paths, folding, grouping, steps.

:class:`ViewPlan` decides, for one view, which ops and values to draw: the
source-to-target paths (through ghost links and the ops of gradients computed
inside the tape), whether ops are collapsed by cell line, which gradient
computations are one node, which inputs fold into them, what the node budget
leaves out (counted in ``hidden``), and how far a backward sweep is replayed.
:mod:`tapemagic.viz.dot` writes the plan as DOT with
:mod:`tapemagic.viz.dot_markup`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..graph.findings import Finding
from ..graph.index import index_of
from ..graph.model import GradientRequest, GradientValue, Graph, OpNode

__all__ = ["LineGroups", "ViewPlan", "backward_steps", "gradient_status"]


@dataclass
class LineGroups:
    """Ops collapsed by cell line (see :meth:`ViewPlan.group_by_line`).

    Attributes:
        groups: node name (``"line3"``, a gradient call's request id) -> ops.
        call_nodes: the groups that draw gradient calls.
        kept: the group names drawn, earliest first.
        hidden_ops: how many ops the groups left out hold.
        group_of: op id -> its drawn group's name.
        ops: the ops drawn, in execution order.
    """

    groups: dict[str, list[OpNode]]
    call_nodes: set[str]
    kept: list[str]
    hidden_ops: int
    group_of: dict[str, str]
    ops: list[OpNode]


def gradient_status(norm: float | None, none: bool = False) -> str:
    """``"None"``, ``"NaN"`` (NaN or inf), ``"zero"`` or ``"ok"`` for a gradient.

    Example:
        >>> gradient_status(None, none=True), gradient_status(0.0)
        ('None', 'zero')
        >>> gradient_status(float("nan")), gradient_status(2.5)
        ('NaN', 'ok')
    """
    if none:
        return "None"
    if norm is None:
        return "ok"
    if not math.isfinite(norm):
        return "NaN"
    return "zero" if norm == 0 else "ok"


def backward_steps(
    graph: Graph, target: str | None = None, request: str | None = None
) -> tuple[GradientRequest | None, tuple[GradientValue, ...]]:
    """The gradient request a view shows, and its backward sweep in order.

    The request is ``request`` if given, else the last one that answered for
    ``target`` (any target when None). The sweep lists the cotangent reaching
    each op, from the target back, then each source's gradient.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> backward_steps(Graph(TapeInfo(None, False, True, "new", True),
        ...                      Cell(None, None)))
        (None, ())
    """
    if request is not None:
        chosen = next((r for r in graph.gradients if r.id == request), None)
    else:
        answered = [r for r in graph.gradients if r.results]
        if target is not None:
            answered = [r for r in answered if target in r.targets]
        chosen = answered[-1] if answered else None
    if chosen is None:
        return None, ()
    return chosen, tuple(gv for gv in graph.gradient_values if gv.request == chosen.id)


class ViewPlan:
    """What one view draws of a graph model (see the module docs).

    Example:
        >>> from tapemagic.graph.model import Cell, OpNode, TapeInfo, Value
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None),
        ...           values=(Value("t1", "constant", (), "float32", True),
        ...                   Value("t2", "op", (), "float32", True, op="op1")),
        ...           ops=(OpNode("op1", 1, "exp", ("t1",), ("t2",), True, False,
        ...                       2, "recording"),))
        >>> plan = ViewPlan(g, (), None, None, None, True, 0, None, 120, False)
        >>> [op.id for op in plan.chosen], plan.collapsed, plan.hidden
        (['op1'], False, [])
    """

    def __init__(
        self,
        graph: Graph,
        findings: tuple[Finding, ...],
        target: str | None,
        source: str | None,
        collapse: bool | None,
        gradients: bool,
        step: int,
        request: str | None,
        max_nodes: int,
        expand_gradients: bool,
    ) -> None:
        self.graph = graph
        self.max_nodes = max(8, int(max_nodes))
        self.collapse = collapse
        self.expand = bool(expand_gradients)
        index = index_of(graph)
        self.index = index
        self.values = index.values
        self.tape_ops = index.graph_ops
        self.backward_ops = len(graph.ops) - len(self.tape_ops)
        self.ops = {op.id: op for op in self.tape_ops}
        self.all_ops = index.ops
        self.nested = index.nested
        self.calls = index.calls
        self.inner_targets = set(index.inner_targets)
        self.escapes = index.escapes
        self.ghost_of = index.ghost_of
        self.source_of = {s.value: s for s in graph.sources}
        self.source_ids = [s.value for s in graph.sources if s.value in self.values]
        if source is not None and source in self.values:
            self.picked_sources = [source]
            if source not in self.source_ids:
                self.source_ids.append(source)
        else:
            self.picked_sources = list(self.source_ids)
        # Another tape's target (y of inner.gradient(y, x)) is not this one's.
        targets = [
            t for t in graph.targets if t in self.values and t not in self.inner_targets
        ]
        if target is not None and target in self.values:
            self.picked_targets = [target]
        else:
            self.picked_targets = targets
        self.restricted = (target is not None) or (source is not None)
        self.findings = [
            f
            for f in findings
            if (target is None or f.target_id in (None, target))
            and (source is None or f.source_id in (None, source))
        ]
        self.request, self.steps = backward_steps(graph, target, request)
        self.gradients = gradients
        # The last cotangent each value got (a chunked jacobian sweeps twice).
        self.gvalues = {gv.value: gv for gv in self.steps}
        self.swept = {gv.op for gv in self.steps if gv.op is not None}
        # What each swept op passed back to each input: an edge's own share.
        chosen = self.request.id if self.request is not None else None
        self.shares = {
            (eg.value, eg.op): eg for eg in graph.edge_gradients if eg.request == chosen
        }
        self.step = max(0, min(int(step), len(self.steps)))
        self.hidden: list[tuple[str, int]] = []
        self._decide()

    # -- which ops ---------------------------------------------------------------
    def _choose_ops(self) -> list[OpNode]:
        path_ops, self.path_values = self.index.paths(
            tuple(self.picked_sources), tuple(self.picked_targets)
        )
        self.path_ops = path_ops
        on_path = [op for op in self.tape_ops if op.id in path_ops]
        if self.restricted:
            chosen = on_path
        elif self.node_count(self.tape_ops) <= self.max_nodes:
            chosen = list(self.tape_ops)
        else:
            chosen = on_path or list(self.tape_ops)
        if not self.expand:
            # A gradient computation drawn as one node stands for all its ops.
            ids = {op.id for op in chosen}
            calls = {op.during for op in chosen if op.during in self.calls}
            chosen = [op for op in self.tape_ops if op.id in ids or op.during in calls]
        off = len(self.tape_ops) - len(chosen)
        if off:
            self.hidden.append(("ops off the source-to-target paths", off))
        if self.backward_ops:
            self.hidden.append(("ops run while computing gradients", self.backward_ops))
        return chosen

    def unit(self, op: OpNode) -> str:
        """The DOT node that draws ``op``: its own, or its gradient call's."""
        if not self.expand and op.during in self.calls:
            return op.during
        return op.id

    def folded(self, v: str, op: OpNode) -> bool:
        """Whether input ``v`` of ``op`` is folded into its gradient call's node:
        the seeds and Python numbers a backward pass makes for itself."""
        value = self.values[v]
        return (
            op.during in self.calls
            and not self.expand
            and value.origin in ("python", "numpy", "constant")
            and not value.names
            and v not in self.source_of
        )

    def leaves(self, ops: list[OpNode]) -> set[str]:
        """The inputs of ``ops`` drawn as their own nodes: made by no drawn op."""
        drawn = {op.id for op in ops}
        leaves = set()
        for op in ops:
            for v in op.inputs:
                value = self.values[v]
                if (value.op is None or value.op not in drawn) and not self.folded(
                    v, op
                ):
                    leaves.add(v)
        return leaves

    def _leaf_count(self, ops: list[OpNode]) -> int:
        return len(self.leaves(ops))

    def node_count(self, ops: list[OpNode]) -> int:
        return len({self.unit(op) for op in ops}) + self._leaf_count(ops)

    def _decide(self) -> None:
        self.chosen = chosen = self._choose_ops()
        sources = [s for s in self.source_ids if s in self.picked_sources]
        self.targets_drawn = self._bounded(self.picked_targets, "targets not drawn")
        collapsed = self.collapse
        if collapsed is None:
            count = self.node_count(chosen) + len(sources)
            collapsed = count + len(self.targets_drawn) > self.max_nodes
        self.collapsed = collapsed
        if collapsed:
            self.expand = False  # grouped by line: each gradient call is one node
        self.source_groups: dict[str, list[str]] = {}
        if collapsed:
            sources, self.source_groups = self._group_sources(sources)
        self.sources_drawn = self._bounded(sources, "sources not drawn")
        self.special = set(self.sources_drawn) | set(self.targets_drawn)
        # Where each drawn value's edges start: its own node, or its group's.
        self.tail_of = {v: v for v in self.special}
        for name, members in self.source_groups.items():
            self.tail_of.update((v, name) for v in members)
        # An op is drawn as where a path breaks only if no gradient flowed
        # through it in the sweep shown: in w * x with x unwatched, w's flows
        # through the multiply, so x's finding is drawn on x instead. (A
        # warning, NaN or zeros, stays on its op: a gradient flows there.)
        self.by_op_finding = _group(
            [f for f in self.findings if not self._off_op(f)], lambda f: f.op
        )
        self.by_source_finding = _group(self.findings, lambda f: f.source_id)
        self.reached, self.current = self._replay()
        # The gradient computations drawn: request id -> the ops shown, and the
        # node drawing them when it is not the request's own (collapsed by line).
        self.calls_drawn: dict[str, list[OpNode]] = {}
        self.call_node_of: dict[str, str] = {}

    def _group_sources(self, ids: list[str]) -> tuple[list[str], dict[str, list[str]]]:
        """Sources to draw one by one, and groups of look-alikes (watched the
        same way on the same line, gradient fine, no finding), 3 or more."""
        flagged = {f.source_id for f in self.findings}
        alike: dict[tuple, list[str]] = {}
        singles = []
        for v in ids:
            source = self.source_of[v]
            status = self.source_gradient(v)
            if v in flagged or (status is not None and status != "ok"):
                singles.append(v)
                continue
            alike.setdefault((source.kind, source.how, source.watched, source.line),
                             []).append(v)  # fmt: skip
        groups = {}
        for members in alike.values():
            if len(members) >= 3:
                groups[f"sources{len(groups) + 1}"] = members
            else:
                singles.extend(members)
        singles.sort(key=ids.index)
        return singles, groups

    def _bounded(self, ids: list[str], what: str) -> list[str]:
        limit = self.max_nodes // 4
        if len(ids) > limit:
            self.hidden.append((what, len(ids) - limit))
            return ids[:limit]
        return ids

    def _replay(self) -> tuple[set[str], str | None]:
        """Op and source ids the sweep reached by ``step``, and the current one."""
        reached: set[str] = set()
        current = None
        for gv in self.steps[: self.step]:
            current = gv.op if gv.op is not None else gv.value
            reached.add(current)
        return reached, current

    def source_findings(self, v: str) -> list[Finding]:
        """The findings drawn on source ``v``: those of no op, and those of an
        op a gradient flowed through (not drawn as a break)."""
        return [
            f
            for f in self.by_source_finding.get(v, ())
            if f.op is None or self._off_op(f)
        ]

    def _off_op(self, finding: Finding) -> bool:
        """Whether ``finding`` names an op a gradient flowed through although
        it says a path breaks: not drawn on that op."""
        return finding.severity == "error" and finding.op in self.swept

    def source_gradient(self, v: str) -> str | None:
        """:func:`gradient_status` of source ``v`` in the request shown, if any."""
        request = self.request
        if request is None or v not in request.sources:
            return None
        result = request.results[request.sources.index(v)] if request.results else None
        if result is None:
            return None
        gv = self.gvalues.get(v)
        return gradient_status(gv.norm if gv else None, result.none)

    def keep_units(self, chosen: list[OpNode]) -> tuple[list[OpNode], set[str]]:
        """Drawn one node per op: the ops and the input nodes that fit the view.

        Keeps the latest ops (nearest the targets) that fit, with their inputs;
        a gradient call drawn as one node is kept whole.
        """
        budget = self.max_nodes - len(self.special)
        units: dict[str, list[OpNode]] = {}
        for op in chosen:
            units.setdefault(self.unit(op), []).append(op)
        kept_units: set[str] = set()
        leaves: set[str] = set()
        chosen_ids = {op.id for op in chosen}
        for name in sorted(units, key=lambda k: units[k][-1].seq, reverse=True):
            new = {
                v
                for op in units[name]
                for v in op.inputs
                if v not in self.special
                and v not in leaves
                and self.values[v].op not in chosen_ids
                and not self.folded(v, op)
            }
            if len(kept_units) + len(leaves) + len(new) + 1 > budget and kept_units:
                break
            kept_units.add(name)
            leaves |= new
        kept = [op for op in chosen if self.unit(op) in kept_units]
        for op in kept:
            if op.during in self.calls:
                self.calls_drawn.setdefault(op.during, []).append(op)
        return kept, leaves

    def group_by_line(self, chosen: list[OpNode]) -> LineGroups:
        """Collapsed: the ops grouped by cell line, the latest groups that fit."""
        groups: dict[str, list[OpNode]] = {}
        unnamed: dict[str, int] = {}
        # The gradient calls of one line (a loop's) share one node, named after
        # the first: gradients computed inside the tape are not mixed with the
        # forward ops of their line.
        call_groups: dict[int | None, str] = {}
        for op in chosen:
            # Op names are text, never DOT ids: number the line-less groups.
            key = (
                f"line{op.line}"
                if op.line is not None
                else f"op_{unnamed.setdefault(op.op, len(unnamed) + 1)}"
            )
            if op.during in self.calls:
                key = call_groups.setdefault(op.line, op.during)
                self.call_node_of[op.during] = key
                self.calls_drawn.setdefault(op.during, []).append(op)
            groups.setdefault(key, []).append(op)
        budget = self.max_nodes - len(self.special) - len(self.source_groups)
        order = sorted(groups, key=lambda k: groups[k][-1].seq)
        kept_keys = order[-budget:] if len(order) > budget else order
        hidden_ops = sum(len(groups[k]) for k in order[: len(order) - len(kept_keys)])
        group_of = {op.id: key for key in kept_keys for op in groups[key]}
        kept_ops = [op for op in chosen if op.id in group_of]
        for request_id in list(self.calls_drawn):
            if self.call_node_of[request_id] not in kept_keys:
                del self.calls_drawn[request_id]
        return LineGroups(
            groups, set(call_groups.values()), kept_keys, hidden_ops, group_of, kept_ops
        )


def _group(findings, key) -> dict:
    out: dict = {}
    for f in findings:
        k = key(f)
        if k is not None:
            out.setdefault(k, []).append(f)
    return out
