"""Recorder events: what a listener hears, in what order, and the describers."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, custom_gradient, id_of, recorder
from tapemagic.engine import backprop as backprop_module
from tapemagic.engine.backprop import sweep_observers
from tapemagic.engine.context import state
from tapemagic.engine.op import OP_TABLE


class Recording(recorder.Listener):
    """A listener that keeps every event, with its method name."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, tuple]] = []
        self.tape = None

    def bind(self, tape) -> None:
        self.tape = tape

    def __getattribute__(self, name):
        if name.startswith("on_"):
            heard = object.__getattribute__(self, "heard")

            def hear(event):
                heard.append((name, event))

            return hear
        return object.__getattribute__(self, name)

    def kinds(self) -> list[str]:
        return [name for name, _ in self.heard]

    def of(self, kind: str) -> list:
        return [event for name, event in self.heard if name == kind]


def test_events_arrive_in_the_order_things_happened():
    w = tf.Variable(2.0, name="w")
    c = tf.constant(3.0)
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        tape.watch(c)
        y = w * c
        y.numpy()
        z = y + 1.0
    tape.gradient(z, [w, c])
    assert listener.tape is tape
    assert listener.kinds() == [
        "on_tape",  # start
        "on_watch",
        "on_variable_read",
        "on_op",  # multiply
        "on_escape",
        "on_convert",  # the Python 1.0
        "on_op",  # add
        "on_tape",  # stop
        "on_gradient_asked",
        "on_cotangents",
        "on_gradient_answered",
    ]
    start, stop = listener.of("on_tape")
    assert (start.kind, stop.kind) == ("start", "stop") and start.mark < stop.mark
    assert start.mark < id_of(y) < stop.mark


def test_an_op_event_says_what_the_diagnosis_needs():
    w = tf.Variable([1.0, 4.0])
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        y = tf.math.log(w)
        k = tf.argmax(y)
    (read,) = listener.of("on_variable_read")
    log_event, argmax_event = listener.of("on_op")
    assert log_event.op == recorder.OpInfo("log", True, "derivative", ())
    assert log_event.input_ids == (id_of(w),) and log_event.output_ids == (id_of(y),)
    assert log_event.input_shapes == ((2,),) and log_event.output_dtypes == (
        np.dtype(np.float32),
    )
    assert log_event.tapes == (tape,) and read.tapes == (tape,)
    assert argmax_event.op.name == "argmax" and not argmax_event.op.differentiable
    assert argmax_event.tapes == () and argmax_event.output_ids == (id_of(k),)


def test_an_op_event_carries_the_op_table_info_and_every_tensor():
    x = tf.constant([1.0, 2.0])
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x, axis=0)  # one input, then two
        parts = tf.split(tf.concat([x, y[None], x], axis=0), 5)  # three, then five
    for event in listener.of("on_op"):
        op = OP_TABLE[event.op.name]
        assert recorder.op_info(op) is event.op
    multiply, reduce_sum, _, concat, split = listener.of("on_op")
    assert multiply.input_ids == (id_of(x), id_of(x))
    assert reduce_sum.output_ids == (id_of(y),) and reduce_sum.params["axes"] == (0,)
    assert concat.input_ids[0] == concat.input_ids[2] == id_of(x)
    assert [v.tolist() for v in concat.input_values] == [[1.0, 2.0], [5.0], [1, 2]]
    assert split.output_ids == tuple(id_of(p) for p in parts)
    assert [float(v[0]) for v in split.output_values] == [1.0, 2.0, 5.0, 1.0, 2.0]
    assert all(event.tapes == (tape,) for event in (multiply, concat, split))


def test_several_tapes_are_named_in_the_op_event():
    x = tf.constant(2.0)
    listener = Recording()
    with GradientTape(explain=listener) as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x * x
    (event,) = listener.of("on_op")
    assert event.tapes == (outer, inner)
    assert inner.gradient(y, x).numpy() == 4.0


def test_gradient_events_carry_refs_results_and_errors():
    w = tf.Variable(3.0)
    listener = Recording()
    with GradientTape(explain=listener, persistent=True) as tape:
        y = w * w
    tape.gradient(y, [w])
    (asked,) = listener.of("on_gradient_asked")
    (answered,) = listener.of("on_gradient_answered")
    assert (asked.kind, asked.unconnected, asked.output_gradients) == (
        "gradient",
        "none",
        False,
    )
    assert answered.targets[0].id == id_of(y)
    assert answered.sources[0].variable is w
    assert answered.results[0] == np.float32(6.0) and answered.error is None
    with pytest.raises(ValueError):
        tape.gradient(y, [None])
    failed = listener.of("on_gradient_answered")[-1]
    assert failed.results is None and isinstance(failed.error, ValueError)
    assert failed.sources == (None,)


def test_cotangents_come_in_batches_before_the_answer(monkeypatch):
    monkeypatch.setattr(backprop_module, "_BATCH", 3)
    x = tf.Variable(np.ones(4, np.float32))
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        y = x
        for _ in range(7):
            y = y * 1.5
    tape.gradient(y, x)
    batches = listener.of("on_cotangents")
    assert [len(b.reached) for b in batches] == [3, 3, 1]
    reached = [ids for b in batches for ids, _ in b.reached]
    ops = listener.of("on_op")
    assert reached == [e.output_ids for e in reversed(ops)]
    assert listener.kinds()[-1] == "on_gradient_answered"
    assert sweep_observers.observers == []


def test_the_sweep_tells_what_each_node_passed_to_each_input():
    # y = x**2 + 2*x at x = 3: pow passes 6 to x, multiply 2; x's total is 8.
    x = tf.Variable(3.0)
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        y = x**2 + 2 * x
    assert tape.gradient(y, x).numpy() == 8.0
    flowed = [f for b in listener.of("on_cotangents") for f in b.flowed]
    ops = {e.output_ids: e for e in listener.of("on_op")}
    assert [ops[out].op.name for out, _, _ in flowed] == ["add", "multiply", "pow"]
    shares = {
        (ops[out].op.name, i): g
        for out, ins, gs in flowed
        for i, g in zip(ins, gs)
        if g is not None
    }
    assert shares[("pow", id_of(x))] == 6.0
    assert shares[("multiply", id_of(x))] == 2.0
    # the Python 2 and the 2 of x**2 lead to no source: nothing flows there
    assert len(shares) == 4  # add's two inputs, and x twice


def test_a_sweep_nobody_hears_tells_no_share(monkeypatch):
    def refuse(*args):
        raise AssertionError("a share was made for nobody")

    monkeypatch.setattr(backprop_module._Reached, "flow", refuse)
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2 + 2 * x
    assert tape.gradient(y, x).numpy() == 8.0


def test_a_custom_gradient_is_an_op_event_with_all_its_inputs():
    @custom_gradient
    def clip(x):
        return tf.identity(x), lambda g: tf.clip_by_value(g, -0.5, 0.5)

    x = tf.constant(1.0)
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        tape.watch(x)
        y = clip(x)
    (event,) = [e for e in listener.of("on_op") if e.op.name.startswith("custom")]
    assert event.input_ids == (id_of(x),) and event.tapes == (tape,)
    assert tape.gradient(y, x).numpy() == 0.5


def test_nothing_is_heard_without_a_listener():
    with GradientTape() as tape:
        assert recorder.listening() == ()
        tape.watch(tf.constant(1.0))
    assert recorder.explain_listener(tape) is None


def test_detach_takes_a_listener_off_every_list():
    listener = Recording()
    state.observers.append(listener)
    sweep_observers.observers.append(listener)
    recorder.detach(listener)
    assert recorder.listening() == () and sweep_observers.observers == []


def test_describe_and_describe_tape():
    v = tf.Variable([[1.0, 2.0]], name="v", trainable=True)
    t = tf.constant([1, 2])
    assert recorder.describe(v).variable is v and recorder.describe(t).variable is None
    assert recorder.describe(t).dtype == np.dtype(np.int32)
    assert recorder.describe("v") is None
    assert [r is None for r in recorder.describe_all([v, (t, 3)])] == [
        False,
        False,
        True,
    ]
    c = tf.constant(np.ones(512, np.float32))
    with GradientTape(persistent=True) as tape:
        tape.watch(c)
        y = tf.reduce_sum(c * v[0, 0])
    assert tape.gradient(y, v).numpy().tolist() == [[512.0, 0.0]]
    state_ = recorder.describe_tape(tape)
    assert (state_.persistent, state_.watch_accessed_variables) == (True, True)
    assert state_.status == "stopped"
    assert [r.variable for r in state_.variables] == [v]
    assert [r.id for r in state_.watched] == [id_of(c)]
    assert [n.op.name for n in state_.nodes] == [
        "strided_slice",
        "multiply",
        "reduce_sum",
    ]
    assert recorder.describe_tape(tape, nodes=False).nodes == ()
    assert recorder.describe_tape(GradientTape()).status == "new"
    with GradientTape() as once:
        z = v * 2.0
    once.gradient(z, v)
    assert recorder.describe_tape(once).status == "answered"


def test_a_copy_by_tf_constant_is_an_escape():
    w = tf.Variable([1.0, 2.0])
    listener = Recording()
    with GradientTape(explain=listener):
        tf.constant(w)
    (escape,) = listener.of("on_escape")
    assert escape.how == "constant" and escape.value.variable is w
    assert escape.result is None


# -- what an op reads is among its inputs; a variable tells what it copied ---------


def test_a_mask_reaches_what_boolean_mask_picks_through_an_op():
    w = tf.Variable([1.0, -2.0, 3.0])
    x = tf.constant([10.0, 20.0, 30.0])
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        mask = w > 0
        picked = tf.boolean_mask(x, mask)
    np.testing.assert_array_equal(picked.numpy(), [10.0, 30.0])
    ops = {e.op.name: e for e in listener.of("on_op")}
    assert ops["where_indices"].input_ids == (id_of(mask),)
    (positions,) = ops["where_indices"].output_ids
    assert ops["gather"].input_ids[1] == positions
    assert ops["gather"].op.no_gradient_inputs == (1,)
    assert tape.gradient(tf.reduce_sum(picked), w) is None  # as in TensorFlow


def test_tensors_that_set_a_shape_or_an_index_are_inputs_without_a_gradient():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    k = tf.constant([1, 0])
    listener = Recording()
    with GradientTape(explain=listener):
        shape = tf.shape(w)
        y = tf.reshape(x, shape)
        z = tf.zeros(shape)
        f = tf.fill(shape, 2.0)
        t = tf.tile(x, tf.constant([2]))
        b = tf.broadcast_to(tf.constant(1.0), shape)
        picked = x[k]
        s = tf.slice(x, tf.constant([1]), tf.constant([2]))
    ops = listener.of("on_op")
    by_output = {e.output_ids[0]: e for e in ops}
    assert by_output[id_of(shape)].op.name == "shape"
    assert by_output[id_of(shape)].input_ids == (id_of(w),)
    assert not by_output[id_of(shape)].op.differentiable
    for made, read in [(y, shape), (z, shape), (f, shape), (b, shape), (picked, k)]:
        event = by_output[id_of(made)]
        assert event.input_ids[-1] == id_of(read), event.op.name
        assert len(event.input_ids) - 1 in event.op.no_gradient_inputs
    assert by_output[id_of(t)].op.name == "tile"
    assert len(by_output[id_of(s)].input_ids) == 3  # the input, begin and size
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(picked.numpy(), [2.0, 1.0])
    # The op's own facts are unchanged: reshape has a gradient for its input.
    assert OP_TABLE["reshape"].vjp is not None
    assert recorder.op_info(OP_TABLE["reshape"]).no_gradient_inputs == ()


def test_shape_size_and_rank_of_a_tensor_are_ops_that_tapes_do_not_record():
    w = tf.Variable([[1.0, 2.0, 3.0]])
    with GradientTape() as tape:
        n = tf.cast(tf.size(w), tf.float32) + tf.cast(tf.rank(w), tf.float32)
        y = tf.reduce_sum(tf.cast(tf.shape(w), tf.float32)) * n
    assert float(y) == 20.0  # (1 + 3) * (3 + 2)
    assert tape.gradient(y, w) is None  # TensorFlow registers no gradient
    assert tf.shape([[1, 2]]).numpy().tolist() == [1, 2]  # not a tensor: no op


def test_a_variable_announces_what_it_was_made_from():
    w = tf.Variable(2.0)
    listener = Recording()
    with GradientTape(explain=listener):
        h = w * 3.0
        v = tf.Variable(h, name="v")
        tf.Variable(5)
    made_v, made_n = listener.of("on_variable")
    assert made_v.variable.id == id_of(v) and made_v.variable.variable is v
    assert made_v.initial.id == id_of(h)
    assert made_v.python_type == type(h).__name__
    assert made_n.initial is None and made_n.python_type == "int"
    assert made_n.variable.dtype == np.int32


def test_a_listener_without_on_variable_is_not_told():
    class Old:  # a listener written before on_variable existed
        def __init__(self):
            self.ops = 0

        def __getattr__(self, name):
            if name == "on_variable":
                raise AttributeError(name)
            return lambda event: None

        def on_op(self, event):
            self.ops += 1

    old = Old()
    state.observers.append(old)
    try:
        v = tf.Variable(tf.constant(1.0) * 2.0)
    finally:
        state.observers.remove(old)
    assert old.ops == 1 and float(v) == 2.0


def test_an_answer_tells_the_targets_given_and_where_each_source_sits():
    w = tf.Variable(2.0)
    b = tf.Variable(1.0)
    listener = Recording()
    with GradientTape(explain=listener, persistent=True) as tape:
        y = w * b
    tape.gradient(y, {"w": w, "pair": [b, w]})
    with pytest.raises(TypeError, match="must be a tensor"):
        tape.gradient([y, 3.0], w)
    good, bad = listener.of("on_gradient_answered")
    assert good.source_paths == (("pair", 0), ("pair", 1), ("w",))
    assert good.target_objects == (y,)
    assert bad.targets[1] is None and bad.target_objects[1] == 3.0
    assert bad.error is not None and bad.source_paths == ((),)
