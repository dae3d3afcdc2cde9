"""The graph model as plain text: terminals, logs, and notebooks without ``dot``.

It states the facts a ``%%tape`` cell shows: how many ops ran and how many the
tape recorded, which gradients were computed inside the tape (an inner tape's
``gradient`` under this one: its ops are part of this tape's graph), which
sources it watched and how, which gradients were asked for, which came back
``None``, and why (the findings it is handed, each with its fix).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..graph.findings import Finding
from ..graph.index import index_of
from ..graph.model import GradientRequest, Graph, Source, Value
from .labels import shape_text

__all__ = ["render_text"]

# How many unrecorded ops to name before summarising the rest.
_UNRECORDED_SHOWN = 5


def _where(line: int | None) -> str:
    return "" if line is None else f" at line {line}"


def _value_text(graph: Graph, value: Value) -> str:
    return (
        f"{index_of(graph).name_of(value.id)} ({value.dtype} {shape_text(value.shape)})"
    )


def _source_text(graph: Graph, source: Source) -> str:
    value = index_of(graph).values[source.value]
    if source.how == "accessed":
        how = f"watched when read{_where(source.line)}"
    elif source.how == "watch":
        caller = "%%tape --watch" if source.via is not None else "tape.watch"
        how = f"{caller}{_where(source.line)}"
        if not source.watched:
            how += " (not watched: its dtype cannot have a gradient)"
    else:
        how = "never watched by this tape"
    if source.kind == "variable" and value.trainable is False:
        how += ", trainable=False"
    return f"{_value_text(graph, value)}, {source.kind}: {how}"


def _names(graph: Graph, ids: tuple[str | None, ...]) -> str:
    names = [index_of(graph).name_of(i) for i in ids]
    return names[0] if len(names) == 1 else "[" + ", ".join(names) + "]"


def _request_lines(graph: Graph, request: GradientRequest) -> list[str]:
    call = (
        f"{request.kind}({_names(graph, request.targets)}, "
        f"{_names(graph, request.sources)})"
    )
    if request.via is not None:
        place = f" by %%tape {request.via}"
    elif request.where is not None:
        place = f" in {request.where}" + _where(request.line)
    else:
        place = _where(request.line)
    if request.tape != 0:
        place += f" (on another tape, #{request.tape})"
    lines = [f"  {request.id}: {call}{place}"]
    if request.error is not None:
        lines.append(f"      raised {request.error}")
    for result in request.results:
        name = index_of(graph).name_of(result.source)
        if result.none:
            lines.append(f"      {name}: None")
        else:
            shape = shape_text(result.shape)
            lines.append(f"      {name}: {result.dtype} {shape} {result.preview}")
    return lines


def _call_text(graph: Graph, request: GradientRequest) -> str:
    """``dy_dx = inner.gradient(y, x) at line 4: 4 ops, 2 recorded``."""
    ops = index_of(graph).ops_during(request.id)
    line = ops[0].line
    code = graph.cell.line(line)
    if code is None:
        code = (
            f"{request.kind}({_names(graph, request.targets)}, "
            f"{_names(graph, request.sources)})"
        )
    recorded = sum(op.recorded for op in ops)
    count = f"{len(ops)} op{'s' if len(ops) != 1 else ''}"
    return f"{code.strip()}{_where(line)}: {count}, {recorded} recorded"


def render_text(graph: Graph, findings: Sequence[Finding] = ()) -> str:
    """Summarise a graph model in a few plain lines.

    Args:
        graph: the model of one tape.
        findings: why gradients are None (or NaN): the diagnosis of ``graph``
            (:func:`tapemagic.graph.from_tape.view_model` gives both); none
            by default.

    Returns:
        The summary, lines joined by newlines (no trailing newline).

    Example:
        >>> from tapemagic.graph.model import Cell, Graph, TapeInfo
        >>> tape = TapeInfo("tape", False, True, "stopped", True)
        >>> g = Graph(tape, Cell("In[1]", None))
        >>> print(render_text(g))
        GradientTape 'tape' (non-persistent, stopped) from In[1]
        The tape recorded nothing: no tensor operation ran.
        Watched: nothing.
    """
    tape = graph.tape
    kind = "persistent" if tape.persistent else "non-persistent"
    head = "GradientTape" + (f" {tape.name!r}" if tape.name else "")
    head += f" ({kind}, {tape.status})"
    if not tape.watch_accessed_variables:
        head += ", watch_accessed_variables=False"
    if graph.cell.label:
        head += f" from {graph.cell.label}"
    lines = [head]

    # The tape's graph: forward ops and those of gradients computed inside it.
    forward = list(index_of(graph).graph_ops)
    recorded = [op for op in forward if op.recorded]
    if not recorded:
        if not forward:
            lines.append("The tape recorded nothing: no tensor operation ran.")
        else:
            lines.append(
                f"The tape recorded nothing: {len(forward)} op"
                f"{'s' if len(forward) != 1 else ''} ran, but none used a watched "
                "variable or tensor."
            )
    else:
        ops = f"Ops: {len(recorded)} recorded on the tape"
        if tape.explained:
            ops += f", of {len(forward)} that ran"
        lines.append(ops + ".")
    unrecorded = [op for op in forward if not op.recorded and op.during is None]
    if recorded and unrecorded:
        shown = ", ".join(
            f"{op.op}{_where(op.line)}" for op in unrecorded[:_UNRECORDED_SHOWN]
        )
        more = len(unrecorded) - _UNRECORDED_SHOWN
        lines.append(
            "  not recorded: " + shown + (f", and {more} more" if more > 0 else "")
        )
    nested = index_of(graph).nested_requests
    if nested:
        lines.append("Gradients computed inside the tape (their ops are in its graph):")
        lines.extend(f"  {_call_text(graph, request)}" for request in nested)

    watched = [s for s in graph.sources if s.watched]
    if watched:
        lines.append("Watched:")
        lines.extend(f"  {_source_text(graph, s)}" for s in watched)
    else:
        lines.append("Watched: nothing.")
    unwatched = [s for s in graph.sources if not s.watched]
    if unwatched:
        lines.append("Asked about but not watched:")
        lines.extend(f"  {_source_text(graph, s)}" for s in unwatched)

    if graph.gradients:
        lines.append("Gradients asked for:")
        for request in graph.gradients:
            lines.extend(_request_lines(graph, request))
        nones = [
            (request, result)
            for request in graph.gradients
            for result in request.results
            if result.none
        ]
        if nones:
            listed = ", ".join(
                f"{index_of(graph).name_of(result.source)} ({request.id})"
                for request, result in nones
            )
            lines.append(f"None gradients: {listed}.")
    if findings:
        lines.append("Why, and what to do:")
        for finding in findings:
            lines.append(f"  {finding.message}")
            lines.append(f"    -> {finding.fix} [{finding.cause_code}]")
    return "\n".join(lines)
