"""One index over a graph model: who made each value, who used it, what reaches what.

A :class:`~tapemagic.graph.model.Graph` is a set of tuples; the diagnosis and
every renderer ask the same questions of it (which op made this value, which
ops used it, which value came back from an escape, what lies on a path from a
source to a target). :class:`GraphIndex` answers them from dictionaries built
once per graph, and remembers each walk it made. :func:`index_of` builds it on
first use and keeps it with the (immutable) graph, so the diagnosis, the DOT
builder, the text view and the widget of one ``%%tape`` cell share one index.

Two kinds of walks:

- data flow, whatever the tape recorded: :meth:`GraphIndex.ancestors` (what
  the targets were computed from, through ops, values copied out of the engine
  and back, and assignments to variables) and :meth:`GraphIndex.descendants`
  (the other way);
- gradient flow: :meth:`GraphIndex.gradient_reach` (what a gradient can reach
  from a source through ops that have one, optionally only those a tape
  recorded) and :meth:`GraphIndex.paths` (the ops and values of the tape's
  graph on a path from sources to targets, as the graph view draws them).
"""

from __future__ import annotations

import bisect

from .model import Assign, Escape, GradientRequest, Graph, OpNode, Value

__all__ = ["GraphIndex", "index_of"]

# Where a graph keeps its index (the graph is frozen; its index is built once).
_KEPT = "_index"


def index_of(graph: Graph) -> GraphIndex:
    """The :class:`GraphIndex` of ``graph``, built on first use and kept with it
    (the graph never changes).

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> g = Graph(TapeInfo("t", False, True, "new", True), Cell(None, None))
        >>> index_of(g) is index_of(g)
        True
    """
    index = graph.__dict__.get(_KEPT)
    if index is None:
        index = GraphIndex(graph)
        object.__setattr__(graph, _KEPT, index)
    return index


class GraphIndex:
    """Lookups and cached walks over one graph model (see the module docs).

    Get it with :func:`index_of` rather than building it: the graph keeps one.

    Example:
        >>> from tapemagic.graph.model import Cell, Graph, OpNode, TapeInfo, Value
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None),
        ...           values=(Value("t1", "variable", (), "float32", True),
        ...                   Value("t2", "op", (), "float32", True, op="op1")),
        ...           ops=(OpNode("op1", 1, "exp", ("t1",), ("t2",), True, True,
        ...                       2, "recording"),))
        >>> index = index_of(g)
        >>> index.producer("t2").id, [op.id for op in index.consumers("t1")]
        ('op1', ['op1'])
        >>> sorted(index.ancestors(("t2",), 10)[0]), index.name_of("t2")
        (['t1', 't2'], 'exp result')
    """

    def __init__(self, graph: Graph) -> None:
        self.values: dict[str, Value] = {v.id: v for v in graph.values}
        self.ops: dict[str, OpNode] = {op.id: op for op in graph.ops}
        self._made_by: dict[str, OpNode] = {}
        self._uses: dict[str, list[tuple[OpNode, int]]] = {}
        self._consumers: dict[str, tuple[OpNode, ...]] = {}
        self._during: dict[str, list[OpNode]] = {}
        # The gradient computations that are part of this tape's graph
        # (nested_requests). A gradient is computed with ordinary ops, and a
        # recording tape records those that use what it watches: that is how
        # nested tapes give second derivatives. A request's computation is part
        # of the graph when it ran ops here and was asked of another tape
        # (inner.gradient(y, x) inside this tape's block), or this tape
        # recorded some of its ops (a persistent tape asked inside its own
        # block). This tape's other answers are not.
        recorded: dict[str, bool] = {}
        forward = []
        made_by, uses, during = self._made_by, self._uses, self._during
        for op in graph.ops:
            for out in op.outputs:
                if out not in made_by:
                    made_by[out] = op
            for i, value in enumerate(op.inputs):
                if value in uses:
                    uses[value].append((op, i))
                else:
                    uses[value] = [(op, i)]
            if op.during is None:
                forward.append(op)
            else:
                during.setdefault(op.during, []).append(op)
                recorded[op.during] = recorded.get(op.during, False) or op.recorded
        # The ops that ran the forward computation, in order.
        self.forward_ops: tuple[OpNode, ...] = tuple(forward)
        self.nested_requests: tuple[GradientRequest, ...] = tuple(
            r
            for r in graph.gradients
            if r.id in recorded and (r.tape != 0 or recorded[r.id])
        )
        self.nested: dict[str, GradientRequest] = {
            r.id: r for r in self.nested_requests
        }
        # The tape's graph, in execution order: the forward ops, and the ops
        # of gradients computed inside the tape (an inner tape's gradient,
        # recorded by this one).
        if self.nested:
            self.graph_ops: tuple[OpNode, ...] = tuple(
                op for op in graph.ops if op.during is None or op.during in self.nested
            )
        else:
            self.graph_ops = self.forward_ops
        self.calls: dict[str, list[OpNode]] = {
            r: list(ops) for r, ops in during.items() if r in self.nested
        }
        self.inner_targets = self._inner_targets(graph.gradients)
        self.escapes: dict[str, Escape] = {e.id: e for e in graph.escapes}
        self.escapes_of: dict[str, list[Escape]] = {}
        for e in graph.escapes:
            self.escapes_of.setdefault(e.value, []).append(e)
        self.copies_of: dict[str, list[str]] = {}
        for v in graph.values:
            if v.escape is not None:
                self.copies_of.setdefault(v.escape, []).append(v.id)
        # A value that came back from an escape: its ghost link to the origin.
        self.ghost_of: dict[str, str] = {
            v.id: self.escapes[v.escape].value
            for v in graph.values
            if v.escape is not None and v.escape in self.escapes
        }
        self.assigned = self._assigned_values(graph.assigns)
        self.assigned_from: dict[str, set[str]] = {}
        self.assigns_of: dict[str, list[Assign]] = {}
        by_seq = {a.seq: a for a in graph.assigns}
        for variable, entries in self.assigned.items():
            for seq, assigned in entries:
                for value in assigned:
                    self.assigned_from.setdefault(value, set()).add(variable)
                    self.assigns_of.setdefault(value, []).append(by_seq[seq])
        self.resets: tuple[int, ...] = tuple(
            e.seq for e in graph.tape_events if e.event == "reset"
        )
        self._ancestors: dict[tuple, tuple[set[str], set[str], set[int]]] = {}
        self._descendants: dict[tuple, set[str]] = {}
        self._gradient_reach: dict[tuple, set[str]] = {}
        self._paths: dict[tuple, tuple[set[str], set[str]]] = {}

    def _inner_targets(self, requests: tuple[GradientRequest, ...]) -> tuple[str, ...]:
        inner: dict[str, None] = {}
        own: set[str] = set()
        for r in requests:
            for t in r.targets:
                if t is None:
                    continue
                if r.id in self.nested and r.tape != 0:
                    inner[t] = None
                else:
                    own.add(t)
        return tuple(t for t in inner if t not in own)

    # -- lookups ----------------------------------------------------------------
    def producer(self, value_id: str) -> OpNode | None:
        """The first op that lists the value among its outputs, or None."""
        return self._made_by.get(value_id)

    def name_of(self, value_id: str | None) -> str:
        """A label for a value, never an internal id: its first user name, a
        Keras weight's layer and name (``dense_1/kernel``), a variable's own
        name, else what it is (``round result``, ``a tf.Variable``)."""
        if value_id is None:
            return "?"
        value = self.values[value_id]
        if value.names:
            return value.names[0]
        if value.path:
            return "/".join(value.path.split("/")[-2:])
        if value.variable is not None:
            name = value.variable.split(":")[0]
            last = name.rsplit("/", 1)[-1]
            if last != "Variable" and not (
                last.startswith("Variable_") and last[9:].isdigit()
            ):
                return name
            return "a tf.Variable"
        if value.op is not None:
            return f"{self.ops[value.op].op} result"
        return {
            "numpy": "a NumPy array",
            "python": f"a Python {value.python_type or 'value'}",
            "constant": "a constant",
        }.get(value.origin, "a tensor")

    def uses(self, value_id: str) -> list[tuple[OpNode, int]]:
        """``(op, input position)`` for every use of the value, in execution order."""
        return self._uses.get(value_id, [])

    def consumers(self, value_id: str) -> tuple[OpNode, ...]:
        """The ops that took the value as an input (each once), in execution order."""
        found = self._consumers.get(value_id)
        if found is None:
            found = tuple(dict.fromkeys(op for op, _ in self.uses(value_id)))
            self._consumers[value_id] = found
        return found

    def used(self, value_id: str) -> bool:
        """Whether any op took the value as an input."""
        return value_id in self._uses

    def ops_during(self, request_id: str) -> list[OpNode]:
        """The ops a gradient request's computation ran, in execution order."""
        return self._during.get(request_id, [])

    @staticmethod
    def recorded_on(op: OpNode, tape: int) -> bool:
        """Whether tape ``tape`` (0: the graph's own, 1...: others) recorded it."""
        return op.recorded if tape == 0 else tape in op.other_tapes

    def carries(self, op: OpNode, index: int) -> bool:
        """Whether the op has a gradient for its input at ``index`` at all."""
        return (
            op.differentiable
            and index not in op.no_gradient_inputs
            and any(self.values[o].differentiable for o in op.outputs)
        )

    # -- data flow -----------------------------------------------------------------
    def ancestors(
        self, targets: tuple[str, ...], before: float, through_assigns: bool = True
    ) -> tuple[set[str], set[str], set[int]]:
        """What ``targets`` were computed from by ``before`` (a log position).

        Returns:
            The values (the targets included), the ids of the escapes on the
            way, and the ``seq`` of the assignments on the way (followed only
            with ``through_assigns``).
        """
        key = (targets, before, through_assigns)
        if key not in self._ancestors:
            self._ancestors[key] = self._walk_back(targets, before, through_assigns)
        return self._ancestors[key]

    def _walk_back(
        self, targets: tuple[str, ...], before: float, through_assigns: bool
    ) -> tuple[set[str], set[str], set[int]]:
        found = set(targets)
        escapes: set[str] = set()
        assigns: set[int] = set()
        # A variable read at some time holds what every earlier assign put in
        # it (assign_add keeps the old value): versions[variable] is how many
        # of its assigns have been followed already.
        versions: dict[str, int] = {}
        stack = list(targets)

        def follow(variable: str, when: float) -> None:
            entries = self.assigned.get(variable, ())
            count = bisect.bisect_left(entries, (when,))
            for seq, assigned in entries[versions.get(variable, 0) : count]:
                assigns.add(seq)
                for parent in assigned:
                    if parent not in found:
                        found.add(parent)
                        stack.append(parent)
            versions[variable] = max(count, versions.get(variable, 0))

        while stack:
            value = stack.pop()
            parents = []
            op = self._made_by.get(value)
            if op is not None and op.seq < before:
                for i in op.inputs:
                    parents.append(i)
                    if through_assigns and self.values[i].origin == "variable":
                        follow(i, op.seq)
            if through_assigns and op is None and value in targets:
                follow(value, before)  # a variable as the target
            copy_of = self.values[value].escape
            if copy_of is not None:
                escapes.add(copy_of)
                parents.append(self.escapes[copy_of].value)
            for parent in parents:
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        return found, escapes, assigns

    def descendants(self, start: str, before: float) -> set[str]:
        """Everything computed from ``start`` by ``before``, through ops, copies
        and assigns."""
        key = (start, before)
        if key not in self._descendants:
            self._descendants[key] = self._walk_forward(start, before)
        return self._descendants[key]

    def _walk_forward(self, start: str, before: float) -> set[str]:
        found = {start}
        stack = [start]
        while stack:
            value = stack.pop()
            children = []
            for op, _ in self.uses(value):
                if op.seq < before:
                    children.extend(op.outputs)
            for e in self.escapes_of.get(value, ()):
                children.extend(self.copies_of.get(e.id, ()))
            children.extend(self.assigned_from.get(value, ()))
            for child in children:
                if child not in found:
                    found.add(child)
                    stack.append(child)
        return found

    def _assigned_values(
        self, assigns: tuple[Assign, ...]
    ) -> dict[str, list[tuple[int, tuple[str, ...]]]]:
        """variable -> (seq, values assigned to it) per assign.

        ``assign_add``/``assign_sub`` hand the engine a NumPy sum, so their
        tensor is not linked; the value computed on the assign's line right
        before it, and used by nothing else, stands in for it.
        """
        found: dict[str, list] = {}
        forward = self.forward_ops
        seqs = [op.seq for op in forward]
        for a in assigns:
            if a.value is not None:
                values: tuple[str, ...] = (a.value,)
            else:
                # The run of ops on the assign's line just before it.
                run = []
                i = bisect.bisect_left(seqs, a.seq) - 1
                while i >= 0 and a.line is not None and forward[i].line == a.line:
                    run.append(forward[i])
                    i -= 1
                values = tuple(
                    out for op in run for out in op.outputs if out not in self._uses
                )
            found.setdefault(a.variable, []).append((a.seq, values))
        return found

    # -- gradient flow -------------------------------------------------------------
    def gradient_reach(
        self, source: str, before: float, after: int = -1, tape: int | None = None
    ) -> set[str]:
        """Values a gradient can reach from ``source`` through ops with one.

        Args:
            source: the value id to start from.
            before, after: only ops with ``after < seq < before`` count.
            tape: only ops this tape recorded (0: the graph's own tape, 1, 2...:
                other tapes); None for every op.
        """
        key = (source, before, after, tape)
        if key not in self._gradient_reach:
            self._gradient_reach[key] = self._walk_gradient(source, before, after, tape)
        return self._gradient_reach[key]

    def _walk_gradient(
        self, source: str, before: float, after: int, tape: int | None
    ) -> set[str]:
        reach = {source}
        stack = [source]
        while stack:
            value = stack.pop()
            for op, i in self.uses(value):
                if op.seq >= before or op.seq <= after or not self.carries(op, i):
                    continue
                if tape is not None and not self.recorded_on(op, tape):
                    continue
                for out in op.outputs:
                    if out not in reach and self.values[out].differentiable:
                        reach.add(out)
                        stack.append(out)
        return reach

    def paths(
        self, sources: tuple[str, ...], targets: tuple[str, ...]
    ) -> tuple[set[str], set[str]]:
        """Ops and values of the tape's graph on a data-flow path (ghost links
        included) from a source to a target, through the ops of gradients
        computed inside the tape too."""
        key = (sources, targets)
        if key not in self._paths:
            self._paths[key] = self._walk_paths(sources, targets)
        return self._paths[key]

    def _walk_paths(
        self, sources: tuple[str, ...], targets: tuple[str, ...]
    ) -> tuple[set[str], set[str]]:
        ghost_of = self.ghost_of
        reach = set(sources)
        fwd_ops = set()
        for op in self.graph_ops:
            inputs = op.inputs
            # An input copied back from a value on the path joins the path.
            ghosts = [v for v in inputs if ghost_of.get(v) in reach] if ghost_of else ()
            if not ghosts and reach.isdisjoint(inputs):
                continue
            fwd_ops.add(op.id)
            reach.update(ghosts)
            reach.update(op.outputs)
        back = set(targets)
        bwd_ops = set()
        for op in reversed(self.graph_ops):
            if back.isdisjoint(op.outputs):
                continue
            bwd_ops.add(op.id)
            back.update(op.inputs)
            if ghost_of:
                back.update(ghost_of[v] for v in op.inputs if v in ghost_of)
        return fwd_ops & bwd_ops, reach & back
