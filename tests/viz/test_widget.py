"""TapeWidget and the HTML views: children, their values, controls, fallbacks."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser

import ipywidgets as widgets
import pytest

import tapemagic
import tapemagic.tf as tf
from tapemagic.graph.findings import Finding
from tapemagic.graph.index import index_of
from tapemagic.graph.model import Cell, GradientResult, Graph, TapeInfo
from tapemagic.viz import view as view_module
from tapemagic.viz import widget as widget_module
from tapemagic.viz.dot import INSTALL_HINT
from tapemagic.viz.page import gradients_html, sources_html, static_html
from tapemagic.viz.text import render_text
from tapemagic.viz.widget import TapeWidget
from tests.viz.test_dot import (
    EVIL_FINDING,
    NUMPY_COPY,
    evil_graph,
    loop_graph,
    nested_graph,
    parse_dot,
    small_graph,
)


class _Tables(HTMLParser):
    """Rows of every <tr> as lists of cell texts, and the classes of each row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.classes: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
            self.classes.append(dict(attrs).get("class") or "")
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join(" ".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def table_rows(markup: str) -> tuple[list[list[str]], list[str]]:
    parser = _Tables()
    parser.feed(markup)
    return parser.rows, parser.classes


def svg_nodes(markup: str) -> int:
    return len(re.findall(r'<g id="node\d+" class="node', markup))


# -- children and values ---------------------------------------------------------


def test_children_and_their_values():
    w = TapeWidget(small_graph(), (NUMPY_COPY,))
    assert isinstance(w, widgets.VBox) and "tapemagic-widget" in w._dom_classes
    header, tabs, out = w.children
    assert header is w._header and tabs is w._tabs and out is w._out
    assert isinstance(out, widgets.Output) and out.outputs == ()
    assert "<b>GradientTape &#x27;tape&#x27;</b>" in header.value
    assert (
        "non-persistent · answered · from In[4] · 3 of 4 ops recorded" in header.value
    )
    assert "1 None gradient</span>" in header.value
    assert tabs.titles == ("Graph", "Sources", "Gradients (1 None)")
    graph_tab, sources_tab, gradients_tab = tabs.children
    controls, replay, graph_view = graph_tab.children
    assert list(controls.children) == [
        w._target,
        w._source,
        w._collapse,
        w._edge_gradients,
    ]
    assert list(replay.children) == [w._step, w._step_text]
    assert graph_view is w._graph and "tapemagic-graph-view" in graph_view._dom_classes
    assert sources_tab is w._sources and gradients_tab is w._gradients
    assert w._target.options == (("all targets", ""), ("loss", "t8"))
    assert w._source.options == (("all sources", ""), ("w", "t1"), ("b", "t4"))
    assert w._target.value == "" and w._source.value == ""
    assert w._collapse.value is False and w._edge_gradients.value is True
    # The sweep of g1: reduce_sum, add, matmul, then w's own gradient.
    assert (w._step.min, w._step.max, w._step.value) == (0, 4, 0)
    assert not w._step.disabled
    assert "Slide to replay the backward sweep of g1: 4 steps" in w._step_text.value
    assert w.view.nodes == ("t1", "t4", "t2", "t5", "op1", "op2", "op3", "op4", "t8")
    assert "Showing 4 of 4 ops. Hidden: 1 op run while computing gradients." in (
        graph_view.value
    )


def test_sources_table():
    rows, classes = table_rows(TapeWidget(small_graph(), (NUMPY_COPY,))._sources.value)
    assert rows == [
        ["source", "how watched", "trainable", "dtype", "shape", "value", "gradient",
         "norm"],
        ["w", "read while recording, line 2", "True", "float32", "(2, 1)",
         "[[ 0.5], [-1. ]]", "ok (g1)", "15"],
        ["b", "not watched", "True", "float32", "(1,)", "[0.25]",
         "None (g1) numpy copy at line 3", ""],
    ]  # fmt: skip
    assert classes[1:] == ["tm-source-row", "tm-source-row tm-none"]
    markup = sources_html(small_graph(), (NUMPY_COPY,))
    assert '<span class="tm-status tm-status-none" style="color:#b91c1c;' in markup


def test_gradient_status_zero_nan_and_not_asked():
    graph = small_graph()
    zero = graph.gradient_values[:3] + (
        type(graph.gradient_values[3])("g1", "t1", None, (2, 1), 0.0),
    )
    rows, _ = table_rows(sources_html(small_graph(gradient_values=zero)))
    assert rows[1][6:] == ["zero (g1)", "0"]
    nan = zero[:3] + (type(zero[3])("g1", "t1", None, (2, 1), float("nan")),)
    rows, _ = table_rows(sources_html(small_graph(gradient_values=nan)))
    assert rows[1][6:] == ["NaN (g1)", "nan"]
    rows, _ = table_rows(sources_html(small_graph(gradients=(), gradient_values=())))
    assert rows[1][6:] == ["not asked", ""] and rows[2][6:] == ["not asked", ""]


def test_gradients_table_flags_none_with_its_finding_and_fix():
    markup = TapeWidget(small_graph(), (NUMPY_COPY,))._gradients.value
    assert (
        "<b>g1</b> <code>gradient(loss, [w, b])</code> "
        '<span style="color:#6b7280">by %%tape --target loss --sources w,b</span>'
    ) in markup
    rows, classes = table_rows(markup)
    assert rows[:2] == [
        ["source", "gradient", "why"],
        ["w", "float32 (2, 1) [[ 9.], [12.]]", ""],
    ]
    assert rows[2][:2] == ["b", "None"]
    # The finding, its fix, then its code, which opens the code's page.
    assert rows[2][2].startswith(
        f"{NUMPY_COPY.message} Fix: {NUMPY_COPY.fix} TM004 copied out of the engine"
    )
    assert classes[2] == "tm-gradient-row tm-none"
    # Without findings the None is still flagged, with nothing to explain it.
    rows, _ = table_rows(gradients_html(small_graph()))
    assert rows[2] == ["b", "None", ""]
    # A finding tied to no request is listed below.
    loose = Finding("k", "loss", "integer_cast", "k is an int32 cast.", "Cast later.")
    assert "Other findings" in gradients_html(small_graph(), (loose,))
    empty = Graph(TapeInfo("t", False, True, "new", True), Cell(None, None))
    assert "No gradient was asked of this tape yet." in gradients_html(empty)


@pytest.mark.dot
def test_graph_tab_holds_the_svg():
    w = TapeWidget(small_graph(), (NUMPY_COPY,))
    assert w.svg is not None and w.svg.startswith("<svg")
    assert '<div class="tapemagic-graph" style="overflow:auto' in w._graph.value
    assert svg_nodes(w._graph.value) == 9
    assert "numpy copy at line 3" in w._graph.value


# -- controls --------------------------------------------------------------------


def test_picking_a_source_draws_only_its_paths():
    w = TapeWidget(small_graph(), (NUMPY_COPY,))
    w._source.value = "t1"
    assert w.view.nodes == ("t1", "t2", "t5", "op1", "op2", "op4", "t8")
    w._target.value = "t8"
    assert w.view.nodes == ("t1", "t2", "t5", "op1", "op2", "op4", "t8")
    w._source.value = ""
    w._target.value = ""
    assert len(w.view.nodes) == 9


def test_collapse_and_edge_gradients_redraw():
    w = TapeWidget(small_graph(), (NUMPY_COPY,))
    w._collapse.value = True
    assert w.view.collapsed
    assert w.view.nodes == ("t1", "t4", "line2", "line3", "line4", "line5", "t8")
    w._collapse.value = False
    assert not w.view.collapsed
    assert "∂ (2, 1) norm 15" in w.view.source
    w._edge_gradients.value = False
    assert 'norm 15"' not in w.view.source and "∂ (2, 1)" not in w.view.source


def test_step_slider_replays_the_backward_sweep():
    w = TapeWidget(small_graph(), (NUMPY_COPY,))
    w._step.value = 1
    assert w._step_text.value == (
        '<span class="tapemagic-step">Step 1 of 4: the cotangent of <b>loss</b> '
        "(shape scalar, norm 1) arrives at <b>reduce_sum</b> at line 5.</span>"
    )
    nodes, _, _ = parse_dot(w.view.source)
    assert "tm-reached" in nodes["op4"]["class"]
    assert not any("tm-reached" in n["class"] for k, n in nodes.items() if k != "op4")
    w._step.value = 3
    assert "Step 3 of 4: the cotangent of <b>h</b> (shape (3, 1), norm 1.732)" in (
        w._step_text.value
    )
    w._step.value = 4
    assert "Step 4 of 4: <b>w</b> gets its gradient (shape (2, 1), norm 15)." in (
        w._step_text.value
    )


def test_no_gradient_disables_the_replay():
    w = TapeWidget(small_graph(gradients=(), gradient_values=()))
    assert w._step.disabled and w._step.max == 0
    assert "No gradient was taken for this target yet" in w._step_text.value


def test_every_gradient_none_says_so_and_points_at_the_gradients_tab():
    # loss asked of b alone, and b's gradient is None: the sweep reached nothing.
    g1 = small_graph().gradients[0]
    asked_b = replace(g1, sources=("t4",), results=(GradientResult("t4", True),))
    w = TapeWidget(small_graph(gradients=(asked_b,), gradient_values=()))
    assert w._step.disabled and w._step.max == 0
    text = w._step_text.value
    assert "No gradient was taken" not in text
    assert "Every gradient g1 asked for is None (b)" in text
    assert "nothing to replay" in text and "<b>Gradients</b> tab" in text


def test_a_large_tape_starts_collapsed_and_says_what_it_hides():
    w = TapeWidget(loop_graph(1000))
    assert w._collapse.value is True and w.view.collapsed
    assert len(w.view.nodes) == 5
    assert (
        "Showing 5,000 of 5,100 ops, collapsed by cell line into 5 nodes. Hidden: "
        "100 ops off the source-to-target paths; 3 unwatched inputs folded into "
        "their line."
    ) in w._graph.value
    w._collapse.value = False  # expanded, but still bounded
    assert len(w.view.nodes) == 121


# -- without dot, errors ---------------------------------------------------------


def test_without_dot_says_how_to_install_it_and_shows_the_text(monkeypatch):
    monkeypatch.setenv("PATH", "")  # graphviz cannot find `dot`
    graph = small_graph()
    w = TapeWidget(graph, (NUMPY_COPY,))
    markup = w._graph.value
    assert w.svg is None and "<svg" not in markup
    assert markup.count("apt-get install graphviz") == 1
    hint = html.escape(INSTALL_HINT)
    assert f'<div class="tapemagic-nodot" style="color:#b45309">{hint}</div>' in markup
    # The text view lists the findings once, as the text view does.
    text = render_text(graph, (NUMPY_COPY,))
    assert f'<pre class="tapemagic-text">{html.escape(text)}</pre>' in markup
    assert markup.count(html.escape(NUMPY_COPY.message)) == 1
    assert "Traceback" not in markup and w._out.outputs == ()
    # The tables do not need dot; the controls still work.
    assert "<table" in w._sources.value and "<table" in w._gradients.value
    w._collapse.value = True
    assert markup.count("apt-get install graphviz") == 1 and w._out.outputs == ()
    page = static_html(graph, (NUMPY_COPY,))
    assert page.count("apt-get install graphviz") == 1 and "<table" in page


def test_callback_errors_show_in_the_output(monkeypatch):
    w = TapeWidget(small_graph())

    def broken(*args, **kwargs):
        raise ValueError("no drawing today")

    monkeypatch.setattr(widget_module, "build_view", broken)
    w._collapse.value = True
    (output,) = w._out.outputs
    assert output["name"] == "stderr"
    assert output["text"].startswith("tapemagic could not redraw the view:\n")
    assert "ValueError: no drawing today" in output["text"]
    monkeypatch.undo()
    w._collapse.value = False  # a good redraw clears the message
    assert w._out.outputs == ()


# -- escaping --------------------------------------------------------------------


def test_tables_and_header_escape_every_label():
    graph = evil_graph()
    w = TapeWidget(graph, (EVIL_FINDING,))
    for markup in (w._header.value, w._sources.value, w._gradients.value):
        assert (
            "<img" not in markup and "<script" not in markup and "<b>bold" not in markup
        )
    assert "&lt;img src=x onerror=alert(1)&gt;" in w._sources.value
    assert "&quot;];evil[" in w._sources.value
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;" in w._gradients.value
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in w._gradients.value
    rows, _ = table_rows(w._sources.value)
    assert [r[0] for r in rows[1:]] == ["<img src=x onerror=alert(1)>", '"];evil[']
    # Dropdown labels are text, never markup.
    assert w._source.options[1] == ("<img src=x onerror=alert(1)>", "t1")
    page = static_html(graph, (EVIL_FINDING,), w.graph_part)
    assert "<img" not in page and "<script" not in page


# -- the notebook view: TapeView, tapemagic.show, a tape as the last expression ------


def make_tape():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    w = tf.Variable([[0.5], [-1.0]], name="w")
    b = tf.Variable([0.25], name="b")
    with tf.GradientTape(explain=True) as tape:
        h = tf.matmul(x, w)
        y_hat = h + b.numpy()
        loss = tf.reduce_sum(y_hat)
    tape.gradient(loss, [w, b])
    return tape


@pytest.mark.dot
def test_tape_view_bundle_has_the_widget_html_and_text(monkeypatch):

    monkeypatch.setattr(view_module, "_rich_frontend", lambda: True)
    tape = make_tape()
    bundle = view_module.TapeView(tape, "tape")._repr_mimebundle_()
    assert set(bundle) == {
        "application/vnd.jupyter.widget-view+json",
        "text/html",
        "text/plain",
    }
    view = bundle["application/vnd.jupyter.widget-view+json"]
    assert view["version_major"] == 2 and re.fullmatch("[0-9a-f]{32}", view["model_id"])
    page = bundle["text/html"]
    assert page.startswith('<div class="tapemagic-static">')
    # w, b (None), x, the NumPy copy of b, matmul, add, reduce_sum, loss.
    assert svg_nodes(page) == 8
    rows, classes = table_rows(page)
    # The b row; its status cell may add the diagnosis's short text.
    (b_row,) = [row for row in rows if row[0] == "b" and len(row) == 8]
    assert b_row[1:6] == ["not watched", "True", "float32", "(1,)", "[0.25]"]
    assert b_row[6].startswith("None (g1)") and b_row[7] == ""
    assert "tm-source-row tm-none" in classes
    assert bundle["text/plain"] == view_module.TapeView(tape, "tape").text()
    # The same object as the last expression of a cell: the registered display.
    tape_bundle = view_module.tape_mimebundle(tape)
    assert set(tape_bundle) == set(bundle)
    assert tape_bundle["text/plain"].startswith("GradientTape (non-persistent")


def test_text_frontends_get_text_only(monkeypatch):

    monkeypatch.setattr(view_module, "_rich_frontend", lambda: False)
    tape = make_tape()
    text = view_module.TapeView(tape).text()
    assert view_module.tape_mimebundle(tape) == {"text/plain": text}
    monkeypatch.setattr(view_module, "_rich_frontend", lambda: True)
    assert view_module.TapeView(tape, show="text")._repr_mimebundle_() == {
        "text/plain": text
    }
    assert view_module.TapeView(tape, show="none")._repr_mimebundle_() == {}


def test_show_displays_in_ipython_and_prints_elsewhere(monkeypatch, capsys):
    import IPython

    from tapemagic import magic

    shown = []
    monkeypatch.setattr(magic, "display", shown.append)
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    tape = make_tape()
    tapemagic.show(tape, name="mine")
    (view,) = shown
    assert isinstance(view, magic.TapeView) and view.tape is tape
    assert view.graph.tape.name == "mine"
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    tapemagic.show(tape)
    assert capsys.readouterr().out.startswith("GradientTape (non-persistent, answered)")
    with pytest.raises(TypeError, match="draws a GradientTape, got 'int'"):
        tapemagic.show(3)


def test_importing_tapemagic_loads_no_widgets_or_graphviz():
    code = (
        "import sys\n"
        "import tapemagic, tapemagic.tf, tapemagic.viz, tapemagic.viz.text\n"
        "print(sorted(m for m in ('ipywidgets', 'graphviz', 'IPython') "
        "if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_replay_data_comes_from_the_engine_sweep():
    from tapemagic.engine.backprop import sweep_observers
    from tapemagic.graph.from_tape import graph_from_tape

    tape = make_tape()
    graph = graph_from_tape(tape)
    names = {v.id: index_of(graph).name_of(v.id) for v in graph.values}
    ops = {op.id: op.op for op in graph.ops}
    # d loss/d y_hat = d loss/d h = ones(3, 1): norm sqrt(3); d loss/d w =
    # x.T @ ones = [[9], [12]]: norm 15. b got None, so it has no entry.
    steps = [
        (ops.get(gv.op), names[gv.value], gv.shape, round(gv.norm, 5))
        for gv in graph.gradient_values
    ]
    assert steps == [
        ("reduce_sum", names[graph.targets[0]], (), 1.0),
        ("add", names[graph.ops[1].outputs[0]], (3, 1), round(3**0.5, 5)),
        ("matmul", names[graph.ops[0].outputs[0]], (3, 1), round(3**0.5, 5)),
        (None, "w", (2, 1), 15.0),
    ]
    assert {p.text for p in graph.previews} == {"[[ 0.5], [-1. ]]", "[0.25]"}
    # The log follows a sweep only while its request runs, even one that raises.
    assert sweep_observers.observers == []
    w = tf.Variable(1.0)
    with tf.GradientTape(explain=True) as other:
        w * w
    with pytest.raises(TypeError, match="The target must be a tensor"):
        other.gradient("not a tensor", w)
    assert sweep_observers.observers == []


# -- a gradient computed inside the tape --------------------------------------------


def test_nested_gradient_controls_header_and_replay():
    w = TapeWidget(nested_graph())
    # x**3 and the two ops of the inner gradient that use x were recorded.
    assert "non-persistent · answered · from In[3] · 3 of 5 ops recorded" in (
        w._header.value
    )
    controls = w._tabs.children[0].children[0]
    assert list(controls.children) == [
        w._target,
        w._source,
        w._collapse,
        w._edge_gradients,
        w._expand,
    ]
    assert w._expand.value is False and w._expand.description == "expand gradient calls"
    # y is the inner tape's target: listed, and said to be.
    assert w._target.options == (
        ("all targets", ""),
        ("y (inner target)", "t3"),
        ("dy_dx", "t9"),
    )
    assert w.view.nodes == ("t1", "t2", "op1", "g1", "t9")
    assert (
        "Showing 5 of 5 ops (4 of them computing 1 gradient inside the tape, drawn "
        "as one node)." in w._graph.value
    )
    w._expand.value = True
    assert w.view.expanded and "subgraph cluster_g1" in w.view.source
    assert {"op2", "op3", "op4", "op5"} <= set(w.view.nodes)
    assert "drawn one by one in its box" in w._graph.value
    w._expand.value = False
    assert w.view.nodes == ("t1", "t2", "op1", "g1", "t9")
    # The replay of the outer gradient walks through the inner gradient's ops.
    assert w._step.max == 3
    w._step.value = 2
    assert w._step_text.value == (
        '<span class="tapemagic-step">Step 2 of 3: <b>pow</b> at line 4 (inside a '
        "gradient computed in the tape) gets the cotangent of its output (shape "
        "scalar, norm 3).</span>"
    )
    nodes, _, _ = parse_dot(w.view.source)
    assert "tm-reached" in nodes["g1"]["class"]
    assert not any("tm-reached" in n["class"] for k, n in nodes.items() if k != "g1")
    w._target.value = "t3"  # the inner target: its own path, x -> y
    assert w.view.nodes == ("t1", "t2", "op1", "t3")
    assert w._out.outputs == ()


def test_no_expand_control_without_a_gradient_inside_the_tape():
    w = TapeWidget(small_graph(), (NUMPY_COPY,))
    controls = w._tabs.children[0].children[0]
    assert w._expand not in controls.children


def test_a_finding_code_opens_its_page_offline_with_a_link(monkeypatch):
    from tapemagic.graph.pages import PAGES
    from tapemagic.viz.codes import code_page_html

    monkeypatch.setenv("TAPEMAGIC_DOCS_URL", "https://course.example.org/tm")
    markup = TapeWidget(small_graph(), (NUMPY_COPY,))._gradients.value
    # A <details> per finding: its summary is the code, its body the page's
    # text held in the widget itself (no request needed), then the site's link.
    assert markup.count('<details class="tm-code-page">') == 1
    assert code_page_html(NUMPY_COPY) in markup
    page = PAGES["TM004"]
    body = html.unescape(re.sub(r"<[^>]+>", "", code_page_html(NUMPY_COPY)))
    for part in (page.seen, page.why, page.fix):
        assert part.replace("`", "") in body
    assert page.example[1] in body
    assert '<a href="https://course.example.org/tm/causes/TM004.html"' in markup
