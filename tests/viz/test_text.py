"""render_text: the plain-text summary of hand-made graph models."""

from __future__ import annotations

import subprocess
import sys

from tapemagic.graph.diagnosis import diagnose
from tapemagic.graph.findings import Finding
from tapemagic.graph.model import (
    Cell,
    GradientRequest,
    GradientResult,
    Graph,
    OpNode,
    Source,
    TapeInfo,
    Value,
)
from tapemagic.viz.text import render_text
from tests.viz.test_dot import nested_graph

TAPE = TapeInfo("tape", True, True, "stopped", True)
CELL = Cell("In[4]", None)
W = Value("t1", "variable", (2, 1), "float32", True, 2, names=("w",),
          variable="w:0", trainable=True)  # fmt: skip
B = Value("t2", "variable", (1,), "float32", True, 3, names=("b",),
          variable="b:0", trainable=True)  # fmt: skip
H = Value("t3", "op", (3, 1), "float32", True, 2, op="op1", names=("h",))
R = Value("t4", "op", (3, 1), "float32", True, 3, op="op2")
LOSS = Value("t5", "op", (), "float32", True, 4, op="op3", names=("loss",))


def op(i: int, name: str, inputs, outputs, line, recorded=True, during=None):
    return OpNode(f"op{i}", i, name, inputs, outputs, True, recorded, line,
                  "recording", during)  # fmt: skip


def test_summary_of_sources_gradients_and_nones():
    graph = Graph(
        TAPE,
        CELL,
        values=(W, B, H, R, LOSS),
        ops=(
            op(1, "matmul", ("t1",), ("t3",), 2),
            op(2, "floor", ("t3",), ("t4",), 3, recorded=False),
            op(3, "reduce_mean", ("t3",), ("t5",), 4),
            op(4, "multiply", ("t5",), ("t6",), None, recorded=False, during="g1"),
        ),
        sources=(
            Source("t1", "variable", True, "accessed", 2),
            Source("t2", "variable", False, "none"),
        ),
        targets=("t5",),
        gradients=(
            GradientRequest(
                "g1", 9, "gradient", 0, ("t5",), ("t1", "t2"),
                (
                    GradientResult("t1", False, (2, 1), "float32", "[[1.], [2.]]"),
                    GradientResult("t2", True),
                ),
                where="In[4]", line=1, via="--target loss --sources w,b",
            ),
            GradientRequest(
                "g2", 12, "gradient", 1, ("t5",), ("t1",), (), where="In[5]",
                line=2, error="RuntimeError: A non-persistent GradientTape ...",
            ),
        ),
    )  # fmt: skip
    assert render_text(graph, diagnose(graph)).splitlines() == [
        "GradientTape 'tape' (persistent, stopped) from In[4]",
        "Ops: 2 recorded on the tape, of 3 that ran.",
        "  not recorded: floor at line 3",
        "Watched:",
        "  w (float32 (2, 1)), variable: watched when read at line 2",
        "Asked about but not watched:",
        "  b (float32 (1,)), variable: never watched by this tape",
        "Gradients asked for:",
        "  g1: gradient(loss, [w, b]) by %%tape --target loss --sources w,b",
        "      w: float32 (2, 1) [[1.], [2.]]",
        "      b: None",
        "  g2: gradient(loss, w) in In[5] at line 2 (on another tape, #1)",
        "      raised RuntimeError: A non-persistent GradientTape ...",
        "None gradients: b (g1).",
        "Why, and what to do:",
        "  b: None because loss, computed at line 4, does not depend on b: nothing "
        "computed from b leads to loss.",
        "    -> Use b when computing loss, or leave b out of the sources. [TM013]",
    ]


def test_recorded_nothing_with_ops_that_ran():
    graph = Graph(
        TapeInfo("t", False, False, "stopped", True),
        Cell(None, None),
        values=(H, R),
        ops=(op(1, "sin", ("t3",), ("t4",), 2, recorded=False),),
        sources=(Source("t3", "tensor", True, "watch", 1),),
    )
    assert render_text(graph).splitlines() == [
        "GradientTape 't' (non-persistent, stopped), watch_accessed_variables=False",
        "The tape recorded nothing: 1 op ran, but none used a watched variable or "
        "tensor.",
        "Watched:",
        "  h (float32 (3, 1)), tensor: tape.watch at line 1",
    ]


def test_long_lists_of_unrecorded_ops_are_cut():
    ops = (op(1, "matmul", ("t1",), ("t3",), 2),) + tuple(
        op(i, "round", ("t3",), ("t4",), i, recorded=False) for i in range(2, 10)
    )
    graph = Graph(TAPE, CELL, values=(W, H, R), ops=ops)
    (line,) = [x for x in render_text(graph).splitlines() if "not recorded" in x]
    assert line == (
        "  not recorded: round at line 2, round at line 3, round at line 4, round "
        "at line 5, round at line 6, and 3 more"
    )


def test_untrainable_and_undifferentiable_sources_are_flagged():
    frozen = Value("t1", "variable", (), "int32", False, 2, variable="k:0",
                   trainable=False)  # fmt: skip
    graph = Graph(
        TAPE, CELL, values=(frozen,),
        sources=(Source("t1", "variable", False, "watch", 3),),
    )  # fmt: skip
    assert render_text(graph).splitlines()[-1] == (
        "  k (int32 scalar), variable: tape.watch at line 3 (not watched: its dtype "
        "cannot have a gradient), trainable=False"
    )


def test_names_are_plain_text():
    odd = Value("t1", "op", (), "float32", True, 1, op="op1", names=("<b>x</b>",))
    graph = Graph(
        TAPE, CELL, values=(odd,),
        sources=(Source("t1", "tensor", True, "watch", 1),),
    )  # fmt: skip
    assert "<b>x</b> (float32 scalar)" in render_text(graph)


def test_text_renderer_never_loads_the_engine():
    code = (
        "import sys, tapemagic.viz.text\n"
        "loaded = [m for m in sys.modules if m.startswith('tapemagic.engine')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_findings_given_are_listed_with_their_fix():
    graph = Graph(TAPE, CELL, values=(W, B))
    nan = Finding(
        "w", "loss", "nan_gradient", "w: the gradient holds NaN because log at "
        "line 3 is infinite for some elements.", "Make the input of log safe.",
        severity="warning",
    )  # fmt: skip
    lines = render_text(graph, findings=(nan,)).splitlines()
    assert lines[-3:] == [
        "Why, and what to do:",
        "  w: the gradient holds NaN because log at line 3 is infinite for some "
        "elements.",
        "    -> Make the input of log safe. [TM017]",
    ]
    assert "Why" not in render_text(graph, findings=())


def test_a_gradient_computed_inside_the_tape_is_counted_and_named():
    lines = render_text(nested_graph(), ()).splitlines()
    # x**3, and the inner gradient's four ops (pow and multiply use x).
    assert lines[:4] == [
        "GradientTape 'tape' (non-persistent, answered) from In[3]",
        "Ops: 3 recorded on the tape, of 5 that ran.",
        "Gradients computed inside the tape (their ops are in its graph):",
        "  dy_dx = inner.gradient(y, x) at line 4: 4 ops, 2 recorded",
    ]
    assert "  g1: gradient(y, x) in In[3] at line 4 (on another tape, #1)" in lines
    assert not any(line.startswith("  not recorded:") for line in lines)
