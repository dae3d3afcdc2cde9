"""The examples of TensorFlow's tf.GradientTape API page, run unchanged."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf


def test_gradient_of_x_squared(capsys):
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    dy_dx = g.gradient(y, x)
    print(dy_dx)
    assert capsys.readouterr().out == "tf.Tensor(6.0, shape=(), dtype=float32)\n"


def test_nested_tapes(capsys):
    x = tf.constant(5.0)
    with tf.GradientTape() as g:
        g.watch(x)
        with tf.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)  # dy_dx = 2 * x
    d2y_dx2 = g.gradient(dy_dx, x)  # d2y_dx2 = 2
    print(dy_dx)
    print(d2y_dx2)
    assert capsys.readouterr().out == (
        "tf.Tensor(10.0, shape=(), dtype=float32)\n"
        "tf.Tensor(2.0, shape=(), dtype=float32)\n"
    )


def test_persistent_tape(capsys):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    dz_dx = g.gradient(z, x)  # (4*x^3 at x = 3)
    print(dz_dx)
    dy_dx = g.gradient(y, x)
    print(dy_dx)
    del g
    assert capsys.readouterr().out == (
        "tf.Tensor(108.0, shape=(), dtype=float32)\n"
        "tf.Tensor(6.0, shape=(), dtype=float32)\n"
    )


def test_watch_accessed_variables_false_watches_only_what_is_asked():
    variable_a = tf.Variable(3.0)
    variable_b = tf.Variable(4.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(variable_a)
        y = variable_a**2  # Gradients will be available for `variable_a`.
        z = variable_b**3  # No gradients will be available since `variable_b` is
        # not being watched.
    assert tape.gradient(y, variable_a).numpy() == 6.0
    assert tape.watched_variables() == (variable_a,)
    del z


def test_jacobian():
    with tf.GradientTape() as g:
        x = tf.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    jacobian = g.jacobian(y, x)
    np.testing.assert_array_equal(jacobian.numpy(), [[2.0, 0.0], [0.0, 4.0]])


def test_batch_jacobian():
    with tf.GradientTape() as g:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
        g.watch(x)
        y = x * x
    batch_jacobian = g.batch_jacobian(y, x)
    np.testing.assert_array_equal(
        batch_jacobian.numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]
    )


def test_reset_is_like_a_new_tape():
    w = tf.Variable(2.0)

    def loss_fn():
        return w * 10.0

    def other_loss_fn():
        return w * w

    with tf.GradientTape() as t:
        loss = loss_fn()
    with tf.GradientTape() as t:
        loss += other_loss_fn()
    first = t.gradient(loss, w)  # Only differentiates other_loss_fn, not loss_fn
    with tf.GradientTape() as t:
        loss = loss_fn()
        t.reset()
        loss += other_loss_fn()
    second = t.gradient(loss, w)  # Only differentiates other_loss_fn, not loss_fn
    assert first.numpy() == second.numpy() == 4.0


def test_stop_recording():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        with t.stop_recording():
            # The gradient computation below is not traced, saving memory.
            dy_dx = t.gradient(y, x)
        z = y * dy_dx
    assert dy_dx.numpy() == 4.0
    assert t.gradient(z, x).numpy() == 16.0  # dy_dx is a constant to the tape
