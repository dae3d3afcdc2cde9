"""Reshape, Permute, RepeatVector, the paddings, croppings and upsamplings.

Each case runs on tapemagic and on Keras 3 (tensorflow-cpu 2.21) with the same
inputs: outputs, gradients, output shapes and configs agree (see
``keras_reference``; the stored record stands in where TensorFlow is absent).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
from tapemagic.keras import layers

from .keras_reference import Case, check_against_keras, check_error_against_keras
from .layer_checks import (
    assert_gradients_match_finite_differences,
)

CASES = [
    Case("reshape", lambda k: k.layers.Reshape((3, -1)), ((2, 12),)),
    Case("reshape_3d", lambda k: k.layers.Reshape((2, 2, 3)), ((2, 3, 4),)),
    Case("permute", lambda k: k.layers.Permute((3, 1, 2)), ((2, 3, 4, 5),)),
    Case("repeat_vector", lambda k: k.layers.RepeatVector(3), ((2, 4),)),
    Case("zero_padding1d", lambda k: k.layers.ZeroPadding1D((1, 2)), ((2, 3, 4),)),
    Case(
        "zero_padding1d_first",
        lambda k: k.layers.ZeroPadding1D(2, data_format="channels_first"),
        ((2, 3, 4),),
    ),
    Case("zero_padding2d", lambda k: k.layers.ZeroPadding2D(), ((2, 3, 4, 2),)),
    Case(
        "zero_padding2d_pairs",
        lambda k: k.layers.ZeroPadding2D(((1, 0), (2, 3))),
        ((1, 3, 2, 2),),
    ),
    Case(
        "zero_padding2d_first",
        lambda k: k.layers.ZeroPadding2D((1, 2), data_format="channels_first"),
        ((1, 2, 3, 2),),
    ),
    Case("cropping1d", lambda k: k.layers.Cropping1D((2, 1)), ((2, 6, 3),)),
    Case("cropping2d", lambda k: k.layers.Cropping2D(1), ((2, 5, 6, 2),)),
    Case(
        "cropping2d_pairs",
        lambda k: k.layers.Cropping2D(((1, 0), (0, 2))),
        ((1, 4, 5, 2),),
    ),
    Case(
        "cropping2d_first",
        lambda k: k.layers.Cropping2D((1, 2), data_format="channels_first"),
        ((1, 2, 4, 6),),
    ),
    Case("up_sampling1d", lambda k: k.layers.UpSampling1D(3), ((2, 3, 2),)),
    Case("up_sampling2d", lambda k: k.layers.UpSampling2D(), ((2, 2, 3, 2),)),
    Case(
        "up_sampling2d_first",
        lambda k: k.layers.UpSampling2D((1, 3), data_format="channels_first"),
        ((1, 2, 2, 3),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(case.shapes[0])
    layer = case.make(keras)
    assert_gradients_match_finite_differences(layer, x, [])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_config_round_trip(case):
    layer = case.make(keras)
    config = layer.get_config()
    copy = type(layer).from_config(config)
    assert copy.get_config() == config
    x = np.random.default_rng(2).standard_normal(case.shapes[0]).astype(np.float32)
    np.testing.assert_array_equal(copy(x).numpy(), layer(x).numpy())


def test_in_a_functional_model_with_unknown_batch():
    inputs = keras.Input(shape=(12,))
    x = layers.Reshape((3, 4))(inputs)
    x = layers.Permute((2, 1))(x)
    x = layers.ZeroPadding1D(1)(x)
    x = layers.UpSampling1D(2)(x)
    x = layers.Cropping1D((1, 1))(x)
    assert x.shape == (None, 10, 3)
    model = keras.Model(inputs, x)
    data = np.arange(24.0, dtype=np.float32).reshape(2, 12)
    want = np.repeat(np.pad(data.reshape(2, 3, 4).transpose(0, 2, 1),
                            ((0, 0), (1, 1), (0, 0))), 2, axis=1)[:, 1:-1]  # fmt: skip
    np.testing.assert_array_equal(model(data).numpy(), want)
    assert layers.Reshape((-1, 2)).compute_output_shape((None, None)) == (None, None, 2)


# Keras 3.15's words for each bad argument or input, which tapemagic keeps
@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.Reshape((-2, 3)), ValueError,
     "Each dimension in `target_shape` must be a non-negative integer"),
    (lambda k: k.layers.Reshape((-1, -1)), ValueError,
     "There must be at most one unknown dimension"),
    (lambda k: k.layers.Permute((1, 3)), ValueError,
     "Invalid permutation argument `dims` for Permute Layer"),
    (lambda k: k.layers.RepeatVector(2.0), TypeError,
     "Expected an integer value for `n`"),
    (lambda k: k.layers.RepeatVector(0), ValueError,
     "Argument `n` should be a positive integer. Received: n=0"),
    (lambda k: k.layers.ZeroPadding1D(-1), ValueError,
     r"The `padding` argument must be a tuple of 2 integers. Received padding=-1, "
     r"including values \{-1\} that do not satisfy `value >= 0`"),
    (lambda k: k.layers.ZeroPadding2D((1, 2, 3)), ValueError,
     "`padding` should have two elements"),
    (lambda k: k.layers.Cropping2D(-1), ValueError, "`cropping` cannot be negative"),
    (lambda k: k.layers.Cropping2D(1.5), ValueError,
     "`cropping` should be either an int"),
    (lambda k: k.layers.UpSampling1D(0), ValueError,
     "Argument `size` should be a positive integer"),
    (lambda k: k.layers.ZeroPadding2D(data_format="nhwc"), ValueError,
     "The `data_format` argument must be one of"),
    (lambda k: k.layers.Reshape((5, -1))(np.zeros((2, 12), np.float32)),
     ValueError, "The total size of the tensor must be unchanged, however, the "
     "input size cannot by divided"),
    (lambda k: k.layers.Reshape((5, 2))(np.zeros((2, 12), np.float32)),
     ValueError, "The total size of the tensor must be unchanged. Received: "
     "input_shape="),
    (lambda k: k.layers.Permute((2, 1))(np.zeros((2, 3, 4, 5), np.float32)),
     ValueError, "expected ndim=3, found ndim=4"),
    (lambda k: k.layers.RepeatVector(2)(np.zeros((2, 3, 4), np.float32)),
     ValueError, "expected ndim=2, found ndim=3"),
    (lambda k: k.layers.Cropping2D(2)(np.zeros((1, 4, 6, 1), np.float32)),
     ValueError, "Values in `cropping` argument should be smaller than the "
     "corresponding spatial dimension"),
    (lambda k: k.layers.ZeroPadding2D()(np.zeros((2, 3, 4), np.float32)),
     ValueError, "expected ndim=4, found ndim=3"),
])  # fmt: skip
def test_bad_arguments_and_inputs_are_refused_as_keras_refuses_them(make, error, words):
    check_error_against_keras(make, error, words)


def test_what_tapemagic_leaves_out_is_refused_with_what_to_do():
    with pytest.raises(NotImplementedError, match="interpolation='nearest'"):
        layers.UpSampling2D(interpolation="bilinear")
    # Keras 3 checks the cropping only when the layer is built
    with pytest.raises(ValueError, match="must be smaller than the input length"):
        layers.Cropping1D(3)(np.zeros((1, 5, 1), np.float32))
