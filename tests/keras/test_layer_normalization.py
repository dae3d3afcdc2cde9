"""LayerNormalization and GroupNormalization, checked against Keras 3
(tensorflow-cpu 2.21) live or against its stored record (see
``keras_reference``): outputs, first derivatives and TensorFlow's second
derivatives (the variance around a stopped mean, as ``tf.nn.moments``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
from tapemagic.keras import layers

from .keras_reference import Case, check_against_keras, check_error_against_keras
from .layer_checks import assert_gradients_match_finite_differences

CASES = [
    Case(
        "layer_norm",
        lambda k: k.layers.LayerNormalization(),
        ((3, 5),),
        second_order=True,
    ),  # fmt: skip
    Case(
        "layer_norm_axes",
        lambda k: k.layers.LayerNormalization(axis=[1, 2], epsilon=1e-5),
        ((2, 3, 4, 2),),
        second_order=True,
    ),
    Case(
        "layer_norm_axis_1",
        lambda k: k.layers.LayerNormalization(axis=1, center=False),
        ((2, 4, 3),),
        second_order=True,
    ),
    Case(
        "layer_norm_no_scale",
        lambda k: k.layers.LayerNormalization(axis=-2, scale=False),
        ((2, 4, 3),),
    ),
    Case(
        "group_norm",
        lambda k: k.layers.GroupNormalization(groups=2),
        ((2, 3, 3, 4),),
        second_order=True,
    ),
    Case(
        "group_norm_instance",
        lambda k: k.layers.GroupNormalization(groups=-1, epsilon=1e-4),
        ((2, 5, 3),),
        second_order=True,
    ),
    Case(
        "group_norm_axis_1",
        lambda k: k.layers.GroupNormalization(groups=3, axis=1, center=False),
        ((2, 6, 2, 2),),
    ),
    Case(
        "group_norm_one_group",
        lambda k: k.layers.GroupNormalization(groups=1),
        ((2, 4),),
    ),  # fmt: skip
]


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


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_config_round_trip(case):
    layer = case.make(keras)
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_normalizes_each_example():
    x = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32) * 5 + 2
    out = layers.LayerNormalization(epsilon=0.0)(x).numpy()
    np.testing.assert_allclose(out.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(axis=1), 1, atol=1e-5)
    grouped = layers.GroupNormalization(groups=2, epsilon=0.0)(x).numpy()
    halves = grouped.reshape(4, 2, 3)
    np.testing.assert_allclose(halves.mean(axis=2), 0, atol=1e-5)
    np.testing.assert_allclose(halves.std(axis=2), 1, atol=1e-5)


def test_weights_and_built_config():
    layer = layers.LayerNormalization(axis=[2, 1], name="ln")
    layer(np.zeros((2, 3, 4), np.float32))
    assert [(w.path, tuple(w.shape)) for w in layer.weights] == [
        ("ln/gamma", (3, 4)),
        ("ln/beta", (3, 4)),
    ]
    assert layer.get_config()["axis"] == [1, 2]
    group = layers.GroupNormalization(groups=-1, name="gn")
    group(np.zeros((1, 2, 5), np.float32))
    assert group.get_config()["groups"] == 5
    assert [(w.path, tuple(w.shape)) for w in group.weights] == [
        ("gn/gamma", (5,)),
        ("gn/beta", (5,)),
    ]


def test_bad_arguments_and_inputs():
    with pytest.raises(TypeError, match="Expected an int or a list/tuple of ints"):
        layers.LayerNormalization(axis="last")
    with pytest.raises(IndexError, match="Axis 3 is out of bounds for input shape"):
        layers.LayerNormalization(axis=3)(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="Axis 2 is out of bounds for input shape"):
        layers.LayerNormalization(axis=2).compute_output_shape((None, 3))
    with pytest.raises(ValueError, match="Received an invalid value for argument "
                       "`groups`"):  # fmt: skip
        layers.GroupNormalization(groups=0)
    with pytest.raises(ValueError, match=r"Number of groups \(4\) must be a multiple"):
        layers.GroupNormalization(groups=4)(np.zeros((1, 6), np.float32))
    with pytest.raises(ValueError, match=r"Number of groups \(8\) cannot be more"):
        layers.GroupNormalization(groups=8)(np.zeros((1, 6), np.float32))
    group = layers.GroupNormalization(groups=2, name="g")
    group(np.zeros((1, 4), np.float32))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have "
                       "value 4"):  # fmt: skip
        group(np.zeros((1, 6), np.float32))
    with pytest.raises(NotImplementedError, match="rms_scaling"):
        layers.LayerNormalization(rms_scaling=True)


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.LayerNormalization(axis="last"), TypeError,
     "Expected an int or a list/tuple of ints for the argument 'axis'"),
    (lambda k: k.layers.LayerNormalization(axis=3)(np.zeros((2, 3), np.float32)),
     IndexError, "tuple index out of range"),
    (lambda k: k.layers.GroupNormalization(groups=0), ValueError,
     "Received an invalid value for argument `groups`"),
    (lambda k: k.layers.GroupNormalization(groups=4)(np.zeros((1, 6), np.float32)),
     ValueError, r"Number of groups \(4\) must be a multiple"),
    (lambda k: k.layers.GroupNormalization(groups=8)(np.zeros((1, 6), np.float32)),
     ValueError, r"Number of groups \(8\) cannot be more"),
])  # fmt: skip
def test_refused_as_keras_refuses(make, error, words):
    check_error_against_keras(make, error, words)
