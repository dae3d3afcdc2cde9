"""Memory in a long session: what a tape holds, and when it lets go.

A notebook kernel lives for hours, so a tape must not keep arrays alive longer
than its gradients need them: a non-persistent tape drops everything after its
one gradient call, a persistent tape on ``del`` or ``reset()``, and a recorded
node holds only the values its VJP reads (``saves=``). These tests count live
objects with ``gc`` and ``weakref`` (never time or RSS; benchmarks/bench_memory.py
measures RSS over 10,000 steps).
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.context import state
from tapemagic.engine.tensor import _SCALARS


def live_tensors() -> int:
    gc.collect()
    count = sum(1 for o in gc.get_objects() if isinstance(o, Tensor))
    assert count, "no tensor is alive: the count would prove nothing"
    return count


def _intermediates(x: Tensor, w: Variable) -> tuple[Tensor, list]:
    """A small network's forward; returns the loss and weakrefs to every array."""
    h = tf.matmul(x, w)
    a = tf.tanh(h)
    e = tf.exp(a * 0.5)
    loss = tf.reduce_mean(tf.square(e - 1.0))
    refs = [weakref.ref(t._value) for t in (h, a, e)] + [weakref.ref(t) for t in (h, a)]
    return loss, refs


def _data() -> tuple[Tensor, Variable]:
    rng = np.random.default_rng(0)
    return Tensor(rng.standard_normal((64, 32))), Variable(rng.standard_normal((32, 8)))


def test_a_non_persistent_tape_holds_no_arrays_after_its_gradient() -> None:
    x, w = _data()
    with GradientTape() as tape:
        loss, refs = _intermediates(x, w)
    gc.collect()
    assert any(r() is not None for r in refs), "the tape keeps what backprop needs"
    grad = tape.gradient(loss, w)
    del loss
    gc.collect()
    assert [r() for r in refs] == [None] * len(refs)
    assert tape._nodes is None and not tape._tracked and not tape._watched
    assert grad.shape == (32, 8)


def test_a_persistent_tape_releases_its_arrays_on_del() -> None:
    x, w = _data()
    with GradientTape(persistent=True) as tape:
        loss, refs = _intermediates(x, w)
    tape.gradient(loss, w)
    tape.gradient(loss, w)
    del loss
    gc.collect()
    assert any(r() is not None for r in refs), "a persistent tape keeps its record"
    tape_ref = weakref.ref(tape)
    del tape
    gc.collect()
    assert tape_ref() is None
    assert [r() for r in refs] == [None] * len(refs)


def test_a_persistent_tape_releases_its_arrays_on_reset() -> None:
    x, w = _data()
    with GradientTape(persistent=True) as tape:
        loss, refs = _intermediates(x, w)
        del loss
        tape.reset()
        gc.collect()
        assert [r() for r in refs] == [None] * len(refs)
        assert tape._nodes == []
        # and it records afresh: a variable read after the reset is watched again
        y = tf.reduce_sum(w * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), np.full((32, 8), 2.0))


def test_a_tape_that_raised_inside_its_block_is_garbage() -> None:
    # A cell that fails half way leaves nothing on the stack and nothing alive.
    x, w = _data()
    tape = GradientTape(persistent=True)
    with pytest.raises(tf.errors.InvalidArgumentError):
        with tape:
            loss, refs = _intermediates(x, w)
            tf.matmul(loss, w)  # a scalar is not a matrix
    assert state.tapes == []
    tape_ref = weakref.ref(tape)
    del tape, loss
    gc.collect()
    assert tape_ref() is None
    assert [r() for r in refs] == [None] * len(refs)


def test_recorded_nodes_keep_only_what_their_vjps_read() -> None:
    # add, reduce_sum and reshape save nothing: a live persistent tape does not
    # keep their outputs alive once the user drops them (TensorFlow's
    # OpGradientDoesntRequireInputIndices); tanh keeps its output, not its input.
    # (Values under STUB_MIN_BYTES stay: these are 512 float64 numbers, 4 KiB.)
    x = Variable(np.linspace(-1.0, 1.0, 512))
    with GradientTape(persistent=True) as tape:
        s = x + 1.0
        r = tf.reshape(s, (16, 32))
        t = tf.tanh(r)
        u = t + 2.0
        y = tf.reduce_sum(u)
    s_value, r_value, u_value = (weakref.ref(v._value) for v in (s, r, u))
    t_value = weakref.ref(t._value)
    del s, r, t, u
    gc.collect()
    assert (s_value(), r_value(), u_value()) == (None, None, None)
    assert t_value() is not None  # tanh's VJP reads its output
    want = 1.0 - np.tanh(np.linspace(-1.0, 1.0, 512) + 1.0) ** 2
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)


def test_small_values_stay_in_their_nodes() -> None:
    # Under STUB_MIN_BYTES a stub would cost more than the value it replaces.
    x = Variable(np.linspace(-1.0, 1.0, 12))
    with GradientTape(persistent=True) as tape:
        s = x + 1.0
        y = tf.reduce_sum(tf.tanh(s))
    s_value = weakref.ref(s._value)
    del s
    gc.collect()
    assert s_value() is not None
    want = 1.0 - np.tanh(np.linspace(-1.0, 1.0, 12) + 1.0) ** 2
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)


def _block(y: Tensor, x: Tensor, c: Tensor) -> tuple[Tensor, Any]:
    """One block of the memory benchmark's chain; a weakref to its square."""
    squared = tf.square(tf.tanh(y))
    return y * tf.exp(squared * c) + x, weakref.ref(squared._value)


def test_a_product_keeps_only_the_factor_the_tracked_inputs_need() -> None:
    # In y * exp(square(tanh(y)) * c) + x, no gradient flows to the constant c:
    # the product by c keeps c (its other factor's gradient reads it), and the
    # square it multiplies is freed as soon as the user drops it.
    rng = np.random.default_rng(0)
    x = Variable(rng.standard_normal((32, 32)))
    c = Tensor(rng.uniform(0.1, 0.5, (32, 32)))
    with GradientTape() as tape:
        y, first = _block(x, x, c)
        z, second = _block(y, x, c)
    gc.collect()
    assert first() is None and second() is None
    product = tape._nodes[2]
    assert product[0].name == "multiply" and product[1][1] is c

    def chain(x: np.ndarray) -> np.ndarray:
        y = x * np.exp(np.tanh(x) ** 2 * c._value) + x
        return y * np.exp(np.tanh(y) ** 2 * c._value) + x

    got = tape.gradient(z, x).numpy()
    v, eps = rng.standard_normal((32, 32)), 1e-6
    numeric = np.sum(chain(x.numpy() + eps * v) - chain(x.numpy() - eps * v)) / 2e-6
    np.testing.assert_allclose(np.sum(got * v), numeric, rtol=1e-6)


def test_an_outer_tape_keeps_what_the_inner_one_does_not_need() -> None:
    # The inner tape tracks x only, so its product by c keeps c alone; the outer
    # tape watches c too and keeps the other factor for c's gradient, through
    # the inner gradient as well (a mixed second derivative).
    x = Tensor(np.linspace(0.1, 1.0, 300))
    c = Tensor(np.linspace(1.0, 2.0, 300))
    with GradientTape() as outer:
        outer.watch(c)
        with GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.sin(x) * c)
        gx = inner.gradient(y, x)  # cos(x) * c
        z = tf.reduce_sum(gx * gx)
    assert inner._nodes is None  # answered; the outer tape kept its own nodes
    gc_c = outer.gradient(z, c).numpy()
    np.testing.assert_allclose(gc_c, 2 * np.cos(x.numpy()) ** 2 * c.numpy())
    with GradientTape(persistent=True) as tape:
        tape.watch(c)
        with GradientTape() as inner:
            inner.watch(x)
            p = tf.sin(x) * c
        jac = inner.jacobian(p, x)
    np.testing.assert_allclose(
        np.diag(jac.numpy()), np.cos(x.numpy()) * c.numpy(), rtol=1e-12
    )
    np.testing.assert_allclose(
        tape.gradient(p, c).numpy(), np.sin(x.numpy()), rtol=1e-12
    )


def test_a_tensor_watched_after_an_op_used_it_gets_its_gradient() -> None:
    # As in TensorFlow, watching c after y = x * c still gives c a gradient:
    # the node did not keep x for c, so the tape puts x back while it lives.
    x = Tensor(np.linspace(-1.0, 1.0, 400))
    c = Tensor(np.linspace(1.0, 2.0, 400))
    with GradientTape() as tape:
        tape.watch(x)
        y = x * c
        tape.watch(c)
        z = tf.reduce_sum(y * 3.0)
    gx, gc_ = tape.gradient(z, [x, c])
    np.testing.assert_allclose(gx.numpy(), 3 * c.numpy())
    np.testing.assert_allclose(gc_.numpy(), 3 * x.numpy())


def test_a_value_freed_before_a_late_watch_is_named_when_needed() -> None:
    x = Tensor(np.linspace(-1.0, 1.0, 400))
    c = Tensor(np.linspace(1.0, 2.0, 400))
    with GradientTape() as tape:
        tape.watch(x)
        z = tf.reduce_sum(tf.sin(x) * c)  # sin(x) is freed: only c's gradient reads it
        tape.watch(c)
    with pytest.raises(RuntimeError, match=r"watched after the op ran.*tape.watch"):
        tape.gradient(z, c)


def test_a_jacobian_frees_the_non_persistent_tape() -> None:
    x, w = _data()
    with GradientTape() as tape:
        h = tf.tanh(tf.matmul(x[:4], w))
    ref = weakref.ref(h._value)
    jac = tape.jacobian(h, w)
    del h
    gc.collect()
    assert ref() is None and tape._nodes is None
    assert jac.shape == (4, 8, 32, 8)


def test_300_training_steps_do_not_grow_the_number_of_live_tensors() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 16)).astype(np.float32)
    y = rng.integers(0, 4, 256).astype(np.int32)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(4)]
    )
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(1e-2)

    def step(i: int) -> float:
        batch = slice((i * 32) % 256, (i * 32) % 256 + 32)
        with tf.GradientTape() as tape:
            loss = loss_fn(y[batch], model(x[batch]))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return float(loss)

    first = [step(i) for i in range(50)]
    warm = live_tensors()
    last = [step(i) for i in range(50, 300)]
    # Generous: a leak of one tensor per step would add 250.
    assert live_tensors() <= warm + 20
    assert np.mean(last[-50:]) < np.mean(first[:10])  # and it did train
    assert state.tapes == []


def test_python_number_cache_is_bounded() -> None:
    # Python numbers in ops share cached tensors; a loop over fresh numbers
    # (a learning-rate schedule, say) must not grow the cache without bound.
    x = Tensor(np.ones(3))
    for i in range(6000):
        x * (1.0 + i * 1e-7)
    assert len(_SCALARS) <= 4096


def test_reading_and_assigning_a_variable_in_a_loop_does_not_grow() -> None:
    v = Variable(np.zeros(1000))
    for _ in range(20):
        v.assign_add(np.ones(1000))
    warm = live_tensors()
    for _ in range(500):
        with GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        v.assign_sub(0.001 * tape.gradient(loss, v))
    assert live_tensors() <= warm + 5
