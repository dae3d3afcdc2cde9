"""Plans (engine/plan.py): straight-line NumPy code from trace steps."""

from __future__ import annotations

import re

import numpy as np

import tapemagic.tf as tf
from tapemagic.engine.eager_tensor import tensor_of
from tapemagic.engine.op import OP_TABLE
from tapemagic.engine.plan import compile_plan, run_on_tensors
from tapemagic.engine.trace import Tracer


def test_unused_ops_are_dropped_and_values_freed_after_their_last_use():
    steps = [
        ("arg", 1, 0),
        ("op", OP_TABLE["tanh"], {}, (1,), (2,)),
        ("op", OP_TABLE["exp"], {}, (1,), (3,)),  # nothing uses it
        ("op", OP_TABLE["multiply"], {}, (2, 2), (4,)),
    ]
    plan = compile_plan(steps, [("slot", 4)], 1)
    assert "exp" not in [s[1].name for s in plan.steps if s[0] == "op"]
    assert re.sub(r"f\d+", "f", plan.source).splitlines() == [
        "def replay(a0):",
        "    s2 = f(a0)",
        "    del a0",
        "    s4 = f(s2, s2)",
        "    del s2",
        "    return (s4, )",
    ]
    x = np.array([0.5, -1.0], np.float32)
    assert np.array_equal(plan.run(x)[0], np.tanh(x) * np.tanh(x))


def test_a_plan_and_its_tensor_replay_agree_and_update_the_variable():
    v = tf.Variable(np.ones(3, np.float32))
    x = tensor_of(np.array([1.0, 2.0, 3.0], np.float32))
    with Tracer([x]) as tracer:
        y = tf.reduce_sum(tf.sin(x) * v)
        v.assign_sub(0.5 * x)
    plan = compile_plan(tracer.steps, [tracer.output(y)], 1)
    v.assign(np.ones(3, np.float32))
    (fast,) = plan.call([x])
    after_fast = v.numpy()
    v.assign(np.ones(3, np.float32))
    with tf.GradientTape() as tape:
        (slow,) = run_on_tensors(plan, [x])
    assert np.array_equal(fast.numpy(), slow.numpy())
    assert np.array_equal(after_fast, v.numpy())
    # the tensor replay was recorded: the tape watched v when it was read
    assert tape.gradient(slow, v) is not None


def test_assigning_a_value_of_another_shape_fails_as_eagerly():
    v = tf.Variable(np.zeros(2, np.float32))
    x = tensor_of(np.zeros(2, np.float32))
    with Tracer([x]) as tracer:
        v.assign(x * 2.0)
    plan = compile_plan(tracer.steps, [], 1)
    try:
        plan.run(np.zeros(3, np.float32))
    except ValueError as err:
        assert "Cannot assign a value of shape (3,) to variable" in str(err)
    else:
        raise AssertionError("no error")


def traced_plan(fn, *arrays):
    args = [tensor_of(np.asarray(a, np.float32)) for a in arrays]
    with Tracer(args) as tracer:
        result = fn(*args)
    outputs = [tracer.output(leaf) for leaf in tf.nest.flatten(result)]
    return compile_plan(tracer.steps, outputs, len(args)), result


def test_a_ufunc_writes_into_a_dead_buffer_an_earlier_op_made():
    plan, result = traced_plan(lambda x: tf.exp(tf.sin(x * 2.0)) + 1.0, [0.5, 1.0])
    # sin's and exp's results are each dead after the next op: reused
    assert plan.source.count("out=") == 3
    x = np.array([0.5, 1.0], np.float32)
    (out,) = plan.run(x)
    assert np.array_equal(out, result.numpy())
    assert np.array_equal(plan.run(x * 3)[0], np.exp(np.sin(x * 3 * 2)) + 1)


def test_buffers_that_are_returned_assigned_or_viewed_are_not_written():
    v = tf.Variable(np.zeros((2, 2), np.float32))

    def fn(x):
        kept = tf.tanh(x)
        v.assign(tf.exp(x))
        flat = tf.reshape(tf.sin(x), [4])  # a view of sin's result
        return kept * 2.0, tf.cos(tf.sin(x)), flat + 1.0

    x = np.arange(4, dtype=np.float32).reshape(2, 2) / 4
    plan, _ = traced_plan(fn, x)
    # tanh's and the second sin's results are reused; exp's (assigned) and the
    # reshape's (a view of sin's result) are not written into
    written = [line.split("out=")[1] for line in plan.source.splitlines()
               if "out=" in line]  # fmt: skip
    assert len(written) == 2
    assert "_assign(" in plan.source
    results = plan.run(x)
    assert np.array_equal(results[0], np.tanh(x) * np.float32(2))
    assert np.array_equal(results[2], np.sin(x).reshape(4) + np.float32(1))
    assert np.array_equal(v.numpy(), np.exp(x))
