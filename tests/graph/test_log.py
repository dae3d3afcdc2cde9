"""The explanation log: what GradientTape(explain=...) hears from the engine."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, hooks
from tapemagic.engine.context import state
from tapemagic.engine.recorder import explain_listener
from tapemagic.graph import log_names
from tapemagic.graph.frames import user_location
from tapemagic.graph.from_tape import graph_from_tape
from tapemagic.graph.log import ExplainLog
from tapemagic.graph.log_requests import _norms
from tapemagic.graph.model import ORIGINS
from tapemagic.graph.previews import glimpse as _glimpse
from tapemagic.graph.previews import preview


def kinds(log: ExplainLog) -> list[str]:
    return [e[0] for e in log.events]


def ops(log: ExplainLog) -> list[tuple]:
    """(name, recorded, state, request) of each logged op."""
    return [(e[1], e[5], e[7], e[8]) for e in log.events if e[0] == "op"]


# -- wiring --------------------------------------------------------------------------


def test_plain_tape_has_no_log_and_no_observer():
    w = tf.Variable(1.0)
    with GradientTape() as tape:
        assert state.observers == []
        y = w * 2.0
    assert explain_listener(tape) is None
    assert tape.gradient(y, w).numpy() == 2.0


def test_log_listens_only_inside_the_with_block():
    log = ExplainLog()
    tape = GradientTape(explain=log)
    assert log.tape is tape and state.observers == []
    with tape:
        assert state.observers == [log]
    assert state.observers == []
    with pytest.raises(ZeroDivisionError), tape:
        assert state.observers == [log]
        raise ZeroDivisionError("the block raised")
    assert state.observers == [] and state.tapes == []


def test_explain_true_uses_the_registered_factory():
    assert isinstance(explain_listener(GradientTape(explain=True)), ExplainLog)
    registered = hooks.set_explain_factory(None)
    try:
        with pytest.raises(RuntimeError, match="needs the explanation log"):
            GradientTape(explain=True)
    finally:
        hooks.set_explain_factory(registered)


def test_explain_rejects_what_is_not_an_observer():
    with pytest.raises(TypeError, match="neither a bool nor an observer"):
        GradientTape(explain="yes")


def test_a_log_belongs_to_one_tape():
    log = ExplainLog()
    first = GradientTape(explain=log)
    with pytest.raises(ValueError, match="already belongs to another GradientTape"):
        GradientTape(explain=log)
    assert log.tape is first


def test_default_filename_is_the_creating_code():
    assert ExplainLog().filename == __file__
    filename, line = user_location()
    assert (filename, line) == (__file__, sys._getframe().f_lineno - 1)


def test_same_observer_is_not_added_twice():
    log = ExplainLog()
    tape = GradientTape(explain=log)
    state.observers.append(log)
    try:
        with tape:
            assert state.observers == [log]
        assert state.observers == [log]  # it was not the tape's to remove
    finally:
        state.observers.remove(log)


# -- what is logged --------------------------------------------------------------------


def test_every_op_is_logged_watched_or_not_with_its_line():
    w = tf.Variable([1.0, 2.0])
    c = tf.constant([3.0, 4.0])
    with GradientTape(explain=True) as tape:
        line = sys._getframe().f_lineno + 1
        y = w * c
        z = c * 2.0  # touches nothing watched
        r = tf.round(y)  # not differentiable
    log = explain_listener(tape)
    assert ops(log) == [
        ("multiply", True, "recording", None),
        ("multiply", False, "recording", None),
        ("round", False, "recording", None),
    ]
    assert [e[6] for e in log.events if e[0] == "op"] == [line, line + 1, line + 2]
    assert [e[2] for e in log.events if e[0] == "op"] == [True, True, False]
    assert z.numpy().tolist() == [6.0, 8.0] and r.numpy().tolist() == [3.0, 8.0]


def test_origins_of_values():
    before = tf.sin(tf.constant([0.0, 0.0]))  # computed before the tape started
    w = tf.Variable([1.0, 2.0])
    with GradientTape(explain=True) as tape:
        made = tf.constant([1.0, 1.0])
        a = w * np.array([2.0, 2.0], np.float32)
        b = a + 0.5
        c = b + [1.0, 1.0]
        d = c + before + made
    log = explain_listener(tape)
    origin = {key: entry[0] for key, entry in log.values.items()}
    assert origin[w._id] == "variable"
    assert origin[before._id] == "outside"
    assert origin[made._id] == "constant"
    assert origin[a._id] == origin[b._id] == origin[d._id] == "op"
    converted = [e for e in log.events if e[0] == "convert"]
    assert [(e[2], e[3]) for e in converted] == [
        ("constant", "list"),  # inside tf.constant: an intermediate, never used
        ("numpy", "ndarray"),
        ("python", "float"),
        ("python", "list"),
    ]
    used = [e for e in converted if e[1] in log.values]
    assert [origin[e[1]] for e in used] == ["numpy", "python", "python"]
    graph = graph_from_tape(tape)
    assert {v.origin for v in graph.values} <= set(ORIGINS)
    assert d.numpy().tolist() == [4.5, 6.5]


def test_escapes_and_their_return_as_constants():
    w = tf.Variable([1.0, 2.0])
    s = tf.Variable(2.0)
    with GradientTape(explain=True) as tape:
        as_array = w.numpy()
        as_float = float(s)
        as_int = int(s)
        through_numpy = np.asarray(w * 1.0)
        y = w * as_array + as_float + as_int
    log = explain_listener(tape)
    escapes = [(e[1], e[2]) for e in log.events if e[0] == "escape"]
    product = [e for e in log.events if e[0] == "op"][0][4][0]
    assert escapes == [
        (w._id, "numpy"),
        (s._id, "float"),
        (s._id, "int"),
        (product, "__array__"),
    ]
    links = [e[4] for e in log.events if e[0] == "convert"]
    escape_seqs = [i for i, e in enumerate(log.events) if e[0] == "escape"]
    # `w * 1.0` converts a literal; the array and the float are recognised when
    # they come back; ints are not (small ints are shared objects).
    assert links == [None, escape_seqs[0], escape_seqs[1], None]
    assert through_numpy.tolist() == [1.0, 2.0]
    assert y.numpy().tolist() == [5.0, 8.0]


def test_tf_constant_of_a_variable_is_logged_as_a_copy():
    w = tf.Variable([1.0, 2.0])
    with GradientTape(explain=True) as tape:
        line = sys._getframe().f_lineno + 1
        copy = tf.constant(w)
        y = copy * 2.0
    log = explain_listener(tape)
    (escape,) = [e for e in log.events if e[0] == "escape"]
    assert escape[1:4] == (w._id, "constant", line)
    assert log.values[copy._id][0] == "constant"
    assert tape.gradient(y, w) is None


def test_reads_assigns_and_watches():
    w = tf.Variable(1.0)
    x = tf.constant(2.0)
    with GradientTape(explain=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = w * x
        w.assign(5.0)
        w.assign_add(1.0)
    log = explain_listener(tape)
    assert [e for e in kinds(log) if e in ("read", "watch", "assign")] == [
        "watch",
        "read",
        "assign",
        "assign",
    ]
    watch = next(e for e in log.events if e[0] == "watch")
    assert watch[1:4] == (0, x._id, False)
    assigns = [e for e in log.events if e[0] == "assign"]
    # the value as the cell passed it: assign(5.0) and assign_add(1.0)
    assert [(e[1], e[3]) for e in assigns] == [(w._id, "float"), (w._id, "float")]
    assert tape.gradient(y, [w, x])[1].numpy() == 1.0


def test_stop_recording_and_answered_tape_states():
    w = tf.Variable(1.0)
    with GradientTape(explain=True) as tape:
        y = w * 2.0
        with tape.stop_recording():
            p = w * 3.0
        z = y * 4.0
        g = tape.gradient(z, w)
        after = w * 5.0
    log = explain_listener(tape)
    assert ops(log) == [
        ("multiply", True, "recording", None),
        ("multiply", False, "paused", None),
        ("multiply", True, "recording", None),
        # the gradient's own backward ops ran inside request 0
        *[(name, False, "stopped", 0) for name, *_ in ops(log)[3:-1]],
        ("multiply", False, "stopped", None),
    ]
    assert len(ops(log)) > 4
    assert [e[1] for e in log.events if e[0] == "tape"] == [
        "start",
        "stop",
        "pause",
        "start",
        "stop",
    ]
    assert g.numpy() == 8.0 and p.numpy() == 3.0 and after.numpy() == 5.0


def test_gradient_requests_with_results_and_errors():
    w = tf.Variable([1.0, 2.0])
    u = tf.Variable(3.0)
    with GradientTape(explain=True) as tape:
        y = w * w
    grads = tape.gradient(y, [w, u])
    with pytest.raises(RuntimeError, match="can only be used to compute one set"):
        tape.gradient(y, w)
    first, second = explain_listener(tape).requests
    assert first["kind"] == "gradient" and first["tape"] == 0
    assert first["targets"] == (y._id,) and first["sources"] == (w._id, u._id)
    assert first["results"][1] == (True, None, None, None)
    none, shape, dtype, glimpse = first["results"][0]
    assert (none, shape, dtype, preview(glimpse)) == (
        False, (2,), np.float32, "[2., 4.]"
    )  # fmt: skip
    assert first["line"] == sys._getframe().f_lineno - 11 and first["here"]
    assert second["error"].startswith("RuntimeError: A non-persistent GradientTape")
    assert second["results"] == ()
    assert grads[1] is None


def test_jacobian_requests():
    x = tf.Variable([1.0, 2.0])
    xb = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with GradientTape(explain=True, persistent=True) as tape:
        tape.watch(xb)
        y = x * x
        yb = xb * xb
    tape.jacobian(y, x)
    tape.batch_jacobian(yb, xb, unconnected_gradients="zero")
    jac, batch = explain_listener(tape).requests
    assert jac["kind"] == "jacobian" and jac["results"][0][1] == (2, 2)
    assert batch["kind"] == "batch_jacobian" and batch["results"][0][1] == (2, 2, 2)
    assert batch["unconnected"] == "zero" and batch["sources"] == (xb._id,)


def test_other_tapes_inside_an_explained_tape():
    w = tf.Variable(2.0)
    with GradientTape(explain=True) as outer:
        with GradientTape() as inner:
            y = w * w
        inner.watch(w)
        dy = inner.gradient(y, w)
    log = explain_listener(outer)
    watch = next(e for e in log.events if e[0] == "watch")
    assert watch[1] == 1  # another tape than the log's own
    (request,) = log.requests
    assert request["tape"] == 1
    during = [e for e in log.events if e[0] == "op" and e[8] == 0]
    assert during and all(e[7] == "recording" for e in during)
    assert dy.numpy() == 4.0
    # The outer tape recorded the inner gradient's ops: a second derivative.
    assert outer.gradient(dy, w).numpy() == 2.0


def test_note_namespace():
    w = tf.Variable(1.0)
    with GradientTape(explain=True) as tape:
        z = w * 2.0
        rebound = w - 0.1 * z
    log = explain_listener(tape)
    log.note_namespace(
        before={"w": w, "gone": z, "old": z},
        after={"w": rebound, "z": z, "old": z, "arr": np.zeros(1)},
    )
    assert log.named.bindings == (
        ("arr", None, "numpy", None, "ndarray"),
        ("gone", None, None, "tensor", None),
        ("w", rebound._id, "tensor", "variable", "EagerTensor"),
        ("z", z._id, "tensor", None, "EagerTensor"),
    )
    assert log.named.names == {rebound._id: ("w",), z._id: ("old", "z")}


# -- facts for the diagnosis -----------------------------------------------------------


def test_other_tapes_that_record_ops_and_watch_reads():
    w = tf.Variable(2.0)
    with GradientTape(explain=True) as outer:
        with GradientTape() as inner:
            y = w * 3.0
        z = y * 2.0
    log = explain_listener(outer)
    multiply_y, multiply_z = [e for e in log.events if e[0] == "op"]
    assert (multiply_y[5], multiply_y[10]) == (True, (1,))  # both tapes
    assert (multiply_z[5], multiply_z[10]) == (True, ())  # inner had stopped
    (read,) = [e for e in log.events if e[0] == "read"]
    assert read[4] == (1,)
    assert inner.gradient(y, w).numpy() == 3.0
    assert outer.gradient(z, w).numpy() == 6.0


def test_inputs_without_a_gradient_are_noted():
    x = tf.Variable([1.0, -1.0])
    with GradientTape(explain=True) as tape:
        picked = tf.where(x > 0, x, 0.0)
        rows = tf.gather(x, [1, 0])
    log = explain_listener(tape)
    by_name = {e[1]: e for e in log.events if e[0] == "op"}
    assert by_name["where"][11] == (0,)  # the condition
    assert by_name["gather"][11] == (1,)  # the indices
    assert by_name["greater"][11] == ()
    assert picked.numpy().tolist() == [1.0, 0.0] and rows.numpy().tolist() == [-1, 1]


def test_ops_with_a_singular_point_note_whether_their_values_are_finite():
    x = tf.constant([0.0, 4.0])
    with GradientTape(explain=True) as tape:
        logs = tf.math.log(x)
        roots = tf.sqrt(x)
        doubled = x * 2.0
    finite = explain_listener(tape).finite
    assert finite == {logs._id: False, roots._id: True}
    assert doubled._id not in finite
    assert logs.numpy()[0] == -np.inf


def test_tf_constant_copies_link_to_their_escape():
    w = tf.Variable([1.0, 2.0])
    b = tf.Variable([3.0])
    with GradientTape(explain=True) as tape:
        of_variable = tf.constant(w) * 1.0
        of_numpy = tf.constant(b.numpy()) * 1.0
        fresh = tf.constant([5.0]) * 1.0
    log = explain_listener(tape)
    escapes = [seq for seq, e in enumerate(log.events) if e[0] == "escape"]
    assert [log.events[seq][2] for seq in escapes] == ["constant", "numpy"]
    copied = [e[3][0] for e in log.events if e[0] == "op"]
    assert [log.copies.get(key) for key in copied] == [escapes[0], escapes[1], None]
    assert all(log.values[key][0] == "constant" for key in copied)
    assert (of_variable + of_numpy).numpy().tolist() == [4.0, 5.0]
    assert fresh.numpy().tolist() == [5.0]


def test_one_python_object_converted_twice_is_one_object():
    p = 2.5
    arr = np.array([1.0, 2.0], np.float32)
    with GradientTape(explain=True) as tape:
        pt = tf.constant(p)
        tape.watch(pt)
        squared = tf.square(p)
        at = tf.constant(arr)
        tape.watch(at)
        cubed = arr**3 * at  # arr**3 is a new array: another object
        i1 = tf.abs(3)
    log = explain_listener(tape)
    objects = log.objects
    ops = {e[1]: e for e in log.events if e[0] == "op"}
    assert objects[pt._id] == objects[ops["square"][3][0]]
    new_array = ops["multiply"][3][0]
    assert objects[at._id] not in (objects[pt._id], objects[new_array])
    # Python ints are shared by the interpreter: never linked.
    assert i1.numpy() == 3 and all(
        log.values[key][2].kind != "i" for key in objects if key in log.values
    )
    assert squared.numpy() == 6.25 and cubed.numpy().tolist() == [1.0, 16.0]


def test_values_made_after_the_tape_stopped():
    w = tf.Variable(2.0)
    with GradientTape(explain=True, persistent=True) as tape:
        y = w * 3.0
        with tape.stop_recording():
            paused = tf.constant(1.0)
        inside = tf.constant(4.0)
        z = y * paused * inside
    later = y * 2.0  # the log no longer listens
    assert tape.gradient(later, w) is None
    log = explain_listener(tape)
    assert later._id in log.after and log.values[later._id][0] == "unknown"
    assert log.values[paused._id][0] == log.values[inside._id][0] == "constant"
    assert not {paused._id, inside._id} & log.after
    assert tape.gradient(z, w).numpy() == 12.0


def test_gradient_results_note_nan_inf_and_zeros():
    x = tf.Variable([0.0, 1.0])
    with GradientTape(explain=True, persistent=True) as tape:
        y = tf.reduce_sum(tf.sqrt(x))
        z = tf.reduce_sum(tf.where(x > 0, tf.math.log(x), 0.0))
        r = tf.reduce_sum(tf.round(x))
    tape.gradient(y, x)
    tape.gradient(z, x)
    tape.gradient(r, x, unconnected_gradients="zero")
    tape.gradient(r, x)
    flags = [request["flags"] for request in explain_listener(tape).requests]
    assert flags == [
        ((False, True, False),),
        ((True, False, False),),
        ((False, False, True),),
        ((False, False, False),),  # None
    ]


def test_note_namespace_keeps_previous_values_and_rebound_variables():
    named = log_names._NAMED_VARIABLES
    named.clear()
    w = tf.Variable([1.0, 2.0], name="w")
    # A cell ends with w holding the Variable: the log remembers the name.
    with GradientTape(explain=True) as first:
        y = w * 2.0
    explain_listener(first).note_namespace(before={"w": w}, after={"w": w, "y": y})
    assert explain_listener(first).named.previous == {}
    # The next cell rebinds w to a plain tensor computed from it.
    with GradientTape(explain=True) as second:
        stepped = w - 0.5 * y
    explain_listener(second).note_namespace(before={"w": w}, after={"w": stepped})
    assert explain_listener(second).named.previous == {"w": w._id}
    # A later cell finds a plain tensor under the name that held the Variable.
    with GradientTape(explain=True) as third:
        again = stepped * 2.0
    explain_listener(third).note_namespace(before={"w": stepped}, after={"w": stepped})
    assert explain_listener(third).named.rebound_from == {stepped._id: "w:0"}
    # A tensor older than the Variable cannot have been computed from it.
    old = tf.constant([1.0, 2.0])
    v = tf.Variable([0.0, 0.0], name="v")
    with GradientTape(explain=True) as fourth:
        use = old * v
    explain_listener(fourth).note_namespace(before={"v": v}, after={"v": v})
    explain_listener(fourth).note_namespace(before={"v": old}, after={"v": old})
    assert explain_listener(fourth).named.rebound_from == {}
    assert again.numpy().tolist() == [0.0, 0.0] and use.numpy().tolist() == [0, 0]
    named.clear()


def test_an_interrupted_gradient_ends_its_request_and_detaches_the_log(monkeypatch):
    # Regression: KeyboardInterrupt mid-gradient left the log attached for good.
    from tapemagic.engine import GradientTape as Tape
    from tapemagic.engine import Variable as Var
    from tapemagic.engine import tape as tape_module
    from tapemagic.engine.backprop import sweep_observers

    x = Var(2.0)
    with Tape(explain=True, persistent=True) as tape:
        y = x * x

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tape_module, "backward", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tape.gradient(y, x)
    monkeypatch.undo()
    assert sweep_observers.observers == []
    assert tape.gradient(y, x).numpy() == 4.0
    assert sweep_observers.observers == []


@settings(max_examples=300, deadline=None)
@given(
    array=hnp.arrays(
        dtype=st.sampled_from(
            [np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex128]
        ),
        shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=14),
        elements={"allow_nan": True, "allow_infinity": True},
    )
)
def test_a_glimpse_previews_exactly_as_its_array(array):
    # The log keeps a small copy and formats it when a view asks: the text must
    # be the array's own, elision marks and number format included.
    glimpse = _glimpse(array)
    assert preview(glimpse) == preview(array)
    if isinstance(glimpse, np.ndarray):
        assert glimpse.size <= max(array.size, 1) and not np.shares_memory(
            glimpse, array
        )
        assert array.size <= 8 or all(n <= 9 for n in glimpse.shape)


def test_a_glimpse_keeps_little_of_a_large_array():
    big = np.arange(1000 * 1000, dtype=np.float64).reshape(1000, 1000)
    glimpse = _glimpse(big)
    assert glimpse.shape == (9, 9)
    assert preview(glimpse) == preview(big)
    assert preview(_glimpse(np.zeros((12,) * 5))) == preview(np.zeros((12,) * 5))


@settings(max_examples=200, deadline=None)
@given(
    arrays=st.lists(
        hnp.arrays(
            dtype=st.sampled_from([np.float32, np.float64, np.complex128]),
            shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
            # the whole float32 range, subnormals included: norms are taken in
            # double precision, so squares neither overflow nor vanish
            elements=st.floats(width=32, allow_nan=False, allow_infinity=False)
            | st.sampled_from([np.nan, np.inf, -np.inf]),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_cotangent_norms_in_one_pass_are_each_arrays_norm(arrays):
    got = _norms(arrays)
    for array, norm in zip(arrays, got, strict=True):
        want = float(np.linalg.norm(array.astype(np.complex128).ravel()))
        if np.isnan(want):
            assert np.isnan(norm)
        else:
            np.testing.assert_allclose(norm, want, rtol=1e-5)


def test_the_log_keeps_cotangents_only_until_their_norms_are_taken():
    x = tf.Variable(np.ones(300_000, np.float32))  # 1.2 MB: over the batch size
    with GradientTape(explain=True) as tape:
        y = tf.reduce_sum(tf.sin(x) * 2.0)
    tape.gradient(y, x)
    log = explain_listener(tape)
    assert not log.asked._unnormed and log.asked._unnormed_bytes == 0
    norms = [entry[3] for entry in log.asked.cotangents]
    assert all(isinstance(n, float) for n in norms)
    assert norms[0] == 1.0  # the seed of the scalar target
    np.testing.assert_allclose(norms[-1], np.linalg.norm(2 * np.cos(np.ones(300_000))))
