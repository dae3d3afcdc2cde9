"""The TensorFlow recorder: what a listener hears from real TensorFlow.

The records are tapemagic's engine's (tapemagic.engine.events); the values
and gradients are TensorFlow's own, computed by tensorflow-cpu 2.21.0 in this
process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from tapemagic.engine.events import Listener, OpInfo
from tapemagic.tf_recorder import load

RECORDER = load()
RecordingTape = RECORDER.RecordingTape


class Recording(Listener):
    """A listener that keeps every event with its method name."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, object]] = []
        self.tape = None

    def bind(self, tape) -> None:
        self.tape = tape

    def __getattribute__(self, name):
        if name.startswith("on_"):
            heard = object.__getattribute__(self, "heard")
            return lambda event: heard.append((name, event))
        return object.__getattribute__(self, name)

    def kinds(self) -> list[str]:
        return [name for name, _ in self.heard]

    def of(self, kind: str) -> list:
        return [event for name, event in self.heard if name == kind]

    def ops(self) -> list[str]:
        return [event.op.name for event in self.of("on_op")]


def handle_id(var) -> int:
    return var.handle._id


def held(ref):
    """The tf.Variable a variable's ValueRef stands for."""
    return ref.variable.variable


def test_events_arrive_in_the_order_things_happened():
    w = tf.Variable(2.0, name="w")
    c = tf.constant(3.0)
    heard = Recording()
    with RecordingTape(explain=heard) as tape:
        tape.watch(c)
        y = w * c
        y.numpy()
        z = y + 1.0
    grads = tape.gradient(z, [w, c])
    assert [g.numpy() for g in grads] == [3.0, 2.0]  # TensorFlow's own answer
    assert heard.tape is tape
    kinds = heard.kinds()
    assert kinds[:8] == [
        "on_tape",  # start
        "on_watch",
        "on_variable_read",
        "on_op",  # multiply
        "on_escape",
        "on_convert",  # the Python 1.0
        "on_op",  # add
        "on_tape",  # stop
    ]
    assert kinds[8] == "on_gradient_asked" and kinds[-1] == "on_gradient_answered"
    # Asked after the block, as on tapemagic's engine: the listener hears the
    # cotangents the sweep reached, not the sweep's own ops.
    assert kinds[9:-1] == ["on_cotangents"]
    start, stop = heard.of("on_tape")[:2]
    assert (start.kind, stop.kind) == ("start", "stop")
    assert start.mark < y._id < stop.mark


def test_an_op_event_has_the_users_name_ids_values_and_tapes():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable([[0.5], [-1.0]], name="w")
    heard = Recording()
    with RecordingTape(explain=heard) as tape:
        h = tf.matmul(x, w)
        k = tf.argmax(h, axis=0)
        r = tf.math.log(tf.abs(h))
    matmul, argmax, abs_, log = heard.of("on_op")
    assert matmul.op == OpInfo("matmul", True, None, ())
    assert matmul.input_ids == (x._id, handle_id(w))
    assert matmul.output_ids == (h._id,)
    np.testing.assert_array_equal(matmul.output_values[0], h.numpy())
    assert matmul.output_values[0].flags.writeable is False
    assert matmul.tapes == (tape,)
    # The axis is a parameter, as in tapemagic's engine, not an input.
    assert argmax.op.name == "argmax" and argmax.op.differentiable is False
    assert argmax.input_ids == (h._id,) and argmax.params["axis"] == 0
    assert argmax.tapes == () and argmax.output_ids == (k._id,)
    assert abs_.op.name == "abs" and abs_.tapes == (tape,)
    assert log.op == OpInfo("log", True, "derivative", ()) and log.output_ids == (
        r._id,
    )


def test_a_variable_read_shares_the_variables_id_whoever_reads_it():
    w = tf.Variable([1.0, 2.0], name="w")
    heard = Recording()
    with RecordingTape(explain=heard):
        a = tf.reduce_sum(w)  # TensorFlow reads w in C
        b = w * 2.0  # through the operator, in Python
        c = tf.exp(w)
    reads = heard.of("on_variable_read")
    assert [r.variable.id for r in reads] == [handle_id(w)] * 3
    assert all(held(r.variable) is w for r in reads)
    np.testing.assert_array_equal(reads[0].variable.value, [1.0, 2.0])
    for name, out in (("reduce_sum", a), ("multiply", b), ("exp", c)):
        (event,) = [e for e in heard.of("on_op") if e.op.name == name]
        assert handle_id(w) in event.input_ids
        assert event.output_ids == (out._id,)
    # Of the values converted, only the Python 2.0 is an op's input (the axis
    # of reduce_sum is a parameter): no read passes for a constant.
    used = {key for e in heard.of("on_op") for key in e.input_ids}
    (convert,) = [e for e in heard.of("on_convert") if e.tensor.id in used]
    assert convert.source == 2.0 and convert.how == "input"


def test_reads_watch_trainable_variables_as_tensorflow_does():
    w = tf.Variable(2.0, name="w")
    k = tf.Variable(3.0, trainable=False, name="k")
    heard = Recording()
    with RecordingTape(explain=heard) as tape:
        y = w * k
    (multiply,) = heard.of("on_op")
    assert multiply.tapes == (tape,)
    reads = {r.variable.variable.name: r.tapes for r in heard.of("on_variable_read")}
    assert reads == {"w:0": (tape,), "k:0": ()}
    assert [v.name for v in tape.watched_variables()] == ["w:0"]
    state = RECORDER.describe_tape(tape)
    assert [held(ref) for ref in state.variables] == [w]
    assert state.status == "stopped" and state.watch_accessed_variables
    assert tape.gradient(y, [w, k])[1] is None


def test_watch_accessed_variables_false_records_only_what_is_watched():
    w = tf.Variable(2.0)
    v = tf.Variable(5.0)
    heard = Recording()
    with RecordingTape(watch_accessed_variables=False, explain=heard) as tape:
        tape.watch(v)
        a = w * 2.0
        b = v * 2.0
    (watch,) = heard.of("on_watch")
    assert watch.tape is tape and held(watch.value) is v
    first, second = heard.of("on_op")
    assert first.tapes == () and second.tapes == (tape,)
    assert tape.gradient([a, b], [w, v])[1].numpy() == 2.0


def test_stop_recording_and_reset_are_tape_events():
    x = tf.constant(2.0)
    heard = Recording()
    with RecordingTape(persistent=True, explain=heard) as tape:
        tape.watch(x)
        with tape.stop_recording():
            paused = x * 3.0
        kept = x * 4.0
        tape.reset()
        after = x * 5.0
    kinds = [e.kind for e in heard.of("on_tape")]
    assert kinds == ["start", "stop", "pause", "start", "reset", "stop"]
    marks = [e.mark for e in heard.of("on_tape")]
    assert marks == sorted(marks)
    ops = heard.of("on_op")
    assert [op.tapes for op in ops] == [(), (tape,), ()]  # reset forgot the watch
    assert tape.gradient(kept, x) is None and tape.gradient(after, x) is None
    assert paused.numpy() == 6.0


def test_nested_tapes_each_say_what_they_recorded():
    x = tf.constant(3.0)
    heard = Recording()
    with RecordingTape(persistent=True, explain=heard) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x
        dy = inner.gradient(y, x)
    multiply = heard.of("on_op")[0]
    assert set(multiply.tapes) == {outer, inner}
    watches = heard.of("on_watch")
    assert [w.tape for w in watches] == [outer, inner]
    asked = heard.of("on_gradient_asked")
    assert [a.tape for a in asked] == [inner]
    (answered,) = heard.of("on_gradient_answered")
    assert answered.tape is inner and answered.results[0] == 6.0
    # Asked inside the outer block: the sweep's ops are heard, and recorded by
    # the outer tape (a second derivative needs them).
    kinds = heard.kinds()
    sweep = heard.heard[
        kinds.index("on_gradient_asked") : kinds.index("on_gradient_answered")
    ]
    assert [e.tapes for kind, e in sweep if kind == "on_op"][-1] == (outer,)
    assert outer.gradient(dy, x).numpy() == 2.0  # second derivative of x * x


def test_escapes_are_heard_with_what_the_user_got():
    t = tf.constant([1.0, 2.0])
    w = tf.Variable([[0.5], [-1.0]], name="w")
    heard = Recording()
    with RecordingTape(explain=heard):
        a = t.numpy()
        b = float(t[0])
        c = int(t[1])
        d = w.numpy()
        e = np.exp(w)
        f = tf.constant(w)
    escapes = heard.of("on_escape")
    assert [x.how for x in escapes] == [
        "numpy",
        "float",
        "int",
        "numpy",
        "__array__",
        "constant",
    ]
    assert escapes[0].value.id == t._id and escapes[0].result is a
    assert escapes[1].result == b == 1.0 and c == 2
    assert held(escapes[3].value) is w and escapes[3].result is d
    assert escapes[4].value.id == handle_id(w)
    np.testing.assert_allclose(e, np.exp([[0.5], [-1.0]]))
    # tf.constant(w) copies: the escape, then the constant made of the copy.
    at = next(
        i
        for i, (kind, e) in enumerate(heard.heard)
        if kind == "on_escape" and e.how == "constant"
    )
    assert heard.kinds()[at + 1] == "on_convert"
    convert = heard.of("on_convert")[-1]
    assert convert.how == "constant" and convert.tensor.id == f._id
    # Reading inside an escape is summed up by the escape: no op events.
    assert "identity" not in heard.ops() and "read_variable_op" not in heard.ops()


def test_library_code_reading_values_is_not_an_escape():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    heard = Recording()
    with RecordingTape(explain=heard):
        model(np.ones((1, 2), np.float32))
        _ = repr(model.weights[0])  # Keras reads the value to show it
    assert heard.of("on_escape") == []


def test_conversions_say_constant_or_input():
    p = 2.0
    heard = Recording()
    with RecordingTape(explain=heard):
        c = tf.constant(p)
        d = tf.convert_to_tensor([1.0, 2.0])
        y = c * np.float32(3.0)
        z = tf.square(p)  # converted in C, before the op
    converts = heard.of("on_convert")
    hows = [(e.how, type(e.source).__name__) for e in converts]
    assert hows[:2] == [("constant", "float"), ("constant", "list")]
    assert converts[0].source is p and converts[0].tensor.id == c._id
    assert converts[1].tensor.id == d._id
    assert ("input", "float32") in hows
    # The float TensorFlow converted in C is announced as the very float that
    # tf.constant was made from, just before the op that uses it.
    square = heard.of("on_op")[-1]
    assert square.op.name == "square" and square.output_ids == (z._id,)
    (last,) = [e for e in converts if e.tensor.id == square.input_ids[0]]
    assert last.how == "input" and last.source is p
    assert y.numpy() == 6.0


def test_integer_constants_in_shapes_are_parameters_not_inputs():
    x = tf.constant([[1.0, 2.0, 3.0]])
    heard = Recording()
    with RecordingTape(explain=heard):
        y = tf.reshape(x, [3, 1])
        s = tf.reduce_sum(x, axis=1)
    reshape, reduce_sum = heard.of("on_op")
    assert reshape.input_ids == (x._id,) and reshape.params["shape"] == [3, 1]
    assert reduce_sum.input_ids == (x._id,) and reduce_sum.params["axis"] == 1
    assert (y.shape, s.numpy().tolist()) == ((3, 1), [6.0])


def test_assignments_are_heard_with_the_value_assigned():
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.Variable([0.0, 0.0], name="v")
    heard = Recording()
    with RecordingTape(explain=heard):
        h = w * 2.0
        v.assign(h)
        v.assign_add(h)
        v.assign_sub([1.0, 1.0])
    assigns = heard.of("on_assign")
    assert [held(a.variable) for a in assigns] == [v, v, v]
    assert [a.value_id for a in assigns[:2]] == [h._id, h._id]
    np.testing.assert_array_equal(assigns[1].variable.value, [4.0, 8.0])
    assert assigns[2].python_type == "list"


def test_boolean_mask_is_where_on_the_mask_then_gather_by_its_indices():
    prices = tf.constant([10.0, 20.0, 30.0])
    keep = tf.constant([True, False, True])
    heard = Recording()
    with RecordingTape(explain=heard):
        kept = tf.boolean_mask(prices, keep)
        coords = tf.where(keep)
        size = tf.shape(prices)
    ops = {e.op.name: e for e in heard.of("on_op")}
    where = [e for e in heard.of("on_op") if e.op.name == "where_indices"]
    assert [e.params for e in where] == [{"flat": True}, {"flat": False}]
    assert where[0].op == OpInfo("where_indices", False, None, ())
    # tf.boolean_mask: Reshape (of the mask, of the values), Where on the mask,
    # Squeeze, then GatherV2 with those indices (an input without a gradient).
    made_by = {out: e for e in heard.of("on_op") for out in e.output_ids}
    assert made_by[where[0].input_ids[0]].input_ids == (keep._id,)
    gather = ops["gather"]
    assert gather.op.no_gradient_inputs == (1, 2) and gather.output_ids == (kept._id,)
    assert made_by[gather.input_ids[0]].input_ids[0] == prices._id
    assert made_by[gather.input_ids[1]].input_ids == where[0].output_ids
    assert where[1].input_ids == (keep._id,) and where[1].output_ids == (coords._id,)
    shape = [e for e in heard.of("on_op") if e.output_ids == (size._id,)]
    assert [e.op for e in shape] == [OpInfo("shape", False, None, ())]
    assert shape[0].input_ids == (prices._id,)
    # TensorFlow's own values.
    assert kept.numpy().tolist() == [10.0, 30.0]
    assert coords.numpy().tolist() == [[0], [2]]


def test_a_new_variable_is_heard_with_what_it_was_made_from():
    x = tf.constant([[1.0, 2.0]])
    heard = Recording()
    with RecordingTape(explain=heard):
        h = tf.matmul(x, tf.ones([2, 1]))
        copied = tf.Variable(h)
        rate = tf.Variable(0.5)
        steps = tf.Variable([1, 2, 3])
        layer = keras.layers.Dense(1)
        layer.build((None, 2))
    made = heard.of("on_variable")
    by_var = {ref_id: e for e in made for ref_id in [e.variable.id]}
    copy_event = by_var[handle_id(copied)]
    assert copy_event.initial.id == h._id and copy_event.python_type == "EagerTensor"
    rate_event = by_var[handle_id(rate)]
    assert (rate_event.initial, rate_event.python_type, rate_event.source) == (
        None,
        "float",
        0.5,
    )
    assert by_var[handle_id(steps)].python_type == "list"
    kernel = by_var[handle_id(layer.kernel.value)]
    assert kernel.initial is None and kernel.python_type == "function"
    RECORDER.SURFACE.describe(layer.kernel)  # the recorder meets the Keras variable
    assert kernel.variable.variable.path == layer.kernel.path
    assert rate_event.variable.variable.path is None


def test_a_gradient_answer_has_the_targets_as_given_and_the_sources_paths():
    w = tf.Variable([1.0, -2.0], name="w")
    b = tf.Variable(0.5, name="b")
    heard = Recording()
    with RecordingTape(persistent=True, explain=heard) as tape:
        y = tf.reduce_sum(w * b)
    tape.gradient(y, {"w": w, "pair": [b, w]})
    with pytest.raises(AttributeError):
        tape.gradient(np.float32(1.0), w)  # TensorFlow's error for a NumPy target
    answered, failed = heard.of("on_gradient_answered")
    assert answered.target_objects == (y,)
    assert answered.source_paths == (("pair", 0), ("pair", 1), ("w",))
    assert failed.targets == (None,) and failed.source_paths == ((),)
    assert type(failed.target_objects[0]) is np.float32


def test_a_tf_function_is_one_op_named_after_it():
    x = tf.constant([[1.0, 2.0]])
    w = tf.Variable([[0.5], [-1.0]], name="w")

    @tf.function
    def scaled_sum(a, k):
        return tf.reduce_sum(a * k) + tf.reduce_sum(w)

    heard = Recording()
    with RecordingTape(explain=heard) as tape:
        y = scaled_sum(tf.matmul(x, w), 3.0)
    matmul, call = heard.of("on_op")
    assert call.op == OpInfo("scaled_sum", True, None, ())
    # Its inputs: the tensor passed and the variable it captured; its one
    # output: what it returns (not what TensorFlow keeps for the gradient).
    assert call.input_ids == (matmul.output_ids[0], handle_id(w))
    assert call.output_ids == (y._id,)
    assert call.tapes == (tape,)
    assert tape.gradient(y, w).numpy().ravel().tolist() == [4.0, 7.0]
    # The sweep reached the matmul below it (TensorFlow differentiates the
    # function as a whole, with no Python step per op to note a cotangent at).
    reached = {ids: g for e in heard.of("on_cotangents") for ids, g in e.reached}
    np.testing.assert_array_equal(reached[matmul.output_ids], [[3.0]])


def test_a_gradient_request_says_what_was_asked_and_answered():
    w = tf.Variable([1.0, -2.0], name="w")
    c = tf.constant(3.0)
    heard = Recording()
    with RecordingTape(persistent=True, explain=heard) as tape:
        y = tf.reduce_sum(w * w)
    g = tape.gradient(y, {"w": w, "c": c}, unconnected_gradients="zero")
    (asked,) = heard.of("on_gradient_asked")
    assert (asked.kind, asked.unconnected, asked.output_gradients) == (
        "gradient",
        "zero",
        False,
    )
    (answered,) = heard.of("on_gradient_answered")
    assert [ref.id for ref in answered.targets] == [y._id]
    # Sources in tf.nest order: "c" before "w".
    assert [ref.id for ref in answered.sources] == [c._id, handle_id(w)]
    np.testing.assert_array_equal(answered.results[1], [2.0, -4.0])
    np.testing.assert_array_equal(answered.results[0], 0.0)
    assert answered.error is None and g["c"].numpy() == 0.0
    # The sweep's cotangents come before the answer, keyed by output ids: the
    # ops that TensorFlow differentiates, named by what they made.
    kinds = heard.kinds()
    assert kinds.index("on_cotangents") < kinds.index("on_gradient_answered")
    reached = {ids: g for e in heard.of("on_cotangents") for ids, g in e.reached}
    square = next(e for e in heard.of("on_op") if e.op.name == "multiply")
    assert set(reached) == {(y._id,), square.output_ids}
    np.testing.assert_array_equal(reached[(y._id,)], 1.0)
    np.testing.assert_array_equal(reached[square.output_ids], [1.0, 1.0])


def test_a_failed_request_is_answered_with_its_error():
    x = tf.constant(1.0)
    heard = Recording()
    with RecordingTape(explain=heard) as tape:
        y = x * 2.0
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="only be used to compute one set"):
        tape.gradient(y, x)
    answered = heard.of("on_gradient_answered")
    assert answered[0].results == (None,) and answered[0].error is None
    assert isinstance(answered[1].error, RuntimeError) and answered[1].results is None
    assert RECORDER.describe_tape(tape).status == "answered"


def test_jacobian_and_batch_jacobian_are_one_request_each():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    heard = Recording()
    with RecordingTape(persistent=True, explain=heard) as tape:
        tape.watch(x)
        y = x * x
    jac = tape.jacobian(y, x, experimental_use_pfor=False)
    batch = tape.batch_jacobian(y, x, experimental_use_pfor=False)
    assert [a.kind for a in heard.of("on_gradient_asked")] == [
        "jacobian",
        "batch_jacobian",
    ]
    answered = heard.of("on_gradient_answered")
    np.testing.assert_array_equal(answered[0].results[0], jac.numpy())
    np.testing.assert_array_equal(answered[1].results[0], batch.numpy())


def test_variables_are_named_by_keras_path_and_found_when_made_in_the_cell():
    heard = Recording()
    with RecordingTape(explain=heard) as tape:
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        y = tf.reduce_sum(model(np.ones((4, 3), np.float32)))
    names = {r.variable.variable.name for r in heard.of("on_variable_read")}
    dense = model.layers[0].name
    assert names == {f"{model.name}/{dense}/kernel:0", f"{model.name}/{dense}/bias:0"}
    grads = tape.gradient(y, model.trainable_weights)
    assert [g.shape for g in grads] == [(3, 2), (2,)]
    # A Keras variable is described as the tf.Variable it wraps.
    kernel = model.trainable_weights[0]
    ref = RECORDER.SURFACE.describe(kernel)
    assert ref.id == kernel.value.handle._id and held(ref) is kernel.value
    assert ref.variable.name == f"{kernel.path}:0" and ref.variable.trainable


def test_a_variable_met_nowhere_else_is_found_by_its_handle():
    holder = {"deep": [tf.Variable(4.0, name="hidden")]}
    heard = Recording()
    with RecordingTape(explain=heard):
        y = holder["deep"][0] * 2.0
    (read,) = heard.of("on_variable_read")
    assert held(read.variable) is holder["deep"][0] and y.numpy() == 8.0


def test_hooks_are_gone_after_an_error_in_the_block():
    heard = Recording()
    with pytest.raises(ZeroDivisionError):
        with RecordingTape(explain=heard):
            tf.constant(1.0) * 2.0  # noqa: B018  (an op, then the error)
            raise ZeroDivisionError("in the block")
    assert RECORDER.recorder.listening() == ()
    assert [e.kind for e in heard.of("on_tape")] == ["start", "stop"]


def test_nothing_is_heard_outside_the_block_but_the_tapes_own_requests():
    x = tf.constant(2.0)
    heard = Recording()
    with RecordingTape(persistent=True, explain=heard) as tape:
        tape.watch(x)
        y = x * x
    count = len(heard.heard)
    z = y * 3.0  # after the block: not heard
    x.numpy()
    assert len(heard.heard) == count
    tape.gradient(y, x)
    assert heard.kinds()[count] == "on_gradient_asked"
    assert z.numpy() == 12.0


def test_describe_tape_and_the_surface():
    w = tf.Variable(1.0)
    c = tf.constant(2.0)
    tape = RecordingTape(explain=Recording())
    assert RECORDER.describe_tape(tape).status == "new"
    with tape:
        tape.watch(c)
        assert RECORDER.describe_tape(tape).status == "recording"
        y = w * c
    state = RECORDER.describe_tape(tape)
    assert state.status == "stopped" and state.nodes == ()
    assert [r.id for r in state.watched] == [c._id]
    surface = RECORDER.SURFACE
    assert surface.owns(tape) and surface.owns(tf.GradientTape())
    assert not surface.owns("tape")
    assert surface.describe(3.0) is None and surface.describe(y).id == y._id
    assert surface.is_value(w) and surface.is_value(c) and not surface.is_value(2.0)
    assert surface.flatten({"b": [y], "a": w}) == [w, y]
    assert surface.explain_listener(tape) is not None
    assert surface.explain_listener(tf.GradientTape()) is None


def test_importing_tapemagic_never_imports_tensorflow():
    program = textwrap.dedent(
        """
        import sys
        import tapemagic, tapemagic.tf, tapemagic.tf_recorder, tapemagic.magic
        from IPython.testing import globalipapp
        globalipapp.start_ipython()
        ip = globalipapp.get_ipython()
        ip.extension_manager.load_extension("tapemagic")
        ip.run_cell("import tapemagic.tf as tf")
        ip.run_cell("%%tape --quiet\\nx = tf.constant(1.0)\\ny = x * x")
        print(type(ip.user_ns["tape"]).__module__, tapemagic.tf_recorder.available())
        loaded = [m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras")]
        print(sorted(loaded))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["tapemagic.engine.tape True", "[]"]
