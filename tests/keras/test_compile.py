"""compile(): the compiled loss and metrics, as TensorFlow 2.21's Keras 3 has them.

Each expected value and key below was printed by tensorflow-cpu 2.21.0 running
the same code on the same arrays (weights set with ``set_weights``, so both
start alike); values are compared to float32 rounding, names and keys exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers
from tapemagic.keras.models.compile_utils import CompileMetrics

RNG = np.random.default_rng(0)
X = RNG.random((10, 3)).astype("float32")
Y = RNG.random((10, 1)).astype("float32")
SW = RNG.random((10,)).astype("float32")
WEIGHTS = [np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")]

# TensorFlow's loss and mean absolute error of the starting weights on (X, Y)
LOSS, MAE = 0.19477184116840363, 0.3565572500228882


def _model(**compile_args) -> keras.Model:
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    model.set_weights(WEIGHTS)
    if compile_args:
        model.compile(**compile_args)
    return model


def _approx(values):
    if isinstance(values, dict):
        return {k: pytest.approx(v, rel=1e-6) for k, v in values.items()}
    return pytest.approx(values, rel=1e-6)


def test_compiled_metrics_are_one_container_named_compile_metrics():
    model = _model()
    assert model.metrics == []
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    assert model.metrics_names == ["loss", "compile_metrics"]
    container = model.metrics[1]
    assert isinstance(container, CompileMetrics)
    assert repr(container) == "<CompileMetrics name=compile_metrics>"
    with pytest.raises(
        ValueError, match="Cannot get result\\(\\) since the metric has not yet been"
    ):
        container.result()
    model.evaluate(X, Y, verbose=0)
    assert [m.name for m in container.metrics] == ["mae"]
    result = container.result()
    assert list(result) == ["mae"] and float(result["mae"]) == _approx(MAE)
    assert model.metrics_names == ["loss", "compile_metrics"]


def test_evaluate_returns_the_loss_alone_or_a_list_or_a_dict():
    plain = _model(optimizer="sgd", loss="mse")
    assert plain.metrics_names == ["loss"]
    result = plain.evaluate(X, Y, verbose=0)
    assert type(result) is float and result == _approx(LOSS)
    assert plain.evaluate(X, Y, verbose=0, return_dict=True) == _approx({"loss": LOSS})
    model = _model(
        optimizer="sgd",
        loss="mse",
        metrics=["mae", "mse", keras.metrics.RootMeanSquaredError()],
    )
    rmse = 0.44132962822914124
    assert model.evaluate(X, Y, verbose=0) == _approx([LOSS, MAE, LOSS, rmse])
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert list(logs) == ["loss", "mae", "mse", "root_mean_squared_error"]
    assert logs == _approx(
        {"loss": LOSS, "mae": MAE, "mse": LOSS, "root_mean_squared_error": rmse}
    )
    results = model.get_metrics_result()
    assert list(results) == ["loss", "mae", "mse", "root_mean_squared_error"]
    assert all(isinstance(v, tf.Tensor) for v in results.values())


def test_fit_history_has_one_key_per_compiled_metric_and_validation():
    model = _model(
        optimizer="sgd",
        loss="mse",
        metrics=["mae", "mse", keras.metrics.RootMeanSquaredError()],
    )
    history = model.fit(
        X, Y, epochs=1, batch_size=4, shuffle=False, verbose=0, validation_data=(X, Y)
    )
    expected = {
        "loss": [0.1900743991136551],
        "mae": [0.35229453444480896],
        "mse": [0.1900743991136551],
        "root_mean_squared_error": [0.43597522377967834],
        "val_loss": [0.17504966259002686],
        "val_mae": [0.33848899602890015],
        "val_mse": [0.17504966259002686],
        "val_root_mean_squared_error": [0.41838937997817993],
    }
    assert list(history.history) == list(expected)
    assert history.history == _approx(expected)
    sorted_model = _model(optimizer="sgd", loss="mse", metrics=["mse", "mae"])
    history = sorted_model.fit(X, Y, batch_size=4, shuffle=False, verbose=0, epochs=2)
    assert list(history.history) == ["loss", "mae", "mse"]
    assert history.history["mae"] == _approx([0.35229453444480896, 0.334805428981781])


def test_metric_names_from_strings_objects_and_functions():
    def my_error(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)

    model = _model(
        optimizer="sgd",
        loss="mse",
        metrics=[
            keras.metrics.MeanAbsoluteError(),
            my_error,
            lambda a, b: a - b,
            keras.losses.mean_squared_error,
            keras.metrics.MeanSquaredError(name="m2"),
        ],
    )
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert logs == _approx(
        {
            "lambda": -0.2578570246696472,
            "loss": LOSS,
            "m2": LOSS,
            "mean_absolute_error": MAE,
            "mean_squared_error": LOSS,
            "my_error": MAE,
        }
    )
    strings = _model(
        optimizer="sgd", loss="mse", metrics=["mean_absolute_error", "accuracy", "acc"]
    )
    assert list(strings.evaluate(X, Y, verbose=0, return_dict=True)) == [
        "acc",
        "accuracy",
        "loss",
        "mean_absolute_error",
    ]


def test_a_repeated_metric_gets_a_number_and_evaluate_lists_it_as_keras_does():
    model = _model(optimizer="sgd", loss="mse", metrics=["mae", "mae"])
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert logs == _approx({"loss": LOSS, "mae": MAE, "mae_1": MAE})
    # Keras lists the compiled metrics by name, so "mae" comes twice, then the
    # other logs ("mae_1") by name
    assert model.evaluate(X, Y, verbose=0) == _approx([LOSS, MAE, MAE, MAE])
    assert [m.name for m in model.metrics[1].metrics] == ["mae", "mae"]


def test_metrics_must_be_a_list():
    with pytest.raises(
        ValueError,
        match="Expected `metrics` argument to be a list, tuple, or dict. Received "
        "instead: metrics=mae of type <class 'str'>",
    ):
        _model(optimizer="sgd", loss="mse", metrics="mae")


def test_sample_weight_weighs_the_loss_and_only_weighted_metrics():
    model = _model(optimizer="sgd", loss="mse", metrics=["mae"])
    logs = model.evaluate(X, Y, sample_weight=SW, verbose=0, return_dict=True)
    assert logs == _approx({"loss": 0.12856349349021912, "mae": MAE})
    both = _model(
        optimizer="sgd", loss="mse", metrics=["mae"], weighted_metrics=["mae"]
    )
    assert both.metrics_names == ["loss", "compile_metrics"]
    logs = both.evaluate(X, Y, sample_weight=SW, verbose=0, return_dict=True)
    weighted_mae = 0.4409886598587036
    assert logs == _approx(
        {"loss": 0.12856349349021912, "mae": MAE, "weighted_mae": weighted_mae}
    )
    assert both.evaluate(X, Y, sample_weight=SW, verbose=0) == _approx(
        [0.12856349349021912, MAE, MAE, weighted_mae]
    )
    only = _model(optimizer="sgd", loss="mse", weighted_metrics=["mae"])
    logs = only.evaluate(X, Y, sample_weight=SW, verbose=0, return_dict=True)
    assert logs == _approx({"loss": 0.12856349349021912, "mae": weighted_mae})
    fitted = _model(optimizer="sgd", loss="mse", metrics=["mae"])
    history = fitted.fit(
        X, Y, batch_size=4, shuffle=False, verbose=0, epochs=1, sample_weight=SW
    )
    assert history.history == _approx(
        {"loss": [0.12652866542339325], "mae": [0.35418587923049927]}
    )


def test_loss_weights_and_loss_objects():
    weighted = _model(optimizer="sgd", loss="mse", loss_weights=2.0)
    assert weighted.evaluate(X, Y, verbose=0, return_dict=True) == _approx(
        {"loss": 0.38954368233680725}
    )
    model = _model(
        optimizer="sgd", loss=keras.losses.MeanSquaredError(), metrics=["mae"]
    )
    logs = model.evaluate(X, Y, verbose=0, batch_size=3, return_dict=True)
    assert logs == _approx({"loss": LOSS, "mae": 0.35655727982521057})
    picked = _model(optimizer="sgd", loss="ce")
    assert picked.loss == "ce"
    labels = (Y > 0.5).astype("float32")
    assert picked.evaluate(X, labels, verbose=0) == _approx(2.4253315925598145)
    with pytest.raises(NotImplementedError, match="one output"):
        _model(optimizer="sgd", loss=["mse"])


def test_compile_again_keeps_the_loss_and_metrics_not_given():
    model = _model(optimizer="sgd", loss="mse", metrics=["mse", "mae"])
    model.fit(X, Y, batch_size=4, shuffle=False, verbose=0, epochs=2)
    model.compile("adam")
    assert type(model.optimizer).__name__ == "Adam"
    expected = {"loss": 0.1597142517566681, "mae": 0.32469314336776733}
    expected["mse"] = expected["loss"]
    assert model.evaluate(X, Y, verbose=0, return_dict=True) == _approx(expected)
    model.compile("adam", metrics=["mse"])
    assert model.evaluate(X, Y, verbose=0, return_dict=True) == _approx(
        {"loss": expected["loss"], "mse": expected["loss"]}
    )


def test_without_compile_or_loss_the_error_says_what_to_do():
    with pytest.raises(
        ValueError, match="You must call `compile\\(\\)` before using the model"
    ):
        _model().fit(X, Y)
    model = _model(optimizer="sgd")
    with pytest.raises(
        ValueError, match="No loss to compute. Provide a `loss` argument in"
    ):
        model.evaluate(X, Y, verbose=0)
    with pytest.raises(ValueError, match="No loss to compute"):
        model.fit(X, Y, verbose=0)


def test_compute_loss_takes_keras_3_arguments():
    model = _model(optimizer="sgd", loss="mse")
    y_pred = model(X)
    assert float(model.compute_loss(X, Y, y_pred)) == _approx(LOSS)
    weighted = model.compute_loss(y=Y, y_pred=y_pred, sample_weight=SW)
    assert float(weighted) == _approx(0.1285635)
    assert float(model.compute_loss(X, Y, y_pred, SW)) == _approx(0.1285635)
    assert float(model.compute_loss(x=X, y=Y, y_pred=y_pred, training=False)) == (
        _approx(LOSS)
    )


def test_metric_attributes_join_the_compiled_ones():
    class WithMetric(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(1, kernel_initializer="ones")
            self.extra = keras.metrics.Mean(name="extra")

        def call(self, x):
            return self.d(x)

    model = WithMetric()
    assert [m.name for m in model.metrics] == ["extra"]
    model.compile("sgd", "mse", metrics=["mae"])
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics", "extra"]
    with pytest.raises(ValueError, match="has not yet been built"):
        model.get_metrics_result()
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    expected = {"extra": 0.0, "loss": 1.4163185358047485, "mae": 1.059385061264038}
    assert logs == _approx(expected)
    assert model.evaluate(X, Y, verbose=0) == _approx(
        [expected["loss"], expected["mae"], 0.0]
    )
