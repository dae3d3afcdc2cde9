"""The %%tape view of higher-order cells, run through the real magic.

A gradient computed while the ``%%tape`` tape records is made of ops the tape
records: they are the path from ``x`` to ``dy_dx``. The view draws each such
computation as one node on that path, draws a target only for the tape that
asked for it, and the text summary says the same. Cells: nested tapes, a
Hessian (``outer.jacobian`` of an inner gradient), a third derivative (three
tapes), and a persistent tape asked inside its own block.
"""

from __future__ import annotations

import numpy as np
import pytest
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.graph import log_names
from tapemagic.graph.from_tape import graph_from_tape
from tapemagic.graph.index import index_of
from tapemagic.magic import find_problems
from tapemagic.viz.dot import STYLE, build_view, render_svg
from tapemagic.viz.text import render_text
from tests.viz.test_dot import nested_graph, parse_dot

NESTED = (
    "%%tape --target dy_dx --sources x\n"
    "with tf.GradientTape() as inner:\n"
    "    y = x**3\n"
    "dy_dx = inner.gradient(y, x)"
)
ROSENBROCK = (
    "def rosenbrock(p):\n"
    "    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2\n"
    "p = tf.Variable([-1.2, 1.0], dtype=tf.float64, name='p')"
)
HESSIAN = (
    "%%tape --name outer\n"
    "with tf.GradientTape() as inner:\n"
    "    f = rosenbrock(p)\n"
    "g = inner.gradient(f, p)"
)
THIRD = (
    "%%tape --target d2 --sources x\n"
    "with tf.GradientTape() as t2:\n"
    "    with tf.GradientTape() as t1:\n"
    "        y = x**4\n"
    "    d1 = t1.gradient(y, x)\n"
    "d2 = t2.gradient(d1, x)"
)
PERSISTENT = (
    "%%tape --persistent --target dy_dx --sources x\n"
    "y = x**3\n"
    "dy_dx = tape.gradient(y, x)"
)


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture
def ip(shell):
    """The shell with tf imported; names the test adds are removed after."""
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    log_names._NAMED_VARIABLES.clear()
    before = set(shell.user_ns)
    run(shell, "import tapemagic.tf as tf")
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]
    log_names._NAMED_VARIABLES.clear()


def run(ip, *cells: str) -> None:
    for cell in cells:
        with capture_output():
            result = ip.run_cell(cell, store_history=True)
        assert result.error_in_exec is None, (cell, result.error_in_exec)


def view_of(ip, name: str = "tape", **options):
    graph = graph_from_tape(ip.user_ns[name], name=name)
    findings = find_problems(graph)
    assert findings == ()  # none of these cells has a None gradient
    view = build_view(graph, findings, **options)
    nodes, edges, _ = parse_dot(view.source)
    return graph, view, nodes, edges


def by_name(graph, name: str) -> str:
    (value,) = [v.id for v in graph.values if name in v.names]
    return value


def drawn_targets(nodes) -> list[str]:
    return [k for k, n in nodes.items() if "tm-target" in n["class"]]


def on_path(nodes, edges) -> set[str]:
    """The nodes joined by a blue (on a path) edge."""
    blue = STYLE["edge_on_path"]["color"]
    return {end for key, e in edges.items() if e.get("color") == blue for end in key}


def test_graph_from_tape_builds_the_hand_made_nested_model(ip):
    run(ip, "x = tf.Variable(1.0, name='x')", NESTED)
    graph = graph_from_tape(ip.user_ns["tape"], name="tape")
    made = nested_graph()
    assert graph.cell.lines == made.cell.lines

    def ops(g):
        return [
            (o.id, o.op, o.inputs, o.outputs, o.recorded, o.line, o.during,
             o.other_tapes)
            for o in g.ops
        ]  # fmt: skip

    def values(g):
        return [(v.id, v.origin, v.op, v.names, v.line, v.python_type)
                for v in g.values]  # fmt: skip

    def requests(g):
        return [
            (r.id, r.tape, r.targets, r.sources, r.line, r.via,
             [(x.none, x.preview) for x in r.results])
            for r in g.gradients
        ]  # fmt: skip

    assert ops(graph) == ops(made)
    assert values(graph) == values(made)
    assert requests(graph) == requests(made)
    assert (graph.sources, graph.targets) == (made.sources, made.targets)
    assert [(v.request, v.value, v.op, v.norm) for v in graph.gradient_values] == [
        (v.request, v.value, v.op, v.norm) for v in made.gradient_values
    ]
    # 3x² = 3 and 6x = 6 at x = 1.
    assert ip.user_ns["dy_dx"].numpy() == 3.0 and ip.user_ns["grads"].numpy() == 6.0


def test_nested_cell_path_runs_through_the_inner_gradient(ip):
    run(ip, "x = tf.Variable(1.0, name='x')", NESTED)
    graph, view, nodes, edges = view_of(ip)
    x, y, dy_dx = by_name(graph, "x"), by_name(graph, "y"), by_name(graph, "dy_dx")
    (call,) = view.calls
    assert "∂y/∂x" in nodes[call]["label"] and "tm-path" in nodes[call]["class"]
    assert "dy_dx = inner.gradient(y, x)" in nodes[call]["label"]
    assert on_path(nodes, edges) == {x, call, dy_dx}
    assert drawn_targets(nodes) == [dy_dx]  # y is the inner tape's target
    assert y not in nodes
    assert "Hidden" not in view.notes()
    assert render_text(graph, ()).splitlines()[1:4] == [
        "Ops: 3 recorded on the tape, of 5 that ran.",
        "Gradients computed inside the tape (their ops are in its graph):",
        "  dy_dx = inner.gradient(y, x) at line 4: 4 ops, 2 recorded",
    ]


def test_hessian_cell_and_the_outer_jacobian(ip):
    run(ip, ROSENBROCK, HESSIAN)
    graph, view, nodes, edges = view_of(ip, "outer")
    (call,) = view.calls
    assert view.call_ops == 20
    assert "∂f/∂p" in nodes[call]["label"]
    assert "g = inner.gradient(f, p)" in nodes[call]["label"]
    assert "(2,) float64 · line 4 · 20 ops" in nodes[call]["label"]
    # The outer tape was asked nothing yet: no target, f is inner's.
    assert drawn_targets(nodes) == []
    assert by_name(graph, "f") not in nodes and by_name(graph, "g") not in nodes

    run(ip, "H = outer.jacobian(g, p)")
    graph, view, nodes, edges = view_of(ip, "outer")
    p, g = by_name(graph, "p"), by_name(graph, "g")
    assert drawn_targets(nodes) == [g]
    path = on_path(nodes, edges)
    assert {p, call, g} <= path and "tm-path" in nodes[call]["class"]
    # p[0] and p[1] (the strided slices), and p[1] - p[0]**2, which the
    # gradient's ops use: on the path; f = ... + ... is not.
    path_ops = [index_of(graph).ops[k].op for k in path if k.startswith("op")]
    assert sorted(path_ops) == ["pow", "strided_slice", "strided_slice",
                                "strided_slice", "subtract", "subtract"]  # fmt: skip
    (f_op,) = [k for k, n in nodes.items() if n["label"].startswith("<f = ")]
    assert f_op not in path
    assert edges[(f_op, call)] == STYLE["edge_asked"]
    x0, x1 = -1.2, 1.0
    by_hand = [[2 - 400 * (x1 - x0**2) + 800 * x0**2, -400 * x0], [-400 * x0, 200.0]]
    np.testing.assert_allclose(ip.user_ns["H"].numpy(), by_hand, rtol=1e-12)


def test_third_derivative_draws_two_gradients_and_one_target(ip):
    run(ip, "x = tf.Variable(2.0, name='x')", THIRD)
    graph, view, nodes, edges = view_of(ip)
    x, d2 = by_name(graph, "x"), by_name(graph, "d2")
    first, second = view.calls  # t1.gradient(y, x), then t2.gradient(d1, x)
    assert "∂y/∂x" in nodes[first]["label"] and "∂d1/∂x" in nodes[second]["label"]
    assert "d2 = t2.gradient(d1, x)" in nodes[second]["label"]
    assert drawn_targets(nodes) == [d2]
    assert by_name(graph, "y") not in nodes and by_name(graph, "d1") not in nodes
    # d2 = 12x² comes from pow(x, 2) inside the second gradient: the path from
    # x to d2 runs through it alone.
    assert on_path(nodes, edges) == {x, second, d2}
    assert (first, second) in edges  # 4 and 3 of 4x³ feed the second gradient
    # 4x³ = 32, 12x² = 48, 24x = 48 at x = 2.
    assert ip.user_ns["d1"].numpy() == 32.0 and ip.user_ns["d2"].numpy() == 48.0
    assert ip.user_ns["grads"].numpy() == 48.0


def test_persistent_tape_asked_inside_its_own_block(ip):
    run(ip, "x = tf.Variable(2.0, name='x')", PERSISTENT)
    graph, view, nodes, edges = view_of(ip)
    x, y, dy_dx = by_name(graph, "x"), by_name(graph, "y"), by_name(graph, "dy_dx")
    (call,) = view.calls
    assert "dy_dx = tape.gradient(y, x)" in nodes[call]["label"]
    # Both y and dy_dx are this tape's targets.
    assert drawn_targets(nodes) == [y, dy_dx]
    assert {x, call, dy_dx} <= on_path(nodes, edges)
    assert ip.user_ns["grads"].numpy() == 12.0  # 6x at x = 2


@pytest.mark.dot
def test_the_views_of_these_cells_render(ip):
    run(ip, "x = tf.Variable(2.0, name='x')", THIRD)
    graph = graph_from_tape(ip.user_ns["tape"], name="tape")
    for options in ({}, {"expand_gradients": True}, {"collapse": True}):
        view = build_view(graph, **options)
        svg = render_svg(view)
        assert svg.count('class="node') == len(view.nodes)
        assert "∂d1/∂x" in svg
