"""Build the graph model of a tape, through the recorder's public surface.

With an explanation log (``GradientTape(explain=True)`` or a ``%%tape`` cell),
the model holds every op that ran, each value's origin, escapes, reads,
assigns, watches and gradient requests. Without one it holds what the tape
recorded for backprop, which a non-persistent tape drops after its one answer.
"""

from __future__ import annotations

import linecache
from typing import Any

import numpy as np

from ..engine.recorder import dtype_name
from .log import ExplainLog
from .model import (
    Assign,
    Binding,
    Cell,
    Edge,
    EdgeGradient,
    Escape,
    GradientRequest,
    GradientResult,
    GradientValue,
    Graph,
    OpNode,
    Preview,
    Read,
    Source,
    TapeEvent,
    TapeInfo,
    Value,
    Watch,
)
from .previews import preview, summary
from .recorders import Surface, surface_of

__all__ = ["graph_from_tape"]


def graph_from_tape(
    tape: Any, *, name: str | None = None, namespace: dict | None = None
) -> Graph:
    """The graph model of ``tape``.

    Args:
        tape: a ``GradientTape`` of any registered recorder (see
            :mod:`tapemagic.graph.recorders`), with or without an explanation
            log.
        name: the user's name for the tape, for labels.
        namespace: names to label values with (e.g. ``globals()``), for tapes
            the ``%%tape`` magic did not make (it records the names itself).

    Returns:
        A :class:`~tapemagic.graph.model.Graph`.

    Example:
        >>> from tapemagic.engine import GradientTape, Variable
        >>> w = Variable(3.0, name="w")
        >>> with GradientTape(explain=True) as tape:
        ...     y = w * w
        >>> g = graph_from_tape(tape, name="tape", namespace={"y": y})
        >>> [(op.op, op.recorded) for op in g.ops], g.sources[0].how
        ([('multiply', True)], 'accessed')
        >>> g.values[-1].names
        ('y',)
    """
    surface = surface_of(tape)
    log = surface.explain_listener(tape)
    if isinstance(log, ExplainLog):
        return _Builder(tape, log, name, namespace).graph()
    return _graph_from_nodes(tape, name, surface)


def _differentiable(dtype: np.dtype) -> bool:
    return dtype.kind in "fc"


def _param_text(value: Any) -> str:
    if isinstance(value, np.dtype):
        return dtype_name(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _params(params: dict) -> tuple[tuple[str, str], ...]:
    return tuple((key, _param_text(params[key])) for key in sorted(params))


def _tape_info(state: Any, name: str | None, explained: bool) -> TapeInfo:
    return TapeInfo(
        name=name,
        persistent=state.persistent,
        watch_accessed_variables=state.watch_accessed_variables,
        status=state.status,
        explained=explained,
    )


class _Builder:
    """Turns one log into a Graph: ids first, then each section in log order."""

    def __init__(self, tape: Any, log: ExplainLog, name: str | None,
                 namespace: dict | None) -> None:  # fmt: skip
        self.state = log.recorder.describe_tape(tape, nodes=False)
        self.log = log
        describe = log.recorder.describe
        self.name = name
        self.names = dict(log.named.names)
        for key, value in (namespace or {}).items():
            ref = None if key.startswith("_") else describe(value)
            if ref is None:
                continue
            known = self.names.get(ref.id, ())
            if ref.id in log.values and key not in known:
                self.names[ref.id] = (*known, key)
        self.vid = {key: f"t{i}" for i, key in enumerate(log.values, 1)}
        self.op_ids: dict[int, str] = {}
        self.escape_ids: dict[int, str] = {}
        for seq, event in enumerate(log.events):
            if event[0] == "op":
                self.op_ids[seq] = f"op{len(self.op_ids) + 1}"
            elif event[0] == "escape":
                self.escape_ids[seq] = f"e{len(self.escape_ids) + 1}"

    def graph(self) -> Graph:
        log = self.log
        ops = self._ops()
        gradients = self._gradients()
        sources = self._sources(gradients)
        return Graph(
            tape=_tape_info(self.state, self.name, explained=True),
            cell=self._cell(),
            values=self._values(),
            ops=ops,
            edges=_edges(ops),
            sources=sources,
            targets=tuple(
                dict.fromkeys(t for g in gradients for t in g.targets if t is not None)
            ),
            gradients=gradients,
            reads=tuple(
                Read(seq, self.vid[e[1]], e[2], e[3], e[4])
                for seq, e in self._events("read")
            ),
            escapes=tuple(
                Escape(self.escape_ids[seq], seq, self.vid[e[1]], e[2], e[3], e[4])
                for seq, e in self._events("escape")
            ),
            assigns=tuple(
                Assign(seq, self.vid[e[1]], self.vid.get(e[2]), e[3], e[4], e[5])
                for seq, e in self._events("assign")
            ),
            watches=tuple(
                Watch(seq, e[1], self.vid[e[2]], e[4], e[5])
                for seq, e in self._events("watch")
            ),
            tape_events=tuple(
                TapeEvent(seq, e[1], e[2]) for seq, e in self._events("tape")
            ),
            bindings=tuple(
                Binding(
                    name,
                    self.vid.get(value),
                    kind,
                    previous,
                    python_type,
                    self.vid.get(log.named.previous.get(name)),
                )
                for name, value, kind, previous, python_type in log.named.bindings
            ),
            gradient_values=self._gradient_values(),
            edge_gradients=self._edge_gradients(),
            previews=self._previews(sources),
        )

    def _gradient_values(self) -> tuple[GradientValue, ...]:
        log, vid = self.log, self.vid
        found = []
        for number, key, shape, norm, is_result in log.asked.cotangents:
            if key not in vid:
                continue
            op = None
            if not is_result:
                seq = log.values[key][3]
                op = self.op_ids.get(seq) if seq is not None else None
            found.append(
                GradientValue(
                    f"g{number + 1}", vid[key], op, tuple(int(d) for d in shape), norm
                )
            )
        return tuple(found)

    def _edge_gradients(self) -> tuple[EdgeGradient, ...]:
        log, vid = self.log, self.vid
        found = []
        for number, key, shape, norm, input_key in log.asked.edges:
            seq = log.values[key][3] if key in log.values else None
            op = self.op_ids.get(seq) if seq is not None else None
            if op is None or input_key not in vid:
                continue
            found.append(
                EdgeGradient(
                    f"g{number + 1}",
                    vid[input_key],
                    op,
                    tuple(int(d) for d in shape),
                    norm,
                )
            )
        return tuple(found)

    def _previews(self, sources: tuple[Source, ...]) -> tuple[Preview, ...]:
        # A variable shows its value now; a tensor, its value when last seen.
        by_id = {v: k for k, v in self.vid.items()}
        previews = []
        for source in sources:
            key = by_id[source.value]
            var = self.log.variables.get(key)
            if var is not None:
                now = self.log.recorder.describe(var).value
                text, summed = preview(now), summary(now)
            else:
                glimpse = self.log.previews.get(key)
                text = None if glimpse is None else preview(glimpse)
                summed = self.log.summaries.get(key)
            if text is not None:
                previews.append(Preview(source.value, text, *(summed or ())))
        return tuple(previews)

    def _events(self, kind: str) -> list[tuple[int, tuple]]:
        return [(seq, e) for seq, e in enumerate(self.log.events) if e[0] == kind]

    def _cell(self) -> Cell:
        log = self.log
        if log.lines is not None:
            lines = tuple(log.lines)
        elif log.filename is not None:
            text = linecache.getlines(log.filename)
            lines = tuple(line.rstrip("\n") for line in text)
        else:
            lines = ()
        return Cell(label=log.label, filename=log.filename, lines=lines)

    def _values(self) -> tuple[Value, ...]:
        log = self.log
        events = log.events
        values = []
        # Engine ids come from one counter: their order is the creation order.
        created = {key: rank for rank, key in enumerate(sorted(log.values), 1)}
        # Values converted from one Python or NumPy object point at the first.
        first_of: dict[int, str] = {}
        for key in log.values:
            number = log.objects.get(key)
            if number is not None:
                first_of.setdefault(number, self.vid[key])
        for key, (origin, shape, dtype, seq) in log.values.items():
            event = events[seq] if seq is not None else None
            line = op = python_type = None
            escape = self.escape_ids.get(log.copies.get(key))
            if event is not None:
                if event[0] == "op":
                    line, op = event[6], self.op_ids[seq]
                elif event[0] == "convert":
                    python_type, line = event[3], event[5]
                    escape = self.escape_ids.get(event[4])
                elif event[0] == "read":
                    line = event[2]
            same_as = first_of.get(log.objects.get(key))
            var = log.variables.get(key) if origin == "variable" else None
            made_at, made_from = log.made.get(key, (None, None))
            path = getattr(var, "path", None) if var is not None else None
            values.append(
                Value(
                    id=self.vid[key],
                    origin=origin,
                    shape=tuple(int(d) for d in shape),
                    dtype=dtype_name(dtype),
                    differentiable=_differentiable(dtype),
                    line=line,
                    op=op,
                    names=self.names.get(key, ()),
                    variable=None if var is None else var.name,
                    trainable=None if var is None else var.trainable,
                    python_type=python_type,
                    escape=escape,
                    finite=log.finite.get(key),
                    same_as=None if same_as == self.vid[key] else same_as,
                    after_tape=key in log.after,
                    rebound_from=log.named.rebound_from.get(key),
                    rebound_at=log.named.rebound_at.get(key),
                    created=created[key],
                    made_at=made_at,
                    made_from=made_from,
                    path=path if isinstance(path, str) else None,
                )
            )
        return tuple(values)

    def _ops(self) -> tuple[OpNode, ...]:
        vid = self.vid
        requests = self.log.asked.requests
        ops = []
        for seq, e in self._events("op"):
            request = e[8]
            ops.append(
                OpNode(
                    id=self.op_ids[seq],
                    seq=seq,
                    op=e[1],
                    inputs=tuple(vid[i] for i in e[3]),
                    outputs=tuple(vid[o] for o in e[4]),
                    differentiable=e[2],
                    recorded=e[5],
                    line=e[6],
                    tape_state=e[7],
                    during=None if request is None or request >= len(requests)
                    else f"g{request + 1}",
                    params=_params(e[9]),
                    other_tapes=e[10],
                    no_gradient_inputs=e[11],
                    singular=e[12],
                )
            )  # fmt: skip
        return tuple(ops)

    def _sources(self, gradients: tuple[GradientRequest, ...]) -> tuple[Source, ...]:
        log, vid = self.log, self.vid
        watching = [ref.id for ref in self.state.variables]
        found: dict[int, Source] = {}
        # tape.watch on this tape, since the last reset (reset forgets them).
        events = log.events
        last_reset = max(
            (seq for seq, e in enumerate(events) if e[:2] == ("tape", "reset")),
            default=-1,
        )
        for seq, e in enumerate(events):
            if e[0] != "watch" or e[1] != 0 or e[2] in found:
                continue
            key, is_variable = e[2], e[3]
            if is_variable:
                watched = key in watching
            else:
                watched = seq > last_reset and log.values[key][2].kind in "fc"
            kind = "variable" if is_variable else "tensor"
            found[key] = Source(vid[key], kind, watched, "watch", e[4], e[6])
        # Trainable variables read while recording, watched on access.
        for key in watching:
            if key in found or key not in vid:
                continue
            line = next(
                (
                    e[2]
                    for e in events
                    if e[0] == "read" and e[1] == key and e[3] == "recording"
                ),
                None,
            )
            found[key] = Source(vid[key], "variable", True, "accessed", line)
        # Anything else a gradient was asked with respect to: never watched.
        by_id = {v: k for k, v in vid.items()}
        for request in gradients:
            for source in request.sources:
                key = by_id.get(source)
                if key is None or key in found:
                    continue
                kind = "variable" if key in log.variables else "tensor"
                found[key] = Source(source, kind, False, "none", None)
        return tuple(found.values())

    def _gradients(self) -> tuple[GradientRequest, ...]:
        vid = self.vid
        gradients = []
        seqs = {e[1]: seq for seq, e in self._events("gradient")}
        for number, r in enumerate(self.log.asked.requests):
            sources = tuple(vid.get(s) for s in r["sources"])
            flags = r.get("flags", ())
            results = tuple(
                GradientResult(
                    source=source,
                    none=none,
                    shape=None if shape is None else tuple(int(d) for d in shape),
                    dtype=None if dtype is None else dtype_name(dtype),
                    preview=None if glimpse is None else preview(glimpse),
                    nan=nan,
                    inf=inf,
                    zero=zero,
                )
                for source, (none, shape, dtype, glimpse), (nan, inf, zero) in zip(
                    sources, r["results"], flags
                )
            )
            gradients.append(
                GradientRequest(
                    id=f"g{number + 1}",
                    seq=seqs[number],
                    kind=r["kind"],
                    tape=r["tape"],
                    targets=tuple(vid.get(t) for t in r["targets"]),
                    sources=sources,
                    results=results,
                    unconnected=r["unconnected"],
                    output_gradients=r["output_gradients"],
                    where=r["where"],
                    line=r["line"],
                    here=r["here"],
                    via=r["via"],
                    error=r["error"],
                    code=r.get("code"),
                    source_paths=tuple(
                        _path_text(path) for path in r.get("source_paths", ())
                    ),
                    target_types=r.get("target_types", ()),
                    target_escapes=tuple(
                        None if seq is None else self.escape_ids.get(seq)
                        for seq in r.get("target_escapes", ())
                    ),
                )
            )
        return tuple(gradients)


def _path_text(path: tuple) -> str:
    """A place in a structure as code: ``[1]``, ``['w']``, ``[0][2]``."""
    return "".join(f"[{key!r}]" for key in path)


def _edges(ops: tuple[OpNode, ...]) -> tuple[Edge, ...]:
    edges = []
    for op in ops:
        edges.extend(Edge(v, op.id, i) for i, v in enumerate(op.inputs))
        edges.extend(Edge(op.id, v, i) for i, v in enumerate(op.outputs))
    return tuple(edges)


def _graph_from_nodes(tape: Any, name: str | None, surface: Surface) -> Graph:
    """The model of a tape without a log: what it recorded for backprop."""
    state = surface.describe_tape(tape)
    vid: dict[int, str] = {}
    values: list[Value] = []
    variables = {ref.id: ref.variable for ref in state.variables}

    def see(ref: Any, origin: str, op: str | None = None) -> str:
        key = ref.id
        if key not in vid:
            vid[key] = f"t{len(vid) + 1}"
            var = variables.get(key)
            if var is not None:
                origin = "variable"
            values.append(
                Value(
                    id=vid[key],
                    origin=origin,
                    shape=tuple(int(d) for d in ref.shape),
                    dtype=dtype_name(ref.dtype),
                    differentiable=_differentiable(ref.dtype),
                    op=op if origin == "op" else None,
                    variable=None if var is None else var.name,
                    trainable=None if var is None else var.trainable,
                )
            )
        return vid[key]

    sources = []
    for ref in state.variables:
        how = "accessed" if state.watch_accessed_variables else "watch"
        sources.append(Source(see(ref, "variable"), "variable", True, how))
    for ref in state.watched:
        sources.append(Source(see(ref, "unknown"), "tensor", True, "watch"))
    ops = []
    for seq, node in enumerate(state.nodes):
        op_id = f"op{seq + 1}"
        ins = tuple(see(t, "unknown") for t in node.inputs)
        outs = tuple(see(t, "op", op_id) for t in node.outputs)
        ops.append(
            OpNode(
                id=op_id,
                seq=seq,
                op=node.op.name,
                inputs=ins,
                outputs=outs,
                differentiable=node.op.differentiable,
                singular=node.op.singular,
                recorded=True,
                line=None,
                tape_state="recording",
                params=_params(node.params),
            )
        )
    ops_t = tuple(ops)
    return Graph(
        tape=_tape_info(state, name, explained=False),
        cell=Cell(label=None, filename=None),
        values=tuple(values),
        ops=ops_t,
        edges=_edges(ops_t),
        sources=tuple(sources),
    )
