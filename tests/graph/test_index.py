"""The graph index: lookups and walks built once per graph model."""

from __future__ import annotations

from tapemagic.graph.index import index_of
from tapemagic.graph.model import (
    Assign,
    Cell,
    Escape,
    GradientRequest,
    Graph,
    OpNode,
    TapeInfo,
    Value,
)


def _value(vid, origin="op", op=None, **kw):
    return Value(vid, origin, (), kw.pop("dtype", "float32"), True, op=op, **kw)


def _graph():
    """w -> square -> h; h.numpy() -> c (ghost); c * w -> y; v.assign(h)."""
    return Graph(
        TapeInfo("tape", False, True, "stopped", True),
        Cell(None, None),
        values=(
            _value("t1", "variable", variable="w:0", trainable=True),
            _value("t2", op="op1"),
            _value("t3", "numpy", escape="e1"),
            _value("t4", op="op2"),
            _value("t5", "variable", variable="v:0", trainable=True),
            _value("t6", op="op3"),
        ),
        ops=(
            OpNode("op1", 1, "square", ("t1",), ("t2",), True, True, 2, "recording"),
            OpNode(
                "op2", 3, "multiply", ("t3", "t1"), ("t4",), True, True, 3, "recording"
            ),  # fmt: skip
            OpNode("op3", 5, "add", ("t5", "t5"), ("t6",), True, True, 5, "recording"),
        ),
        escapes=(Escape("e1", 2, "t2", "numpy", 2, "recording"),),
        assigns=(Assign(4, "t5", "t2", "Tensor", 4, "recording"),),
        targets=("t4",),
    )


def test_the_graph_keeps_one_index():
    g = _graph()
    assert index_of(g) is index_of(g)
    assert index_of(g).ancestors(("t4",), 10) is index_of(g).ancestors(("t4",), 10)


def test_producers_consumers_and_uses():
    g = _graph()
    index = index_of(g)
    assert index.producer("t2").id == "op1"
    assert index.producer("t1") is None
    # An op that uses a value twice is one consumer and two uses.
    assert [op.id for op in index_of(g).consumers("t5")] == ["op3"]
    assert [(op.id, i) for op, i in index.uses("t5")] == [("op3", 0), ("op3", 1)]
    assert [op.id for op in index_of(g).consumers("t1")] == ["op1", "op2"]
    assert index_of(g).producer("t4").id == "op2"


def test_ghost_links_escapes_and_assigns():
    index = index_of(_graph())
    assert index.ghost_of == {"t3": "t2"}
    assert [e.id for e in index.escapes_of["t2"]] == ["e1"]
    assert index.copies_of == {"e1": ["t3"]}
    assert index.assigned == {"t5": [(4, ("t2",))]}
    assert index.assigned_from == {"t2": {"t5"}}


def test_data_flow_follows_copies_and_assigns():
    index = index_of(_graph())
    values, escapes, assigns = index.ancestors(("t4",), 10)
    assert values == {"t1", "t2", "t3", "t4"}
    assert escapes == {"e1"}
    assert assigns == set()
    # The variable read by op3 holds what the assign put in it.
    assert index.ancestors(("t6",), 10)[0] >= {"t5", "t2", "t1"}
    assert index.ancestors(("t6",), 10)[2] == {4}
    assert index.ancestors(("t6",), 10, through_assigns=False)[0] == {"t5", "t6"}
    assert index.descendants("t1", 10) == {"t1", "t2", "t3", "t4", "t5", "t6"}


def test_gradient_reach_stops_at_copies_and_unrecorded_ops():
    index = index_of(_graph())
    assert index.gradient_reach("t1", 10) == {"t1", "t2", "t4"}
    assert index.gradient_reach("t1", 2) == {"t1", "t2"}
    assert index.gradient_reach("t1", 10, after=1) == {"t1", "t4"}
    assert index.gradient_reach("t1", 10, tape=1) == {"t1"}


def test_paths_go_through_ghost_links():
    ops, values = index_of(_graph()).paths(("t1",), ("t4",))
    assert ops == {"op1", "op2"}
    assert values == {"t1", "t2", "t3", "t4"}


def test_nested_requests_and_graph_ops():
    g = Graph(
        TapeInfo(None, False, True, "answered", True),
        Cell(None, None),
        ops=(
            OpNode(
                "op1",
                2,
                "multiply",
                ("t1", "t2"),
                ("t3",),
                True,
                True,
                4,
                "recording",
                during="g1",
            ),  # fmt: skip
            OpNode(
                "op2",
                4,
                "multiply",
                ("t1", "t2"),
                ("t5",),
                True,
                False,
                6,
                "recording",
                during="g2",
            ),  # fmt: skip
        ),
        gradients=(
            GradientRequest("g1", 1, "gradient", 1, ("t4",), ("t1",), ()),
            GradientRequest("g2", 3, "gradient", 0, ("t6",), ("t1",), ()),
        ),
    )
    assert [r.id for r in index_of(g).nested_requests] == ["g1"]
    assert [op.id for op in index_of(g).graph_ops] == ["op1"]
    assert index_of(g).inner_targets == ("t4",)
    assert [op.id for op in index_of(g).ops_during("g2")] == ["op2"]
    assert list(index_of(g).calls) == ["g1"]
