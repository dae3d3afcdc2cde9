"""The two sweeps: VJPs on arrays when nothing records, engine-op VJPs otherwise.

A gradient that no tape records and no explanation log follows runs each op's
``raw_vjp`` on NumPy arrays; under a recording tape the VJPs run as engine ops,
so the outer tape can differentiate them again. Both must give the same
gradients in the same dtypes (the gradient checker compares them for every op in
float64; here in float32, the dtype courses use).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import OP_TABLE, GradientTape, Variable, context


def _programs():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 1.5, (4, 3)).astype(np.float32)
    w = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    labels = np.array([0, 4, 2, 1], np.int32)
    onehot = np.eye(5, dtype=np.float32)[labels]

    def mlp(v):
        h = tf.nn.relu(tf.matmul(v["x"], v["w"]) + v["b"])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h)
        dense = tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=h * 0.5)
        return tf.reduce_mean(loss) + tf.reduce_sum(dense) / 4.0

    def elementwise(v):
        a = v["x"]
        y = tf.sin(a) * tf.cos(a) - tf.exp(-a) / (1.0 + tf.square(a))
        y = y + tf.tanh(a) * tf.sigmoid(a) + tf.math.log(a) + tf.sqrt(a) + tf.abs(-a)
        y = tf.pow(a, 1.5) + tf.pow(2.0, a) + tf.identity(y) - tf.negative(y) * 0.5
        y = tf.cast(tf.cast(y, tf.float64), tf.float32)
        return tf.reduce_sum(tf.nn.softmax(y) + tf.nn.log_softmax(y, axis=0))

    def shapes(v):
        a = tf.transpose(tf.reshape(v["x"], (3, 4)))
        c = tf.broadcast_to(v["b"], (4, 5))
        return tf.reduce_sum(tf.matmul(a, c[:3]) * 2.0)

    values = {"x": x, "w": w, "b": b}
    return [("mlp", mlp, values, "xwb"), ("elementwise", elementwise, values, "x"),
            ("shapes", shapes, values, "xb")]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "fn", "values", "used"), _programs(), ids=[p[0] for p in _programs()]
)
def test_array_and_engine_sweeps_agree_in_float32(name, fn, values, used):
    vs = {k: Variable(values[k]) for k in used}
    with GradientTape(persistent=True) as tape:
        y = fn(vs)
    raw = tape.gradient(y, vs)
    with GradientTape():  # a recording tape: the VJPs run as engine ops
        engine = tape.gradient(y, vs)
    for key in vs:
        assert raw[key].dtype == engine[key].dtype == tf.float32, key
        np.testing.assert_allclose(
            raw[key].numpy(), engine[key].numpy(), rtol=1e-6, atol=1e-7, err_msg=key
        )


def test_a_first_order_gradient_runs_no_engine_ops():
    # Every tensor takes an id from one counter: an unrecorded sweep of raw VJPs
    # makes one tensor per gradient returned, not one per VJP op.
    x = Variable(np.linspace(0.1, 1.0, 8).astype(np.float32))
    w = Variable(np.ones((8, 8), np.float32))
    with GradientTape(persistent=True) as tape:
        y = x
        for _ in range(20):
            y = tf.tanh(tf.linalg.matvec(w, y) * 0.5 + 1.0)
        loss = tf.reduce_sum(tf.sin(y))
    before = context.new_id()
    tape.gradient(loss, [x, w])
    assert context.new_id() - before <= 4  # the two gradients (and the seed)
    before = context.new_id()
    with GradientTape():
        tape.gradient(loss, [x, w])
    assert context.new_id() - before > 100  # engine ops: a tensor each


def test_the_hot_ops_have_array_vjps():
    hot = [
        "add", "subtract", "multiply", "truediv", "negative", "square", "sqrt",
        "exp", "log", "sin", "cos", "tanh", "sigmoid", "abs", "pow", "identity",
        "cast", "matmul", "reduce_sum", "reduce_mean", "reshape", "transpose",
        "broadcast_to", "relu", "softmax", "log_softmax",
        "sparse_softmax_cross_entropy_with_logits",
        "softmax_cross_entropy_with_logits",
    ]  # fmt: skip
    missing = [name for name in hot if OP_TABLE[name].raw_vjp is None]
    assert not missing


def test_ops_without_an_array_vjp_still_run_in_an_array_sweep():
    # gather and concat have only engine VJPs: the array sweep wraps them
    x = Variable(np.arange(6, dtype=np.float32))
    with GradientTape() as tape:
        parts = tf.concat([tf.gather(x, [0, 2, 2]) * 3.0, x[4:] ** 2], axis=0)
        loss = tf.reduce_sum(parts)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [3, 0, 6, 0, 8, 10])


def test_both_sweeps_give_the_same_bits_for_an_input_used_twice():
    # concat has no array VJP: its engine VJP runs on wrapped arrays and must sum
    # x's two cotangents onto what x already has in the tensor sweep's order
    # (found by the engine fuzzer: sums in another order differ in the last bit).
    rng = np.random.default_rng(3)
    x = Variable(rng.standard_normal((2, 1)))
    with GradientTape(persistent=True) as tape:
        y = tf.concat([x, x], axis=-1)
        z = tf.reduce_sum(tf.sin(y) * y) + tf.reduce_sum(x * 3.7)
        inside = tape.gradient(z, x)  # recording: the tensor sweep
    outside = tape.gradient(z, x)  # nothing records: the array sweep
    np.testing.assert_array_equal(inside.numpy(), outside.numpy())


def test_an_op_with_no_outputs_is_not_recorded():
    # unstack of an empty axis returns no tensors (found by the engine fuzzer)
    x = Variable(np.zeros((0,)))
    with GradientTape() as tape:
        parts = tf.unstack(x, axis=0)
        y = tf.reduce_sum(x * 2.0)
    assert parts == []
    assert tape.gradient(y, x).shape == (0,)
