"""Conv2DTranspose, checked against Keras 3 (tensorflow-cpu 2.21) live or
against its stored record (see ``keras_reference``): outputs and the gradients
with respect to the input, the kernel and the bias."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
import tapemagic.tf as tf
from tapemagic.keras import layers

from .keras_reference import Case, check_against_keras, check_error_against_keras
from .layer_checks import (
    assert_gradients_match_finite_differences,
    assert_second_order_matches_finite_differences,
)

SKIP = ("kernel_initializer",)

CASES = [
    Case(
        "valid",
        lambda k: k.layers.Conv2DTranspose(3, 3),
        ((2, 3, 4, 2),),
        skip_config=SKIP,
        second_order=True,
    ),  # fmt: skip
    Case(
        "same_strided",
        lambda k: k.layers.Conv2DTranspose(2, 3, strides=2, padding="same"),
        ((2, 3, 3, 2),),
        skip_config=SKIP,
        second_order=True,
    ),
    Case(
        "valid_strided_output_padding",
        lambda k: k.layers.Conv2DTranspose(
            2, (3, 2), strides=(2, 3), output_padding=(1, 2), activation="tanh"
        ),
        ((1, 3, 2, 2),),
        skip_config=SKIP,
        second_order=True,
    ),
    Case(
        "same_output_padding",
        lambda k: k.layers.Conv2DTranspose(
            2, 4, strides=2, padding="same", output_padding=1
        ),
        ((1, 3, 3, 1),),
        skip_config=SKIP,
        second_order=True,
    ),
]
# TensorFlow's CPU kernel for the transposed convolution takes neither NCHW nor
# a dilation: the channels_first layer is checked as the transpose of
# channels_last below, and a dilated one by its gradients and its adjoint.
DILATED = Case(
    "dilated",
    lambda k: k.layers.Conv2DTranspose(2, 2, dilation_rate=2, use_bias=False),
    ((1, 3, 3, 2),),
)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


@pytest.mark.parametrize("case", [*CASES, DILATED], ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(case.shapes[0])
    layer = case.make(keras)
    layer(x)
    for w in layer.weights:
        w.assign(rng.standard_normal(tuple(w.shape)))
    assert_gradients_match_finite_differences(layer, x, layer.trainable_weights)
    assert_second_order_matches_finite_differences(layer, x, layer.trainable_weights)


@pytest.mark.parametrize("strides, dilation, padding", [
    (2, 1, "same"), (1, 2, "valid"), (1, 2, "same"), (3, 1, "valid"),
])  # fmt: skip
def test_is_the_adjoint_of_a_conv2d(strides, dilation, padding):
    # <conv2d(y, k), x> = <y, conv2d_transpose(x, k)> for every y
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((1, 4, 4, 3)))
    up = layers.Conv2DTranspose(
        2, 3, strides=strides, padding=padding, dilation_rate=dilation,
        use_bias=False, dtype="float64",
    )  # fmt: skip
    out = up(x)
    y = tf.constant(rng.standard_normal(tuple(out.shape)))
    down = layers.Conv2D(
        3, 3, strides=strides, padding=padding, dilation_rate=dilation,
        use_bias=False, dtype="float64",
    )  # fmt: skip
    down(y)
    down.set_weights([up.kernel.numpy()])
    lhs = float(tf.reduce_sum(down(y) * x))
    rhs = float(tf.reduce_sum(y * out))
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_channels_first_is_channels_last_transposed():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 3, 2)).astype(np.float32)
    last = layers.Conv2DTranspose(3, 2, strides=2, bias_initializer="ones")
    first = layers.Conv2DTranspose(
        3, 2, strides=2, data_format="channels_first", bias_initializer="ones"
    )
    want = last(x).numpy()
    got = first(np.moveaxis(x, -1, 1))
    first.set_weights(last.get_weights())
    got = first(np.moveaxis(x, -1, 1)).numpy()
    np.testing.assert_allclose(got, np.moveaxis(want, -1, 1), atol=1e-6)
    assert first.compute_output_shape((None, 2, 3, 3)) == (None, 3, 6, 6)


def test_output_shapes_config_and_errors():
    layer = layers.Conv2DTranspose(8, 3, strides=2, padding="valid", output_padding=1)
    assert layer.compute_output_shape((None, 5, 5, 4)) == (None, 12, 12, 8)
    assert layer.compute_output_shape((None, None, 5, 4)) == (None, None, 12, 8)
    config = layer.get_config()
    assert config["output_padding"] == (1, 1) and config["kernel_size"] == (3, 3)
    assert layers.Conv2DTranspose.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="Strides must be greater than output padding"):
        layers.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="Received filters=-1"):
        layers.Conv2DTranspose(-1, 3)
    built = layers.Conv2DTranspose(2, 3, name="t")
    built(np.zeros((1, 4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have "
                       "value 3"):  # fmt: skip
        built(np.zeros((1, 4, 4, 2), np.float32))


def test_a_decoder_in_a_functional_model_trains():
    inputs = keras.Input(shape=(4,))
    x = layers.Dense(2 * 2 * 3)(inputs)
    x = layers.Reshape((2, 2, 3))(x)
    x = layers.Conv2DTranspose(4, 3, strides=2, padding="same", activation="relu")(x)
    out = layers.Conv2DTranspose(1, 3, strides=2, padding="same")(x)
    assert out.shape == (None, 8, 8, 1)
    model = keras.Model(inputs, out)
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(5)
    data = rng.standard_normal((8, 4)).astype(np.float32)
    target = rng.standard_normal((8, 8, 8, 1)).astype(np.float32)
    history = model.fit(data, target, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.Conv2DTranspose(-1, 3), ValueError,
     "Invalid value for argument `filters`. Expected a strictly positive value. "
     "Received filters=-1"),
    (lambda k: k.layers.Conv2DTranspose(2, 3, padding="full"), ValueError,
     "The `padding` argument must be a list/tuple or one of"),
])  # fmt: skip
def test_refused_as_keras_refuses(make, error, words):
    check_error_against_keras(make, error, words)
