"""The Keras guide "Customizing what happens in fit()" (TensorFlow backend), run
as written, against what TensorFlow 2.21 printed for it.

The programs below are the guide's: a ``keras.Model`` subclass built
functionally with its own ``train_step`` and compiled metrics, the lower-level
version with its own loss tracker and ``metrics`` property, ``sample_weight``
support, and a custom ``test_step``. Three things are changed so that both
runs see the same numbers: the data come from a seeded NumPy generator, the
weights are set with ``set_weights``, and ``fit`` gets ``shuffle=False``
(verbose=0 keeps the progress bars out). The expected histories and results
were printed by tensorflow-cpu 2.21.0 running these same programs; they are
compared to float32 rounding (Adam's steps in float32, summed in either order).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras

rng = np.random.default_rng(7)
x = rng.random((1000, 32)).astype("float32")
y = rng.random((1000, 1)).astype("float32")
sw = rng.random((1000, 1)).astype("float32")
KERNEL = (rng.random((32, 1)).astype("float32") - 0.5) * 0.2
BIAS = np.array([0.1], "float32")


def _approx(values):
    if isinstance(values, dict):
        return {k: pytest.approx(v, rel=2e-6) for k, v in values.items()}
    return pytest.approx(values, rel=2e-6)


def test_a_first_simple_example():
    class CustomModel(keras.Model):
        def train_step(self, data):
            # Unpack the data. Its structure depends on your model and
            # on what you pass to `fit()`.
            x, y = data

            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                # Compute the loss value
                # (the loss function is configured in `compile()`)
                loss = self.compute_loss(y=y, y_pred=y_pred)

            # Compute gradients
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)

            # Update weights
            self.optimizer.apply(gradients, trainable_vars)

            # Update metrics (includes the metric that tracks the loss)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)

            # Return a dict mapping metric names to current value
            return {m.name: m.result() for m in self.metrics}

    # Construct and compile an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.set_weights([KERNEL, BIAS])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]

    # Just use `fit` as usual
    history = model.fit(x, y, epochs=3, shuffle=False, verbose=0)
    assert list(history.history) == ["mae", "loss"]
    assert history.history == _approx(
        {
            "mae": [0.30374568700790405, 0.25443756580352783, 0.2530388832092285],
            "loss": [0.13692809641361237, 0.09036619961261749, 0.08915255218744278],
        }
    )
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    assert model.evaluate(x, y, verbose=0) == _approx(
        [0.08876166492700577, 0.2521829605102539]
    )


def test_going_lower_level():
    class CustomModel(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
            self.loss_fn = keras.losses.MeanSquaredError()

        def train_step(self, data):
            x, y = data

            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                # Compute our own loss
                loss = self.loss_fn(y, y_pred)

            # Compute gradients
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)

            # Update weights
            self.optimizer.apply(gradients, trainable_vars)

            # Compute our own metrics
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {
                "loss": self.loss_tracker.result(),
                "mae": self.mae_metric.result(),
            }

        @property
        def metrics(self):
            # We list our `Metric` objects here so that `reset_states()` can be
            # called automatically at the start of each epoch
            # or at the start of `evaluate()`.
            return [self.loss_tracker, self.mae_metric]

    # Construct an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.set_weights([KERNEL, BIAS])

    # We don't pass a loss or metrics here.
    model.compile(optimizer="adam")

    # Just use `fit` as usual -- you can use callbacks, etc.
    history = model.fit(x, y, epochs=5, shuffle=False, verbose=0)
    assert list(history.history) == ["loss", "mae"]
    assert history.history == _approx(
        {
            "loss": [
                0.13692809641361237,
                0.09036619961261749,
                0.08915255218744278,
                0.08831092715263367,
                0.08763683587312698,
            ],
            "mae": [
                0.30374568700790405,
                0.25443756580352783,
                0.2530388832092285,
                0.25203949213027954,
                0.25119245052337646,
            ],
        }
    )
    assert [m.name for m in model.metrics] == ["loss", "mae"]


def test_supporting_sample_weight():
    class CustomModel(keras.Model):
        def train_step(self, data):
            # Unpack the data. Its structure depends on your model and
            # on what you pass to `fit()`.
            if len(data) == 3:
                x, y, sample_weight = data
            else:
                sample_weight = None
                x, y = data

            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                # Compute the loss value.
                # The loss function is configured in `compile()`.
                loss = self.compute_loss(
                    y=y,
                    y_pred=y_pred,
                    sample_weight=sample_weight,
                )

            # Compute gradients
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)

            # Update weights
            self.optimizer.apply(gradients, trainable_vars)

            # Update the metrics.
            # Metrics are configured in `compile()`.
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred, sample_weight=sample_weight)

            # Return a dict mapping metric names to current value.
            # Note that it will include the loss (tracked in self.metrics).
            return {m.name: m.result() for m in self.metrics}

    # Construct and compile an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.set_weights([KERNEL, BIAS])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])

    # You can now use sample_weight argument
    history = model.fit(x, y, sample_weight=sw, epochs=3, shuffle=False, verbose=0)
    assert list(history.history) == ["mae", "loss"]
    assert history.history == _approx(
        {
            "mae": [0.3045596778392792, 0.25430020689964294, 0.2529074549674988],
            "loss": [0.06995894014835358, 0.04564063251018524, 0.044974133372306824],
        }
    )


def test_providing_your_own_evaluation_step():
    class CustomModel(keras.Model):
        def test_step(self, data):
            # Unpack the data
            x, y = data
            # Compute predictions
            y_pred = self(x, training=False)
            # Updates the metrics tracking the loss
            loss = self.compute_loss(y=y, y_pred=y_pred)
            # Update the metrics.
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            # Return a dict mapping metric names to current value.
            # Note that it will include the loss (tracked in self.metrics).
            return {m.name: m.result() for m in self.metrics}

    # Construct an instance of CustomModel
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.set_weights([KERNEL, BIAS])
    model.compile(loss="mse", metrics=["mae"])

    # Evaluate with our custom test_step
    assert model.evaluate(x, y, verbose=0) == _approx(
        [0.27612242102622986, 0.4418879449367523]
    )
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["mae", "loss"]
    assert logs == _approx({"mae": 0.4418879449367523, "loss": 0.27612242102622986})
    assert model.metrics_names == ["loss", "compile_metrics"]
