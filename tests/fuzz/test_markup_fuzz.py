"""Hostile text is drawn as text: DOT, SVG, the widget's HTML, TapeView, text.

Strings drawn from DOT, HTML and JavaScript syntax (and any code point,
control characters and lone surrogates included) are put where a user's
text reaches the renderers: names of values, variable names, dtypes, op
names, value and gradient previews, cell lines, the tape's name, the cell
label, gradient requests (their ``where``, ``via`` and error text), escapes,
and the diagnosis's findings. Each hostile graph model is drawn beside its
benign twin (the same model with every hostile string replaced by plain
letters), and:

- DOT: ``dot -Tsvg`` accepts it, the SVG parses as XML, its nodes are
  exactly the view's (by their titles), it has as many edges as the twin's,
  and its elements and attribute names are among the twin's (no ``script``,
  no ``on*=``, no ``href``); names appear in its text;
- HTML (the widget's children, ``static_html`` and TapeView's ``text/html``):
  parsed with ``html.parser``, it has the twin's elements and attribute
  names outside the SVG, in the same order; names appear as table text;
- text: the names appear verbatim.

Real cells carry hostile text too: a ``tf.Variable(..., name=hostile)``, a
comment and a string literal on a cell line.

Budget: see tests/fuzz/budget.py (``TAPEMAGIC_FUZZ_EXAMPLES`` for a long run).
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.graph.diagnosis import diagnose
from tapemagic.graph.findings import Finding
from tapemagic.graph.index import index_of
from tapemagic.graph.model import (
    Cell,
    Escape,
    GradientRequest,
    Graph,
    Preview,
    TapeInfo,
)
from tapemagic.viz import view as view_module
from tapemagic.viz.dot import build_view, render_svg
from tapemagic.viz.page import static_html
from tapemagic.viz.text import render_text
from tapemagic.viz.widget import TapeWidget
from tests.viz.test_dot import small_graph

from .budget import fuzz_settings

pytestmark = pytest.mark.dot

SVG = "{http://www.w3.org/2000/svg}"

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "' onmouseover='alert(1)",
    '" onclick="alert(1)',
    "javascript:alert(1)",
    "</td></tr></table><b>x",
    "</B><B>",
    "<BR/>",
    "<TABLE><TR><TD>x</TD></TR></TABLE>",
    "<!-- x -->",
    "<![CDATA[x]]>",
    "]]>",
    "&amp;",
    "&lt;script&gt;",
    "&#60;script&#62;",
    "&nbsp;",
    '"];evil[',
    '"] ; evil [label="x',
    "a\\",
    '\\"',
    "\\N \\G \\L \\n",
    "a -> b",
    "a:b:c",
    "}",
    "digraph x {",
    'node [shape=box URL="javascript:alert(1)"]',
    "subgraph cluster_x {",
    "{{7*7}}",
    "${alert(1)}",
    "\x00",
    "\r\n",
    "\u202eevil",
    "\ufeff",
    "\uffff",
)
MARKUP = "<>&\"'\\/=;:[]{}()-!#%*? \n\tab"
HOSTILE = st.one_of(
    st.sampled_from(PAYLOADS),
    st.text(alphabet=MARKUP, min_size=1, max_size=20),
    st.text(min_size=1, max_size=10),  # any code point, control characters too
    st.tuples(st.sampled_from(PAYLOADS), st.text(max_size=6)).map("".join),
)
# DOT and SVG only: a lone surrogate cannot even reach a notebook page.
HOSTILE_DOT = st.one_of(
    HOSTILE,
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1,
            max_size=3),
)  # fmt: skip

# Where hostile text goes in the hand-made model (see hostile_graph).
FIELDS = (
    "name_w", "name_h", "name_y_hat", "name_loss", "variable_b", "dtype_w",
    "dtype_h", "op_matmul", "op_add", "preview_w", "preview_b", "result_preview",
    "result_dtype", "code_2", "code_3", "tape", "label", "where", "via", "error",
    "escape", "finding_message", "finding_fix", "finding_line_text",
)  # fmt: skip


def hostile_graph(text: dict[str, str]) -> tuple[Graph, tuple[Finding, ...]]:
    """The small tape of tests/viz/test_dot.py with ``text`` in every field."""
    graph = small_graph()
    values = list(graph.values)
    replace = dataclasses.replace
    values[0] = replace(values[0], names=(text["name_w"],), dtype=text["dtype_w"])
    values[2] = replace(values[2], names=(text["name_h"],), dtype=text["dtype_h"])
    values[3] = replace(values[3], names=(), variable=text["variable_b"] + ":0")
    values[5] = replace(values[5], names=(text["name_y_hat"],))
    values[7] = replace(values[7], names=(text["name_loss"],))
    ops = list(graph.ops)
    ops[0] = replace(ops[0], op=text["op_matmul"])
    ops[1] = replace(ops[1], op=text["op_add"])
    (request,) = graph.gradients
    result_w, result_b = request.results
    request = replace(
        request,
        where=text["where"],
        via=text["via"],
        results=(
            replace(result_w, preview=text["result_preview"],
                    dtype=text["result_dtype"]),
            result_b,
        ),
    )  # fmt: skip
    failed = GradientRequest(
        "g2", 11, "gradient", 0, ("t8",), ("t1",), (), error=text["error"]
    )
    lines = list(graph.cell.lines)
    lines[1], lines[2] = text["code_2"], text["code_3"]
    graph = small_graph(
        tape=TapeInfo(text["tape"], False, True, "answered", True),
        cell=Cell(text["label"], None, tuple(lines)),
        values=tuple(values),
        ops=tuple(ops),
        gradients=(request, failed),
        escapes=(Escape("e1", 4, "t4", text["escape"], 3, "recording"),),
        previews=(Preview("t1", text["preview_w"]), Preview("t4", text["preview_b"])),
    )
    finding = Finding(
        source=text["variable_b"],
        target=text["name_loss"],
        cause="numpy_copy",
        message=text["finding_message"],
        fix=text["finding_fix"],
        source_id="t4",
        target_id="t8",
        request="g1",
        op="op2",
        op_name=text["op_add"],
        line=3,
        line_text=text["finding_line_text"],
    )
    return graph, (finding,)


def benign(i: int) -> str:
    return "x" + "abcdefghijklmnopqrstuvwxyz"[i % 26] * (1 + i // 26)


@st.composite
def hostile_texts(draw: Any, strings: Any = HOSTILE) -> dict[str, str]:
    return {field: draw(strings) for field in FIELDS}


def twin(text: dict[str, str]) -> dict[str, str]:
    return {field: benign(i) for i, field in enumerate(text)}


def source_names(graph: Graph) -> list[str]:
    return [index_of(graph).name_of(s.value) for s in graph.sources]


def normal(text: str) -> str:
    return " ".join(text.split())


# XML 1.0 has no way to write these: DOT and SVG show U+FFFD instead.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


# -- SVG --------------------------------------------------------------------------


def svg_shape(svg: str) -> tuple[ET.Element, set, set, list, int]:
    """The parsed SVG, its tags, attribute names, node titles and edge count."""
    root = ET.fromstring(svg)
    tags = {e.tag for e in root.iter()}
    attributes = {name for e in root.iter() for name in e.attrib}
    groups = [g for g in root.iter(SVG + "g") if g.get("class")]
    nodes = [
        g.find(SVG + "title").text for g in groups if "node" in g.get("class").split()
    ]
    edges = sum("edge" in g.get("class").split() for g in groups)
    return root, tags, attributes, nodes, edges


def assert_svg_is_safe(svg: str, twin_svg: str, view: Any) -> ET.Element:
    root, tags, attributes, nodes, edges = svg_shape(svg)
    _, twin_tags, twin_attributes, twin_nodes, twin_edges = svg_shape(twin_svg)
    assert sorted(nodes) == sorted(view.nodes) == sorted(twin_nodes)
    assert edges == twin_edges
    assert tags <= twin_tags, tags - twin_tags
    assert attributes <= twin_attributes, attributes - twin_attributes
    assert not any(name.lower().startswith("on") for name in attributes)
    assert not any(name.endswith("href") for name in attributes)
    return root


@fuzz_settings(120)
@given(hostile_texts(HOSTILE_DOT), st.booleans())
def test_hostile_text_is_text_in_dot_and_svg(text, collapse):
    graph, findings = hostile_graph(text)
    twin_graph, twin_findings = hostile_graph(twin(text))
    view = build_view(graph, findings, collapse=collapse)
    svg = render_svg(view)  # dot accepts the DOT text
    twin_svg = render_svg(build_view(twin_graph, twin_findings, collapse=collapse))
    root = assert_svg_is_safe(svg, twin_svg, view)
    # dot lays out whitespace its own way (a newline in a label is dropped).
    texts = "".join("".join(e.text or "" for e in root.iter(SVG + "text")).split())
    for name in source_names(graph):
        if name.strip() and len(name) <= 24 and not _NOT_XML.search(name):
            assert "".join(name.split()) in texts, name


def test_regression_control_characters_and_surrogates_in_labels(tmp_path):
    # Found by the markup fuzz (issue 8): a NUL, a control character, U+FFFF or
    # a lone surrogate in a name made dot fail or the SVG unparsable.
    for bad in ("a\x00b", "a\x01b", "a\uffffb", "a\ud800b"):
        text = twin(dict.fromkeys(FIELDS, ""))
        text["name_w"] = text["op_add"] = text["code_2"] = bad
        graph, findings = hostile_graph(text)
        for collapse in (False, True):
            view = build_view(graph, findings, collapse=collapse)
            root = ET.fromstring(render_svg(view))
            texts = [e.text for e in root.iter(SVG + "text")]
            assert "a\ufffdb" in texts, bad


def test_regression_a_blank_name_is_drawn_as_its_repr():
    # Found by the markup fuzz (issue 8): an empty or blank name (a variable
    # named ":") made an empty <B></B>, which dot rejects: no drawing at all.
    for blank, shown in (("", "''"), ("\r\n", "'\\r\\n'"), (" ", "' '")):
        text = twin(dict.fromkeys(FIELDS, ""))
        text["name_w"] = text["op_add"] = text["code_2"] = blank
        graph, findings = hostile_graph(text)
        for collapse in (False, True):
            view = build_view(graph, findings, collapse=collapse)
            root = ET.fromstring(render_svg(view))
            assert shown in [e.text for e in root.iter(SVG + "text")]


def test_regression_a_name_that_is_only_brackets_is_drawn():
    # Found by the long markup fuzz (issue 8): dot's HTML lexer rejects a label
    # part that is only "]" or "]]" (after whitespace): no drawing at all.
    for bad in ("]", "]]", "\t]", "\n]]"):
        text = twin(dict.fromkeys(FIELDS, ""))
        text["name_w"] = text["op_add"] = bad
        graph, findings = hostile_graph(text)
        root = ET.fromstring(render_svg(build_view(graph, findings)))
        texts = ["".join((e.text or "").split()) for e in root.iter(SVG + "text")]
        assert bad.strip() in texts


def test_regression_a_backslash_escape_in_a_name_is_drawn_as_written():
    # Found by the long markup fuzz (issue 8): dot expands \N, \G and \E even in
    # HTML-like labels, so a name "\N" was drawn as the node's DOT id "t1".
    for bad in ("\\N", "\\G\\E", "a\\\\N", "\\"):
        text = twin(dict.fromkeys(FIELDS, ""))
        text["name_w"] = bad
        graph, findings = hostile_graph(text)
        root = ET.fromstring(render_svg(build_view(graph, findings)))
        assert bad in [e.text for e in root.iter(SVG + "text")]


def test_regression_an_op_name_is_never_a_dot_id():
    # Found by the markup fuzz (issue 8): ops without a line were grouped under
    # the DOT id op_<name>; "a:b" made a port (and a stray node), "x\\" broke
    # the DOT syntax.
    for bad in ("a:b", "x\\", 'q"r'):
        text = twin(dict.fromkeys(FIELDS, ""))
        text["op_matmul"] = text["op_add"] = bad
        graph, findings = hostile_graph(text)
        ops = tuple(dataclasses.replace(op, line=None) for op in graph.ops)
        graph = dataclasses.replace(graph, ops=ops)
        view = build_view(graph, findings, collapse=True)
        _, _, _, nodes, _ = svg_shape(render_svg(view))
        assert sorted(nodes) == sorted(view.nodes)
        # One group for both ops named `bad`, then cast and reduce_sum.
        groups = sorted(n for n in nodes if n.startswith("op_"))
        assert groups == ["op_1", "op_2", "op_3"]


def test_regression_an_entity_in_a_tooltip_is_shown_as_written():
    # Found by the markup fuzz (issue 8): dot reads &name; entities in quoted
    # strings, so a name "a&amp;b" showed as "a&b" in its tooltip.
    text = twin(dict.fromkeys(FIELDS, ""))
    text["name_w"] = "a&amp;<b>"
    graph, findings = hostile_graph(text)
    root = ET.fromstring(render_svg(build_view(graph, findings)))
    titles = [
        a.get("{http://www.w3.org/1999/xlink}title") for a in root.iter(SVG + "a")
    ]
    assert "a&amp;<b>: xf" in titles  # its dtype is "xf" here


# -- HTML -------------------------------------------------------------------------


class _Elements(HTMLParser):
    """Elements and attribute names outside <svg>, the SVG parts, cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple[str, ...]]] = []
        self.svg_tags: set[str] = set()
        self.svg_attributes: set[str] = set()
        self.cells: list[str] = []
        self._svg = 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self._svg += 1
        if self._svg:
            self.svg_tags.add(tag)
            self.svg_attributes.update(name for name, _ in attrs)
        else:
            self.elements.append((tag, tuple(name for name, _ in attrs)))
        if tag == "td":
            self._cell = []

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self._svg -= 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg -= 1
        if tag == "td" and self._cell is not None:
            self.cells.append(normal("".join(self._cell)))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parse_html(markup: str) -> _Elements:
    parser = _Elements()
    parser.feed(markup)
    parser.close()
    return parser


def assert_html_is_safe(markup: str, twin_markup: str) -> _Elements:
    got, want = parse_html(markup), parse_html(twin_markup)
    assert got.elements == want.elements
    assert got.svg_tags <= want.svg_tags, got.svg_tags - want.svg_tags
    assert got.svg_attributes <= want.svg_attributes
    for tag, names in got.elements:
        assert tag != "script" and not any(n.startswith("on") for n in names)
    assert "<script" not in markup.lower()
    return got


def widget_markups(widget: TapeWidget) -> list[str]:
    return [
        widget._header.value,
        widget._graph.value,
        widget._sources.value,
        widget._gradients.value,
        widget._step_text.value,
    ]


@fuzz_settings(80)
@given(hostile_texts())
def test_hostile_text_is_text_in_the_widget_and_its_static_html(text):
    graph, findings = hostile_graph(text)
    twin_graph, twin_findings = hostile_graph(twin(text))
    widget = TapeWidget(graph, findings)
    twin_widget = TapeWidget(twin_graph, twin_findings)
    assert widget._out.outputs == ()
    for markup, twin_markup in zip(widget_markups(widget), widget_markups(twin_widget)):
        assert_html_is_safe(markup, twin_markup)
    sources = parse_html(widget._sources.value)
    for name in source_names(graph):
        assert normal(name) in sources.cells, name
    # Dropdown labels are text: the names as they are (numbered, never an
    # internal id, where two sources share a name).
    names = source_names(graph)
    labels = [label for label, _ in widget._source.options[1:]]
    assert labels == [
        name if names.count(name) == 1 else f"{name} ({names[: k + 1].count(name)})"
        for k, name in enumerate(names)
    ]
    page = static_html(graph, findings, widget.graph_part)
    twin_page = static_html(twin_graph, twin_findings, twin_widget.graph_part)
    assert_html_is_safe(page, twin_page)
    # The replay's description names ops and values as text too.
    widget._step.value = widget._step.max
    twin_widget._step.value = twin_widget._step.max
    assert_html_is_safe(widget._step_text.value, twin_widget._step_text.value)


@fuzz_settings(200)
@given(hostile_texts())
def test_hostile_text_is_verbatim_in_the_text_view(text):
    graph, findings = hostile_graph(text)
    summary = render_text(graph, findings)
    assert f"GradientTape {text['tape']!r}" in summary
    for name in source_names(graph):
        assert name in summary, name
    assert text["finding_message"] in summary and text["finding_fix"] in summary
    assert render_text(graph) == render_text(Graph.from_json(graph.to_json()))
    diagnose(graph)  # the diagnosis reads hostile text without failing


# -- real cells -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def ip():
    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    shell.extension_manager.load_extension("tapemagic")
    before = set(shell.user_ns)
    shell.run_cell("import tapemagic.tf as tf")
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]


# Characters that end a line for Python or for str.splitlines: not in a comment.
_LINE_BREAKS = re.compile("[\x00\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def cell_for(name: str, comment: str, literal: str) -> str:
    comment = _LINE_BREAKS.sub(" ", comment)
    return (
        "%%tape --target loss --sources u\n"
        f"loss = tf.Variable(2.0, name={name!r}) * 3.0  # {comment}\n"
        f"u = tf.Variable(1.0, name={literal!r})\n"
        f"label = {literal!r}\n"
    )


def run_bundle(ip, cell: str) -> dict:
    with mock.patch.object(view_module, "_rich_frontend", lambda: True):
        with capture_output() as captured:
            result = ip.run_cell(cell)
    assert result.success, result.error_in_exec
    (shown,) = captured.outputs
    return shown.data


@fuzz_settings(80)
@given(HOSTILE, HOSTILE, HOSTILE)
def test_hostile_text_from_a_real_cell_is_text_in_the_notebook_view(
    ip, name, comment, literal
):
    cell = cell_for(name, comment, literal)
    note(cell)
    bundle = run_bundle(ip, cell)
    twin_bundle = run_bundle(ip, cell_for("xa", "xb", "xc"))
    page = assert_html_is_safe(bundle["text/html"], twin_bundle["text/html"])
    # The variable has no name in the notebook: its own name labels it, up to
    # its first colon (TensorFlow's "name:0" convention).
    shown = name.split(":")[0]
    assert normal(shown) in page.cells
    svg = re.search(r"<svg.*</svg>", bundle["text/html"], re.S).group(0)
    ET.fromstring(svg)  # the SVG inside the page is well-formed
    assert shown in bundle["text/plain"]
