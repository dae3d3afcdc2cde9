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
