"""The two sweeps: VJPs on arrays when nothing records, on engine ops otherwise.

Every VJP is written once, against a namespace (engine/namespace.py). A gradient
that no tape records and no explanation log follows runs each VJP on NumPy
arrays; under a recording tape the same VJPs run as engine ops, so the outer tape
can differentiate them again. Both must give the same gradients in the same
dtypes (the gradient checker compares them for every op, in float64 and in
float32; here on whole programs in float32, the dtype courses use).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import (
    OP_TABLE,
    GradientTape,
    Tensor,
    Variable,
    context,
    custom_gradient,
)
from tapemagic.engine.namespace import ARRAYS, TENSORS


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
    # Every tensor takes an id from one counter: an unrecorded sweep of VJPs on
    # arrays makes one tensor per gradient returned, not one per VJP op.
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


def test_every_op_is_in_both_namespaces():
    for name, op in OP_TABLE.items():
        if name == "shape":
            # tf.shape's op has no gradient; ns.shape stays the helper VJPs use
            assert op.vjp is None
            assert TENSORS.shape(Tensor(np.zeros((2, 3)))) == (2, 3)
            assert ARRAYS.shape(np.zeros((2, 3))) == (2, 3)
            continue
        assert getattr(ARRAYS, name) is op.forward, name
        # the op's function, or (where) its TensorFlow wrapper
        assert getattr(getattr(TENSORS, name), "op", op) is op, name
        assert op.on_arrays, name


def test_indexing_and_joining_run_on_arrays_too():
    x = Variable(np.arange(6, dtype=np.float32))
    with GradientTape() as tape:
        parts = tf.concat([tf.gather(x, [0, 2, 2]) * 3.0, x[4:] ** 2], axis=0)
        loss = tf.reduce_sum(tf.stack(tf.unstack(parts)))
    before = context.new_id()
    grad = tape.gradient(loss, x)
    assert context.new_id() - before <= 3  # the seed and the gradient
    np.testing.assert_array_equal(grad.numpy(), [3, 0, 6, 0, 8, 10])


def test_a_custom_gradient_runs_on_wrapped_arrays_in_an_array_sweep():
    @custom_gradient
    def halved(x):
        def grad(g):
            return g * 0.5

        return x * 3.0, grad

    x = Variable(np.arange(3, dtype=np.float32))
    with GradientTape() as tape:
        loss = tf.reduce_sum(tf.sin(halved(x)))
    grad = tape.gradient(loss, x)
    assert grad.dtype == tf.float32
    np.testing.assert_allclose(grad.numpy(), 0.5 * np.cos(3 * np.arange(3)), 1e-6)


def test_an_error_in_an_array_vjp_is_the_engine_error():
    # det's gradient inverts the matrix: singular, it raises as on tensors
    x = Variable(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with GradientTape() as tape:
        y = tf.linalg.det(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="inv"):
        tape.gradient(y, x)


def test_both_sweeps_give_the_same_bits_for_an_input_used_twice():
    # concat's VJP gives x two cotangents; both sweeps must add them onto what x
    # already has in the same order (found by the engine fuzzer: sums in another
    # order differ in the last bit).
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
