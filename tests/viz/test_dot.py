"""to_dot / build_view / render_svg on hand-made graph models, node by node."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import graphviz
import pytest

from tapemagic.graph.findings import Finding
from tapemagic.graph.index import index_of
from tapemagic.graph.model import (
    Cell,
    EdgeGradient,
    Escape,
    GradientRequest,
    GradientResult,
    GradientValue,
    Graph,
    OpNode,
    Preview,
    Source,
    TapeInfo,
    Value,
)
from tapemagic.viz.dot import (
    INSTALL_HINT,
    MAX_NODES,
    STYLE,
    backward_steps,
    build_view,
    render_svg,
    to_dot,
)
from tests.viz.svg_boxes import overflows

# -- the small tape every test draws ---------------------------------------------
#
#   1  %%tape --target loss --sources w,b
#   2  h = tf.matmul(x, w)
#   3  y_hat = h + b.numpy()          # b leaves the engine: its gradient is None
#   4  k = tf.cast(h, tf.int32)       # not recorded (no gradient), off the path
#   5  loss = tf.reduce_sum(y_hat)
#
# x = [[1, 2], [3, 4], [5, 6]], w = [[0.5], [-1]]. d loss / d y_hat = ones(3, 1),
# so the cotangent reaching add and matmul is ones(3, 1) (norm sqrt(3)) and
# d loss / d w = x.T @ ones = [[9], [12]] (norm 15).

CELL = Cell(
    "In[4]",
    None,
    (
        "%%tape --target loss --sources w,b",
        "h = tf.matmul(x, w)",
        "y_hat = h + b.numpy()",
        "k = tf.cast(h, tf.int32)",
        "loss = tf.reduce_sum(y_hat)",
    ),
)
SQRT3 = math.sqrt(3.0)


def small_graph(**changes) -> Graph:
    """The model of the tape above, as graph_from_tape would build it."""
    fields = dict(
        tape=TapeInfo("tape", False, True, "answered", True),
        cell=CELL,
        values=(
            Value("t1", "variable", (2, 1), "float32", True, 2, names=("w",),
                  variable="w:0", trainable=True),
            Value("t2", "outside", (3, 2), "float32", True, names=("x",)),
            Value("t3", "op", (3, 1), "float32", True, 2, op="op1", names=("h",)),
            Value("t4", "variable", (1,), "float32", True, 3, names=("b",),
                  variable="b:0", trainable=True),
            Value("t5", "numpy", (1,), "float32", True, 3, python_type="ndarray",
                  escape="e1"),
            Value("t6", "op", (3, 1), "float32", True, 3, op="op2",
                  names=("y_hat",)),
            Value("t7", "op", (3, 1), "int32", False, 4, op="op3", names=("k",)),
            Value("t8", "op", (), "float32", True, 5, op="op4", names=("loss",)),
            Value("t9", "op", (), "float32", True, 1, op="op5"),
        ),
        ops=(
            OpNode("op1", 2, "matmul", ("t2", "t1"), ("t3",), True, True, 2,
                   "recording"),
            OpNode("op2", 5, "add", ("t3", "t5"), ("t6",), True, True, 3, "recording"),
            OpNode("op3", 6, "cast", ("t3",), ("t7",), False, False, 4, "recording"),
            OpNode("op4", 7, "reduce_sum", ("t6",), ("t8",), True, True, 5,
                   "recording"),
            OpNode("op5", 10, "ones_like", ("t8",), ("t9",), True, False, 1,
                   "stopped", during="g1"),
        ),
        sources=(
            Source("t1", "variable", True, "accessed", 2),
            Source("t4", "variable", False, "none"),
        ),
        targets=("t8",),
        escapes=(Escape("e1", 4, "t4", "numpy", 3, "recording"),),
        gradients=(
            GradientRequest(
                "g1", 9, "gradient", 0, ("t8",), ("t1", "t4"),
                (GradientResult("t1", False, (2, 1), "float32", "[[ 9.], [12.]]"),
                 GradientResult("t4", True)),
                where="In[4]", line=1, here=True, via="--target loss --sources w,b",
            ),
        ),
        gradient_values=(
            GradientValue("g1", "t8", "op4", (), 1.0),
            GradientValue("g1", "t6", "op2", (3, 1), SQRT3),
            GradientValue("g1", "t3", "op1", (3, 1), SQRT3),
            GradientValue("g1", "t1", None, (2, 1), 15.0),
        ),
        # what each op passed back to each input: the edges' own cotangents
        edge_gradients=(
            EdgeGradient("g1", "t6", "op4", (3, 1), SQRT3),
            EdgeGradient("g1", "t3", "op2", (3, 1), SQRT3),
            EdgeGradient("g1", "t1", "op1", (2, 1), 15.0),
        ),
        previews=(Preview("t1", "[[ 0.5], [-1. ]]"), Preview("t4", "[0.25]")),
    )  # fmt: skip
    fields.update(changes)
    return Graph(**fields)


NUMPY_COPY = Finding(
    source="b",
    target="loss",
    cause="numpy_copy",
    message="b: None because b was copied to NumPy by .numpy() at line 3.",
    fix="Use the tensor itself: y_hat = h + b.",
    source_id="t4",
    target_id="t8",
    request="g1",
    op="op2",
    op_name="add",
    line=3,
    line_text="y_hat = h + b.numpy()",
)


# -- a small reader of the DOT text graphviz-python writes -------------------------


def _statements(body: str) -> list[str]:
    """Split DOT statements at newlines outside quoted and <HTML> strings."""
    out, current, i, depth, quoted = [], [], 0, 0, False
    while i < len(body):
        ch = body[i]
        if quoted:
            if ch == "\\":
                current.append(body[i : i + 2])
                i += 2
                continue
            quoted = ch != '"'
        elif depth:
            depth += {"<": 1, ">": -1}.get(ch, 0)
        elif ch == '"':
            quoted = True
        elif ch == "<":
            depth = 1
        elif ch == "\n":
            out.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    out.append("".join(current).strip())
    return [s for s in out if s]


def _tokens(text: str) -> list[str]:
    tokens, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "[]=":
            tokens.append(ch)
            i += 1
        elif ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            tokens.append(text[i : j + 1])
            i = j + 1
        elif ch == "<":
            depth, j = 0, i
            while True:
                depth += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            tokens.append(text[i:j])
            i = j
        elif text.startswith("->", i):
            tokens.append("->")
            i += 2
        else:
            m = re.match(r"[^\s\[\]=\"<]+", text[i:])
            tokens.append(m.group(0))
            i += len(m.group(0))
    return tokens


def _unquote(token: str) -> str:
    if token.startswith('"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return token


def _attrs(tokens: list[str]) -> dict[str, str]:
    attrs, i = {}, 0
    while i < len(tokens):
        if tokens[i] in "[]":
            i += 1
            continue
        attrs[tokens[i]] = _unquote(tokens[i + 2])
        i += 3
    return attrs


def parse_dot(source: str) -> tuple[dict, dict, dict]:
    """(nodes, edges, graph attributes) of a DOT text, attributes unquoted."""
    body = source[source.index("{") + 1 : source.rindex("}")]
    nodes, edges, graph_attrs = {}, {}, {}
    for statement in _statements(body):
        tokens = _tokens(statement)
        if tokens[0] in ("graph", "node", "edge"):
            continue
        if len(tokens) > 1 and tokens[1] == "=":
            graph_attrs.update(_attrs(tokens))
        elif len(tokens) > 1 and tokens[1] == "->":
            key = (_unquote(tokens[0]), _unquote(tokens[2]))
            assert key not in edges, f"edge drawn twice: {key}"
            edges[key] = _attrs(tokens[3:])
        else:
            nodes[_unquote(tokens[0])] = _attrs(tokens[1:])
    return nodes, edges, graph_attrs


def has_style(attrs: dict[str, str], role: str) -> bool:
    return all(attrs.get(key) == value for key, value in STYLE[role].items())


# -- the small tape, node by node ---------------------------------------------------


def test_small_tape_node_by_node():
    view = build_view(small_graph(), (NUMPY_COPY,))
    nodes, edges, graph_attrs = parse_dot(view.source)
    # Sources, unwatched inputs, the four forward ops, the target; the op run
    # while computing the gradient (op5) is counted, not drawn.
    assert list(nodes) == ["t1", "t4", "t2", "t5", "op1", "op2", "op3", "op4", "t8"]
    assert view.nodes == tuple(nodes)

    w = nodes["t1"]
    assert has_style(w, "source") and w["shape"] == "cylinder"
    assert w["class"] == "tm-source tm-watched"
    assert "<B>w</B>" in w["label"] and "(2, 1) float32 · variable" in w["label"]
    assert "watched when read · line 2" in w["label"]
    assert "∂ ok, norm 15" in w["label"]

    b = nodes["t4"]
    assert b["shape"] == "cylinder" and b["color"] == "#dc2626"  # its gradient is None
    assert b["penwidth"] == "2"
    assert "not watched" in b["label"] and "∂ None" in b["label"]
    # w's gradient flows through the add: b's path breaks at the copy (the
    # ghost edge below), so b, not the add, carries the finding.
    assert "tm-break" in b["class"] and b["fillcolor"] == "#fee2e2"
    assert "✗ numpy copy at line 3" in b["label"]

    for leaf, text in (("t2", "<B>x</B>"), ("t5", "<I>NumPy ndarray</I>")):
        assert has_style(nodes[leaf], "input"), leaf
        assert nodes[leaf]["shape"] == "ellipse" and text in nodes[leaf]["label"]

    matmul = nodes["op1"]
    assert has_style(matmul, "op_on_path") and matmul["color"] == "#2563eb"
    assert matmul["label"].startswith("<h = <B>matmul</B>")
    assert "(3, 1) float32 · line 2" in matmul["label"]

    add = nodes["op2"]  # w's gradient flows through it: on the path, not a break
    assert has_style(add, "op_on_path") and "tm-break" not in add["class"]
    assert "✗" not in add["label"]
    # Before any gradient was taken, nothing flowed: the add is where the
    # finding points.
    before, _, _ = parse_dot(
        to_dot(small_graph(gradient_values=()), (NUMPY_COPY,)).source
    )
    assert "tm-break" in before["op2"]["class"]
    assert "✗ numpy copy at line 3" in before["op2"]["label"]

    cast = nodes["op3"]  # ran, not recorded: dashed, and not on a path
    assert has_style(cast, "unrecorded_op") and "dashed" in cast["style"]
    assert "not recorded: no gradient" in cast["label"]
    assert "int32 · line 4" in cast["label"]

    assert has_style(nodes["op4"], "op_on_path")
    loss = nodes["t8"]
    assert has_style(loss, "target") and loss["shape"] == "doubleoctagon"
    assert "<B>loss</B>" in loss["label"]

    assert set(edges) == {
        ("t2", "op1"),
        ("t1", "op1"),
        ("op1", "op2"),
        ("t5", "op2"),
        ("op1", "op3"),
        ("op2", "op4"),
        ("op4", "t8"),
        ("t4", "t5"),
    }
    blue = STYLE["edge_on_path"]["color"]
    assert edges[("t2", "op1")]["color"] == "#94a3b8"  # x is data, not on a path
    assert edges[("t1", "op1")] == {
        "label": "∂ (2, 1) norm 15",
        "color": blue,
        "penwidth": "1.6",
    }
    assert edges[("op1", "op2")]["label"] == "∂ (3, 1) norm 1.73"
    assert edges[("op2", "op4")]["label"] == "∂ (3, 1) norm 1.73"
    assert edges[("op4", "t8")]["label"] == "∂ scalar norm 1"
    assert edges[("t5", "op2")]["color"] == blue and "label" not in edges[("t5", "op2")]
    # Into the unrecorded cast: dashed, grey, and no cotangent flows there.
    assert edges[("op1", "op3")] == {"color": "#94a3b8", "style": "dashed"}
    # The ghost edge: b left the engine by .numpy() at line 3 and came back.
    ghost = edges[("t4", "t5")]
    assert ghost["style"] == "dashed" and ghost["color"] == "#dc2626"
    assert ghost["label"] == ".numpy() line 3"

    legend = graph_attrs["label"]
    for entry in ("source", "target", "op on a path", "path breaks here",
                  "source not watched", "unwatched input", "not recorded",
                  "value left the engine"):  # fmt: skip
        assert entry in legend, entry
    # The replay's colour is in the legend from step 0 on, so that moving the
    # slider never changes the layout.
    assert "backward step" in legend
    _, _, no_sweep = parse_dot(to_dot(small_graph(gradient_values=())).source)
    assert "backward step" not in no_sweep["label"]
    assert graph_attrs["rankdir"] == "TB"
    assert view.notes() == (
        "Showing 4 of 4 ops. Hidden: 1 op run while computing gradients."
    )


def test_without_findings_no_node_is_red_and_gradient_labels_can_be_off():
    view = build_view(small_graph(), gradients=False)
    nodes, edges, _ = parse_dot(view.source)
    assert (
        nodes["op2"]["color"] == "#2563eb" and "tm-break" not in nodes["op2"]["class"]
    )
    assert not any(a.get("fillcolor") == "#fee2e2" for a in nodes.values())
    # The None gradient still shows on the source: it is data, not a finding.
    assert "∂ None" in nodes["t4"]["label"]
    assert not any("label" in a for k, a in edges.items() if k != ("t4", "t5"))


def test_finding_without_an_op_marks_the_source():
    not_watched = Finding("b", "loss", "not_watched", "b: None, never watched.",
                          "tape.watch(b)", source_id="t4", target_id="t8",
                          request="g1")  # fmt: skip
    nodes, _, _ = parse_dot(to_dot(small_graph(), (not_watched,)).source)
    assert nodes["t4"]["fillcolor"] == "#fee2e2" and "tm-break" in nodes["t4"]["class"]
    assert "✗ not watched" in nodes["t4"]["label"]
    assert "tm-break" not in nodes["op2"]["class"]


def test_warning_finding_is_amber():
    nan = Finding("w", "loss", "nan_gradient", "w: NaN.", "Clip it.", source_id="t1",
                  op="op1", severity="warning")  # fmt: skip
    nodes, _, _ = parse_dot(to_dot(small_graph(), (nan,)).source)
    assert nodes["op1"]["fillcolor"] == "#fef3c7" and nodes["op1"]["color"] == "#d97706"


def test_pick_source_and_target_draws_only_the_path_between_them():
    view = build_view(small_graph(), (NUMPY_COPY,), target="t8", source="t1")
    nodes, edges, _ = parse_dot(view.source)
    # cast is off the path; b is not the picked source, so neither it nor its
    # ghost edge is drawn (its NumPy copy still feeds add).
    assert list(nodes) == ["t1", "t2", "t5", "op1", "op2", "op4", "t8"]
    assert ("t4", "t5") not in edges
    assert view.notes() == (
        "Showing 3 of 4 ops. Hidden: 1 op off the source-to-target paths; "
        "1 op run while computing gradients."
    )
    # The finding is about b, and b is not picked: no red node.
    assert "tm-break" not in nodes["op2"]["class"]


def test_unconnected_source_is_drawn_alone():
    graph = small_graph()
    view = build_view(graph, target="t8", source="t7")  # k: an int cast of h
    nodes, edges, _ = parse_dot(view.source)
    assert list(nodes) == ["t7", "t8"] and not edges
    assert view.shown_ops == 0


def test_backward_steps_and_the_replay():
    graph = small_graph()
    request, steps = backward_steps(graph)
    assert request.id == "g1" and [s.value for s in steps] == ["t8", "t6", "t3", "t1"]
    view = build_view(graph, (NUMPY_COPY,), step=2)
    nodes, edges, graph_attrs = parse_dot(view.source)
    # Step 1 reached reduce_sum; step 2 (current) reached add.
    assert nodes["op4"]["fillcolor"] == STYLE["step_reached"]["fillcolor"]
    assert {k: nodes["op2"][k] for k in STYLE["step_current"]} == STYLE["step_current"]
    assert "tm-reached" in nodes["op2"]["class"]
    assert nodes["op1"]["fillcolor"] == "#ffffff"  # not reached yet
    assert edges[("op4", "t8")]["color"] == "#ea580c"
    assert edges[("op2", "op4")]["color"] == "#ea580c"
    assert edges[("op1", "op2")]["color"] == "#2563eb"
    assert "backward step" in graph_attrs["label"]
    # The last step is w's own gradient.
    nodes, _, _ = parse_dot(build_view(graph, step=4).source)
    assert nodes["t1"]["color"] == "#ea580c"
    # Steps past the end stop at the end; a graph with no gradient has none.
    assert build_view(graph, step=99).source == build_view(graph, step=4).source
    assert backward_steps(small_graph(gradients=(), gradient_values=())) == (None, ())


def test_collapse_by_cell_line():
    view = build_view(small_graph(), (NUMPY_COPY,), collapse=True)
    nodes, edges, _ = parse_dot(view.source)
    assert list(nodes) == ["t1", "t4", "line2", "line3", "line4", "line5", "t8"]
    assert view.collapsed and view.shown_ops == 4
    line2 = nodes["line2"]["label"]
    assert "<B>line 2</B>" in line2 and "h = tf.matmul(x, w)" in line2
    assert "matmul" in line2 and "+1 unwatched input" in line2
    # add is in it, but w's gradient flows through it: b carries the finding
    assert "tm-break" not in nodes["line3"]["class"]
    assert "tm-break" in nodes["t4"]["class"]
    assert "dashed" in nodes["line4"]["style"]  # only the unrecorded cast
    assert set(edges) == {
        ("t1", "line2"),
        ("line2", "line3"),
        ("line2", "line4"),
        ("line3", "line5"),
        ("line5", "t8"),
        ("t4", "line3"),  # the ghost edge, to the line that used the copy
    }
    assert edges[("t4", "line3")]["style"] == "dashed"
    # An edge between lines stands for many values: no cotangent label.
    assert [k for k, a in edges.items() if "label" in a] == [("t4", "line3")]
    assert "2 unwatched inputs folded into their line" in view.notes()


def test_graph_without_an_explanation_log():
    graph = Graph(
        TapeInfo(None, True, True, "stopped", False),
        Cell(None, None),
        values=(
            Value("t1", "variable", (), "float32", True, variable="v:0"),
            Value("t2", "op", (), "float32", True, op="op1"),
        ),
        ops=(OpNode("op1", 0, "exp", ("t1",), ("t2",), True, True, None, "recording"),),
        sources=(Source("t1", "variable", True, "accessed"),),
    )
    nodes, edges, _ = parse_dot(to_dot(graph).source)
    assert list(nodes) == ["t1", "op1"] and set(edges) == {("t1", "op1")}
    assert "<B>v</B>" in nodes["t1"]["label"]
    assert (
        nodes["op1"]["label"]
        == '<<B>exp</B><BR/><FONT POINT-SIZE="8" COLOR="#475569">scalar float32</FONT>>'
    )


# -- escaping -------------------------------------------------------------------------

EVIL_NAMES = ("<img src=x onerror=alert(1)>", '"];evil[', "a\\", "</B><B>", "&amp;")


def evil_graph() -> Graph:
    graph = small_graph()
    values = list(graph.values)
    values[0] = Value("t1", "variable", (2, 1), "float32", True, 2,
                      names=(EVIL_NAMES[0],), variable="w:0")  # fmt: skip
    values[3] = Value("t4", "variable", (1,), "float32", True, 3,
                      names=(EVIL_NAMES[1],), variable="b:0")  # fmt: skip
    values[2] = Value("t3", "op", (3, 1), "float32", True, 2, op="op1",
                      names=(EVIL_NAMES[2],))  # fmt: skip
    values[5] = Value("t6", "op", (3, 1), "float32", True, 3, op="op2",
                      names=(EVIL_NAMES[3],))  # fmt: skip
    values[7] = Value("t8", "op", (), "float32", True, 5, op="op4",
                      names=(EVIL_NAMES[4],))  # fmt: skip
    lines = list(CELL.lines)
    lines[2] = "y = b  # <script>alert('x')</script> \"];"
    return small_graph(values=tuple(values), cell=Cell("In[4]", None, tuple(lines)))


EVIL_FINDING = Finding(
    source='"];evil[',
    target="loss",
    cause="numpy_copy",
    message='<b>bold</b> & "quoted"',
    fix="<script>alert(2)</script>",
    source_id="t4",
    target_id="t8",
    request="g1",
    op="op2",
    line=3,
)


def test_labels_are_escaped_in_the_dot_text():
    for collapse in (False, True):
        source = to_dot(evil_graph(), (EVIL_FINDING,), collapse=collapse).source
        nodes, _, _ = parse_dot(source)
        # No injected node or attribute: the statement structure is intact.
        assert "evil" not in nodes and not any("evil" in k for k in nodes)
        for attrs in nodes.values():
            assert "<img" not in attrs["label"] and "<script" not in attrs["label"]
        assert "&lt;img src=x onerror=alert(1)&gt;" in source
        assert "&quot;];evil[" in source
        # Tooltips are plain quoted DOT strings: markup there is only text,
        # and a quote is escaped.
        assert 'tooltip="<img src=x onerror=alert(1)>: float32"' in source
        # (the unwatched source carries its finding, code first, quotes escaped)
        assert 'tooltip="\\"];evil[: float32\\nTM004: ' in source
        assert '&amp; \\"quoted\\""' in source
        if collapse:  # the code of line 3 is in its group's label
            assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in source
    nodes, _, _ = parse_dot(to_dot(evil_graph(), (EVIL_FINDING,)).source)
    assert "<B>&lt;img src=x onerror=alert(1)&gt;</B>" in nodes["t1"]["label"]
    assert "<B>&quot;];evil[</B>" in nodes["t4"]["label"]
    assert nodes["op1"]["label"].startswith("<a\\ = <B>matmul</B>")
    assert nodes["op2"]["label"].startswith("<&lt;/B&gt;&lt;B&gt; = <B>add</B>")
    assert "<B>&amp;amp;</B>" in nodes["t8"]["label"]
    # Plain (non-HTML) attributes go through graphviz.escape: the tooltip of a
    # name ending in a backslash keeps its closing quote.
    assert nodes["t1"]["tooltip"] == "<img src=x onerror=alert(1)>: float32"


@pytest.mark.dot
def test_escaped_labels_render_as_text_in_the_svg():
    for collapse in (False, True):
        view = build_view(evil_graph(), (EVIL_FINDING,), collapse=collapse)
        svg = render_svg(view)
        root = ET.fromstring(svg)  # well-formed XML: nothing broke out
        ns = {"svg": "http://www.w3.org/2000/svg"}
        groups = root.findall(".//svg:g[@class]", ns)
        node_names = [
            g.find("svg:title", ns).text for g in groups if "node" in g.get("class")
        ]
        assert sorted(node_names) == sorted(view.nodes)
        assert not root.findall(".//svg:img", ns) and not root.findall(
            ".//svg:script", ns
        )
        texts = " ".join(
            t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")
        )
        if not collapse:
            for name in EVIL_NAMES:
                assert name in texts, name
        assert "<img" not in svg and "<script" not in svg


# -- large tapes ---------------------------------------------------------------


def loop_graph(steps: int, off_path_every: int = 10) -> Graph:
    """A training loop in one tape: per step matmul, subtract, square,
    reduce_mean (line 3-4) and total = total + loss (line 5); every
    ``off_path_every`` steps an argmax (line 6) that no target uses."""
    lines = (
        "%%tape",
        "for step in range(n):",
        "    h = tf.matmul(x, w)",
        "    loss = tf.reduce_mean(tf.square(h - y))",
        "    total = total + loss",
        "    if step % 10 == 0: best = tf.argmax(h)",
    )
    values = [
        Value("t1", "variable", (2, 1), "float32", True, 3, names=("w",),
              variable="w:0", trainable=True),
        Value("t2", "outside", (3, 2), "float32", True, names=("x",)),
        Value("t3", "outside", (3, 1), "float32", True, names=("y",)),
        Value("t4", "constant", (), "float32", True, 1),
    ]  # fmt: skip
    ops = []
    total = "t4"

    def add(name, inputs, line, shape, recorded=True, differentiable=True):
        out = f"t{len(values) + 1}"
        op = f"op{len(ops) + 1}"
        values.append(Value(out, "op", shape, "float32", True, line, op=op))
        ops.append(OpNode(op, len(ops), name, inputs, (out,), differentiable,
                          recorded, line, "recording"))  # fmt: skip
        return out

    for step in range(steps):
        h = add("matmul", ("t2", "t1"), 3, (3, 1))
        d = add("subtract", (h, "t3"), 4, (3, 1))
        s = add("square", (d,), 4, (3, 1))
        loss = add("reduce_mean", (s,), 4, ())
        total = add("add", (total, loss), 5, ())
        if step % off_path_every == 0:
            add("argmax", (h,), 6, (1,), recorded=False, differentiable=False)
    return Graph(
        TapeInfo("tape", True, True, "stopped", True),
        Cell("In[9]", None, lines),
        values=tuple(values),
        ops=tuple(ops),
        sources=(Source("t1", "variable", True, "accessed", 3),),
        targets=(total,),
    )


def test_a_5000_op_tape_shows_the_paths_collapsed_by_line():
    graph = loop_graph(1000)
    assert len(graph.ops) == 5100
    view = build_view(graph)
    # 5,000 ops lead from w to total; the 100 argmax ops are off every path.
    assert view.collapsed and view.shown_ops == 5000 and view.total_ops == 5100
    assert view.nodes == ("t1", "line3", "line4", "line5", f"t{len(graph.values)}")
    assert view.hidden == (
        ("ops off the source-to-target paths", 100),
        ("unwatched inputs folded into their line", 3),  # x, y, the first total
    )
    nodes, edges, _ = parse_dot(view.source)
    assert "matmul ×1,000" in nodes["line3"]["label"]
    assert (
        "subtract ×1,000, square ×1,000, reduce_mean ×1,000" in nodes["line4"]["label"]
    )
    assert "3,000 ops" in nodes["line4"]["label"]
    assert ("line5", "line5") not in edges  # no self loops
    assert set(edges) == {
        ("t1", "line3"),
        ("line3", "line4"),
        ("line4", "line5"),
        ("line5", f"t{len(graph.values)}"),
    }


def test_nothing_hands_graphviz_an_unbounded_graph():
    graph = loop_graph(1000)
    view = build_view(graph, collapse=False)
    nodes, edges, _ = parse_dot(view.source)
    assert len(nodes) == MAX_NODES + 1  # the view's limit, plus the "hidden" node
    # Budget 118 (120 less w and total); x and y are the only inputs of the
    # last ops kept, so 116 ops fit.
    assert view.shown_ops == 116
    assert ("earlier ops not drawn (limit of the view)", 5000 - 116) in view.hidden
    assert "hidden" in nodes and "4,884 earlier ops" in nodes["hidden"]["label"]
    assert any(tail == "hidden" for tail, _ in edges)
    # One op per cell line, 1,000 lines: the earliest groups are dropped.
    lines = tuple(f"line {i}" for i in range(1002))
    chain = [Value("t1", "variable", (), "float32", True, names=("w",),
                   variable="w:0", trainable=True)]  # fmt: skip
    ops = []
    for i in range(1000):
        chain.append(Value(f"t{i + 2}", "op", (), "float32", True, i + 2,
                           op=f"op{i + 1}"))  # fmt: skip
        ops.append(OpNode(f"op{i + 1}", i, "sin", (f"t{i + 1}",), (f"t{i + 2}",),
                          True, True, i + 2, "recording"))  # fmt: skip
    long = Graph(TapeInfo("tape", False, True, "stopped", True),
                 Cell(None, None, lines), values=tuple(chain), ops=tuple(ops),
                 sources=(Source("t1", "variable", True, "accessed", 1),),
                 targets=("t1001",))  # fmt: skip
    for collapse in (None, True, False):
        view = build_view(long, collapse=collapse, max_nodes=50)
        assert len(view.nodes) <= 51, collapse
        assert (
            view.shown_ops
            + dict(view.hidden)["earlier ops not drawn (limit of the view)"]
            == 1000
        )


@pytest.mark.dot
def test_render_svg_runs_dot():
    view = build_view(small_graph(), (NUMPY_COPY,))
    svg = render_svg(view)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count('class="node') == len(view.nodes) == 9
    assert 'class="node tm&#45;source tm&#45;unwatched tm&#45;break"' in svg
    assert "∂ None" in svg and "numpy copy at line 3" in svg
    assert render_svg(view.digraph) == svg


def test_render_svg_without_dot_raises_executable_not_found(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(graphviz.ExecutableNotFound):
        render_svg(build_view(small_graph()))
    assert "apt-get install graphviz" in INSTALL_HINT


def test_collapsed_view_groups_look_alike_sources_but_not_flagged_ones():
    # loss = sum of v_i * x over 10 variables read on line 2, plus c, never
    # watched (its gradient is None) and d, read on line 3.
    values = [
        Value(f"t{i + 1}", "variable", (3,), "float32", True, 2, names=(f"v{i}",),
              variable=f"v{i}:0", trainable=True)
        for i in range(10)
    ]  # fmt: skip
    values += [
        Value(
            "t11", "variable", (3,), "float32", True, 2, names=("c",), variable="c:0"
        ),
        Value(
            "t12", "variable", (3,), "float32", True, 3, names=("d",), variable="d:0"
        ),
    ]
    ops, total = [], "t11"
    for i, v in enumerate(["t12"] + [f"t{i + 1}" for i in range(10)]):
        out = f"t{13 + i}"
        values.append(Value(out, "op", (3,), "float32", True, 2, op=f"op{i + 1}"))
        ops.append(OpNode(f"op{i + 1}", i, "add", (total, v), (out,), True, True,
                          2 if i else 3, "recording"))  # fmt: skip
        total = out
    sources = tuple(
        Source(f"t{i + 1}", "variable", True, "accessed", 2) for i in range(10)
    ) + (
        Source("t11", "variable", False, "none"),
        Source("t12", "variable", True, "accessed", 3),
    )
    ids = tuple(s.value for s in sources)
    graph = Graph(
        TapeInfo("tape", False, True, "answered", True),
        Cell(None, None, ("%%tape", "line 2", "line 3")),
        values=tuple(values),
        ops=tuple(ops),
        sources=sources,
        targets=(total,),
        gradients=(
            GradientRequest("g1", 30, "gradient", 0, (total,), ids,
                            tuple(GradientResult(v, v == "t11", (3,), "float32")
                                  for v in ids)),
        ),
        gradient_values=tuple(
            GradientValue("g1", v, None, (3,), SQRT3) for v in ids if v != "t11"
        ),
    )  # fmt: skip
    view = build_view(graph, collapse=True)
    nodes, edges, _ = parse_dot(view.source)
    # c (None) and d (alone on its line) one by one; v0..v9 as one node.
    assert list(nodes) == ["t11", "t12", "sources1", "line3", "line2", total]
    group = nodes["sources1"]
    assert has_style(group, "source") and "tm-source-group" in group["class"]
    assert "<B>v0, v1, …</B>" in group["label"]
    assert "10 variables, e.g. (3,) float32" in group["label"]
    assert "∂ ok for all" in group["label"]
    assert ("sources1", "line2") in edges and ("t11", "line3") in edges
    assert "∂ None" in nodes["t11"]["label"]
    # Not collapsed: every source is its own node.
    assert sum(1 for n in build_view(graph).nodes if n.startswith("t")) == 13


# -- a gradient computed inside the tape (nested tapes) ----------------------------
#
#   1  %%tape --target dy_dx --sources x
#   2  with tf.GradientTape() as inner:
#   3      y = x**3
#   4  dy_dx = inner.gradient(y, x)
#
# x = 1. The inner gradient 3x² runs as four ops on line 4 (pow's VJP: seed * 3,
# 3 - 1, x ** 2, and their product); the outer tape records the two that use x,
# so d dy_dx / dx = 6x = 6 flows x -> pow(x, 2) -> multiply -> dy_dx. In the
# outer sweep the cotangent reaching x ** 2 is 3 (the product's other factor).
# tests/viz/test_nested_tapes.py checks that graph_from_tape builds this model.

NESTED_CELL = Cell(
    "In[3]",
    None,
    (
        "%%tape --target dy_dx --sources x",
        "with tf.GradientTape() as inner:",
        "    y = x**3",
        "dy_dx = inner.gradient(y, x)",
    ),
)


def nested_graph(**changes) -> Graph:
    """The model of the nested-tape cell above, as graph_from_tape builds it."""
    fields = dict(
        tape=TapeInfo("tape", False, True, "answered", True),
        cell=NESTED_CELL,
        values=(
            Value("t1", "variable", (), "float32", True, 3, names=("x",),
                  variable="x:0", trainable=True),
            Value("t2", "python", (), "float32", True, 3, python_type="int"),
            Value("t3", "op", (), "float32", True, 3, op="op1", names=("y",)),
            Value("t4", "constant", (), "float32", True),  # the sweep's seed
            Value("t5", "op", (), "float32", True, 4, op="op2"),
            Value("t6", "python", (), "float32", True, 4, python_type="int"),
            Value("t7", "op", (), "float32", True, 4, op="op3"),
            Value("t8", "op", (), "float32", True, 4, op="op4"),
            Value("t9", "op", (), "float32", True, 4, op="op5", names=("dy_dx",)),
        ),
        ops=(
            OpNode("op1", 2, "pow", ("t1", "t2"), ("t3",), True, True, 3,
                   "recording", other_tapes=(1,)),
            OpNode("op2", 6, "multiply", ("t4", "t2"), ("t5",), True, False, 4,
                   "recording", during="g1"),
            OpNode("op3", 7, "subtract", ("t2", "t6"), ("t7",), True, False, 4,
                   "recording", during="g1"),
            OpNode("op4", 8, "pow", ("t1", "t7"), ("t8",), True, True, 4,
                   "recording", during="g1"),
            OpNode("op5", 9, "multiply", ("t5", "t8"), ("t9",), True, True, 4,
                   "recording", during="g1"),
        ),
        sources=(Source("t1", "variable", True, "accessed", 3),),
        targets=("t3", "t9"),
        gradients=(
            GradientRequest(
                "g1", 4, "gradient", 1, ("t3",), ("t1",),
                (GradientResult("t1", False, (), "float32", "3."),),
                where="In[3]", line=4, here=True,
            ),
            GradientRequest(
                "g2", 11, "gradient", 0, ("t9",), ("t1",),
                (GradientResult("t1", False, (), "float32", "6."),),
                where="In[3]", line=1, here=True,
                via="--target dy_dx --sources x",
            ),
        ),
        gradient_values=(
            GradientValue("g1", "t3", "op1", (), 1.0),
            GradientValue("g1", "t1", None, (), 3.0),
            GradientValue("g2", "t9", "op5", (), 1.0),
            GradientValue("g2", "t8", "op4", (), 3.0),
            GradientValue("g2", "t1", None, (), 6.0),
        ),
        edge_gradients=(
            EdgeGradient("g2", "t8", "op5", (), 3.0),
            EdgeGradient("g2", "t1", "op4", (), 6.0),
        ),
        previews=(Preview("t1", "1."),),
    )  # fmt: skip
    fields.update(changes)
    return Graph(**fields)


def test_a_gradient_computed_inside_the_tape_is_one_node_on_the_path():
    view = build_view(nested_graph())
    nodes, edges, graph_attrs = parse_dot(view.source)
    # x, the Python 3 of x**3, y = x**3, the inner gradient, dy_dx; y is a value
    # of this tape's graph, not one of its targets.
    assert list(nodes) == ["t1", "t2", "op1", "g1", "t9"]
    assert [k for k, n in nodes.items() if "tm-target" in n["class"]] == ["t9"]
    assert [k for k, n in nodes.items() if has_style(n, "target")] == ["t9"]

    call = nodes["g1"]
    assert has_style(call, "gradient_call_on_path")
    assert call["class"] == "tm-op tm-call tm-path"
    assert call["label"].startswith("<<B>∂y/∂x</B><BR/>")
    assert ">dy_dx = inner.gradient(y, x)</FONT>" in call["label"]
    assert "scalar float32 · line 4 · 4 ops" in call["label"]
    # The backward pass's constants are folded in: the seed, the Python 1 of
    # 3 - 1, and the Python 3 (drawn for x**3, but not joined to the call).
    assert "+3 constants" in call["label"]
    assert 'tooltip="gradient (g1): 4 ops\\ndy_dx = inner.gradient(y, x)"' in (
        view.source
    )
    assert has_style(nodes["op1"], "op")  # x**3 is off the path from x to dy_dx
    assert nodes["op1"]["label"].startswith("<y = <B>pow</B>")

    blue = STYLE["edge_on_path"]["color"]
    assert set(edges) == {
        ("t1", "op1"),
        ("t2", "op1"),
        ("t1", "g1"),
        ("g1", "t9"),
        ("op1", "g1"),
    }
    # The path x -> pow(x, 2) -> multiply -> dy_dx runs through the call, with
    # the outer sweep's cotangents: 6 reaches x, 1 leaves dy_dx.
    assert edges[("t1", "g1")] == {
        "label": "∂ scalar norm 6",
        "color": blue,
        "penwidth": "1.6",
    }
    assert edges[("g1", "t9")]["color"] == blue
    assert edges[("g1", "t9")]["label"] == "∂ scalar norm 1"
    # x**3 got no cotangent in that sweep: its edges are grey and unlabelled.
    assert edges[("t1", "op1")] == {"color": "#94a3b8"}
    # y is what the inner gradient was asked of: a dotted edge, no data.
    assert edges[("op1", "g1")] == STYLE["edge_asked"]

    legend = graph_attrs["label"]
    assert "gradient computed in the tape" in legend
    assert "what a gradient was asked of" in legend
    assert (view.calls, view.call_ops, view.expanded) == (("g1",), 4, False)
    assert view.notes() == (
        "Showing 5 of 5 ops (4 of them computing 1 gradient inside the tape, "
        "drawn as one node)."
    )


def test_the_replay_steps_through_the_gradient_node():
    graph = nested_graph()
    _, steps = backward_steps(graph)
    assert [(s.op, s.value) for s in steps] == [
        ("op5", "t9"),
        ("op4", "t8"),
        (None, "t1"),
    ]
    for step in (1, 2):  # the outer sweep is inside the inner gradient's ops
        nodes, edges, _ = parse_dot(build_view(graph, step=step).source)
        assert nodes["g1"]["fillcolor"] == STYLE["step_current"]["fillcolor"]
        assert "tm-reached" in nodes["g1"]["class"]
        assert "tm-reached" not in nodes["t1"]["class"]
        assert edges[("t1", "g1")]["color"] == STYLE["edge_on_path"]["color"]
    nodes, edges, _ = parse_dot(build_view(graph, step=3).source)
    assert nodes["t1"]["color"] == STYLE["step_current"]["color"]
    assert nodes["g1"]["fillcolor"] == STYLE["step_reached"]["fillcolor"]
    assert edges[("t1", "g1")]["color"] == STYLE["edge_step"]["color"]
    assert "tm-reached" not in nodes["op1"]["class"]


def _cluster(source: str, name: str) -> tuple[str, str]:
    """The DOT text without the subgraph ``name``, and that subgraph's body."""
    start = source.index(f"subgraph {name} {{")
    end = source.index("}", start)
    return source[:start] + source[end + 1 :], source[start:end]


def test_expanded_the_gradient_ops_are_drawn_in_a_box():
    view = build_view(nested_graph(), expand_gradients=True)
    rest, box = _cluster(view.source, "cluster_g1")
    nodes, edges, graph_attrs = parse_dot(rest)
    assert graph_attrs["compound"] == "true"
    assert list(nodes) == ["t1", "t2", "t4", "t6", "op1", "op2", "op3", "op4", "op5",
                           "t9"]  # fmt: skip
    assert re.findall(r"^\s*(op\d)$", box, re.M) == ["op2", "op3", "op4", "op5"]
    assert "∂y/∂x" in box and "dy_dx = inner.gradient(y, x)" in box
    assert "line 4 · 4 ops" in box and 'style="rounded,dashed"' in box
    for op in ("op4", "op5"):
        assert has_style(nodes[op], "op_on_path"), op
    for op in ("op2", "op3"):  # seed * 3 and 3 - 1 use nothing the tape watched
        assert has_style(nodes[op], "unrecorded_op"), op
    assert nodes["op5"]["label"].startswith("<dy_dx = <B>multiply</B>")
    blue = STYLE["edge_on_path"]["color"]
    for edge in (("t1", "op4"), ("op4", "op5"), ("op5", "t9")):
        assert edges[edge]["color"] == blue, edge
    assert edges[("op4", "op5")]["label"] == "∂ scalar norm 3"
    # y -> the box: what the inner gradient was asked of; x has a real edge.
    assert edges[("op1", "op2")] == {**STYLE["edge_asked"], "lhead": "cluster_g1"}
    assert not any(e[0] == "t1" and "lhead" in a for e, a in edges.items())
    assert view.notes() == (
        "Showing 5 of 5 ops (4 of them computing 1 gradient inside the tape, "
        "drawn one by one in its box)."
    )


def test_collapsed_by_line_the_gradient_keeps_its_own_node():
    view = build_view(nested_graph(), collapse=True, step=2)
    nodes, edges, _ = parse_dot(view.source)
    assert list(nodes) == ["t1", "line3", "g1", "t9"]
    assert "∂y/∂x" in nodes["g1"]["label"] and "line 4 · 4 ops" in nodes["g1"]["label"]
    assert nodes["g1"]["color"] == STYLE["step_current"]["color"]
    assert set(edges) == {("t1", "line3"), ("t1", "g1"), ("g1", "t9"), ("line3", "g1")}
    assert edges[("line3", "g1")] == STYLE["edge_asked"]
    assert edges[("t1", "g1")]["color"] == STYLE["edge_on_path"]["color"]
    assert view.notes().startswith(
        "Showing 5 of 5 ops (4 of them computing 1 gradient inside the tape, drawn "
        "as one node), collapsed by cell line into 4 nodes."
    )


def test_picking_the_inner_target_draws_its_path_and_marks_it():
    view = build_view(nested_graph(), target="t3")
    nodes, edges, _ = parse_dot(view.source)
    assert list(nodes) == ["t1", "t2", "op1", "t3"]
    assert has_style(nodes["t3"], "target")
    assert "scalar float32 · inner target" in nodes["t3"]["label"]
    assert has_style(nodes["op1"], "op_on_path")
    assert set(edges) == {("t1", "op1"), ("t2", "op1"), ("op1", "t3")}
    assert view.notes() == (
        "Showing 1 of 5 ops. Hidden: 4 ops off the source-to-target paths."
    )


def test_a_gradient_call_the_tape_did_not_record_is_dashed():
    # The same cell with nothing recorded on this tape (its ops only ran here,
    # e.g. under tape.stop_recording()): the call is drawn dashed.
    graph = nested_graph()
    ops = tuple(
        dataclasses.replace(op, recorded=False, tape_state="paused") for op in graph.ops
    )
    view = build_view(dataclasses.replace(graph, ops=ops, gradient_values=()))
    nodes, edges, _ = parse_dot(view.source)
    call = nodes["g1"]
    assert has_style(call, "unrecorded_op") and "tm-unrecorded" in call["class"]
    assert "not recorded: stop_recording" in call["label"]
    # Still on the data-flow path, as an unrecorded forward op would be.
    assert edges[("g1", "t9")]["style"] == "dashed"
    assert edges[("g1", "t9")]["color"] == STYLE["edge_on_path"]["color"]


def test_the_tapes_own_answers_stay_hidden_and_their_results_are_named():
    # A non-persistent tape asked inside its own block stops recording first:
    # the ops of that answer are not the tape's graph. A later op using the
    # answer shows it as the result of a gradient call.
    lines = ("%%tape", "loss = w * w", "step = tape.gradient(loss, w) * 0.1")
    cell = Cell("In[5]", None, lines)
    graph = Graph(
        TapeInfo("tape", False, True, "answered", True),
        cell,
        values=(
            Value("t1", "variable", (), "float32", True, 2, names=("w",),
                  variable="w:0", trainable=True),
            Value("t2", "op", (), "float32", True, 2, op="op1", names=("loss",)),
            Value("t3", "constant", (), "float32", True),
            Value("t4", "op", (), "float32", True, 3, op="op2"),
            Value("t5", "op", (), "float32", True, 3, op="op3"),
            Value("t6", "python", (), "float32", True, 3, python_type="float"),
            Value("t7", "op", (), "float32", True, 3, op="op4", names=("step",)),
        ),
        ops=(
            OpNode("op1", 2, "multiply", ("t1", "t1"), ("t2",), True, True, 2,
                   "recording"),
            OpNode("op2", 5, "multiply", ("t3", "t1"), ("t4",), True, False, 3,
                   "stopped", during="g1"),
            OpNode("op3", 6, "add_n", ("t4", "t4"), ("t5",), True, False, 3,
                   "stopped", during="g1"),
            OpNode("op4", 8, "multiply", ("t5", "t6"), ("t7",), True, False, 3,
                   "stopped"),
        ),
        sources=(Source("t1", "variable", True, "accessed", 2),),
        targets=("t2",),
        gradients=(
            GradientRequest("g1", 4, "gradient", 0, ("t2",), ("t1",),
                            (GradientResult("t1", False, (), "float32", "2."),),
                            where="In[5]", line=3, here=True),
        ),
    )  # fmt: skip
    assert index_of(graph).nested_requests == ()
    view = build_view(graph)
    nodes, _, _ = parse_dot(view.source)
    assert "g1" not in nodes and not view.calls
    assert "<I>result of a gradient call</I>" in nodes["t5"]["label"]
    assert view.notes() == (
        "Showing 2 of 2 ops. Hidden: 2 ops run while computing gradients."
    )


@pytest.mark.dot
def test_the_nested_drawings_render():
    for view in (
        build_view(nested_graph()),
        build_view(nested_graph(), expand_gradients=True),
        build_view(nested_graph(), collapse=True),
    ):
        svg = render_svg(view)
        assert svg.count('class="node') == len(view.nodes)
        assert "∂y/∂x" in svg and "inner.gradient(y, x)" in svg


def test_a_group_lists_its_findings_in_op_order_whatever_the_hash_seed():
    # Two findings on two ops of one collapsed line: their order in the label
    # is the ops' order, in every process (set order depends on the hash seed).
    code = (
        "from tapemagic.graph.findings import Finding\n"
        "from tapemagic.graph.model import Cell, Graph, OpNode, TapeInfo, Value\n"
        "from tapemagic.viz.dot import build_view\n"
        "values = [Value('t1', 'constant', (), 'float32', True)]\n"
        "ops = []\n"
        "for i in range(1, 9):\n"
        "    values.append(Value(f't{i + 1}', 'op', (), 'float32', True, 2,"
        " op=f'op{i}'))\n"
        "    ops.append(OpNode(f'op{i}', i, 'round', (f't{i}',), (f't{i + 1}',),"
        " False, False, 2, 'recording'))\n"
        "g = Graph(TapeInfo('tape', False, True, 'stopped', True),"
        " Cell(None, None, ('%%tape', 'y = f(x)')), values=tuple(values),"
        " ops=tuple(ops))\n"
        "found = [Finding('x', 'y', cause, 'm', 'f', op=op, line=2)\n"
        "         for cause, op in (('stop_gradient', 'op2'),"
        " ('non_differentiable', 'op7'))]\n"
        "print(build_view(g, found, collapse=True).source)\n"
    )
    sources = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env,
            check=True,
        ).stdout  # fmt: skip
        sources.add(out)
    assert len(sources) == 1
    (source,) = sources
    assert source.index("stop gradient at line 2") < source.index(
        "non differentiable at line 2"
    )


@pytest.mark.dot
def test_no_node_label_reaches_past_its_node():
    # The call node of notebook 03 holds `dy_dx = inner.gradient(y, x)` in a
    # monospace font that graphviz measures narrower than browsers draw it.
    for graph in (nested_graph(), small_graph(), loop_graph(50), evil_graph()):
        for collapse in (None, True):
            svg = render_svg(build_view(graph, collapse=collapse))
            assert overflows(svg) == []
    # The measure itself: without the widened margin, that line overflows.
    source = build_view(nested_graph()).source
    bare = re.sub(r'(\tg1 \[.*?) margin="?[0-9.,]+"?', r"\1", source)
    assert bare != source
    narrow = graphviz.Source(bare).pipe(format="svg", encoding="utf-8")
    assert any("dy_dx = inner.gradient(y, x)" in o for o in overflows(narrow))
