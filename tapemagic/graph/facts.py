"""What the diagnosis knows about one graph model, per gradient question.

:class:`Facts` reads a graph through its :class:`~tapemagic.graph.index.GraphIndex`
and answers the questions the causes' detectors ask of a
:class:`~tapemagic.graph.cause.Query`: did the asked tape watch the source in
time, does a recorded path join it to the target, what was the target computed
from, which op used the source first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .cause import Query
from .index import index_of
from .model import Graph, OpNode
from .names import Names

__all__ = ["Facts", "Role"]

# Ops that read a tensor as the shape they make (see engine ``apply``'s reads).
_SHAPE_READERS = {
    "reshape": "tf.reshape",
    "fill": "tf.fill",
    "broadcast_to": "tf.broadcast_to",
    "tile": "tf.tile",
}
# Ops that read a tensor as indices into another.
_INDEX_READERS = {
    "gather": "tf.gather",
    "gather_nd": "tf.gather_nd",
    "strided_slice": "indexing",
    "sparse_softmax_cross_entropy_with_logits": "the labels of the loss",
}


@dataclass(frozen=True)
class Role:
    """What a value without a gradient does on the way to a target.

    Attributes:
        kind: ``"condition"`` (of ``tf.where``), ``"mask"`` (of
            ``tf.boolean_mask``), ``"indices"``, ``"shape"`` (a shape an op
            makes), or ``"argument"`` (another input without a gradient).
        op: the op that reads it that way.
        call: how the user calls that op (``"tf.gather"``, ``"indexing"``).
    """

    kind: str
    op: OpNode
    call: str


class Facts:
    """The graph, its index and names, and the reasoning shared by the causes.

    Example:
        >>> from tapemagic.graph.model import Cell, OpNode, TapeInfo, Value
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None),
        ...           values=(Value("t1", "constant", (), "float32", True),
        ...                   Value("t2", "op", (), "float32", True, op="op1")),
        ...           ops=(OpNode("op1", 1, "exp", ("t1",), ("t2",), True, False,
        ...                       2, "recording"),))
        >>> facts = Facts(g)
        >>> q = Query("t1", ("t2",), 0, 5)
        >>> facts.tracked(q), facts.connected(q), facts.first_use(q).id
        (False, False, 'op1')
    """

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.index = index_of(graph)
        self.values = self.index.values
        self.names = Names(graph, self.index)

    # -- the tape ----------------------------------------------------------------
    def reset_before(self, q: Query) -> int:
        """The last ``tape.reset()`` before the request on the graph's own tape."""
        if q.tape != 0:
            return -1
        return max((s for s in self.index.resets if s < q.before), default=-1)

    def recorded_on(self, op: OpNode, tape: int) -> bool:
        """Whether tape ``tape`` (0: the graph's own) recorded ``op``."""
        return self.index.recorded_on(op, tape)

    def tracked(self, q: Query, source: str | None = None) -> bool:
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

    def connected(self, q: Query) -> bool:
        """Whether the asked tape recorded a gradient path from source to target."""
        if not self.values[q.source].differentiable or not self.tracked(q):
            return False
        reach = self.forward(q, recorded=True)
        return any(y in reach for y in q.targets)

    # -- reach -------------------------------------------------------------------
    def forward(self, q: Query, recorded: bool) -> set[str]:
        """Values a gradient can reach from the source; on the tape, if recorded."""
        if not recorded:
            return self.index.gradient_reach(q.source, q.before)
        return self.index.gradient_reach(
            q.source, q.before, self.reset_before(q), q.tape
        )

    def ancestors(self, q: Query) -> tuple[set[str], set[str], set[int]]:
        """What the targets were computed from, the escapes and assigns on the way."""
        return self.index.ancestors(q.targets, q.before)

    def descendants(self, start: str, before: float) -> set[str]:
        """Everything computed from ``start``, through ops, copies and assigns."""
        return self.index.descendants(start, before)

    # -- uses --------------------------------------------------------------------
    def first_use(self, q: Query) -> OpNode | None:
        """The first op that used the source on the way to the targets."""
        anc, _, _ = self.ancestors(q)
        return self.first_consumer(q.source, anc)

    def first_consumer(self, value: str, anc: set[str]) -> OpNode | None:
        """The first forward op that used ``value`` towards ``anc`` (else at all)."""
        uses = [
            op
            for op, _ in self.index.uses(value)
            if op.during is None and any(o in anc for o in op.outputs)
        ]
        if not uses:
            uses = [op for op, _ in self.index.uses(value) if op.during is None]
        return min(uses, key=lambda op: op.seq) if uses else None

    def role(self, values: tuple[str, ...], q: Query) -> Role | None:
        """What ``values`` (the outputs of an op without a gradient, say) are
        used as on the way to ``q``'s targets, following them through other
        ops without a gradient: the condition of a ``tf.where``, the mask of a
        ``tf.boolean_mask``, the indices of a gather, a shape; None when they
        are used as numbers."""
        anc, _, _ = self.ancestors(q)
        seen = set(values)
        stack = list(values)
        mask = False
        while stack:
            value = stack.pop()
            for user, i in self.index.uses(value):
                if user.during is not None or not any(o in anc for o in user.outputs):
                    continue
                name = user.op
                if name == "where" and i == 0:
                    return Role("condition", user, "tf.where")
                if name == "one_hot" and i == 0:
                    return Role("indices", user, "tf.one_hot")
                if i in user.no_gradient_inputs:
                    if name in _SHAPE_READERS:
                        return Role("shape", user, _SHAPE_READERS[name])
                    if name in ("gather", "gather_nd") and mask:
                        return Role("mask", user, "tf.boolean_mask")
                    if name in _INDEX_READERS:
                        return Role("indices", user, _INDEX_READERS[name])
                    return Role("argument", user, name)
                if name == "where_indices":
                    mask = mask or dict(user.params).get("flat") == "True"
                if self.index.carries(user, i):
                    continue  # used as numbers from here on
                for out in user.outputs:
                    if out not in seen:
                        seen.add(out)
                        stack.append(out)
        return None

    def first_use_seq(self, value: str) -> float:
        """When an op first used ``value`` (``inf``: never)."""
        uses = [op.seq for op, _ in self.index.uses(value)]
        return min(uses) if uses else math.inf

    def watched_anywhere(self, value: str) -> bool:
        """Whether any tape was asked to watch ``value``."""
        return any(w.value == value for w in self.graph.watches)

    def line_of_seq(self, seq: int) -> int | None:
        """The line of the tape event (``reset()``...) at log position ``seq``."""
        for e in self.graph.tape_events:
            if e.seq == seq:
                return e.line
        return None

    @staticmethod
    def order(value: str) -> tuple:
        """Sort key for value ids: ``t2`` before ``t10``."""
        return (int(value[1:]) if value[1:].isdigit() else 0, value)

    def line_text(self, line: int | None) -> str | None:
        """The stripped text of a cell line, or None."""
        text = self.graph.cell.line(line)
        return None if text is None else text.strip()
