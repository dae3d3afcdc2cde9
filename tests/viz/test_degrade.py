"""A failing renderer never breaks a cell: the view falls back to the text.

Each fault is injected while a real ``%%tape`` cell runs in IPython's test
shell, with a notebook frontend (one that shows HTML): ``dot`` missing from
PATH, graphviz raising ``ExecutableNotFound`` or ``CalledProcessError``, the
drawing raising anything else, a giant graph, ipywidgets or graphviz failing
to import, and a widget front end that cannot show the widget. The cell's
result and its namespace are the same as without the fault; the view says in
one line what failed and shows the text view instead.

The cell (line 1 is the ``%%tape`` line)::

    %%tape --target loss --sources w,b
    h = tf.matmul(x, w)
    loss = tf.reduce_sum(h + b)
    loss * 2.0

with x = [[1, 2], [3, 4], [5, 6]], w = [[0.5], [-1]], b = [0.25]:
h = x @ w = [[-1.5], [-2.5], [-3.5]], loss = -7.5 + 3 * 0.25 = -6.75 and the
cell's value is -13.5; d loss / d w = x.T @ ones(3, 1) = [[9], [12]] and
d loss / d b = [3].
"""

from __future__ import annotations

import html
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import graphviz
import numpy as np
import pytest
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.engine import GradientTape
from tapemagic.graph.model import Cell, Graph, OpNode, Source, TapeInfo, Value
from tapemagic.viz import view as view_module
from tapemagic.viz import widget as widget_module
from tapemagic.viz.dot import INSTALL_HINT, MAX_NODES, build_view, render_svg
from tapemagic.viz.widget import TapeWidget
from tests.viz.test_dot import parse_dot

SETUP = """
import tapemagic.tf as tf
x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
w = tf.Variable([[0.5], [-1.0]], name="w")
b = tf.Variable([0.25], name="b")
"""
CELL = """%%tape --target loss --sources w,b
h = tf.matmul(x, w)
loss = tf.reduce_sum(h + b)
loss * 2.0
"""
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture
def ip(shell, monkeypatch):
    """The shell, set up, with a frontend that shows HTML; cleaned up after."""
    before = set(shell.user_ns)
    shell.run_cell(SETUP)
    monkeypatch.setattr(view_module, "_rich_frontend", lambda: True)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]


def run_cell(ip):
    """Run CELL; return its result and the one bundle it displayed."""
    with capture_output() as captured:
        result = ip.run_cell(CELL, store_history=True)
    assert result.success, result.error_in_exec
    (shown,) = captured.outputs
    return result, shown.data


def assert_cell_untouched(ip, result) -> None:
    """The cell's value and every name it bound, as computed by hand above."""
    ns = ip.user_ns
    assert float(result.result.numpy()) == -13.5
    np.testing.assert_array_equal(ns["h"].numpy(), [[-1.5], [-2.5], [-3.5]])
    assert float(ns["loss"].numpy()) == -6.75
    grad_w, grad_b = ns["grads"]
    np.testing.assert_array_equal(grad_w.numpy(), [[9.0], [12.0]])
    np.testing.assert_array_equal(grad_b.numpy(), [3.0])
    tape = ns["tape"]
    assert isinstance(tape, GradientTape) and not tape._recording


class _Markup(HTMLParser):
    """The class of every element, and the text of the fallback's parts."""

    def __init__(self) -> None:
        super().__init__()
        self.classes: list[str] = []
        self.texts: dict[str, str] = {}
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        css = dict(attrs).get("class") or ""
        self.classes.append(css)
        if css in ("tapemagic-nodot", "tapemagic-text"):
            self._open = css
            self.texts[css] = ""

    def handle_endtag(self, tag):
        self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self.texts[self._open] += data


def fallback_parts(page: str) -> tuple[str, str]:
    """(the note, the text view) of a page whose graph fell back to text."""
    parser = _Markup()
    parser.feed(page)
    assert parser.classes.count("tapemagic-nodot") == 1, page
    assert parser.classes.count("tapemagic-text") == 1
    return parser.texts["tapemagic-nodot"], parser.texts["tapemagic-text"]


def assert_text_view(text: str, ip) -> None:
    """``text`` is the text view of the cell's tape, findings and all."""
    expected = view_module.TapeView(ip.user_ns["tape"], "tape").text()
    assert text == expected, text


# -- the drawing fails: the graph tab shows the text view --------------------------


def _raise(error: BaseException):
    def pipe(*args, **kwargs):
        raise error

    return pipe


@pytest.mark.parametrize(
    "fault, note",
    [
        ("path", INSTALL_HINT),
        (graphviz.ExecutableNotFound(["dot", "-Tsvg"]), INSTALL_HINT),
        (
            graphviz.CalledProcessError(
                1, ["dot", "-Tsvg"], stderr="Error: syntax error in line 3"
            ),
            "Graphviz's dot could not draw this tape (Command '['dot', '-Tsvg']' "
            "returned non-zero exit status 1. [stderr: 'Error: syntax error in line "
            "3']); here is the text view.",
        ),
        (
            RuntimeError("layout\nexploded"),
            "The graph could not be drawn (RuntimeError: layout exploded); here is "
            "the text view.",
        ),
        (
            UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"),
            "The graph could not be drawn (UnicodeEncodeError: 'utf-8' codec can't "
            "encode character '\\ud800' in position 0: surrogates not allowed); here "
            "is the text view.",
        ),
    ],
    ids=["no-dot-on-PATH", "ExecutableNotFound", "CalledProcessError", "RuntimeError",
         "UnicodeEncodeError"],
)  # fmt: skip
def test_a_failing_drawing_falls_back_to_the_text_view(
    ip, monkeypatch, tmp_path, fault, note
):
    if fault == "path":
        monkeypatch.setenv("PATH", str(tmp_path))  # nothing there: no `dot`
    else:
        monkeypatch.setattr(graphviz.Digraph, "pipe", _raise(fault))
    result, bundle = run_cell(ip)
    assert_cell_untouched(ip, result)
    assert set(bundle) == {WIDGET, "text/html", "text/plain"}
    shown_note, text = fallback_parts(bundle["text/html"])
    assert shown_note == note and "\n" not in shown_note
    assert_text_view(text, ip)
    assert "<svg" not in bundle["text/html"]
    assert bundle["text/plain"] == view_module.TapeView(ip.user_ns["tape"]).text()


def test_the_drawing_fails_before_dot_runs(ip, monkeypatch):
    # Regression (issue 8): a failure while building the drawing left the graph
    # tab and the static HTML empty.
    def broken(*args, **kwargs):
        raise ValueError("no view today")

    monkeypatch.setattr(widget_module, "build_view", broken)
    result, bundle = run_cell(ip)
    assert_cell_untouched(ip, result)
    note, text = fallback_parts(bundle["text/html"])
    assert note == (
        "The graph could not be drawn (ValueError: no view today); here is the "
        "text view."
    )
    assert_text_view(text, ip)


def test_a_drawing_error_is_one_line_in_the_widget_and_a_good_redraw_recovers(
    monkeypatch,
):
    # Regression (issue 8): only graphviz's own errors fell back to the text; any
    # other error from the drawing reached the cell as a traceback.
    graph = _giant_graph(3)
    monkeypatch.setattr(graphviz.Digraph, "pipe", _raise(OSError(24, "Too many")))
    w = TapeWidget(graph)
    assert w.svg is None and w._out.outputs == ()
    note, _ = fallback_parts(w._graph.value)
    assert note == (
        "The graph could not be drawn (OSError: [Errno 24] Too many); here is the "
        "text view."
    )
    monkeypatch.undo()
    w._collapse.value = True
    assert w.svg is not None and w._graph.value.count("<svg") == 1


# -- the view itself fails: the text view, with one line saying why -----------------


def _without(monkeypatch, *modules: str) -> None:
    """Make ``modules`` fail to import, and forget tapemagic's viewers of them."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    for name in ("tapemagic.viz.widget", "tapemagic.viz.dot"):
        if name in sys.modules:
            monkeypatch.delitem(sys.modules, name)


def _broken_bundle(monkeypatch):
    monkeypatch.setattr(
        TapeWidget, "_repr_mimebundle_", _raise(RuntimeError("no comm"))
    )


def _broken_widget(monkeypatch):
    monkeypatch.setattr(widget_module, "sources_html", _raise(KeyError("t9")))


@pytest.mark.parametrize(
    "fault, note",
    [
        (lambda mp: _without(mp, "ipywidgets"),
         "tapemagic: the graph view needs ipywidgets and graphviz "
         "(ModuleNotFoundError: import of ipywidgets halted; None in sys.modules); "
         "pip install ipywidgets graphviz. Here is the text view."),
        (lambda mp: _without(mp, "graphviz"),
         "tapemagic: the graph view needs ipywidgets and graphviz "
         "(ModuleNotFoundError: import of graphviz halted; None in sys.modules); "
         "pip install ipywidgets graphviz. Here is the text view."),
        (_broken_bundle,
         "tapemagic: the graph view failed (RuntimeError: no comm); here is the "
         "text view."),
        (_broken_widget,
         "tapemagic: the graph view failed (KeyError: 't9'); here is the text view."),
    ],
    ids=["no-ipywidgets", "no-graphviz", "widget-front-end", "widget-raises"],
)  # fmt: skip
def test_a_failing_view_shows_the_text_with_a_one_line_note(
    ip, monkeypatch, fault, note
):
    # Regression (issue 8): these reached the cell as a format-error traceback.
    fault(monkeypatch)
    result, bundle = run_cell(ip)
    assert_cell_untouched(ip, result)
    assert set(bundle) == {"text/plain"}
    first, rest = bundle["text/plain"].split("\n", 1)
    assert first == note
    assert rest == view_module.TapeView(ip.user_ns["tape"], "tape").text()


def test_a_failing_text_view_shows_the_tape_repr(ip, monkeypatch):
    # The tape answered --target, so, non-persistent, it let go of its 4 ops.
    monkeypatch.setattr(view_module, "render_text", _raise(IndexError("no line 7")))
    result, bundle = run_cell(ip)
    assert_cell_untouched(ip, result)
    assert bundle == {
        "text/plain": "tapemagic: the view of this tape failed (IndexError: no line "
        "7); here is the tape's repr.\n<GradientTape non-persistent, stopped, 0 ops "
        "recorded>"
    }


def test_a_bad_option_still_fails_as_before_with_a_broken_view(ip, monkeypatch):
    _broken_bundle(monkeypatch)
    with capture_output() as captured:
        result = ip.run_cell("%%tape --show pie\nz = w * 2.0")
    assert type(result.error_in_exec).__name__ == "UsageError"
    assert "z" not in ip.user_ns and captured.outputs == []


# -- a giant graph ------------------------------------------------------------------


def _giant_graph(n: int) -> Graph:
    """w -> (multiply, add) n times -> y: 2n ops on n lines, one source, one target."""
    values = [Value("t1", "variable", (), "float32", True, 2, names=("w",),
                    variable="w:0", trainable=True)]  # fmt: skip
    ops = []
    previous = "t1"
    for i in range(n):
        a, b = f"t{2 * i + 2}", f"t{2 * i + 3}"
        line = i + 2
        values.append(Value(a, "op", (), "float32", True, line, op=f"op{2 * i + 1}"))
        values.append(Value(b, "op", (), "float32", True, line, op=f"op{2 * i + 2}"))
        ops.append(OpNode(f"op{2 * i + 1}", 2 * i + 1, "multiply", (previous, "t1"),
                          (a,), True, True, line, "recording"))  # fmt: skip
        ops.append(OpNode(f"op{2 * i + 2}", 2 * i + 2, "add", (a, "t1"), (b,), True,
                          True, line, "recording"))  # fmt: skip
        previous = b
    return Graph(
        TapeInfo("tape", False, True, "stopped", True),
        Cell("In[1]", None),
        values=tuple(values),
        ops=tuple(ops),
        sources=(Source("t1", "variable", True, "accessed", 2),),
        targets=(previous,),
    )


@pytest.mark.dot
def test_a_giant_graph_is_drawn_within_the_node_limit():
    graph = _giant_graph(10_000)
    view = build_view(graph)
    assert len(view.nodes) <= MAX_NODES + 1 and view.collapsed
    assert view.total_ops == 20_000 and "hidden" in view.nodes
    svg = ET.fromstring(render_svg(view))
    ns = {"svg": "http://www.w3.org/2000/svg"}
    drawn = svg.findall(".//svg:g[@class]", ns)
    assert sum("node" in g.get("class").split() for g in drawn) == len(view.nodes)
    w = TapeWidget(graph)
    assert w._graph.value.count("<svg") == 1 and w._out.outputs == ()
    assert html.escape(view.notes()) in w._graph.value


@pytest.mark.dot
def test_a_weight_read_at_every_step_is_drawn_with_a_bounded_layout(ip):
    # Regression (issue 8): one source feeding a chain of ~100 ops (a weight
    # read at every step of a loop) kept dot busy for half a minute per drawing,
    # the kernel blocked all along. dot's x-placement passes are now bounded.
    with capture_output() as captured:
        result = ip.run_cell(
            "%%tape --target y --sources u\n"
            "u = tf.Variable(0.5)\n"
            "y = u\n"
            "for _ in range(58):\n"
            "    y = y * u + u\n"
        )
    assert result.success, result.error_in_exec
    (shown,) = captured.outputs
    # y' = y * u + u, so dy'/du = u * dy/du + y + 1, from y = u, dy/du = 1.
    y, dy = 0.5, 1.0
    for _ in range(58):
        y, dy = y * 0.5 + 0.5, 0.5 * dy + y + 1.0
    assert abs(float(ip.user_ns["y"].numpy()) - y) < 1e-6
    assert abs(float(ip.user_ns["grads"].numpy()) - dy) < 1e-5
    page = shown.data["text/html"]
    assert "Showing 116 of 116 ops." in page and page.count("<svg") == 1
    view = build_view(view_module.TapeView(ip.user_ns["tape"]).graph)
    assert not view.collapsed and len(view.nodes) == 118
    assert parse_dot(view.source)[2]["nslimit"] == "5"
