"""Layer.add_loss, layer.losses and model.losses, as in TensorFlow 2.21's Keras 3.

The losses a call adds stay on its layers until the next call of the outermost
layer, and ``compute_loss`` (so ``fit`` and ``evaluate``) adds them to the
compiled loss. Expected values were printed by tensorflow-cpu 2.21.0 running
the same code on the same data (constant initializers, so both start alike).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers

RNG = np.random.default_rng(0)
X = RNG.random((10, 3)).astype("float32")
Y = RNG.random((10, 1)).astype("float32")


class ActivityPenalty(layers.Layer):
    def call(self, inputs):
        self.add_loss(0.1 * tf.reduce_sum(inputs))
        return inputs


def _penalized_model() -> keras.Model:
    inputs = keras.Input((3,))
    h = layers.Dense(2, kernel_initializer="ones")(inputs)
    h = ActivityPenalty()(h)
    outputs = layers.Dense(1, kernel_initializer="ones")(h)
    return keras.Model(inputs, outputs)


def _values(losses) -> list[float]:
    return [float(v) for v in losses]


def test_losses_come_from_the_last_call():
    model = _penalized_model()
    assert model.losses == []  # building from keras.Input adds none
    model(X[:2])
    assert _values(model.losses) == pytest.approx([0.5380551218986511])
    model(X[:3])
    assert _values(model.losses) == pytest.approx([0.9140065312385559])
    per_layer = [_values(layer.losses) for layer in model.layers]
    assert per_layer == [[], [], [pytest.approx(0.9140065312385559)], []]


def test_compute_loss_evaluate_and_fit_add_the_layer_losses():
    model = _penalized_model()
    model.compile("sgd", "mse")
    y_pred = model(X)
    total = model.compute_loss(y=Y, y_pred=y_pred)
    assert float(total) == pytest.approx(11.215032, rel=1e-6)
    assert model.evaluate(X, Y, verbose=0, batch_size=4) == pytest.approx(
        9.118840217590332, rel=1e-6
    )
    history = model.fit(X, Y, verbose=0, batch_size=4, shuffle=False, epochs=2)
    assert history.history["loss"] == pytest.approx(
        [6.995388984680176, 2.7362217903137207], rel=1e-6
    )


def test_add_loss_takes_tensors_and_lists_of_them():
    layer = ActivityPenalty()
    with pytest.raises(
        ValueError,
        match="`add_loss\\(\\)` can only be called from inside `build\\(\\)` or "
        "`call\\(\\)`, on a tensor input. Received invalid value: 1.0",
    ):
        layer.add_loss(1.0)
    layer.add_loss(tf.constant(2.0))
    assert _values(layer.losses) == [2.0]
    layer.add_loss([tf.constant(1.0), tf.constant(3)])
    assert _values(layer.losses) == [2.0, 1.0, 3.0]
    assert [v.dtype.name for v in layer.losses] == ["float32", "float32", "int32"]
    layer(np.ones((1, 2), "float32"))  # a call starts afresh
    assert _values(layer.losses) == pytest.approx([0.2])


def test_only_the_outermost_call_clears_the_losses():
    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = ActivityPenalty()

        def call(self, x):
            self.add_loss(tf.constant(5.0))
            return self.inner(x)

    outer = Outer()
    outer(np.ones((1, 2), "float32"))
    assert _values(outer.losses) == pytest.approx([5.0, 0.2])
    assert _values(outer.inner.losses) == pytest.approx([0.2])
    # the inner layer called alone clears its own losses only
    outer.inner(np.ones((1, 2), "float32") * 2)
    assert _values(outer.losses) == pytest.approx([5.0, 0.4])
    assert _values(outer.inner.losses) == pytest.approx([0.4])


def test_a_subclassed_model_trains_on_its_added_loss_alone():
    class Regularized(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            self.add_loss(tf.reduce_mean(x))
            return self.d(x)

    model = Regularized()
    model.build((None, 3))
    assert model.losses == []
    model(X[:2])
    assert _values(model.losses) == pytest.approx([0.448379248380661])
    model.compile("sgd", "mse")
    assert model.evaluate(X, Y, verbose=0) == pytest.approx(1.950670599937439)
    model.compile("sgd")  # no loss compiled: the added loss is the whole loss
    assert model.evaluate(X, Y, verbose=0) == pytest.approx(1.950670599937439)


@pytest.fixture
def float64():
    keras.backend.set_floatx("float64")
    yield
    keras.backend.set_floatx("float32")


def test_gradient_of_an_added_loss_matches_finite_differences(float64):
    class WeightPenalty(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], 2))

        def call(self, x):
            self.add_loss(0.3 * tf.reduce_sum(tf.square(self.w)))
            return tf.tanh(tf.matmul(x, self.w))

    inputs = keras.Input((3,))
    outputs = layers.Dense(1)(WeightPenalty()(inputs))
    model = keras.Model(inputs, outputs)
    model.compile("sgd", "mse")
    x, y = X.astype("float64"), Y.astype("float64")
    weights = model.trainable_weights
    assert all(w.dtype == tf.float64 for w in weights)
    with tf.GradientTape() as tape:
        loss = model.compute_loss(x, y, model(x))
    grads = tape.gradient(loss, weights)
    base = [w.numpy() for w in weights]

    def loss_at(step: float, direction: list) -> float:
        for w, w0, d in zip(weights, base, direction):
            w.assign(w0 + step * d)
        return float(model.compute_loss(x, y, model(x)))

    h = 1e-6
    rng = np.random.default_rng(5)
    for _ in range(3):
        direction = [rng.standard_normal(w0.shape) for w0 in base]
        numeric = (loss_at(h, direction) - loss_at(-h, direction)) / (2 * h)
        analytic = sum(float(np.sum(g.numpy() * d)) for g, d in zip(grads, direction))
        assert analytic == pytest.approx(numeric, rel=1e-6)
    assert len(model.losses) == 1
