"""The ipywidgets view of a tape: graph, sources, gradients, and controls.

:class:`TapeWidget` shows one graph model and its findings in three tabs: the
graphviz drawing (see :mod:`tapemagic.viz.dot`), a table of the watched
sources, and every gradient request with each ``None`` explained. Controls pick
a target and a source (only the paths between them are drawn), collapse ops by
cell line, label edges with gradient norms, and replay the backward sweep step
by step. Without Graphviz's ``dot`` the graph tab says how to install it and
shows the text view instead.

:func:`static_html` renders the same facts as one HTML fragment (inline SVG and
tables), for notebook viewers without a kernel (nbconvert, GitHub).
"""

from __future__ import annotations

import html
import traceback

import graphviz
import ipywidgets as widgets

from ..graph.findings import Finding
from ..graph.index import index_of
from ..graph.model import GradientRequest, GradientResult, Graph
from .dot import (
    INSTALL_HINT,
    MAX_NODES,
    DotView,
    backward_steps,
    build_view,
    gradient_status,
    render_svg,
)
from .labels import shape_text
from .text import render_text

__all__ = [
    "TapeWidget",
    "gradients_html",
    "graph_html",
    "header_html",
    "sources_html",
    "static_html",
]

_RED = "#b91c1c"
_AMBER = "#b45309"
_NOTE = "#3a5a80"  # a note (a gradient of zeros): no result is wrong
_COLOURS = {"error": _RED, "warning": _AMBER}
_GREEN = "#15803d"
_DIM = "#6b7280"
_CELL = "padding:2px 8px;border-bottom:1px solid #e5e7eb;text-align:left"
_HEAD = _CELL + ";font-weight:600;border-bottom:1px solid #9ca3af"
_TABLE = "border-collapse:collapse;font-size:12px;margin:4px 0"
_SVG_CACHE = 32  # rendered SVGs kept per widget (the step slider revisits them)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _norm(norm: float | None) -> str:
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
    previews = {p.value: p.text for p in graph.previews}
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
            how = "tape.watch" if source.watched else "tape.watch (not watchable)"
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
                _status_html(kind)
                + f' <span style="color:{_DIM}">({request.id})</span>'
            )
            norm = _norm(norm_value)
            found = _findings_for(findings, request, source.value)
            if found:
                note = "".join(
                    f'<div class="tm-finding" style="color:{_RED}">{_e(f.short)}</div>'
                    for f in found[:2]
                )
        else:
            status = f'<span style="color:{_DIM}">not asked</span>'
        css = "tm-source-row" + (
            " tm-none" if result is not None and result.none else ""
        )
        cells = (
            f"<b>{_e(index_of(graph).name_of(source.value))}</b>",
            _e(how),
            _e(trainable),
            _e(value.dtype),
            _e(shape_text(value.shape)),
            f"<code>{_e(previews.get(source.value, ''))}</code>",
            status + note,
            _e(norm),
        )
        rows.append(
            f'<tr class="{css}">'
            + "".join(f'<td style="{_CELL}">{c}</td>' for c in cells)
            + "</tr>"
        )
    return (
        '<div style="max-height:480px;overflow:auto">'
        f'<table class="tapemagic-sources" style="{_TABLE}">'
        + "".join(rows)
        + "</table></div>"
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
            f'<code>{_e(call)}</code> <span style="color:{_DIM}">{_e(place)}</span>'
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
                f"</span> <b>Fix:</b> {_e(f.fix)}</li>"
            )
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def _finding_html(finding: Finding) -> str:
    colour = _COLOURS.get(finding.severity, _NOTE)
    return (
        f'<div class="tm-finding" style="color:{colour}">{_e(finding.message)}</div>'
        f'<div class="tm-fix"><b>Fix:</b> {_e(finding.fix)}</div>'
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
    notes = _notes_html(view)
    if svg is None:
        try:
            svg = render_svg(view)
        except graphviz.ExecutableNotFound:
            return notes + _fallback_html(graph, findings, INSTALL_HINT)
        except graphviz.CalledProcessError as err:
            return notes + _fallback_html(graph, findings, _dot_failed(err))
        except Exception as err:  # any other failure of the drawing: the text view
            return notes + _fallback_html(graph, findings, _draw_failed(err))
    return (
        notes
        + '<div class="tapemagic-graph" style="overflow:auto;max-height:720px">'
        + svg
        + "</div>"
    )


def _notes_html(view: DotView) -> str:
    return (
        f'<div class="tapemagic-notes" style="color:{_DIM};font-size:12px">'
        f"{_e(view.notes())}</div>"
    )


def _dot_failed(err: BaseException) -> str:
    text = " ".join(str(err).split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"Graphviz's dot could not draw this tape ({text}); here is the text view."


def _draw_failed(err: BaseException) -> str:
    text = " ".join(f"{type(err).__name__}: {err}".split())
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"The graph could not be drawn ({text}); here is the text view."


def _fallback_html(graph: Graph, findings: tuple[Finding, ...], reason: str) -> str:
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


class TapeWidget(widgets.VBox):
    """The ipywidgets view of one tape's graph model and findings.

    Args:
        graph: the model.
        findings: why gradients are None (from the diagnosis).
        max_nodes: the most nodes the drawing may have.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> g = Graph(TapeInfo("tape", False, True, "stopped", True), Cell(None, None))
        >>> w = TapeWidget(g)
        >>> [t for t in w._tabs.titles], "tapemagic-widget" in w._dom_classes
        (['Graph', 'Sources', 'Gradients'], True)
    """

    def __init__(
        self,
        graph: Graph,
        findings: tuple[Finding, ...] = (),
        *,
        max_nodes: int = MAX_NODES,
        **kwargs,
    ) -> None:
        self.graph = graph
        self.findings = tuple(findings)
        self.max_nodes = max_nodes
        self.view: DotView | None = None
        self.svg: str | None = None
        self.graph_part: str = ""
        self._svgs: dict[str, str] = {}
        self._busy = False
        self._collapse_auto = True

        inner = set(index_of(graph).inner_targets)
        targets = [
            (index_of(graph).name_of(t) + (" (inner target)" if t in inner else ""), t)
            for t in graph.targets
        ]
        sources = [(index_of(graph).name_of(s.value), s.value) for s in graph.sources]
        self._header = widgets.HTML(header_html(graph, self.findings))
        self._target = widgets.Dropdown(
            # "" stands for all: ipywidgets shows a None value as no selection.
            options=[("all targets", ""), *_unique(targets)],
            value="",
            description="target",
            layout=widgets.Layout(width="220px"),
        )
        self._source = widgets.Dropdown(
            options=[("all sources", ""), *_unique(sources)],
            value="",
            description="source",
            layout=widgets.Layout(width="220px"),
        )
        self._collapse = widgets.Checkbox(
            value=False, description="collapse by cell line", indent=False
        )
        self._edge_gradients = widgets.Checkbox(
            value=True, description="gradients on edges", indent=False
        )
        # A gradient computed inside the tape is one node; this shows its ops.
        self._expand = widgets.Checkbox(
            value=False, description="expand gradient calls", indent=False
        )
        self._step = widgets.IntSlider(
            value=0, min=0, max=0, description="backward", continuous_update=True
        )
        self._step_text = widgets.HTML()
        self._graph = widgets.HTML()
        self._graph.add_class("tapemagic-graph-view")
        self._sources = widgets.HTML(sources_html(graph, self.findings))
        self._sources.add_class("tapemagic-sources-view")
        self._gradients = widgets.HTML(gradients_html(graph, self.findings))
        self._gradients.add_class("tapemagic-gradients-view")
        self._out = widgets.Output()
        controls = widgets.HBox(
            [self._target, self._source, self._collapse, self._edge_gradients]
        )
        if index_of(graph).nested_requests:
            controls.children = (*controls.children, self._expand)
        replay = widgets.HBox([self._step, self._step_text])
        nones = sum(r.none for g in graph.gradients for r in g.results)
        self._tabs = widgets.Tab(
            children=[
                widgets.VBox([controls, replay, self._graph]),
                self._sources,
                self._gradients,
            ],
            titles=("Graph", "Sources", "Gradients"),
        )
        if nones:
            self._tabs.titles = ("Graph", "Sources", f"Gradients ({nones} None)")
        super().__init__(children=[self._header, self._tabs, self._out], **kwargs)
        self.add_class("tapemagic-widget")
        self._sync_steps()
        self._render()
        self._collapse.value = bool(self.view is not None and self.view.collapsed)
        self._target.observe(self._on_target_change, names="value")
        self._source.observe(self._on_source_change, names="value")
        self._collapse.observe(self._on_collapse_change, names="value")
        self._edge_gradients.observe(self._on_edge_gradients_change, names="value")
        self._expand.observe(self._on_expand_change, names="value")
        self._step.observe(self._on_step_change, names="value")

    # -- handlers: each ends in the one _render() ------------------------------
    def _on_target_change(self, change: dict) -> None:
        self._sync_steps()
        self._render()

    def _on_source_change(self, change: dict) -> None:
        self._render()

    def _on_collapse_change(self, change: dict) -> None:
        self._collapse_auto = False
        self._render()

    def _on_edge_gradients_change(self, change: dict) -> None:
        self._render()

    def _on_expand_change(self, change: dict) -> None:
        self._render()

    def _on_step_change(self, change: dict) -> None:
        self._render()

    def _sync_steps(self) -> None:
        """Fit the step slider to the sweep of the picked target's request."""
        _, steps = backward_steps(self.graph, target=self._target.value or None)
        self._busy = True
        try:
            self._step.value = 0
            self._step.max = len(steps)
            self._step.disabled = not steps
        finally:
            self._busy = False

    # -- rendering -----------------------------------------------------------------
    def _render(self) -> None:
        if self._busy:
            return
        try:
            self._draw()
        except Exception as err:
            # The graph tab falls back to the text view; the details go below.
            self.graph_part = _fallback_html(
                self.graph, self.findings, _draw_failed(err)
            )
            self._graph.value = self.graph_part
            self._out.outputs = ()
            self._out.append_stderr(
                "tapemagic could not redraw the view:\n" + traceback.format_exc()
            )

    def _draw(self) -> None:
        collapse = None if self._collapse_auto else self._collapse.value
        view = build_view(
            self.graph,
            self.findings,
            target=self._target.value or None,
            source=self._source.value or None,
            collapse=collapse,
            gradients=self._edge_gradients.value,
            expand_gradients=self._expand.value,
            step=self._step.value,
            max_nodes=self.max_nodes,
        )
        self.view = view
        source = view.source
        svg = self._svgs.get(source)
        reason = None
        if svg is None:
            try:
                svg = render_svg(view)
            except graphviz.ExecutableNotFound:
                reason = INSTALL_HINT
            except graphviz.CalledProcessError as err:
                reason = _dot_failed(err)
            except Exception as err:  # any other failure of the drawing
                reason = _draw_failed(err)
            else:
                if len(self._svgs) >= _SVG_CACHE:
                    del self._svgs[next(iter(self._svgs))]
                self._svgs[source] = svg
        self.svg = svg
        if svg is None:
            self.graph_part = _notes_html(view) + _fallback_html(
                self.graph, self.findings, reason
            )
        else:
            self.graph_part = graph_html(self.graph, self.findings, view, svg)
        self._graph.value = self.graph_part
        self._step_text.value = self._step_description(view)
        self._out.outputs = ()

    def _step_description(self, view: DotView) -> str:
        steps = view.steps
        index = index_of(self.graph)
        if view.request is None or not steps:
            return (
                f'<span style="color:{_DIM}">No gradient was taken for this target '
                "yet: the replay needs one.</span>"
            )
        k = self._step.value
        if k == 0:
            return (
                f'<span style="color:{_DIM}">Slide to replay the backward sweep of '
                f"{_e(view.request.id)}: {len(steps)} steps from the target back to "
                "the sources.</span>"
            )
        gv = steps[k - 1]
        what = f"shape {shape_text(gv.shape)}, norm {_norm(gv.norm)}"
        if gv.op is None:
            text = (
                f"Step {k} of {len(steps)}: <b>{_e(index.name_of(gv.value))}</b> gets "
                f"its gradient ({_e(what)})."
            )
        else:
            op = index.ops[gv.op]
            where = f" at line {op.line}" if op.line is not None else ""
            if op.during is not None:
                where += " (inside a gradient computed in the tape)"
            name = index.name_of(gv.value)
            value = index.values[gv.value]
            if not (value.names or value.variable or value.path):  # unnamed
                text = (
                    f"Step {k} of {len(steps)}: <b>{_e(op.op)}</b>{_e(where)} gets "
                    f"the cotangent of its output ({_e(what)})."
                )
            else:
                text = (
                    f"Step {k} of {len(steps)}: the cotangent of "
                    f"<b>{_e(name)}</b> ({_e(what)}) arrives at "
                    f"<b>{_e(op.op)}</b>{_e(where)}."
                )
        return f'<span class="tapemagic-step">{text}</span>'


def _unique(options: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Dropdown labels, numbered where two values share a name (never an id)."""
    counts: dict[str, int] = {}
    for label, _ in options:
        counts[label] = counts.get(label, 0) + 1
    seen: dict[str, int] = {}
    unique = []
    for label, value in options:
        if counts[label] > 1:
            seen[label] = seen.get(label, 0) + 1
            label = f"{label} ({seen[label]})"
        unique.append((label, value))
    return unique
