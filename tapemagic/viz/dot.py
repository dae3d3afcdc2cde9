"""The graph model drawn by graphviz: :func:`to_dot` and :func:`render_svg`.

Visual language (every colour and shape is in :data:`STYLE`):

- sources (watched variables and tensors, and anything a gradient was asked
  with respect to) are blue cylinders; a source nobody watched is grey;
- targets are green double octagons;
- ops are rounded boxes showing op, shape, dtype and cell line; ops and edges
  on a path from a source to a target are blue;
- the op where a finding says a path breaks is red, with the finding's short
  text, unless a gradient flowed through it (``w * x`` with ``x`` unwatched:
  the finding is drawn on ``x``); a source whose gradient is None has a red
  border;
- unwatched inputs (constants, NumPy arrays, Python numbers, tensors from
  before the tape) are grey ellipses;
- ops the tape did not record are dashed, and so are their edges; a value that
  left the engine (``.numpy()``, ``float()``) and came back is joined to its
  origin by a dashed red "ghost" edge, so the break shows;
- once a gradient was taken, edges can carry the cotangent's shape and norm,
  and a step of the backward sweep colours the nodes it reached in orange;
- a gradient computed inside the tape (``inner.gradient(y, x)`` under an outer
  tape, or a persistent tape asked inside its own block) is made of ops the
  tape recorded: it is one violet box, ``∂y/∂x`` with its call, line and op
  count, fed by the values its ops used (dotted from the target and sources
  it was asked of) and feeding what it computed, so the path from ``x`` to
  ``dy_dx`` runs through it; ``expand_gradients`` draws its ops one by one in
  a dashed box instead. Another tape's target is drawn as an ordinary value.

Large tapes stay small on screen: the view keeps the source-to-target paths,
collapses ops by cell line when they are too many, and drops the earliest
groups past :data:`MAX_NODES`, counting everything it hides. Graphviz never
gets more than about ``MAX_NODES`` nodes. :mod:`tapemagic.viz.dot_plan`
chooses what a view shows; this module lays it out and writes its edges,
:mod:`tapemagic.viz.dot_nodes` its nodes.

Every label is escaped (:mod:`tapemagic.viz.dot_markup`: HTML-like labels
built from ``html.escape``\\ d text, plain attributes through
``graphviz.escape``): a name like ``<img src=x onerror=alert(1)>`` is drawn
as text.
"""

from __future__ import annotations

from dataclasses import dataclass

import graphviz

from ..graph.findings import Finding
from ..graph.model import GradientRequest, GradientValue, Graph, OpNode
from .dot_markup import (
    ESCAPE_HOW,
    STYLE,
    count_phrase,
    escape_plain,
    format_norm,
    set_graph_attributes,
    write_label,
    write_legend,
)
from .dot_nodes import NodeWriter
from .dot_plan import ViewPlan, backward_steps, gradient_status
from .labels import shape_text

__all__ = [
    "INSTALL_HINT",
    "MAX_NODES",
    "STYLE",
    "DotView",
    "backward_steps",
    "build_view",
    "gradient_status",
    "render_svg",
    "to_dot",
]

# The most nodes a view hands graphviz (plus one "hidden" node): dot lays
# this out in well under a second.
MAX_NODES = 120

INSTALL_HINT = (
    "The graph needs Graphviz's `dot` program, which is not installed: "
    "apt-get install graphviz (conda install graphviz, brew install graphviz)."
)


@dataclass
class DotView:
    """One drawing of a graph model, and what it left out.

    Attributes:
        digraph: the ``graphviz.Digraph`` (``.source`` is the DOT text).
        nodes: the DOT names of the nodes drawn, in order.
        shown_ops: how many of the ops of the tape's graph (see
            :meth:`~tapemagic.graph.model.Graph.graph_ops`) the drawing includes.
        total_ops: how many ops the tape's graph has.
        collapsed: whether ops are grouped by cell line.
        hidden: ``(what, count)`` for everything left out.
        request: the gradient request whose values the drawing shows, if any.
        steps: that request's backward sweep, in order (see :func:`build_view`).
        calls: the ids of the gradient computations drawn (requests whose ops
            are part of the tape's graph).
        call_ops: how many of the shown ops belong to them.
        expanded: whether their ops are drawn one by one.
    """

    digraph: graphviz.Digraph
    nodes: tuple[str, ...]
    shown_ops: int
    total_ops: int
    collapsed: bool
    hidden: tuple[tuple[str, int], ...] = ()
    request: GradientRequest | None = None
    steps: tuple[GradientValue, ...] = ()
    calls: tuple[str, ...] = ()
    call_ops: int = 0
    expanded: bool = False

    @property
    def source(self) -> str:
        """The DOT text."""
        return self.digraph.source

    def notes(self) -> str:
        """One sentence on what is shown and what is hidden."""
        ops = f"{self.shown_ops:,} of {self.total_ops:,} op"
        ops += "" if self.total_ops == 1 else "s"
        text = f"Showing {ops}"
        if self.calls:
            calls = len(self.calls)
            if self.expanded:
                how = "one by one in its box" if calls == 1 else "in their boxes"
            elif calls == 1:
                how = "as one node"
            else:
                how = "as one node per line" if self.collapsed else "as one node each"
            text += (
                f" ({self.call_ops:,} of them computing "
                f"{count_phrase(calls, 'gradients inside the tape')}, drawn {how})"
            )
        if self.collapsed:
            text += f", collapsed by cell line into {len(self.nodes):,} nodes"
        text += "."
        if self.hidden:
            text += " Hidden: " + "; ".join(
                count_phrase(n, what) for what, n in self.hidden
            )
            text += "."
        return text


def to_dot(
    graph: Graph, findings: tuple[Finding, ...] = (), **options
) -> graphviz.Digraph:
    """Draw a graph model as a ``graphviz.Digraph`` (see :func:`build_view`).

    Example:
        >>> from tapemagic.graph.model import Cell, OpNode, TapeInfo, Value
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None),
        ...           values=(Value("t1", "constant", (), "float32", True),
        ...                   Value("t2", "op", (), "float32", True, op="op1")),
        ...           ops=(OpNode("op1", 1, "exp", ("t1",), ("t2",), True, False,
        ...                       2, "recording"),))
        >>> "rounded,dashed,filled" in to_dot(g).source
        True
    """
    return build_view(graph, findings, **options).digraph


def render_svg(drawing: graphviz.Digraph | DotView) -> str:
    """Run ``dot`` and return the ``<svg>`` element (no XML prolog or DOCTYPE).

    Args:
        drawing: a view from :func:`build_view`, or its ``graphviz.Digraph``.

    Returns:
        The SVG markup, ready to inline in HTML.

    Raises:
        graphviz.ExecutableNotFound: if Graphviz's ``dot`` is not installed
            (:data:`INSTALL_HINT` says how to install it).
        graphviz.CalledProcessError: if ``dot`` fails.

    Example:
        >>> svg = render_svg(graphviz.Digraph(body=["a -> b"]))
        >>> svg[:4], svg.count('class="node"')
        ('<svg', 2)
    """
    digraph = drawing.digraph if isinstance(drawing, DotView) else drawing
    svg = digraph.pipe(format="svg", encoding="utf-8")
    return svg[svg.index("<svg") :].strip()


# -- building a view ----------------------------------------------------------


def build_view(
    graph: Graph,
    findings: tuple[Finding, ...] = (),
    *,
    target: str | None = None,
    source: str | None = None,
    collapse: bool | None = None,
    gradients: bool = True,
    step: int = 0,
    request: str | None = None,
    max_nodes: int = MAX_NODES,
    legend: bool = True,
    rankdir: str = "TB",
    expand_gradients: bool = False,
) -> DotView:
    """Decide what to draw of ``graph`` and build the ``graphviz.Digraph``.

    Args:
        graph: the model of one tape.
        findings: why gradients are None; an op a finding names is drawn red.
        target, source: value ids: draw only the paths from ``source`` to
            ``target`` (either may be None for "all").
        collapse: group ops by cell line; None collapses only when there are
            more than ``max_nodes`` nodes.
        gradients: label edges with the cotangent's shape and norm when a
            gradient was taken.
        step: replay the backward sweep up to this step (0: no replay).
        request: the gradient request to show (default: the last one that
            answered for ``target``).
        max_nodes: the most nodes to draw; the earliest ops are hidden past it.
        legend: add a legend of the styles used, as the graph's label.
        rankdir: ``"LR"`` (left to right) or ``"TB"``.
        expand_gradients: draw the ops of each gradient computed inside the
            tape one by one, in a box, instead of as one node.

    Returns:
        A :class:`DotView`.

    Example:
        >>> from tapemagic.graph.model import Cell, OpNode, Source, TapeInfo, Value
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None),
        ...           values=(Value("t1", "variable", (), "float32", True,
        ...                         names=("w",), variable="w:0", trainable=True),
        ...                   Value("t2", "op", (), "float32", True, op="op1",
        ...                         names=("y",))),
        ...           ops=(OpNode("op1", 1, "exp", ("t1",), ("t2",), True, True,
        ...                       2, "recording"),),
        ...           sources=(Source("t1", "variable", True, "accessed", 2),),
        ...           targets=("t2",))
        >>> view = build_view(g)
        >>> view.nodes, view.notes()
        (('t1', 'op1', 't2'), 'Showing 1 of 1 op.')
    """
    plan = ViewPlan(
        graph,
        tuple(findings),
        target,
        source,
        collapse,
        gradients,
        step,
        request,
        max_nodes,
        expand_gradients,
    )
    return _Writer(graph, plan, legend, rankdir).build()


class _Writer:
    """Writes a :class:`~tapemagic.viz.dot_plan.ViewPlan` into a Digraph: its
    layout and edges here, its nodes through a
    :class:`~tapemagic.viz.dot_nodes.NodeWriter`."""

    def __init__(self, graph: Graph, plan: ViewPlan, legend: bool, rankdir: str):
        self.graph = graph
        self.plan = plan
        self.legend = legend
        self.rankdir = rankdir

    # -- build -------------------------------------------------------------------
    def build(self) -> DotView:
        plan = self.plan
        chosen, collapsed = plan.chosen, plan.collapsed
        self.dot = graphviz.Digraph(name="tape")
        set_graph_attributes(self.dot, self.rankdir)
        self.nodes = NodeWriter(self.graph, self.plan, self.dot)
        # The CSS classes of the edges and boxes drawn (the nodes keep theirs).
        self.classes: set[str] = set()
        self.ghosts = False
        self.edges: dict[tuple[str, str], dict[str, str]] = {}
        self.path_edges: set[tuple[str, str]] = set()
        shown = self._draw_groups(chosen) if collapsed else self._draw_ops(chosen)
        if self.plan.expand:
            self._call_boxes()
        for (tail, head), attrs in self.edges.items():
            self.dot.edge(tail, head, **attrs)
        if self.legend:
            classes = self.classes | self.nodes.classes
            write_legend(self.dot, classes, self.ghosts, bool(self.plan.steps))
        return DotView(
            digraph=self.dot,
            nodes=tuple(self.nodes.names),
            shown_ops=shown,
            total_ops=len(self.plan.tape_ops),
            collapsed=collapsed,
            hidden=tuple(self.plan.hidden),
            request=self.plan.request,
            steps=self.plan.steps,
            calls=tuple(self.plan.calls_drawn),
            call_ops=sum(len(ops) for ops in self.plan.calls_drawn.values()),
            expanded=self.plan.expand,
        )

    def _draw_ops(self, chosen: list[OpNode]) -> int:
        kept, leaves = self.plan.keep_units(chosen)
        hidden = len(chosen) - len(kept)
        drawn = {op.id for op in kept}
        self.value_nodes = set(self.plan.special)
        for v in self.plan.sources_drawn:
            self.nodes.value(self.plan.values[v])
        for v in sorted(leaves, key=_id_order):
            self.nodes.value(self.plan.values[v])
            self.value_nodes.add(v)
        for op in kept:
            unit = self.plan.unit(op)
            if unit == op.id:
                self.nodes.op(op)
            elif unit not in self.nodes.names:
                self.nodes.call(unit, self.plan.calls_drawn[unit], drawn)
        for v in self.plan.targets_drawn:
            if v not in self.plan.sources_drawn:
                self.nodes.value(self.plan.values[v])
        if hidden:
            self.plan.hidden.append(
                ("earlier ops not drawn (limit of the view)", hidden)
            )
            self.nodes.hidden(hidden, "earlier ops")
        for op in kept:
            for v in op.inputs:
                self._input_edge(v, op, drawn, hidden)
            for v in op.outputs:
                if v in self.value_nodes:
                    self._edge(self.plan.unit(op), v, v, op)
        self._asked_edges(lambda v: self._node_of(v, drawn))
        for v, origin in self.plan.ghost_of.items():
            if v in self.value_nodes:
                tail = self._node_of(origin, drawn)
                if tail is not None:
                    self._ghost_edge(tail, v)
        return len(kept)

    def _node_of(self, v: str, drawn: set[str]) -> str | None:
        """The DOT node that stands for value ``v``, or None if it is not drawn."""
        if v in self.value_nodes:
            return v
        op = self.plan.values[v].op
        return self.plan.unit(self.plan.ops[op]) if op in drawn else None

    def _input_edge(self, v: str, op: OpNode, drawn: set[str], hidden: int) -> None:
        if self.plan.folded(v, op):
            return
        head = self.plan.unit(op)
        tail = self._node_of(v, drawn)
        if tail is None:
            if hidden:
                self._edge("hidden", head, v, op)
            return
        if tail != head:  # a value passed inside one gradient call's node
            self._edge(tail, head, v, op)

    def _edge(self, tail: str, head: str, v: str, op: OpNode) -> None:
        key = (tail, head)
        on_path = v in self.plan.path_values and op.id in self.plan.path_ops
        # One edge per pair of nodes; one on a path wins over one that is not.
        if key in self.edges and (key in self.path_edges or not on_path):
            return
        attrs = dict(STYLE["edge"])
        if on_path:
            attrs.update(STYLE["edge_on_path"])
            self.path_edges.add(key)
        producer = self.plan.ops.get(self.plan.values[v].op or "")
        if not op.recorded or (producer is not None and not producer.recorded):
            attrs.update(STYLE["edge_unrecorded"])
            if on_path:
                attrs["color"] = STYLE["edge_on_path"]["color"]
        # A cotangent flows only into the recorded ops the sweep reached (and on
        # to the target).
        label = self._edge_label(v, op) if on_path and op.id in self.plan.swept else ""
        if label:
            attrs["label"] = escape_plain(label)
        if self.plan.step and self._edge_reached(v, op):
            attrs.update(STYLE["edge_step"])
        self.edges[key] = attrs

    def _asked_edges(self, tail_of) -> None:
        """Dotted edges from the target and sources each gradient call was asked
        of, where no value its ops used already joins them."""
        for request_id, ops in self.plan.calls_drawn.items():
            request = self.plan.nested[request_id]
            node = self.plan.call_node_of.get(request_id, request_id)
            heads = {op.id for op in ops} if self.plan.expand else {node}
            head = ops[0].id if self.plan.expand else node
            joined = {tail for tail, h in self.edges if h in heads}
            for v in (*request.targets, *request.sources):
                if v is None:
                    continue
                tail = tail_of(v)
                if tail is None or tail in heads or tail in joined:
                    continue
                joined.add(tail)
                attrs = dict(STYLE["edge_asked"])
                if self.plan.expand:
                    attrs["lhead"] = f"cluster_{request_id}"
                self.edges[(tail, head)] = attrs
                self.classes.add("tm-asked")

    def _edge_reached(self, v: str, op: OpNode) -> bool:
        gv = self.plan.gvalues.get(v)
        if gv is None:
            return False
        # The cotangent of v flows back along the edge once v's node got it.
        holder = gv.op if gv.op is not None else gv.value
        return holder in self.plan.reached and op.id in self.plan.reached

    def _edge_label(self, v: str, op: OpNode) -> str:
        """The cotangent ``op`` passed back to its input ``v``: this edge's
        share, not ``v``'s total (which its own node shows)."""
        # A collapsed edge stands for many values: no one cotangent to show.
        if not self.plan.gradients or self.plan.collapsed:
            return ""
        if v in op.outputs:  # from the op to its output: what reached the output
            share = self.plan.gvalues.get(v)
        else:
            share = self.plan.shares.get((v, op.id))
        if share is None:
            return ""
        return f"∂ {shape_text(share.shape)} norm {format_norm(share.norm)}"

    def _ghost_edge(self, tail: str, v: str) -> None:
        escape = self.plan.escapes[self.plan.values[v].escape]
        attrs = dict(STYLE["edge_ghost"])
        how = ESCAPE_HOW.get(escape.how, escape.how)
        label = how + (f" line {escape.line}" if escape.line is not None else "")
        attrs["label"] = escape_plain(label)
        self.edges[(tail, v)] = attrs
        self.ghosts = True

    def _call_boxes(self) -> None:
        """Expanded: a dashed box around the ops of each gradient call."""
        if not self.plan.calls_drawn:
            return
        self.dot.attr(compound="true")
        for request_id, ops in self.plan.calls_drawn.items():
            with self.dot.subgraph(name=f"cluster_{request_id}") as box:
                box.attr(
                    label=write_label(
                        self.nodes.call_lines(self.plan.calls[request_id])
                    ),
                    labelloc="t",
                    labeljust="l",
                    **STYLE["gradient_cluster"],
                )
                for op in ops:
                    box.node(op.id)
        self.classes.add("tm-call")

    # -- collapsed: one node per cell line -------------------------------------------
    def _draw_groups(self, chosen: list[OpNode]) -> int:
        lines = self.plan.group_by_line(chosen)
        groups, call_nodes, kept_keys = lines.groups, lines.call_nodes, lines.kept
        hidden_ops, group_of, kept_ops = lines.hidden_ops, lines.group_of, lines.ops
        drawn = {op.id for op in kept_ops}
        self.value_nodes = set(self.plan.special)
        for v in self.plan.sources_drawn:
            self.nodes.value(self.plan.values[v])
        for name, members in self.plan.source_groups.items():
            self.nodes.source_group(name, members)
        folded = 0
        for key in kept_keys:
            if key in call_nodes:
                self.nodes.call(key, groups[key], drawn)
            else:
                folded += self.nodes.group(key, groups[key], drawn)
        for v in self.plan.targets_drawn:
            if v not in self.plan.sources_drawn:
                self.nodes.value(self.plan.values[v])
        if folded:
            self.plan.hidden.append(("unwatched inputs folded into their line", folded))
        if hidden_ops:
            self.plan.hidden.append(
                ("earlier ops not drawn (limit of the view)", hidden_ops)
            )
            self.nodes.hidden(hidden_ops, "earlier ops")
        for op in kept_ops:
            head = group_of[op.id]
            for v in op.inputs:
                if v in self.plan.tail_of:
                    tail = self.plan.tail_of[v]
                else:
                    producer = self.plan.values[v].op
                    if producer in group_of:
                        tail = group_of[producer]
                    elif producer is not None and hidden_ops:
                        tail = "hidden"
                    else:
                        continue
                if tail != head:
                    self._edge(tail, head, v, op)
            for v in op.outputs:
                if v in self.value_nodes and v in self.plan.targets_drawn:
                    self._edge(head, v, v, op)
        self._asked_edges(
            lambda v: self.plan.tail_of.get(v) or group_of.get(self.plan.values[v].op)
        )
        consumer_of = {v: op for op in reversed(kept_ops) for v in op.inputs}
        for v, origin in self.plan.ghost_of.items():
            producer = self.plan.values[origin].op
            consumer = consumer_of.get(v)
            if consumer is None:
                continue
            tail = self.plan.tail_of.get(origin) or group_of.get(producer)
            if tail is not None and tail != group_of[consumer.id]:
                self.edges[(tail, group_of[consumer.id])] = self._ghost_attrs(v)
        return len(kept_ops)

    def _ghost_attrs(self, v: str) -> dict[str, str]:
        escape = self.plan.escapes[self.plan.values[v].escape]
        attrs = dict(STYLE["edge_ghost"])
        attrs["label"] = escape_plain(ESCAPE_HOW.get(escape.how, escape.how))
        self.ghosts = True
        return attrs


# -- helpers ---------------------------------------------------------------------------


def _id_order(value_id: str) -> int:
    digits = "".join(ch for ch in value_id if ch.isdigit())
    return int(digits) if digits else 0
