"""LeakyReLU, ReLU, ELU and PReLU, checked against Keras 3 (tensorflow-cpu 2.21)
live or against its stored record (see ``keras_reference``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.keras as keras
from tapemagic.keras import layers

from .keras_reference import Case, check_against_keras, check_error_against_keras
from .layer_checks import (
    assert_gradients_match_finite_differences,
    assert_second_order_matches_finite_differences,
)

CASES = [
    Case("leaky_relu", lambda k: k.layers.LeakyReLU(), ((3, 4),)),
    Case("leaky_relu_slope", lambda k: k.layers.LeakyReLU(0.05), ((2, 3, 2),)),
    Case("relu", lambda k: k.layers.ReLU(), ((3, 4),)),
    Case(
        "relu_capped_leaky_shifted",
        lambda k: k.layers.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.5),
        ((4, 5),),
    ),
    Case("elu", lambda k: k.layers.ELU(), ((3, 4),), second_order=True),
    Case("elu_alpha", lambda k: k.layers.ELU(alpha=0.5), ((3, 4),)),
    Case("prelu", lambda k: k.layers.PReLU(), ((3, 4),), second_order=True),
    Case(
        "prelu_shared",
        lambda k: k.layers.PReLU(alpha_initializer="ones", shared_axes=[1, 2]),
        ((2, 3, 3, 2),),
        second_order=True,
    ),
    Case("prelu_shared_int", lambda k: k.layers.PReLU(shared_axes=1), ((2, 3, 2),)),
]

# the layers with second derivatives (the others are piecewise linear)
SECOND_ORDER = {"elu", "elu_alpha", "prelu", "prelu_shared", "prelu_shared_int"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(case.shapes[0])
    layer = case.make(keras)
    layer(x)
    for w in layer.weights:
        w.assign(rng.standard_normal(tuple(w.shape)))
    assert_gradients_match_finite_differences(layer, x, layer.trainable_weights)
    if case.name in SECOND_ORDER:
        assert_second_order_matches_finite_differences(
            layer, x, layer.trainable_weights
        )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_config_round_trip(case):
    layer = case.make(keras)
    config = layer.get_config()
    copy = type(layer).from_config(config)
    assert copy.get_config() == config


def test_prelu_weight_and_input_checks():
    layer = layers.PReLU(shared_axes=[1, 2], name="p")
    layer(np.zeros((2, 4, 4, 3), np.float32))
    assert [(w.path, tuple(w.shape)) for w in layer.weights] == [("p/alpha", (1, 1, 3))]
    layer(np.zeros((1, 6, 5, 3), np.float32))  # shared axes may change size
    with pytest.raises(ValueError, match="expected axis 3 of input shape to have "
                       "value 3"):  # fmt: skip
        layer(np.zeros((1, 4, 4, 2), np.float32))
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        layer(np.zeros((1, 4, 3), np.float32))
    with pytest.raises(NotImplementedError, match="alpha_regularizer"):
        layers.PReLU(alpha_regularizer="l2")


def test_leaky_relu_arguments_as_keras():
    with pytest.raises(ValueError, match="cannot be None or negative value"):
        layers.LeakyReLU(-0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = layers.LeakyReLU(alpha=0.1)
    assert layer.negative_slope == 0.1
    assert "Argument `alpha` is deprecated" in str(caught[0].message)
    assert layer.built  # no weights: built when made, as in Keras


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.LeakyReLU(-0.1), ValueError,
     "The negative_slope value of a Leaky ReLU layer cannot be None or negative "
     "value"),
    (lambda k: k.layers.ReLU(max_value=-1.0), ValueError,
     "max_value of a ReLU layer cannot be a negative value"),
])  # fmt: skip
def test_refused_as_keras_refuses(make, error, words):
    check_error_against_keras(make, error, words)
