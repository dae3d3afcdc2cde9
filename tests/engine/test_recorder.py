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


def test_the_inline_op_event_matches_op_event():
    x = tf.constant([1.0, 2.0])
    listener = Recording()
    with GradientTape(explain=listener) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x, axis=0)
    for event in listener.of("on_op"):
        op = OP_TABLE[event.op.name]
        assert recorder.op_info(op) is event.op
    assert y.numpy() == 5.0


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
