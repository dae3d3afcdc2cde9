"""MaxPooling1D, AveragePooling1D and the global poolings, checked against
Keras 3 (tensorflow-cpu 2.21) live or against its stored record (see
``keras_reference``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
from tapemagic.keras import layers

from .keras_reference import Case, check_against_keras, check_error_against_keras
from .layer_checks import (
    assert_gradients_match_finite_differences,
    assert_second_order_matches_finite_differences,
)

MASK = np.array([[True, True, False, True], [False, True, True, False]])

CASES = [
    Case("max_pooling1d", lambda k: k.layers.MaxPooling1D(), ((2, 7, 3),)),
    Case(
        "max_pooling1d_same",
        lambda k: k.layers.MaxPooling1D(3, strides=2, padding="same"),
        ((2, 6, 2),),
    ),
    Case(
        "max_pooling1d_first",
        lambda k: k.layers.MaxPool1D(2, strides=1, data_format="channels_first"),
        ((2, 3, 5),),
    ),
    Case("average_pooling1d", lambda k: k.layers.AveragePooling1D(3), ((2, 7, 3),)),
    Case(
        "average_pooling1d_same",
        lambda k: k.layers.AveragePooling1D(3, strides=2, padding="same"),
        ((2, 6, 2),),
    ),
    Case(
        "average_pooling1d_first",
        lambda k: k.layers.AvgPool1D(2, data_format="channels_first"),
        ((2, 3, 5),),
    ),
    Case(
        "global_average_pooling1d",
        lambda k: k.layers.GlobalAveragePooling1D(),
        ((2, 4, 3),),
    ),  # fmt: skip
    Case(
        "global_average_pooling1d_mask",
        lambda k: k.layers.GlobalAveragePooling1D(keepdims=True),
        ((2, 4, 3),),
        call={"mask": MASK},
    ),
    Case(
        "global_average_pooling1d_first",
        lambda k: k.layers.GlobalAveragePooling1D(data_format="channels_first"),
        ((2, 3, 4),),
    ),
    Case(
        "global_max_pooling1d", lambda k: k.layers.GlobalMaxPooling1D(), ((2, 4, 3),)
    ),  # fmt: skip
    Case(
        "global_max_pooling1d_first_keepdims",
        lambda k: k.layers.GlobalMaxPool1D(data_format="channels_first", keepdims=True),
        ((2, 3, 4),),
    ),
    Case(
        "global_average_pooling2d",
        lambda k: k.layers.GlobalAveragePooling2D(),
        ((2, 3, 4, 2),),
    ),  # fmt: skip
    Case(
        "global_average_pooling2d_first_keepdims",
        lambda k: k.layers.GlobalAvgPool2D(data_format="channels_first", keepdims=True),
        ((2, 2, 3, 4),),
    ),
    Case(
        "global_max_pooling2d", lambda k: k.layers.GlobalMaxPooling2D(), ((2, 3, 4, 2),)
    ),  # fmt: skip
    Case(
        "global_max_pooling2d_first",
        lambda k: k.layers.GlobalMaxPool2D(data_format="channels_first"),
        ((2, 2, 3, 4),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    x = np.random.default_rng(1).standard_normal(case.shapes[0])
    layer = case.make(keras)
    assert_gradients_match_finite_differences(lambda t: layer(t, **case.call), x, [])


def test_second_order_through_a_pool():
    # pools are piecewise linear: their second derivative flows through the
    # function applied after them (max_pool's gradient op has a gradient too)
    x = np.random.default_rng(2).standard_normal((2, 6, 3))
    for layer in (layers.MaxPooling1D(dtype="float64"),
                  layers.AveragePooling1D(3, strides=2, dtype="float64"),
                  layers.GlobalMaxPooling1D(dtype="float64")):  # fmt: skip
        assert_second_order_matches_finite_differences(
            lambda t, layer=layer: keras.activations.tanh(layer(t)) ** 2, x, []
        )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_config_round_trip(case):
    layer = case.make(keras)
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_bad_inputs_and_arguments():
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        layers.MaxPooling1D()(np.zeros((1, 2, 2, 1), np.float32))
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        layers.GlobalAveragePooling2D()(np.zeros((1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="The `padding` argument must be one of"):
        layers.AveragePooling1D(2, padding="full")
    with pytest.raises(ValueError, match="`pool_size` argument must be a tuple of 1"):
        layers.MaxPooling1D(0)
    with pytest.raises(ValueError, match="Computed output size would be negative"):
        layers.MaxPooling1D(4)(np.zeros((1, 3, 1), np.float32))


def test_in_a_functional_model():
    inputs = keras.Input(shape=(None, 3))
    x = layers.MaxPooling1D(2, padding="same")(inputs)
    assert x.shape == (None, None, 3)
    out = layers.GlobalAveragePooling1D()(x)
    assert out.shape == (None, 3)
    model = keras.Model(inputs, out)
    data = np.arange(15.0, dtype=np.float32).reshape(1, 5, 3)
    want = data[:, [1, 3, 4]].mean(axis=1)
    np.testing.assert_allclose(model(data).numpy(), want)


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.MaxPooling1D()(np.zeros((1, 2, 2, 1), np.float32)),
     ValueError, "expected ndim=3, found ndim=4"),
    (lambda k: k.layers.GlobalAveragePooling2D()(np.zeros((1, 2, 2), np.float32)),
     ValueError, "expected ndim=4, found ndim=3"),
    (lambda k: k.layers.MaxPooling1D(0), ValueError,
     "The `pool_size` argument must be a tuple of 1 integers. Received "
     "pool_size=0, including values"),
    (lambda k: k.layers.AveragePooling1D(), TypeError, "pool_size"),
])  # fmt: skip
def test_refused_as_keras_refuses(make, error, words):
    check_error_against_keras(make, error, words)
