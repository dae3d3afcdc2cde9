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
