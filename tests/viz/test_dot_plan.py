"""Choosing what a view shows: paths, collapsing, budget, replay."""

from __future__ import annotations

from tapemagic.graph.model import (
    Cell,
    GradientRequest,
    GradientResult,
    GradientValue,
    Graph,
    OpNode,
    Source,
    TapeInfo,
    Value,
)
from tapemagic.viz.dot_plan import ViewPlan


def _chain(n: int) -> Graph:
    """w -> exp -> exp -> ... (n ops), and an unrelated op on a constant."""
    values = [Value("t1", "variable", (), "float32", True, names=("w",),
                    variable="w:0", trainable=True)]  # fmt: skip
    ops = []
    for i in range(1, n + 1):
        values.append(Value(f"t{i + 1}", "op", (), "float32", True, op=f"op{i}"))
        ops.append(OpNode(f"op{i}", i, "exp", (f"t{i}",), (f"t{i + 1}",), True,
                          True, i + 1, "recording"))  # fmt: skip
    values.append(Value("c1", "constant", (), "float32", True))
    values.append(Value("c2", "op", (), "float32", True, op="opx"))
    ops.append(OpNode("opx", n + 1, "exp", ("c1",), ("c2",), True, False, 99,
                      "recording"))  # fmt: skip
    last = f"t{n + 1}"
    return Graph(
        TapeInfo("tape", False, True, "answered", True),
        Cell(None, None),
        values=tuple(values),
        ops=tuple(ops),
        sources=(Source("t1", "variable", True, "accessed", 2),),
        targets=(last,),
        gradients=(
            GradientRequest(
                "g1",
                n + 2,
                "gradient",
                0,
                (last,),
                ("t1",),
                (GradientResult("t1", False, (), "float32"),),
            ),
        ),  # fmt: skip
        gradient_values=tuple(
            GradientValue("g1", f"t{i + 1}", f"op{i}", (), 1.0) for i in range(n, 0, -1)
        ),
    )


def _plan(graph, **kw):
    options = dict(
        target=None,
        source=None,
        collapse=None,
        gradients=True,
        step=0,
        request=None,
        max_nodes=120,
        expand_gradients=False,
    )
    options.update(kw)
    return ViewPlan(graph, (), **options)


def test_small_graphs_show_every_op():
    plan = _plan(_chain(3))
    assert [op.id for op in plan.chosen] == ["op1", "op2", "op3", "opx"]
    assert plan.path_ops == {"op1", "op2", "op3"}
    assert not plan.collapsed
    assert plan.hidden == []


def test_a_picked_target_keeps_only_its_paths():
    plan = _plan(_chain(3), target="t4")
    assert [op.id for op in plan.chosen] == ["op1", "op2", "op3"]
    assert plan.hidden == [("ops off the source-to-target paths", 1)]


def test_too_many_nodes_collapse_by_line():
    plan = _plan(_chain(30), max_nodes=8)
    assert plan.collapsed
    lines = plan.group_by_line(plan.chosen)
    assert lines.hidden_ops > 0
    assert len(lines.kept) <= 8


def test_the_budget_keeps_the_latest_ops():
    plan = _plan(_chain(30), max_nodes=8, collapse=False)
    kept, leaves = plan.keep_units(plan.chosen)
    assert kept[-1].id == "op30"
    assert len(kept) + len(leaves) <= 8


def test_replay_reaches_the_first_steps():
    plan = _plan(_chain(3), step=2)
    assert plan.reached == {"op3", "op2"}
    assert plan.current == "op2"
    assert plan.source_gradient("t1") == "ok"
