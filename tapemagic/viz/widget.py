"""The ipywidgets view of a tape: graph, sources, gradients, and controls.

:class:`TapeWidget` shows one graph model and its findings in three tabs: the
graphviz drawing (see :mod:`tapemagic.viz.dot`), a table of the watched
sources, and every gradient request with each ``None`` explained. Controls pick
a target and a source (only the paths between them are drawn), collapse ops by
cell line, label edges with gradient norms, and replay the backward sweep step
by step. Without Graphviz's ``dot`` the graph tab says how to install it and
shows the text view instead.

Its tabs are the HTML of :mod:`tapemagic.viz.page`, whose
:func:`~tapemagic.viz.page.static_html` renders the same facts as one fragment
for notebook viewers without a kernel (nbconvert, GitHub).
"""

from __future__ import annotations

import traceback

import graphviz
import ipywidgets as widgets

from ..graph.findings import Finding
from ..graph.index import GraphIndex, index_of
from ..graph.model import GradientRequest, Graph
from .dot import (
    INSTALL_HINT,
    MAX_NODES,
    DotView,
    backward_steps,
    build_view,
    render_svg,
)
from .labels import shape_text
from .page import (
    DIM,
    dot_failed,
    draw_failed,
    fallback_html,
    gradients_html,
    graph_html,
    header_html,
    norm_text,
    notes_html,
    sources_html,
)
from .page import escape_html as _e

__all__ = ["TapeWidget"]

_SVG_CACHE = 32  # rendered SVGs kept per widget (the step slider revisits them)


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
            self.graph_part = fallback_html(self.graph, self.findings, draw_failed(err))
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
                reason = dot_failed(err)
            except Exception as err:  # any other failure of the drawing
                reason = draw_failed(err)
            else:
                if len(self._svgs) >= _SVG_CACHE:
                    del self._svgs[next(iter(self._svgs))]
                self._svgs[source] = svg
        self.svg = svg
        if svg is None:
            self.graph_part = notes_html(view) + fallback_html(
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
        if view.request is None:
            return (
                f'<span style="color:{DIM}">No gradient was taken for this target '
                "yet: the replay needs one.</span>"
            )
        if not steps:
            return (
                f'<span style="color:{DIM}">{_nothing_swept(view.request, index)}'
                "</span>"
            )
        k = self._step.value
        if k == 0:
            return (
                f'<span style="color:{DIM}">Slide to replay the backward sweep of '
                f"{_e(view.request.id)}: {len(steps)} steps from the target back to "
                "the sources.</span>"
            )
        gv = steps[k - 1]
        what = f"shape {shape_text(gv.shape)}, norm {norm_text(gv.norm)}"
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


def _nothing_swept(request: GradientRequest, index: GraphIndex) -> str:
    """Why the sweep of ``request`` left nothing to replay, and where to look."""
    results = request.results
    if results and all(r.none for r in results):
        names = ", ".join(
            _e(index.name_of(s)) for s in request.sources if s is not None
        )
        return (
            f"Every gradient {_e(request.id)} asked for is None ({names}): no "
            "cotangent reached a source, so there is nothing to replay. The "
            "<b>Gradients</b> tab says why."
        )
    return f"The sweep of {_e(request.id)} reached no op: nothing to replay."


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
