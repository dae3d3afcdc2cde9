"""Keras models: Sequential, subclassing, functional, summary, gradients, training."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers, losses, metrics

RNG = np.random.default_rng(1)


def _mlp(inputs: int = 3, hidden: int = 4, outputs: int = 2, **kwargs):
    return keras.Sequential(
        [
            keras.Input(shape=(inputs,)),
            layers.Dense(hidden, activation="relu"),
            layers.Dense(outputs),
        ],
        **kwargs,
    )


# -- Sequential -----------------------------------------------------------------------


def test_sequential_with_input_is_built_at_once():
    model = keras.Sequential([keras.Input(shape=(784,)), layers.Dense(10)])
    assert model.built
    assert model.count_params() == 7850
    assert [w.path for w in model.trainable_weights] == [
        f"{model.name}/{model.layers[0].name}/kernel",
        f"{model.name}/{model.layers[0].name}/bias",
    ]
    assert len(model.layers) == 1  # the Input is not listed


def test_sequential_without_input_builds_on_first_call():
    model = keras.Sequential([layers.Dense(4), layers.Dense(2)])
    assert not model.built and model.weights == []
    with pytest.raises(ValueError, match="isn't built"):
        model.count_params()
    y = model(np.ones((5, 3), np.float32))
    assert y.shape == (5, 2) and model.built
    assert model.count_params() == (3 * 4 + 4) + (4 * 2 + 2)


def test_sequential_matches_composing_its_layers():
    model = _mlp()
    x = RNG.standard_normal((6, 3)).astype(np.float32)
    k1, b1, k2, b2 = model.get_weights()
    expected = np.maximum(x @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(model(x, training=False).numpy(), expected, rtol=1e-5)


def test_sequential_add_pop_and_explicit_build():
    model = keras.Sequential(name="stack")
    model.add(layers.Dense(3))
    model.add(layers.Dense(1))
    model.build((None, 5))
    assert model.built and [tuple(w.shape) for w in model.weights] == [
        (5, 3),
        (3,),
        (3, 1),
        (1,),
    ]
    assert model.weights[0].path.startswith("stack/")
    last = model.pop()
    assert isinstance(last, layers.Dense) and len(model.layers) == 1


def test_sequential_legacy_input_shape_argument():
    with pytest.warns(UserWarning, match="input_shape"):
        dense = layers.Dense(2, input_shape=(3,))
    model = keras.Sequential([dense])
    assert model.built and model.count_params() == 8


def test_sequential_rejects_non_layers_and_duplicate_names():
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`"):
        keras.Sequential([lambda x: x])
    with pytest.raises(ValueError, match="unique names"):
        keras.Sequential([layers.Dense(1, name="d"), layers.Dense(1, name="d")])


def test_summary_prints_layers_shapes_and_params(capsys):
    keras.backend.clear_session()
    model = keras.Sequential(
        [
            keras.Input(shape=(784,)),
            layers.Dense(64, activation="relu"),
            layers.Dense(10),
        ]
    )
    model.summary()
    text = capsys.readouterr().out
    assert 'Model: "sequential"' in text
    assert "dense (Dense)" in text and "dense_1 (Dense)" in text
    assert "(None, 64)" in text and "(None, 10)" in text
    assert "50,240" in text and "650" in text
    # 50,890 float32 weights are 203,560 bytes = 198.79 KB
    assert "Total params: 50,890 (198.79 KB)" in text
    assert "Trainable params: 50,890 (198.79 KB)" in text
    assert "Non-trainable params: 0 (0.00 B)" in text


def test_summary_of_an_unbuilt_model(capsys):
    model = keras.Sequential([layers.Dense(2, name="late")])
    model.summary()
    text = capsys.readouterr().out
    assert "late (Dense)" in text and "?" in text and "0 (unbuilt)" in text


def test_summary_print_fn():
    lines = []
    _mlp().summary(print_fn=lines.append)
    assert len(lines) == 1 and "Total params: 26" in lines[0]


# -- Model subclassing -----------------------------------------------------------------


class TwoLayer(keras.Model):
    def __init__(self):
        super().__init__()
        # set in this order; called in the opposite order
        self.head = layers.Dense(2, name="head")
        self.body = layers.Dense(3, name="body")

    def call(self, x, training=None):
        return self.head(self.body(x))


def test_subclassed_model_weights_follow_attribute_order():
    model = TwoLayer()
    model(np.ones((1, 4), np.float32))
    assert [w.path for w in model.trainable_weights] == [
        f"{model.name}/head/kernel",
        f"{model.name}/head/bias",
        f"{model.name}/body/kernel",
        f"{model.name}/body/bias",
    ]
    assert [layer.name for layer in model.layers] == ["head", "body"]
    assert model.get_layer("body").kernel.shape == (4, 3)
    assert model.count_params() == (4 * 3 + 3) + (3 * 2 + 2)


def test_nested_layers_in_lists_and_models_are_collected():
    class Tower(keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [layers.Dense(3), layers.Dense(3)]
            self.inner = keras.Sequential([layers.Dense(2)])

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return self.inner(x)

    model = Tower()
    model(np.ones((1, 3), np.float32))
    shapes = [tuple(w.shape) for w in model.trainable_weights]
    assert shapes == [(3, 3), (3,), (3, 3), (3,), (3, 2), (2,)]
    model.trainable = False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 6
    assert model.inner.layers[0].trainable is False


def test_model_build_creates_weights_with_a_none_batch():
    model = TwoLayer()
    model.build((None, 4))
    assert model.built and len(model.weights) == 4
    assert model.get_layer("head")._build_output_shape == (None, 2)


def test_subclass_without_call_is_explained():
    class Empty(keras.Model):
        pass

    with pytest.raises(NotImplementedError, match="call"):
        Empty()(np.ones((1, 2), np.float32))


# -- functional models -----------------------------------------------------------------


def test_functional_model_matches_the_layer_calls():
    inputs = keras.Input(shape=(3,))
    hidden = layers.Dense(5, activation="tanh")
    out = layers.Dense(2)
    model = keras.Model(inputs=inputs, outputs=out(hidden(inputs)))
    assert isinstance(model, keras.models.Functional)
    assert isinstance(model.layers[0], layers.InputLayer)
    assert model.layers[1:] == [hidden, out]
    assert [layer._build_output_shape for layer in model.layers] == [
        (None, 3),
        (None, 5),
        (None, 2),
    ]
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(model(x).numpy(), out(hidden(x)).numpy(), rtol=1e-6)
    assert model.count_params() == 3 * 5 + 5 + 5 * 2 + 2


def test_functional_graph_must_reach_the_inputs():
    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(a, layers.Dense(1)(b))


# -- gradients -------------------------------------------------------------------------


def test_loss_gradient_matches_finite_differences():
    tf.random.set_seed(0)
    model = keras.Sequential(
        [
            keras.Input(shape=(3,), dtype="float64"),
            layers.Dense(4, activation="tanh", dtype="float64"),
            layers.Dense(3, dtype="float64"),
        ]
    )
    loss_fn = losses.SparseCategoricalCrossentropy(from_logits=True, dtype="float64")
    x = RNG.standard_normal((5, 3))
    y = np.array([0, 2, 1, 1, 0])
    weights = model.trainable_weights
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
    grads = tape.gradient(loss, weights)
    assert [g.shape for g in grads] == [w.shape for w in weights]
    assert all(g.dtype == tf.float64 for g in grads)

    base = [w.numpy() for w in weights]

    def loss_at(step: float, direction: list) -> float:
        for w, w0, d in zip(weights, base, direction):
            w.assign(w0 + step * d)
        return float(loss_fn(y, model(x)))

    h = 1e-6
    for _ in range(3):
        direction = [RNG.standard_normal(w0.shape) for w0 in base]
        numeric = (loss_at(h, direction) - loss_at(-h, direction)) / (2 * h)
        analytic = sum(float(np.sum(g.numpy() * d)) for g, d in zip(grads, direction))
        assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-9)
    for w, w0 in zip(weights, base):
        w.assign(w0)


# -- training --------------------------------------------------------------------------


def _digits():
    x, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = (x[order] / 16.0).astype(np.float32), y[order]
    return (x[:1400], y[:1400]), (x[1400:], y[1400:])


def test_custom_train_step_learns_digits():
    (x_train, y_train), (x_test, y_test) = _digits()
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input(shape=(64,)),
            layers.Dense(64, activation="relu"),
            layers.Dense(10),
        ]
    )
    loss_fn = losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.Adam(learning_rate=1e-2)

    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        return float(loss)

    first_epoch_losses = []
    for epoch in range(8):
        for start in range(0, len(x_train), 32):
            loss = train_step(x_train[start : start + 32], y_train[start : start + 32])
            if epoch == 0:
                first_epoch_losses.append(loss)
    accuracy = metrics.SparseCategoricalAccuracy()
    accuracy.update_state(y_test, model(x_test, training=False))
    assert float(accuracy.result()) >= 0.9
    assert loss < first_epoch_losses[0]


def test_compile_fit_evaluate_predict_on_digits():
    (x_train, y_train), (x_test, y_test) = _digits()
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [layers.Dense(32, activation="relu"), layers.Dropout(0.1), layers.Dense(10)]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate=1e-2),
        loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = model.fit(
        x_train, y_train, epochs=6, batch_size=32, validation_data=(x_test, y_test),
        verbose=0,
    )  # fmt: skip
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert len(history.history["loss"]) == 6 and history.epoch == list(range(6))
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    assert accuracy >= 0.9
    assert loss == pytest.approx(history.history["val_loss"][-1], rel=1e-6)
    predictions = model.predict(x_test, verbose=0)
    assert isinstance(predictions, np.ndarray) and predictions.shape == (397, 10)
    np.testing.assert_allclose(
        predictions, model(x_test, training=False).numpy(), rtol=1e-5, atol=1e-6
    )
    assert float(np.mean(predictions.argmax(1) == y_test)) == pytest.approx(accuracy)
    # fit built the model for any batch size
    assert model.layers[0]._build_input_shape == (None, 64)


def test_epoch_loss_is_the_mean_over_all_examples():
    # with a learning rate of 0 every batch sees the same weights, so the epoch's
    # batch-size-weighted mean of batch losses is the loss on the whole set
    x = RNG.standard_normal((50, 3)).astype(np.float32)
    y = RNG.standard_normal((50, 1)).astype(np.float32)
    model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    kernel, bias = model.get_weights()
    expected = np.mean((x @ kernel + bias - y) ** 2)
    assert history.history["loss"] == [pytest.approx(expected, rel=1e-5)] * 2
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-5)


def test_fit_learns_a_line_with_sgd():
    x = np.linspace(-1, 1, 64, dtype=np.float32)[:, None]
    y = 3 * x - 1
    keras.utils.set_random_seed(0)
    model = keras.Sequential([layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.3), loss="mse")
    model.fit(x, y, epochs=40, batch_size=16, verbose=0)
    kernel, bias = model.get_weights()
    assert kernel[0, 0] == pytest.approx(3.0, abs=1e-2)
    assert bias[0] == pytest.approx(-1.0, abs=1e-2)


def test_fit_is_reproducible_with_a_seed():
    (x_train, y_train), _ = _digits()

    def run():
        keras.utils.set_random_seed(5)
        model = keras.Sequential([layers.Dense(8, activation="relu"), layers.Dense(10)])
        model.compile(
            optimizer="adam",
            loss=losses.SparseCategoricalCrossentropy(from_logits=True),
        )
        return model.fit(x_train[:256], y_train[:256], epochs=2, verbose=0).history

    assert run() == run()


@pytest.mark.parametrize(
    ("labels", "units", "expected"),
    [
        (np.array([0, 1, 1, 0]), 2, metrics.SparseCategoricalAccuracy),
        (np.eye(2)[[0, 1, 1, 0]], 2, metrics.CategoricalAccuracy),
        (np.array([[0.0], [1.0], [1.0], [0.0]]), 1, metrics.BinaryAccuracy),
    ],
)
def test_accuracy_string_picks_the_accuracy_for_the_labels(labels, units, expected):
    model = keras.Sequential([keras.Input(shape=(2,)), layers.Dense(units)])
    loss = "binary_crossentropy" if units == 1 else "mse"
    if expected is metrics.SparseCategoricalAccuracy:
        loss = "sparse_categorical_crossentropy"
    model.compile(optimizer="sgd", loss=loss, metrics=["accuracy"])
    logs = model.evaluate(np.ones((4, 2)), labels, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "accuracy"}
    # the compiled metrics live in one container, as in Keras 3
    assert [type(m) for m in model.metrics[1].metrics] == [expected]


def test_validation_split_verbose_output_and_callbacks(capsys):
    x = RNG.standard_normal((40, 2)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)[:, None]
    model = keras.Sequential([layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])

    class StopAfterTwo(keras.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.seen = sorted(logs)
            if epoch == 1:
                self.model.stop_training = True

    stopper = StopAfterTwo()
    history = model.fit(
        x, y, epochs=5, validation_split=0.25, callbacks=[stopper], verbose=1
    )
    out = capsys.readouterr().out
    assert "Epoch 1/5" in out and "Epoch 2/5" in out and "Epoch 3/5" not in out
    assert "1/1 - " in out  # 30 training examples (10 held out): one batch of 32
    assert len(history.history["loss"]) == 2
    assert stopper.seen == ["accuracy", "loss", "val_accuracy", "val_loss"]


def test_overridden_train_step_is_used_by_fit():
    class Tracked(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)
            self.loss_tracker = metrics.Mean(name="loss")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y - y_pred))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            self.loss_tracker.update_state(loss)
            return {"loss": self.loss_tracker.result()}

        @property
        def metrics(self):
            return [self.loss_tracker]

    x = RNG.standard_normal((64, 2)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0]], np.float32)
    model = Tracked()
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1))
    history = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
    losses_by_epoch = history.history["loss"]
    assert all(type(value) is float for value in losses_by_epoch)
    assert losses_by_epoch[-1] < losses_by_epoch[0] / 4
    # the tracker was reset each epoch: 4 batches per epoch
    assert float(model.loss_tracker.count) == 4.0


def test_fit_before_compile_and_without_loss():
    model = _mlp()
    with pytest.raises(ValueError, match="must call `compile\\(\\)`"):
        model.fit(np.ones((2, 3)), np.ones((2, 2)))
    model.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="No loss to compute"):
        model.fit(np.ones((2, 3)), np.ones((2, 2)), verbose=0)
    with pytest.raises(ValueError, match="Could not interpret optimizer"):
        model.compile(optimizer="adagrad2", loss="mse")
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="Data cardinality"):
        model.fit(np.ones((3, 3)), np.ones((2, 2)), verbose=0)


def test_evaluate_and_sample_weight():
    model = keras.Sequential([keras.Input(shape=(1,)), layers.Dense(1)])
    model.set_weights([np.ones((1, 1), np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.array([[1.0], [2.0]], np.float32)
    y = np.zeros((2, 1), np.float32)  # squared errors 1 and 4
    assert model.evaluate(x, y, verbose=0) == pytest.approx(2.5)
    weighted = model.evaluate(x, y, sample_weight=np.array([1.0, 0.0]), verbose=0)
    assert weighted == pytest.approx(0.5)
    assert model.evaluate(x, y, verbose=0, return_dict=True) == {
        "loss": pytest.approx(2.5)
    }


def test_early_stopping_restores_the_best_weights():
    x = RNG.standard_normal((32, 2)).astype(np.float32)
    y = x @ np.array([[1.0], [1.0]], np.float32)
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(2,)), layers.Dense(1)])
    # a learning rate this large makes the loss grow after the first epochs
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=1.5), loss="mse")
    stop = keras.callbacks.EarlyStopping(
        monitor="loss", patience=2, restore_best_weights=True
    )
    history = model.fit(x, y, epochs=50, batch_size=32, callbacks=[stop], verbose=0)
    losses_seen = history.history["loss"]
    best = int(np.argmin(losses_seen))
    assert len(losses_seen) == best + 3  # two epochs without improvement
    assert stop.stopped_epoch == best + 2 and stop.best_epoch == best
    # the restored weights are those after the best epoch; evaluate reproduces the
    # loss of the epoch that followed it (its weights were updated once more)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(
        losses_seen[best + 1], rel=1e-5
    )


def test_early_stopping_mode_and_missing_metric():
    assert keras.callbacks.EarlyStopping(monitor="val_accuracy").mode == "max"
    assert keras.callbacks.EarlyStopping().mode == "min"
    with pytest.raises(ValueError, match="mode"):
        keras.callbacks.EarlyStopping(mode="best")
    stop = keras.callbacks.EarlyStopping(monitor="val_loss")
    with pytest.warns(UserWarning, match="not available"):
        stop.on_epoch_end(0, {"loss": 1.0})


def test_model_configuration_errors_are_explained():
    model = _mlp()
    with pytest.raises(NotImplementedError, match="loss_weights"):
        model.compile(optimizer="sgd", loss="mse", loss_weights=[1.0])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(NotImplementedError, match="class_weight"):
        model.fit(np.ones((2, 3)), np.ones((2, 2)), class_weight={0: 1.0})
    with pytest.raises(ValueError, match="Could not interpret metric"):
        model.compile(optimizer="sgd", loss="mse", metrics=[3])
        model.evaluate(np.ones((2, 3)), np.ones((2, 2)), verbose=0)

    class Plain(keras.Model):
        pass

    with pytest.raises(TypeError, match="keyword arguments only"):
        Plain("positional")
    with pytest.raises(ValueError, match="must come from `keras.Input`"):
        keras.Model(inputs=np.ones((1, 2)), outputs=np.ones((1, 2)))
    with pytest.raises(ValueError, match="cannot be built because it has no layers"):
        keras.Sequential().build((None, 2))
    with pytest.raises(ValueError, match="an Input can only be its first entry"):
        keras.Sequential([layers.Dense(1), keras.Input(shape=(2,))])
    with pytest.raises(ValueError, match="already been configured to use input shape"):
        _mlp().build((None, 5))
    with pytest.raises(ValueError, match="No such layer"):
        model.get_layer("nope")


def test_metrics_by_function_and_loss_name():
    x = np.array([[1.0], [2.0]], np.float32)
    y = np.array([[1.0], [4.0]], np.float32)
    model = keras.Sequential([keras.Input(shape=(1,)), layers.Dense(1)])
    model.set_weights([np.ones((1, 1), np.float32), np.zeros(1, np.float32)])
    model.compile(
        optimizer="sgd", loss="mse", metrics=["mae", losses.mean_squared_error]
    )
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs == {
        "loss": pytest.approx(2.0),
        "mae": pytest.approx(1.0),
        "mean_squared_error": pytest.approx(2.0),
    }
    assert model.metrics_names == ["loss", "compile_metrics"]
