"""graph_from_tape: the model of a %%tape cell, field by field, and of plain tapes."""

from __future__ import annotations

import json
import linecache
import sys

import numpy as np
import pytest
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

import tapemagic.tf as tf
from tapemagic.engine import GradientTape
from tapemagic.engine.recorder import explain_listener
from tapemagic.graph.from_tape import graph_from_tape
from tapemagic.graph.index import index_of
from tapemagic.graph.model import (
    Binding,
    Cell,
    Edge,
    GradientRequest,
    GradientResult,
    Graph,
    OpNode,
    Read,
    Source,
    TapeEvent,
    TapeInfo,
    Value,
)


@pytest.fixture
def ip():
    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    before = set(shell.user_ns)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):  # IPython's own _, _1, _i... stay
            del shell.user_ns[name]


def run(ip, code: str):
    with capture_output():
        result = ip.run_cell(code, store_history=True)
    assert result.success, result.error_in_exec
    return ip.execution_count - 1


def test_small_cell_field_by_field(ip):
    run(ip, "import tapemagic.tf as tf\nxs = tf.Variable(3.0, name='xs')")
    n = run(ip, "%%tape --quiet --target ys --sources xs\nys = xs * xs + 2.0\n")
    tape = ip.user_ns["tape"]
    graph = graph_from_tape(tape, name="tape")
    filename = explain_listener(tape).filename

    assert graph.version == 1
    assert graph.tape == TapeInfo(
        name="tape",
        persistent=False,
        watch_accessed_variables=True,
        status="answered",
        explained=True,
    )
    assert graph.cell == Cell(
        label=f"In[{n}]",
        filename=filename,
        lines=("%%tape --quiet --target ys --sources xs", "ys = xs * xs + 2.0"),
    )
    assert linecache.getline(filename, 2) == "ys = xs * xs + 2.0\n"
    assert graph.values == (
        Value("t1", "variable", (), "float32", True, line=2, names=("xs",),
              variable="xs:0", trainable=True, created=1),
        Value("t2", "op", (), "float32", True, line=2, op="op1", created=2),
        Value("t3", "python", (), "float32", True, line=2, python_type="float",
              created=3),
        Value("t4", "op", (), "float32", True, line=2, op="op2", names=("ys",),
              created=4),
    )  # fmt: skip
    # seq: 0 start, 1-2 the two reads of xs, 3 multiply, 4 converting 2.0, 5 add,
    # 6 stop, 7 the magic's gradient request.
    assert graph.ops == (
        OpNode("op1", 3, "multiply", ("t1", "t1"), ("t2",), differentiable=True,
               recorded=True, line=2, tape_state="recording"),
        OpNode("op2", 5, "add", ("t2", "t3"), ("t4",), differentiable=True,
               recorded=True, line=2, tape_state="recording"),
    )  # fmt: skip
    assert graph.edges == (
        Edge("t1", "op1", 0),
        Edge("t1", "op1", 1),
        Edge("op1", "t2", 0),
        Edge("t2", "op2", 0),
        Edge("t3", "op2", 1),
        Edge("op2", "t4", 0),
    )
    assert graph.sources == (Source("t1", "variable", True, "accessed", 2),)
    assert graph.targets == ("t4",)
    assert graph.gradients == (
        GradientRequest(
            id="g1",
            seq=7,
            kind="gradient",
            tape=0,
            targets=("t4",),
            sources=("t1",),
            results=(GradientResult("t1", False, (), "float32", "6."),),
            unconnected="none",
            output_gradients=False,
            where=f"In[{n}]",
            line=1,
            here=True,
            via="--target ys --sources xs",
            error=None,
            source_paths=("",),
            target_types=(None,),
            target_escapes=(None,),
        ),
    )
    assert graph.reads == (
        Read(1, "t1", 2, "recording"),
        Read(2, "t1", 2, "recording"),
    )
    assert graph.escapes == graph.assigns == graph.watches == ()
    assert graph.tape_events == (TapeEvent(0, "start", 1), TapeEvent(6, "stop", 1))
    assert graph.bindings == (Binding("ys", "t4", "tensor", None, "EagerTensor"),)
    np.testing.assert_allclose(ip.user_ns["grads"].numpy(), 6.0)  # d(x*x+2)/dx

    data = graph.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["values"][0]["shape"] == [] and data["edges"][1] == {
        "source": "t1",
        "target": "op1",
        "index": 1,
    }
    assert Graph.from_dict(json.loads(json.dumps(data))) == graph
    assert Graph.from_json(graph.to_json()) == graph


def test_explain_tape_in_plain_python_reports_this_files_lines():
    w = tf.Variable([1.0, 2.0], name="w")
    with GradientTape(explain=True) as tape:
        line = sys._getframe().f_lineno + 1
        y = tf.reduce_sum(w * w)
    graph = graph_from_tape(tape)
    assert graph.cell.filename == __file__
    assert graph.cell.label is None
    assert graph.cell.line(line).strip() == "y = tf.reduce_sum(w * w)"
    assert [(op.op, op.line) for op in graph.ops] == [
        ("multiply", line),
        ("reduce_sum", line),
    ]
    assert index_of(graph).values[graph.ops[1].outputs[0]].shape == ()
    assert tape.gradient(y, w).numpy().tolist() == [2.0, 4.0]


def test_op_params_become_text():
    x = tf.Variable([1.7, -1.7])
    with GradientTape(explain=True) as tape:
        i = tf.cast(x, tf.int32)
        s = tf.reduce_sum(x, axis=0, keepdims=True)
    graph = graph_from_tape(tape)
    cast, reduce = graph.ops
    assert (cast.op, cast.recorded) == ("cast", False)
    assert cast.params == (("dtype", "int32"),)
    assert index_of(graph).values[cast.outputs[0]].dtype == "int32"
    assert index_of(graph).values[cast.outputs[0]].differentiable is False
    assert reduce.params == (("axes", "(0,)"), ("keepdims", "True"))
    assert i.dtype == tf.int32 and s.shape == (1,)


def test_tape_without_log_gives_its_recorded_ops():
    w = tf.Variable(2.0, name="w")
    c = tf.constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(c)
        y = w * c
        z = tf.floor(y)  # not differentiable: not recorded
    graph = graph_from_tape(tape, name="t")
    assert graph.tape == TapeInfo("t", True, True, "stopped", False)
    assert graph.cell == Cell(None, None)
    assert [(op.op, op.recorded, op.line) for op in graph.ops] == [
        ("multiply", True, None)
    ]
    assert graph.values == (
        Value("t1", "variable", (), "float32", True, variable="w:0", trainable=True),
        Value("t2", "unknown", (), "float32", True),
        Value("t3", "op", (), "float32", True, op="op1"),
    )
    assert graph.sources == (
        Source("t1", "variable", True, "accessed"),
        Source("t2", "tensor", True, "watch"),
    )
    assert float(z) == 6.0


def test_answered_tape_without_log_has_no_ops_left():
    w = tf.Variable(2.0)
    with GradientTape() as tape:
        y = w * w
    tape.gradient(y, w)
    graph = graph_from_tape(tape)
    assert graph.tape.status == "answered"
    assert graph.ops == ()
    assert graph_from_tape(GradientTape()).tape.status == "new"


def test_sources_cover_watch_reset_and_unwatched_requests():
    w = tf.Variable(1.0, name="w")
    frozen = tf.Variable(1.0, name="frozen", trainable=False)
    c = tf.constant(2.0)
    k = tf.constant(3)
    with GradientTape(explain=True, persistent=True) as tape:
        tape.watch(c)
        tape.reset()
        with pytest.warns(UserWarning, match="must be floating"):
            tape.watch(k)
        line = sys._getframe().f_lineno + 1
        y = w * c * frozen
    grads = tape.gradient(y, [w, c, frozen])
    assert grads[1] is None and grads[2] is None
    graph = graph_from_tape(tape)
    ids = {v.variable or v.origin: v.id for v in graph.values}
    sources = {s.value: s for s in graph.sources}
    assert sources[ids["w:0"]] == Source(ids["w:0"], "variable", True, "accessed", line)
    (c_id,) = [v.id for v in graph.values if v.dtype == "float32" and v.origin
               == "outside"]  # fmt: skip
    assert sources[c_id].how == "watch" and sources[c_id].watched is False
    (k_id,) = [v.id for v in graph.values if v.dtype == "int32"]
    assert sources[k_id].watched is False
    assert sources[ids["frozen:0"]] == Source(
        ids["frozen:0"], "variable", False, "none", None
    )
    assert index_of(graph).values[ids["frozen:0"]].trainable is False


def test_facts_for_the_diagnosis_reach_the_model(ip):
    run(
        ip,
        "import numpy as np\nimport tapemagic.tf as tf\n"
        "wv = tf.Variable([1.0, 4.0], name='wv')\np = 2.5",
    )
    run(
        ip,
        "%%tape --quiet --persistent\n"  # 1
        "pt = tf.constant(p)\n"  # 2
        "tape.watch(pt)\n"  # 3
        "sq = tf.square(p)\n"  # 4
        "copy = tf.constant(wv) * 1.0\n"  # 5
        "logs = tf.math.log(wv - 1.0)\n"  # 6
        "picked = tf.where(wv > 2.0, logs, 0.0)\n"  # 7
        "with tf.GradientTape() as inner:\n"  # 8
        "    inner_y = wv * 3.0\n"  # 9
        "old = wv\n"  # 10
        "wv = wv * 1.0\n",  # 11
    )
    run(ip, "later = picked * 2.0\ng = tape.gradient([later, logs], old)")
    graph = graph_from_tape(ip.user_ns["tape"], name="tape")
    by_name = {name: v for v in graph.values for name in v.names}
    ops = {(op.op, op.line): op for op in graph.ops if op.during is None}

    assert index_of(graph).values[ops["log", 6].outputs[0]].finite is False
    assert (
        index_of(graph).values[ops["square", 4].inputs[0]].same_as == by_name["pt"].id
    )
    assert by_name["pt"].same_as is None
    (escape,) = [e for e in graph.escapes if e.how == "constant"]
    assert index_of(graph).values[ops["multiply", 5].inputs[0]].escape == escape.id
    assert ops["where", 7].no_gradient_inputs == (0,)
    assert ops["multiply", 9].other_tapes == (1,) and ops["multiply", 9].recorded
    assert [r.other_tapes for r in graph.reads if r.line == 9] == [(1,)]
    (rebound,) = [b for b in graph.bindings if b.name == "wv"]
    assert (rebound.previous, rebound.previous_kind) == (by_name["old"].id, "variable")
    (request,) = graph.gradients
    (later_id, _) = request.targets
    assert index_of(graph).values[later_id].after_tape
    assert index_of(graph).values[later_id].origin == "unknown"
    (result,) = request.results
    assert (result.nan, result.inf, result.zero) == (False, True, False)
    order = [v.created for v in graph.values]
    assert sorted(order) == list(range(1, len(order) + 1))
    assert by_name["old"].created < by_name["pt"].created < by_name["logs"].created
    assert Graph.from_json(graph.to_json()) == graph
    # d/dwv of log(wv - 1) at [1, 4]: 1 / (wv - 1) = [inf, 1/3]; later adds
    # nothing, the tape never saw it made.
    np.testing.assert_allclose(ip.user_ns["g"].numpy(), [np.inf, 1.0 / 3.0])
