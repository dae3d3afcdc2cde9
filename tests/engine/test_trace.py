"""The tracer (engine/trace.py): what it writes down, and what it refuses."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf
from tapemagic.engine.eager_tensor import tensor_of
from tapemagic.engine.plan import compile_plan
from tapemagic.engine.trace import Tracer, host_call


def trace(fn, *arrays):
    args = [tensor_of(np.asarray(a, np.float32)) for a in arrays]
    with Tracer(args) as tracer:
        result = fn(*args)
    return tracer, result


def kinds(tracer):
    return [step[0] if step[0] != "op" else step[1].name for step in tracer.steps]


def test_ops_reads_assigns_and_constants_become_steps():
    v = tf.Variable([1.0, 2.0])
    tracer, _ = trace(lambda x: v.assign_add(tf.tanh(x * 2.0)), [0.5, 0.25])
    assert kinds(tracer) == ["arg", "const", "multiply", "tanh", "assign"]
    assert tracer.steps[-1][:3] == ("assign", v, "assign_add")
    assert tracer.untraceable is None


def test_values_fixed_for_the_trace_fold_into_constants():
    tracer, result = trace(
        lambda x: tf.reshape(x, tf.shape(x) * 1) + tf.ones([2]), [1, 2]
    )
    # shape(x) * 1 and ones([2]) depend on shapes only: constants, not ops
    assert kinds(tracer).count("const") >= 2
    assert "shape" not in kinds(tracer) and "add" in kinds(tracer)
    assert tracer.untraceable is None


def test_a_custom_gradient_and_a_slice_assign_are_refused_with_the_users_line():
    @tf.custom_gradient
    def clip(x):
        return tf.identity(x), lambda g: g

    tracer, _ = trace(lambda x: clip(x), [1.0])
    assert "custom_gradient/clip" in tracer.untraceable.reason
    assert tracer.untraceable.filename == __file__
    v = tf.Variable([1.0, 2.0])
    tracer, _ = trace(lambda x: v[0].assign(x[0]), [3.0])
    assert tracer.untraceable.reason == "assigns to a slice of Variable:0"


def test_a_tensor_made_outside_the_ops_is_refused():
    # tf.sort gathers with indices NumPy computed from the values.
    tracer, _ = trace(lambda x: tf.sort(x), [3.0, 1.0, 2.0])
    assert tracer.untraceable.reason.startswith("computes a tensor outside")


def test_host_calls_are_one_step_and_hear_nothing_inside():
    seen = []

    def host(t):
        seen.append(t.numpy().tolist())
        return tf.exp(t)

    tracer, result = trace(lambda x: host_call(host, x * 2.0) + 1.0, [0.0, 1.0])
    assert kinds(tracer) == ["arg", "const", "multiply", "call", "const", "add"]
    plan = compile_plan(tracer.steps, [tracer.output(result)], 1)
    (out,) = plan.run(np.array([1.0, 2.0], np.float32))
    assert seen == [[0.0, 2.0], [2.0, 4.0]]
    assert np.array_equal(out, np.exp(np.float32([2.0, 4.0])) + np.float32(1.0))


def test_variables_changed_by_a_trace_are_restored_on_request():
    v, w = tf.Variable(1.0), tf.Variable(5.0)
    tracer, _ = trace(lambda x: (v.assign(x[0]), w.assign_sub(x[0])), [3.0])
    assert (v.numpy(), w.numpy()) == (3.0, 2.0)
    tracer.restore()
    assert (v.numpy(), w.numpy()) == (1.0, 5.0)
