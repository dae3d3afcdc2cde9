"""The words of a finding: names users know values by, and sentence pieces."""

from __future__ import annotations

import pytest

from tapemagic.graph.cause import Query
from tapemagic.graph.facts import Facts
from tapemagic.graph.model import (
    Cell,
    GradientRequest,
    GradientResult,
    Graph,
    OpNode,
    TapeInfo,
    Value,
)
from tapemagic.graph.names import at_line


def _graph(call: str) -> Graph:
    return Graph(
        TapeInfo("tape", False, True, "answered", True),
        Cell(None, None, ("%%tape", "h = tf.exp(a)", "tf.exp(h)", call)),
        values=(
            Value("t1", "constant", (), "float32", True),
            Value("t2", "op", (), "float32", True, 2, op="op1"),
            Value("t3", "op", (), "float32", True, 3, op="op2"),
        ),
        ops=(
            OpNode("op1", 1, "exp", ("t1",), ("t2",), True, False, 2, "recording"),
            OpNode("op2", 2, "exp", ("t2",), ("t3",), True, False, 3, "recording"),
        ),
        gradients=(
            GradientRequest(
                "g1",
                3,
                "gradient",
                0,
                ("t3",),
                ("t1",),
                (GradientResult("t1", True),),
                line=4,
                here=True,
            ),
        ),  # fmt: skip
    )


@pytest.mark.parametrize(
    ("call", "source", "target"),
    [
        ("g = tape.gradient(out, a)", "a", "out"),
        # Two calls on the line: no telling which one ran; the target is
        # named by the op that made it.
        (
            "g = tape.gradient(out, a), tape.gradient(out, a)",
            "the source",
            "the result of exp at line 3",
        ),
    ],
)
def test_names_come_from_the_gradient_call(call, source, target):
    g = _graph(call)
    facts = Facts(g)
    q = Query("t1", ("t3",), 0, 3, g.gradients[0], g.gradients[0].results[0])
    assert facts.names.of("t1", q) == source
    assert facts.names.of("t3", q) == target


def test_names_come_from_the_line_that_assigns():
    facts = Facts(_graph("pass"))
    assert facts.names.of("t2") == "h"
    assert facts.names.of("t3") == "the result of exp at line 3"
    assert facts.names.of("t1") == "a constant"


def test_long_code_is_clipped():
    assert at_line(2, "x" * 80) == f"at line 2 ({'x' * 57}...)"
