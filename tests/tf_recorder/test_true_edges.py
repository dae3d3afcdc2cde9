"""What the drawing of a course cell says, the same on both engines: each
edge's own cotangent, the breaks, and how a source was watched.

The cells are the course's (notebooks 01, 05, 06), run through the real
``%%tape`` magic with ``tf`` bound to tapemagic's engine and to TensorFlow.
"""

from __future__ import annotations

import pytest
from IPython.testing import globalipapp

from tapemagic.graph import log_names
from tapemagic.magic import run_tape_cell
from tapemagic.viz.dot import to_dot
from tests.viz.test_dot import parse_dot

ENGINES = {
    "tapemagic": "import tapemagic.tf as tf",
    "tensorflow": "import tensorflow as tf",
}


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture(params=sorted(ENGINES))
def ip(shell, request):
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    log_names._NAMED_VARIABLES.clear()
    before = set(shell.user_ns)
    assert shell.run_cell(ENGINES[request.param]).success
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]


def drawing(ip, line: str, cell: str) -> tuple[dict, dict]:
    """The nodes and edges of the cell's drawing (DOT attributes by id)."""
    view = run_tape_cell(ip, f"{line} --show none", cell)
    nodes, edges, _ = parse_dot(to_dot(*view.model()).source)
    return nodes, edges


def test_each_edge_carries_its_own_cotangent(ip):
    # notebook 01: y = x**2 + 2*x at x = 3; dy/dx = 2x + 2 = 8, of which 6
    # flows back through pow and 2 through multiply.
    assert ip.run_cell("x = tf.Variable(3.0)").success
    nodes, edges = drawing(ip, "--target y --sources x", "y = x**2 + 2 * x")
    (x,) = [k for k, n in nodes.items() if "<B>x</B>" in n["label"]]
    into = {
        nodes[head]["label"].split("<B>")[1].split("</B>")[0]: attrs.get("label")
        for (tail, head), attrs in edges.items()
        if tail == x
    }
    assert into == {"pow": "∂ scalar norm 6", "multiply": "∂ scalar norm 2"}
    # x's whole gradient stays on x's own node.
    assert "∂ ok, norm 8" in nodes[x]["label"]


def test_only_the_op_where_a_path_breaks_is_drawn_as_a_break(ip):
    # notebook 05, cause 1: x is not watched. w's gradient flows through the
    # multiply, so the multiply is not where x's path breaks: x is.
    assert ip.run_cell("x = tf.constant(3.0)\nw = tf.Variable(2.0)").success
    nodes, edges = drawing(ip, "--target y --sources w,x", "y = w * x")
    breaks = {k for k, n in nodes.items() if "tm-break" in n["class"]}
    (x,) = [k for k, n in nodes.items() if "<B>x</B>" in n["label"]]
    assert breaks == {x}
    assert "✗ not watched at line 2" in nodes[x]["label"]
    (multiply,) = [k for k, n in nodes.items() if "<B>multiply</B>" in n["label"]]
    assert nodes[multiply]["class"] == "tm-op tm-path"
    assert "✗" not in nodes[multiply]["label"]
    # Where nothing flows through the op (an integer cast), the op is the break.
    nodes, _ = drawing(
        ip,
        "--target y --sources w",
        "k = tf.cast(w, tf.int32)\ny = tf.cast(k, tf.float32) * 2.0",
    )
    breaks = {n["label"].split("<B>")[1].split("</B>")[0] for n in nodes.values()
              if "tm-break" in n["class"]}  # fmt: skip
    assert breaks and "multiply" not in breaks


def test_watch_option_is_shown_as_what_it_is(ip):
    # notebook 06: %%tape --watch image, and no tape.watch in the cell.
    assert ip.run_cell("image = tf.constant([1.0, 2.0])").success
    nodes, _ = drawing(
        ip, "--watch image --target y --sources image", "y = tf.reduce_sum(image)"
    )
    (image,) = [n for n in nodes.values() if "<B>image</B>" in n["label"]]
    assert "%%tape --watch" in image["label"]
    assert "tape.watch" not in image["label"].replace("%%tape --watch", "")
    # a tape.watch call in the cell is still a tape.watch at its line
    nodes, _ = drawing(
        ip, "--target y --sources image", "tape.watch(image)\ny = tf.reduce_sum(image)"
    )
    (image,) = [n for n in nodes.values() if "<B>image</B>" in n["label"]]
    assert "tape.watch · line 2" in image["label"]


def test_sources_tab_summarises_arrays(ip):
    import re

    from tapemagic.viz.page import sources_html

    setup = (
        "import numpy as np\n"
        "W = tf.Variable(np.arange(12.0, dtype='float32').reshape(3, 4) - 5)\n"
        "x = tf.constant(np.ones((2, 3), 'float32'))\n"
        "s = tf.constant(2.0)"
    )
    assert ip.run_cell(setup).success
    view = run_tape_cell(
        ip,
        "--watch x,s --target y --sources W,x,s --show none",
        "y = tf.reduce_sum(tf.matmul(x, W)) * s",
    )
    graph, findings = view.model()
    rows = re.findall(
        r'<tr class="tm-source-row.*?</tr>', sources_html(graph, findings)
    )
    by_name = {re.search(r"<b>(.*?)</b>", row).group(1): row for row in rows}
    w = by_name["W"]
    # never the whole array on the row: its first values, min, max and norm
    assert ">-5., -4., -3., -2., ...</code>" in w
    assert "min -5 · max 6 · norm 12.08" in w
    assert "6.," not in w.split("</code>")[1]  # the last row only in the tooltip
    assert ">1., 1., 1., 1., ...</code>" in by_name["x"]
    assert "min 1 · max 1 · norm 2.449" in by_name["x"]
    # a scalar shows whole
    assert "<code>2.</code>" in by_name["s"]
    # the gradient column keeps a readable width
    assert "min-width:11em" in w
