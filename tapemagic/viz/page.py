"""The view of a tape as HTML: header, graph, sources and gradients.

These functions render one graph model and its findings as HTML fragments:
the header line, the drawing (inline SVG, or without Graphviz's ``dot`` the
text view and how to install it), the table of sources and the gradient
requests with each ``None`` explained. The widget
(:class:`~tapemagic.viz.widget.TapeWidget`) shows them in its tabs;
:func:`static_html` puts them in one fragment for notebook viewers without a
kernel (nbconvert, GitHub), so it needs no ipywidgets.
"""

from __future__ import annotations

import html
import math

import graphviz

from ..graph.findings import Finding
from ..graph.index import index_of
from ..graph.model import GradientRequest, GradientResult, Graph, Preview
from .codes import code_page_html
from .dot import INSTALL_HINT, DotView, build_view, gradient_status, render_svg
from .labels import shape_text
from .text import render_text

__all__ = [
    "DIM",
    "dot_failed",
    "draw_failed",
    "escape_html",
    "fallback_html",
    "gradients_html",
    "graph_html",
    "header_html",
    "norm_text",
    "notes_html",
    "sources_html",
    "static_html",
]

_RED = "#b91c1c"
_AMBER = "#b45309"
_NOTE = "#3a5a80"  # a note (a gradient of zeros): no result is wrong
_COLOURS = {"error": _RED, "warning": _AMBER}
_GREEN = "#15803d"
DIM = "#6b7280"
_CELL = "padding:2px 8px;border-bottom:1px solid #e5e7eb;text-align:left"
_HEAD = _CELL + ";font-weight:600;border-bottom:1px solid #9ca3af"
_TABLE = "border-collapse:collapse;font-size:12px;margin:4px 0"


def escape_html(text: object) -> str:
    """``text`` escaped for HTML, quotes too."""
    return html.escape(str(text), quote=True)


_e = escape_html  # short, for the markup below


def norm_text(norm: float | None) -> str:
    """A gradient's norm as the tables show it."""
    return "" if norm is None else f"{norm:.4g}"


def _status_html(status: str) -> str:
    colour = {"None": _RED, "NaN": _AMBER, "zero": _AMBER, "ok": _GREEN}[status]
    weight = ";font-weight:600" if status == "None" else ""
    return (
        f'<span class="tm-status tm-status-{status.lower()}" '
        f'style="color:{colour}{weight}">{_e(status)}</span>'
    )


def _last_result(graph: Graph, value_id: str):
    """The last request that answered for ``value_id``, with its result."""
    for request in reversed(graph.gradients):
        if value_id in request.sources and request.results:
            return request, request.results[request.sources.index(value_id)]
    return None, None


def _final_norms(graph: Graph) -> dict[tuple[str, str], float]:
    """(request id, source id) -> the norm of the gradient the source got."""
    return {
        (gv.request, gv.value): gv.norm for gv in graph.gradient_values if gv.op is None
    }


def _findings_for(findings, request: GradientRequest, value_id: str | None):
    return [
        f
        for f in findings
        if f.source_id == value_id
        and (
            f.request == request.id
            or (f.request is None and f.target_id in (None, *request.targets))
        )
    ]


def header_html(graph: Graph, findings: tuple[Finding, ...] = ()) -> str:
    """One line naming the tape, its options, and how many gradients are None.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> tape = TapeInfo("tape", True, True, "stopped", True)
        >>> header_html(Graph(tape, Cell("In[3]", None))).split(" · ", 1)[1]
        'persistent · stopped · from In[3] · 0 of 0 ops recorded</div>'
    """
    tape = graph.tape
    name = "GradientTape" + (f" {tape.name!r}" if tape.name else "")
    parts = ["persistent" if tape.persistent else "non-persistent", tape.status]
    if not tape.watch_accessed_variables:
        parts.append("watch_accessed_variables=False")
    if graph.cell.label:
        parts.append(f"from {graph.cell.label}")
    # The tape's graph: forward ops and those of gradients computed inside it.
    forward = index_of(graph).graph_ops
    recorded = sum(op.recorded for op in forward)
    parts.append(f"{recorded} of {len(forward)} ops recorded")
    nones = sum(r.none for g in graph.gradients for r in g.results)
    text = f"<b>{_e(name)}</b> · " + " · ".join(_e(p) for p in parts)
    if nones:
        text += (
            f' · <span style="color:{_RED};font-weight:600">{nones} None '
            f"gradient{'s' if nones != 1 else ''}</span>"
        )
    elif findings:
        text += f' · <span style="color:{_AMBER}">{len(findings)} warnings</span>'
    return f'<div class="tapemagic-header">{text}</div>'


def sources_html(graph: Graph, findings: tuple[Finding, ...] = ()) -> str:
    """A table of every source: name, how watched, trainable, dtype, shape,
    value, and the gradient it last got (ok / None / zero / NaN, and its norm).

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None))
        >>> sources_html(g)
        '<p class="tapemagic-sources">The tape watched nothing.</p>'
    """
    if not graph.sources:
        return '<p class="tapemagic-sources">The tape watched nothing.</p>'
    previews = {p.value: p for p in graph.previews}
    norms = _final_norms(graph)
    head = (
        "source",
        "how watched",
        "trainable",
        "dtype",
        "shape",
        "value",
        "gradient",
        "norm",
    )
    rows = ["<tr>" + "".join(f'<th style="{_HEAD}">{h}</th>' for h in head) + "</tr>"]
    for source in graph.sources:
        value = index_of(graph).values[source.value]
        if source.how == "accessed":
            how = "read while recording"
        elif source.how == "watch":
            caller = "%%tape --watch" if source.via is not None else "tape.watch"
            how = caller if source.watched else f"{caller} (not watchable)"
        else:
            how = "not watched"
        if source.line is not None:
            how += f", line {source.line}"
        trainable = "" if value.trainable is None else str(value.trainable)
        request, result = _last_result(graph, source.value)
        status = norm = ""
        note = ""
        if result is not None:
            norm_value = norms.get((request.id, source.value))
            kind = gradient_status(norm_value, result.none)
            status = (
                _status_html(kind) + f' <span style="color:{DIM}">({request.id})</span>'
            )
            norm = norm_text(norm_value)
            found = _findings_for(findings, request, source.value)
            if found:
                note = "".join(
                    f'<div class="tm-finding" style="color:{_RED}">{_e(f.short)}</div>'
                    for f in found[:2]
                )
        else:
            status = f'<span style="color:{DIM}">not asked</span>'
        css = "tm-source-row" + (
            " tm-none" if result is not None and result.none else ""
        )
        cells = (
            f"<b>{_e(index_of(graph).name_of(source.value))}</b>",
            _e(how),
            _e(trainable),
            _e(value.dtype),
            _e(shape_text(value.shape)),
            _value_summary(previews.get(source.value), value.shape),
            status + note,
            _e(norm),
        )
        rows.append(
            f'<tr class="{css}">'
            + "".join(
                f'<td style="{_CELL}{_SOURCE_COLUMNS.get(i, "")}">{c}</td>'
                for i, c in enumerate(cells)
            )
            + "</tr>"
        )
    return (
        '<div style="max-height:480px;overflow:auto">'
        f'<table class="tapemagic-sources" style="{_TABLE}">'
        + "".join(rows)
        + "</table></div>"
    )


# The sources table's value and gradient columns: a value's summary stays on
# two short lines, and the gradient column never narrows to a word a line.
_SOURCE_COLUMNS = {
    5: ";max-width:26em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis",
    6: ";min-width:11em",
}
_SMALL = 4  # items a value shows whole, in the sources table


def _value_summary(preview: Preview | None, shape: tuple[int, ...]) -> str:
    """A source's value in the sources table: whole when it has at most
    ``_SMALL`` items, else its first items over min, max and norm."""
    if preview is None:
        return ""
    if math.prod(shape) <= _SMALL or preview.first is None:
        return f"<code>{_e(preview.text)}</code>"
    numbers = " · ".join(
        f"{what} {_e(f'{number:.4g}')}"
        for what, number in (
            ("min", preview.minimum),
            ("max", preview.maximum),
            ("norm", preview.norm),
        )
    )
    return (
        f'<code title="{_e(preview.text)}">{_e(preview.first)}</code>'
        f'<div style="color:{DIM}">{numbers}</div>'
    )


def _names(graph: Graph, ids: tuple[str | None, ...]) -> str:
    names = [index_of(graph).name_of(i) for i in ids]
    return names[0] if len(names) == 1 else "[" + ", ".join(names) + "]"


def _result_html(result: GradientResult) -> str:
    if result.none:
        return _status_html("None")
    preview = f" <code>{_e(result.preview)}</code>" if result.preview else ""
    return f"{_e(result.dtype)} {_e(shape_text(result.shape))}{preview}"


def gradients_html(graph: Graph, findings: tuple[Finding, ...] = ()) -> str:
    """Every gradient or jacobian request: target, sources, each result, and for
    each ``None`` the finding that explains it and its fix.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None))
        >>> gradients_html(g)
        '<p class="tapemagic-gradients">No gradient was asked of this tape yet.</p>'
    """
    if not graph.gradients and not findings:
        return (
            '<p class="tapemagic-gradients">No gradient was asked of this tape yet.</p>'
        )
    index = index_of(graph)
    parts = ['<div class="tapemagic-gradients">']
    explained: set[int] = set()
    for request in graph.gradients:
        call = (
            f"{request.kind}({_names(graph, request.targets)}, "
            f"{_names(graph, request.sources)})"
        )
        if request.via is not None:
            place = f"by %%tape {request.via}"
        elif request.where is not None:
            place = f"in {request.where}" + (
                f", line {request.line}" if request.line is not None else ""
            )
        else:
            place = f"line {request.line}" if request.line is not None else ""
        if request.tape != 0:
            place += f" (on another tape, #{request.tape})"
        parts.append(
            f'<div style="margin-top:6px"><b>{_e(request.id)}</b> '
            f'<code>{_e(call)}</code> <span style="color:{DIM}">{_e(place)}</span>'
            "</div>"
        )
        if request.error is not None:
            parts.append(
                f'<div class="tm-error" style="color:{_RED}">raised {_e(request.error)}'
                "</div>"
            )
            continue
        rows = [
            "<tr>"
            + "".join(
                f'<th style="{_HEAD}">{h}</th>' for h in ("source", "gradient", "why")
            )
            + "</tr>"
        ]
        for source, result in zip(request.sources, request.results):
            found = _findings_for(findings, request, source)
            explained.update(id(f) for f in found)
            why = "".join(_finding_html(f) for f in found)
            css = "tm-gradient-row" + (" tm-none" if result.none else "")
            rows.append(
                f'<tr class="{css}"><td style="{_CELL}"><b>{_e(index.name_of(source))}'
                f'</b></td><td style="{_CELL}">{_result_html(result)}</td>'
                f'<td style="{_CELL}">{why}</td></tr>'
            )
        parts.append(f'<table style="{_TABLE}">' + "".join(rows) + "</table>")
    rest = [f for f in findings if id(f) not in explained]
    if rest:
        parts.append('<div style="margin-top:6px"><b>Other findings</b></div><ul>')
        for f in rest:
            colour = _COLOURS.get(f.severity, _NOTE)
            parts.append(
                f'<li class="tm-finding"><span style="color:{colour}">{_e(f.message)}'
                f"</span> <b>Fix:</b> {_e(f.fix)}{code_page_html(f)}</li>"
            )
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def _finding_html(finding: Finding) -> str:
    colour = _COLOURS.get(finding.severity, _NOTE)
    return (
        f'<div class="tm-finding" style="color:{colour}">{_e(finding.message)}</div>'
        f'<div class="tm-fix"><b>Fix:</b> {_e(finding.fix)}</div>'
        + code_page_html(finding)
    )


def graph_html(
    graph: Graph,
    findings: tuple[Finding, ...] = (),
    view: DotView | None = None,
    svg: str | None = None,
) -> str:
    """The drawing as inline SVG, or, without ``dot``, one line on how to
    install it and the text view.

    Args:
        graph, findings: what to draw.
        view: a view built already (default: :func:`build_view` of both).
        svg: its SVG, if rendered already.

    Returns:
        The notes on what is shown, then the SVG (or the fallback).

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> g = Graph(TapeInfo("tape", False, True, "new", True), Cell(None, None))
        >>> "<svg" in graph_html(g), "Showing 0 of 0 ops." in graph_html(g)
        (True, True)
    """
    view = view if view is not None else build_view(graph, findings)
    notes = notes_html(view)
    if svg is None:
        try:
            svg = render_svg(view)
        except graphviz.ExecutableNotFound:
            return notes + fallback_html(graph, findings, INSTALL_HINT)
        except graphviz.CalledProcessError as err:
            return notes + fallback_html(graph, findings, dot_failed(err))
        except Exception as err:  # any other failure of the drawing: the text view
            return notes + fallback_html(graph, findings, draw_failed(err))
    return (
        notes
        + '<div class="tapemagic-graph" style="overflow:auto;max-height:720px">'
        + svg
        + "</div>"
    )


def notes_html(view: DotView) -> str:
    """What the drawing shows and hides, as one line of HTML."""
    return (
        f'<div class="tapemagic-notes" style="color:{DIM};font-size:12px">'
        f"{_e(view.notes())}</div>"
    )


def dot_failed(err: BaseException) -> str:
    """The line that says Graphviz's ``dot`` failed; the text view follows."""
    text = " ".join(str(err).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"Graphviz's dot could not draw this tape ({text}); here is the text view."


def draw_failed(err: BaseException) -> str:
    """The line that says the drawing failed; the text view follows."""
    text = " ".join(f"{type(err).__name__}: {err}".split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"The graph could not be drawn ({text}); here is the text view."


def fallback_html(graph: Graph, findings: tuple[Finding, ...], reason: str) -> str:
    """The text view in the drawing's place, under ``reason``."""
    return (
        f'<div class="tapemagic-nodot" style="color:{_AMBER}">{_e(reason)}</div>'
        f'<pre class="tapemagic-text">{_e(render_text(graph, findings))}</pre>'
    )


def static_html(
    graph: Graph, findings: tuple[Finding, ...] = (), svg_html: str | None = None
) -> str:
    """The whole view as one HTML fragment: header, graph, sources, gradients.

    Args:
        graph, findings: what to show.
        svg_html: the graph part, if rendered already (see :func:`graph_html`).

    Returns:
        A ``<div class="tapemagic-static">`` with everything the widget shows
        at first, for viewers without a kernel.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> g = Graph(TapeInfo("tape", False, True, "new", True), Cell(None, None))
        >>> static_html(g, svg_html="").endswith("tape yet.</p></details></div>")
        True
    """
    graph_part = svg_html if svg_html is not None else graph_html(graph, findings)
    return (
        '<div class="tapemagic-static">'
        + header_html(graph, findings)
        + graph_part
        + "<details open><summary><b>Sources</b></summary>"
        + sources_html(graph, findings)
        + "</details><details open><summary><b>Gradients</b></summary>"
        + gradients_html(graph, findings)
        + "</details></div>"
    )
