"""The reasoning the causes share: watched in time, connected, first use."""

from __future__ import annotations

from tapemagic.graph.cause import Query
from tapemagic.graph.facts import Facts
from tapemagic.graph.model import (
    Cell,
    Graph,
    OpNode,
    Read,
    TapeEvent,
    TapeInfo,
    Value,
    Watch,
)


def _graph(**kw) -> Graph:
    return Graph(
        TapeInfo("tape", True, True, "stopped", True),
        Cell(None, None),
        values=(
            Value(
                "t1", "variable", (), "float32", True, variable="w:0", trainable=True
            ),
            Value("t2", "op", (), "float32", True, 3, op="op1"),
        ),  # fmt: skip
        ops=(OpNode("op1", 3, "exp", ("t1",), ("t2",), True, True, 3, "recording"),),
        **kw,
    )


def test_a_variable_read_while_recording_is_tracked():
    facts = Facts(_graph(reads=(Read(2, "t1", 3, "recording"),)))
    q = Query("t1", ("t2",), 0, 10)
    assert facts.tracked(q)
    assert facts.connected(q)
    assert facts.first_use(q).id == "op1"


def test_a_reset_forgets_what_came_before():
    facts = Facts(
        _graph(
            reads=(Read(2, "t1", 3, "recording"),),
            tape_events=(TapeEvent(5, "reset", 6),),
        )
    )
    q = Query("t1", ("t2",), 0, 10)
    assert facts.reset_before(q) == 5
    assert facts.line_of_seq(5) == 6
    assert not facts.tracked(q)
    assert not facts.connected(q)


def test_a_watch_on_another_tape_counts_for_that_tape_only():
    facts = Facts(_graph(watches=(Watch(1, 2, "t1", 2, "recording"),)))
    assert facts.watched_anywhere("t1")
    assert facts.tracked(Query("t1", ("t2",), 2, 10))
    assert not facts.tracked(Query("t1", ("t2",), 0, 10))


def test_value_ids_sort_by_number():
    assert sorted(["t10", "t2", "t1"], key=Facts.order) == ["t1", "t2", "t10"]
