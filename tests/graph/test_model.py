"""The graph model as data: lookups, JSON, and what from_dict refuses."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tapemagic.graph.index import index_of
from tapemagic.graph.model import (
    SCHEMA_VERSION,
    Assign,
    Binding,
    Cell,
    Edge,
    Escape,
    GradientRequest,
    GradientResult,
    Graph,
    OpNode,
    Read,
    Source,
    TapeEvent,
    TapeInfo,
    Value,
    Watch,
)


def make_graph() -> Graph:
    """A model using every kind of record, as a cell like this one would give:

    1 %%tape --target loss --sources w,b
    2 h = w * x
    3 b_np = b.numpy()
    4 loss = h + b_np
    """
    return Graph(
        tape=TapeInfo("tape", False, True, "answered", True),
        cell=Cell(
            "In[3]",
            "<cell>",
            (
                "%%tape --target loss --sources w,b",
                "h = w * x",
                "b_np = b.numpy()",
                "loss = h + b_np",
            ),
        ),
        values=(
            Value("t1", "variable", (2,), "float32", True, 2, names=("w",),
                  variable="w:0", trainable=True),
            Value("t2", "outside", (2,), "float32", True, names=("x",)),
            Value("t3", "op", (2,), "float32", True, 2, op="op1", names=("h",)),
            Value("t4", "variable", (), "float32", True, None, names=("b",),
                  variable="b:0", trainable=True),
            Value("t5", "numpy", (), "float32", True, 4, python_type="float32",
                  escape="e1"),
            Value("t6", "op", (2,), "float32", True, 4, op="op2", names=("loss",)),
        ),
        ops=(
            OpNode("op1", 2, "multiply", ("t1", "t2"), ("t3",), True, True, 2,
                   "recording"),
            OpNode("op2", 5, "add", ("t3", "t5"), ("t6",), True, True, 4,
                   "recording", params=(("name", "'sum'"),)),
        ),
        edges=(
            Edge("t1", "op1", 0), Edge("t2", "op1", 1), Edge("op1", "t3", 0),
            Edge("t3", "op2", 0), Edge("t5", "op2", 1), Edge("op2", "t6", 0),
        ),
        sources=(
            Source("t1", "variable", True, "accessed", 2),
            Source("t4", "variable", False, "none"),
        ),
        targets=("t6",),
        gradients=(
            GradientRequest(
                "g1", 7, "gradient", 0, ("t6",), ("t1", "t4"),
                (
                    GradientResult("t1", False, (2,), "float32", "[1., 2.]"),
                    GradientResult("t4", True),
                ),
                where="In[3]", line=1, here=True, via="--target loss --sources w,b",
            ),
        ),
        reads=(Read(1, "t1", 2, "recording"),),
        escapes=(Escape("e1", 3, "t4", "numpy", 3, "recording"),),
        assigns=(Assign(8, "t4", None, "float", None, "stopped"),),
        watches=(Watch(4, 0, "t2", 2, "recording"),),
        tape_events=(TapeEvent(0, "start", 1), TapeEvent(6, "stop", 1)),
        bindings=(Binding("h", "t3", "tensor", None, "Tensor"),),
    )  # fmt: skip


def test_lookups():
    g = make_graph()
    assert index_of(g).values["t3"].op == "op1"
    assert index_of(g).ops["op2"].inputs == ("t3", "t5")
    assert index_of(g).producer("t6").op == "add"
    assert index_of(g).producer("t1") is None
    assert [op.id for op in index_of(g).consumers("t3")] == ["op2"]
    assert index_of(g).consumers("t6") == ()
    # never an internal id: an unnamed NumPy input says what it is
    assert [index_of(g).name_of(v) for v in ("t1", "t5", "t6", None)] == [
        "w",
        "a NumPy array",
        "loss",
        "?",
    ]
    with pytest.raises(KeyError):
        index_of(g).values["t99"]
    with pytest.raises(KeyError):
        index_of(g).ops["op9"]


def test_name_of_never_gives_a_class_name_or_an_id():
    g = Graph(
        TapeInfo(None, False, True, "new", True),
        Cell(None, None),
        values=(
            Value("t1", "variable", (), "float32", True, variable="Variable:0"),
            Value("t2", "variable", (), "float32", True, variable="outer/Variable_3:0"),
            Value("t3", "variable", (2,), "float32", True, variable="kernel:0",
                  path="sequential/dense_1/kernel"),
            Value("t4", "op", (), "float32", True, op="op1"),
        ),
        ops=(OpNode("op1", 1, "exp", ("t1",), ("t4",), True, True, 2, "recording"),),
    )  # fmt: skip
    assert [index_of(g).name_of(v) for v in ("t1", "t2", "t3", "t4")] == [
        "a tf.Variable",
        "a tf.Variable",
        "dense_1/kernel",
        "exp result",
    ]


def test_name_of_falls_back_to_the_variable_name():
    g = Graph(
        TapeInfo(None, False, True, "new", True),
        Cell(None, None),
        values=(Value("t1", "variable", (), "float32", True, variable="bias:0"),),
    )
    assert index_of(g).name_of("t1") == "bias"


def test_cell_line_lookup():
    cell = make_graph().cell
    assert cell.line(1) == "%%tape --target loss --sources w,b"
    assert cell.line(4) == "loss = h + b_np"
    assert cell.line(0) is None and cell.line(5) is None and cell.line(None) is None


def test_model_is_immutable():
    g = make_graph()
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.values = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.values[0].origin = "op"


def test_to_dict_is_plain_json_data_and_round_trips():
    g = make_graph()
    data = g.to_dict()
    assert list(data)[0] == "version" and data["version"] == SCHEMA_VERSION
    assert json.loads(json.dumps(data)) == data
    assert data["values"][0] == {
        "id": "t1",
        "origin": "variable",
        "shape": [2],
        "dtype": "float32",
        "differentiable": True,
        "line": 2,
        "op": None,
        "names": ["w"],
        "variable": "w:0",
        "trainable": True,
        "python_type": None,
        "escape": None,
        "finite": None,
        "same_as": None,
        "after_tape": False,
        "rebound_from": None,
        "created": None,
        "made_at": None,
        "made_from": None,
        "path": None,
        "rebound_at": None,
    }
    assert data["ops"][1]["params"] == [["name", "'sum'"]]
    assert data["gradients"][0]["results"][1] == {
        "source": "t4",
        "none": True,
        "shape": None,
        "dtype": None,
        "preview": None,
        "nan": False,
        "inf": False,
        "zero": False,
    }
    again = Graph.from_dict(json.loads(json.dumps(data)))
    assert again == g
    assert isinstance(again.values[0].shape, tuple)
    assert isinstance(again.ops[1].params[0], tuple)
    assert Graph.from_json(g.to_json(indent=1)) == g


def test_data_without_the_newer_optional_fields_still_loads():
    # Fields added later have defaults: data written before them still loads.
    data = make_graph().to_dict()
    for value in data["values"]:
        for key in ("finite", "same_as", "after_tape", "rebound_from", "created"):
            del value[key]
    for op in data["ops"]:
        del op["other_tapes"], op["no_gradient_inputs"]
    for result in data["gradients"][0]["results"]:
        del result["nan"], result["inf"], result["zero"]
    assert Graph.from_dict(data) == make_graph()


def test_from_dict_refuses_other_versions_and_unknown_fields():
    data = make_graph().to_dict()
    with pytest.raises(ValueError, match="version 2, but this tapemagic reads"):
        Graph.from_dict({**data, "version": 2})
    data["values"][0]["colour"] = "red"
    with pytest.raises(ValueError, match=r"Unknown fields \['colour'\] for Value"):
        Graph.from_dict(data)
    with pytest.raises(ValueError, match="Expected a list"):
        Graph.from_dict({**make_graph().to_dict(), "ops": "op1"})


def _request(id_: str, tape: int, targets: tuple, sources: tuple) -> GradientRequest:
    return GradientRequest(id_, int(id_[1:]) * 10, "gradient", tape, targets,
                           sources, ())  # fmt: skip


def _op(n: int, recorded: bool, during: str | None) -> OpNode:
    return OpNode(f"op{n}", n, "multiply", ("t1",), (f"t{n + 1}",), True, recorded,
                  n, "recording", during)  # fmt: skip


def test_nested_requests_are_the_gradients_computed_inside_the_tape():
    g = Graph(
        TapeInfo("tape", True, True, "stopped", True),
        Cell(None, None),
        ops=(
            _op(1, True, None),  # y = x * ..., forward
            _op(2, True, "g1"),  # inner.gradient(y, x): recorded here
            _op(3, False, "g1"),
            _op(4, False, "g2"),  # other.gradient(...): ran here, not recorded
            _op(5, True, "g3"),  # tape.gradient inside its own block (persistent)
            _op(6, False, "g4"),  # tape.gradient, recorded nothing: its answer
        ),
        targets=("t2", "t9", "t3", "t7"),
        gradients=(
            _request("g1", 1, ("t2",), ("t1",)),
            _request("g2", 2, ("t9",), ("t1",)),
            _request("g3", 0, ("t3",), ("t1",)),
            _request("g4", 0, ("t7",), ("t1",)),
            _request("g5", 3, ("t2",), ("t1",)),  # asked of a tape that ran nothing
        ),
    )
    assert [r.id for r in index_of(g).nested_requests] == ["g1", "g2", "g3"]
    assert [op.id for op in index_of(g).graph_ops] == [
        "op1",
        "op2",
        "op3",
        "op4",
        "op5",
    ]
    # t2 is also the target of g5, which ran nothing here (another tape asked
    # by mistake): only t9 is no more than an inner tape's target.
    assert index_of(g).inner_targets == ("t9",)
    assert Graph.from_json(g.to_json()) == g


def test_the_tapes_own_answer_is_not_part_of_its_graph():
    # The %%tape magic's own request g1 ran an op after the tape stopped.
    g = make_graph()
    answer = OpNode("op9", 9, "ones_like", ("t6",), ("t7",), True, False, 1,
                    "stopped", during="g1")  # fmt: skip
    g = dataclasses.replace(g, ops=(*g.ops, answer))
    assert index_of(g).nested_requests == () and index_of(g).inner_targets == ()
    assert index_of(g).graph_ops == g.ops[:-1]
