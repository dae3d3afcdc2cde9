"""keras.Model subclasses as TensorFlow 2.21's Keras 3 treats them.

A subclass called as ``CustomModel(inputs, outputs)`` is a functional model
with the subclass's methods; a ``tf.Variable`` attribute is not a weight (only
``add_weight`` and ``keras.Variable`` ones are), so ``fit`` trains nothing and
warns. Expected names, reprs, values and TensorFlow's warning were printed by
tensorflow-cpu 2.21.0 running the same code; tapemagic's warnings go on to say
why and what to do.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers
from tapemagic.keras.models import Functional

NO_WEIGHTS = "The model does not have any trainable weights."


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        self.optimizer.apply(
            tape.gradient(loss, self.trainable_variables), self.trainable_variables
        )
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def _functional(cls=CustomModel, **kwargs):
    inputs = keras.Input(shape=(3,))
    outputs = layers.Dense(1)(inputs)
    return cls(inputs, outputs, **kwargs)


def test_a_subclass_called_on_inputs_and_outputs_is_functional():
    model = _functional()
    assert type(model).__name__ == "CustomModel"
    assert repr(type(model)) == f"<class '{__name__}.CustomModel'>"
    assert isinstance(model, CustomModel) and isinstance(model, Functional)
    assert model.name == "custom_model"
    assert repr(model) == "<CustomModel name=custom_model, built=True>"
    assert model.metrics == []
    assert model(np.ones((2, 3), np.float32)).shape == (2, 1)
    assert type(_functional()) is type(model)  # one functional class per subclass


def test_subclass_init_and_keyword_forms():
    class WithInit(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tracker = keras.metrics.Mean(name="loss")

    inputs = keras.Input(shape=(3,))
    outputs = layers.Dense(2)(inputs)
    model = WithInit(inputs=inputs, outputs=outputs, name="mine")
    assert model.name == "mine" and model.tracker.name == "loss"
    assert model.count_params() == 8
    assert [m.name for m in model.metrics] == ["loss"]

    class ByName(keras.Model):
        def __init__(self, inputs, outputs):
            keras.Model.__init__(self, inputs, outputs)

    assert ByName(inputs, outputs).name == "by_name"
    # tapemagic's own: the class stays as written, so it still makes plain
    # subclassed models. Keras 3 rewrites its bases, after which WithInit()
    # raises "TypeError: Functional.__init__() missing 2 required positional
    # arguments: 'inputs' and 'outputs'" under TensorFlow 2.21.
    assert type(WithInit()).__name__ == "WithInit"


def test_a_functional_subclass_trains_with_its_own_train_step():
    rng = np.random.default_rng(0)
    x = rng.random((10, 3)).astype("float32")
    y = rng.random((10, 1)).astype("float32")
    model = _functional()
    model.set_weights([np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    # TensorFlow: the compiled metrics' dict comes first, its keys sorted in
    assert list(history.history) == ["mae", "loss"]
    assert history.history["mae"] == pytest.approx(
        [0.35229453444480896, 0.334805428981781], rel=1e-6
    )
    assert history.history["loss"] == pytest.approx(
        [0.20929360389709473, 0.18847906589508057], rel=1e-6
    )
    assert [m.name for m in model.metrics[1].metrics] == ["mae"]
    assert float(model.metrics[1].result()["mae"]) == pytest.approx(
        0.334805428981781, rel=1e-6
    )
    assert model.evaluate(x, y, verbose=0) == pytest.approx(
        [0.1597142517566681, 0.32469314336776733], rel=1e-6
    )


class Linear(keras.Model):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(1.0)
        self.b = tf.Variable(0.0, name="b")

    def call(self, x):
        return self.w * x + self.b


def test_tf_variable_attributes_are_not_weights():
    model = Linear()
    assert model.trainable_variables == []
    assert model.variables == [] and model.weights == []
    np.testing.assert_array_equal(model(tf.constant([1.0, 2.0])).numpy(), [1.0, 2.0])
    assert model.trainable_variables == []
    with tf.GradientTape() as tape:
        out = model(tf.constant([1.0]))
    assert tape.gradient(out, model.trainable_variables) == []
    assert [v.name for v in tape.watched_variables()] == ["Variable:0", "b:0"]


def test_fit_trains_nothing_and_says_why():
    model = Linear()
    model.compile(optimizer="sgd", loss="mse")
    x = np.arange(8, dtype="float32")
    y = 2 * x + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, y, epochs=2, verbose=0)
    assert history.history == {"loss": [25.5, 25.5]}
    assert float(model.w) == 1.0 and float(model.b) == 0.0
    messages = {str(w.message) for w in caught}
    assert len(messages) == 1
    message = messages.pop()
    # TensorFlow's words first, then why and what to do
    assert message.startswith(NO_WEIGHTS + " Keras 3 does not track tf.Variable")
    assert "(here: w, b)" in message
    assert "self.add_weight(...)" in message and "keras.Variable(...)" in message
    assert model.evaluate(x, y, verbose=0) == 25.5


def test_fit_of_a_model_with_some_weights_warns_about_the_rest():
    class Scaled(keras.Model):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(1.0)
            self.d = layers.Dense(1)

        def call(self, x):
            return self.d(x) * self.w

    model = Scaled()
    model.compile("sgd", "mse")
    x = np.arange(8, dtype="float32")[:, None]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(x, 2 * x + 1, epochs=1, verbose=0)
    assert [v.name for v in model.trainable_variables] == ["kernel", "bias"]
    assert float(model.w) == 1.0
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "(here: w)" in messages[0]
    assert not messages[0].startswith(NO_WEIGHTS)


def test_layers_track_keras_variables_only():
    class Mixed(layers.Layer):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(1.0)
            self.k = keras.Variable(2.0, name="k")

        def call(self, x):
            return self.w * self.k * x

    layer = Mixed()
    assert [v.path for v in layer.trainable_variables] == ["k"]
    assert [v.path for v in layer.weights] == ["k"]


def test_keras_2_train_steps_still_run_with_keras_3_deprecation_warnings():
    """compiled_loss and compiled_metrics, as TensorFlow 2.21 runs them: the loss
    tracker, a Mean, is given the predictions, so "loss" is their mean."""

    class Old(keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    rng = np.random.default_rng(0)
    x = rng.random((10, 3)).astype("float32")
    y = rng.random((10, 1)).astype("float32")
    model = _functional(Old)
    model.set_weights([np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")])
    model.compile("sgd", "mse", metrics=["mae"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    assert history.history == {
        "mae": pytest.approx([0.35229453444480896, 0.334805428981781], rel=1e-6),
        "loss": pytest.approx([0.7928622961044312, 0.7584751844406128], rel=1e-6),
    }
    assert {str(w.message) for w in caught} == {
        "`model.compiled_loss()` is deprecated. Instead, use "
        "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
        "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
        "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
    }
