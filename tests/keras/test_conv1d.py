"""Conv1D, checked against Keras 3 (tensorflow-cpu 2.21) live or against its
stored record (see ``keras_reference``): outputs and the gradients with respect
to the input, the kernel and the bias."""

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

# the initializers' seeds differ (tapemagic draws one), so their configs are
# left out of the comparison
SKIP = ("kernel_initializer",)

CASES = [
    Case(
        "valid",
        lambda k: k.layers.Conv1D(4, 3),
        ((2, 7, 3),),
        skip_config=SKIP,
        second_order=True,
    ),
    Case(
        "same_strided_tanh",
        lambda k: k.layers.Conv1D(2, 4, strides=2, padding="same", activation="tanh"),
        ((2, 7, 3),),
        skip_config=SKIP,
        second_order=True,
    ),
    Case(
        "causal_dilated",
        lambda k: k.layers.Conv1D(3, 2, padding="causal", dilation_rate=2),
        ((2, 6, 2),),
        skip_config=SKIP,
        second_order=True,
    ),
    Case(
        "no_bias_relu",
        lambda k: k.layers.Conv1D(2, 3, use_bias=False, activation="relu"),
        ((2, 6, 3),),
        skip_config=SKIP,
        second_order=True,
    ),
]
# TensorFlow's CPU kernels take no NCHW convolution; the channels_first layer
# is checked as the transpose of channels_last below.


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
    # a convolution is bilinear: the second derivative mixes input and kernel
    assert_second_order_matches_finite_differences(layer, x, layer.trainable_weights)


def test_is_conv2d_on_one_row_images():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 9, 3)).astype(np.float32)
    conv1 = layers.Conv1D(4, 3, strides=2, padding="same")
    conv1(x)
    conv2 = layers.Conv2D(4, (1, 3), strides=(1, 2), padding="same")
    conv2(x[:, None])
    conv2.set_weights([conv1.kernel.numpy()[None], conv1.bias.numpy()])
    np.testing.assert_allclose(conv1(x).numpy(), conv2(x[:, None]).numpy()[:, 0],
                               atol=1e-6)  # fmt: skip


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_channels_first_is_channels_last_transposed(padding):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 7, 3)).astype(np.float32)
    last = layers.Conv1D(4, 3, strides=2, padding=padding, bias_initializer="ones")
    first = layers.Conv1D(
        4, 3, strides=2, padding=padding, data_format="channels_first",
        bias_initializer="ones",
    )  # fmt: skip
    want = last(x).numpy()
    first(np.moveaxis(x, -1, 1))
    first.set_weights([last.kernel.numpy(), np.arange(4.0, dtype=np.float32)])
    last.bias.assign(np.arange(4.0, dtype=np.float32))
    want = last(x).numpy()
    got = first(np.moveaxis(x, -1, 1)).numpy()
    np.testing.assert_allclose(got, np.moveaxis(want, -1, 1), atol=1e-6)
    assert first.compute_output_shape((None, 3, 7)) == (None, 4, want.shape[1])


def test_causal_output_never_depends_on_later_steps():
    layer = layers.Conv1D(1, 3, padding="causal", dilation_rate=2)
    x = np.zeros((1, 8, 1), np.float32)
    base = layer(x).numpy()
    x[0, 5] = 1.0
    changed = np.flatnonzero(np.abs(layer(x).numpy() - base).ravel() > 0)
    assert changed.min() >= 5


def test_config_round_trip_and_output_shapes():
    layer = layers.Conv1D(4, 3, strides=2, padding="causal", activation="relu")
    config = layer.get_config()
    assert config["kernel_size"] == (3,) and config["activation"] == "relu"
    assert layers.Conv1D.from_config(config).get_config() == config
    assert layer.compute_output_shape((None, 9, 2)) == (None, 5, 4)
    assert layers.Conv1D(2, 3).compute_output_shape((None, None, 2)) == (
        None, None, 2,
    )  # fmt: skip


def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="Received filters=0"):
        layers.Conv1D(0, 3)
    with pytest.raises(NotImplementedError, match="groups=1"):
        layers.Conv1D(2, 3, groups=2)
    layer = layers.Conv1D(2, 3, name="c")
    layer(np.zeros((1, 5, 2), np.float32))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have "
                       "value 2"):  # fmt: skip
        layer(np.zeros((1, 5, 3), np.float32))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        layer(np.zeros((5, 2), np.float32))
    with pytest.raises(ValueError, match="Computed output size would be negative"):
        layers.Conv1D(2, 6)(np.zeros((1, 5, 2), np.float32))


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.Conv1D(0, 3), ValueError,
     "Invalid value for argument `filters`. Expected a strictly positive value. "
     "Received filters=0"),
    (lambda k: k.layers.Conv1D(2, 3, padding="full"), ValueError,
     "The `padding` argument must be a list/tuple or one of"),
    (lambda k: k.layers.Conv1D(2, 0), ValueError,
     "The `kernel_size` argument must be a tuple of 1 integers"),
    (lambda k: k.layers.Conv1D(2, 3)(np.zeros((5, 2), np.float32)), ValueError,
     "expected min_ndim=3, found ndim=2|expected ndim=3, found ndim=2"),
])  # fmt: skip
def test_refused_as_keras_refuses(make, error, words):
    check_error_against_keras(make, error, words)
