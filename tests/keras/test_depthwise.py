"""DepthwiseConv2D and SeparableConv2D: weights, values, gradients, errors.

The pinned numbers are what tensorflow-cpu 2.21.0 (Keras 3.15) computed for the
same layers and weights, written as their float32 values.
"""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.keras import layers

from .layer_checks import assert_gradients_match_finite_differences

X = (np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2) % 7 - 3) / 4
DEPTHWISE = (np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) % 5 - 2) / 5
POINTWISE = (np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3) % 4 - 1.5) / 3
BIAS = np.array([0.1, -0.2, 0.3], np.float32)

TF_SEPARABLE = [
    [[-0.13333336, -0.13333333, 0.13333336], [0.47500002, -0.40833336, -0.425],
     [-0.49166664, -0.04166667, 0.94166666]],
    [[-0.18333334, -0.5166667, 1.0166667], [0.24999997, 0.08333333, 0.51666665],
     [-0.13333336, -0.13333333, 0.13333336]],
    [[0.17499998, 0.32500005, 0.20833334], [0.60833335, -0.7083333, -0.2916667],
     [-0.18333334, -0.5166667, 1.0166667]],
]  # fmt: skip
TF_SEPARABLE_STRIDED_RELU = [
    [[0.0, 0.0, 0.1875], [0.0, 0.09375, 0.53125], [0.40625, 0.0, 0.0]],
    [[0.15625, 0.0, 0.0], [0.0, 0.25, 0.25], [0.0, 0.0, 0.21875]],
    [[0.3125, 0.25, 0.0], [0.0, 0.09375, 0.0], [0.0, 0.21875, 0.0]],
]
TF_SEPARABLE_DILATED = [
    [[-0.275, -0.091666676], [0.049999997, -0.35000002], [0.20000002, -0.2]],
    [[0.3, -0.1], [0.275, -0.24166667], [-0.275, -0.091666676]],
    [[0.35, -0.28333333], [-0.20000002, -0.13333333], [0.3, -0.1]],
]
TF_DEPTHWISE = [
    [[1.1500001, -0.5, 1.4, -0.15], [0.90000004, 0.20000005, 1.6500001, -0.70000005],
     [0.65, -1.2, 0.5, 0.5]],
    [[0.6, -0.5, 0.19999999, 0.6], [2.9802322e-08, -0.5, 1.15, 0.75],
     [1.1500001, -0.5, 1.4, -0.15]],
    [[-0.3, -1.2, 1.1, -0.050000004], [0.5, 0.19999999, 1.0, -0.95],
     [0.6, -0.5, 0.19999999, 0.6]],
]  # fmt: skip


def _shapes(layer) -> list:
    return [(w.path, tuple(w.shape)) for w in layer.weights]


def test_separable_conv2d_weights_and_values_match_tensorflow():
    sep = layers.SeparableConv2D(3, 3, depth_multiplier=2, name="sep")
    assert sep(X).shape == (1, 3, 3, 3)
    assert _shapes(sep) == [
        ("sep/depthwise_kernel", (3, 3, 2, 2)),
        ("sep/pointwise_kernel", (1, 1, 4, 3)),
        ("sep/bias", (3,)),
    ]
    assert sep.count_params() == 36 + 12 + 3
    sep.set_weights([DEPTHWISE, POINTWISE, BIAS])
    np.testing.assert_allclose(sep(X).numpy()[0], TF_SEPARABLE, atol=1e-6)

    strided = layers.SeparableConv2D(
        3, 3, strides=2, padding="same", depth_multiplier=2, activation="relu",
        use_bias=False, name="sep2",
    )  # fmt: skip
    strided(X)
    assert _shapes(strided) == [
        ("sep2/depthwise_kernel", (3, 3, 2, 2)),
        ("sep2/pointwise_kernel", (1, 1, 4, 3)),
    ]
    depthwise = (np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) % 3 - 1) / 2
    pointwise = (np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3) % 5 - 2) / 4
    strided.set_weights([depthwise, pointwise])
    np.testing.assert_allclose(
        strided(X).numpy()[0], TF_SEPARABLE_STRIDED_RELU, atol=1e-6
    )

    dilated = layers.SeparableConv2D(2, 2, dilation_rate=2)
    dilated(X)
    dilated.set_weights([DEPTHWISE[:2, :2, :, :1], POINTWISE[:, :, :2, :2], BIAS[:2]])
    np.testing.assert_allclose(dilated(X).numpy()[0], TF_SEPARABLE_DILATED, atol=1e-6)


def test_depthwise_conv2d_weights_and_values_match_tensorflow():
    dep = layers.DepthwiseConv2D(3, depth_multiplier=2, name="dep")
    assert dep(X).shape == (1, 3, 3, 4)
    assert _shapes(dep) == [("dep/kernel", (3, 3, 2, 2)), ("dep/bias", (4,))]
    dep.set_weights([DEPTHWISE, np.array([0.5, -0.5, 1.0, 0.0], np.float32)])
    np.testing.assert_allclose(dep(X).numpy()[0], TF_DEPTHWISE, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: layers.DepthwiseConv2D(2, depth_multiplier=2, dtype="float64"),
    lambda: layers.DepthwiseConv2D(
        3, strides=2, padding="same", activation="tanh", dtype="float64"
    ),
    lambda: layers.SeparableConv2D(3, 2, depth_multiplier=2, dtype="float64"),
    lambda: layers.SeparableConv2D(
        2, 3, padding="same", dilation_rate=2, activation="tanh", dtype="float64"
    ),
    lambda: layers.SeparableConv2D(
        2, 2, data_format="channels_first", dtype="float64"
    ),
])  # fmt: skip
def test_gradients_match_finite_differences(make):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 5, 4, 3))
    layer = make()
    layer(x)
    assert_gradients_match_finite_differences(layer, x, layer.trainable_weights)


def test_separable_is_a_depthwise_then_a_pointwise_convolution():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    sep = layers.SeparableConv2D(4, 3, strides=2, padding="same", depth_multiplier=2)
    sep(x)
    dep = layers.DepthwiseConv2D(
        3, strides=2, padding="same", depth_multiplier=2, use_bias=False
    )
    point = layers.Conv2D(4, 1)
    point(dep(x))
    dep.set_weights([sep.depthwise_kernel.numpy()])
    point.set_weights([sep.pointwise_kernel.numpy(), sep.bias.numpy()])
    np.testing.assert_allclose(sep(x).numpy(), point(dep(x)).numpy(), atol=1e-6)


@pytest.mark.parametrize("cls", [layers.DepthwiseConv2D, layers.SeparableConv2D])
def test_channels_first_is_channels_last_transposed(cls):
    # with its bias along the channels, as Conv2D adds it (see docs/differences.md)
    args = (2, 3) if cls is layers.SeparableConv2D else (3,)
    x = np.moveaxis(X, -1, 1)
    first = cls(*args, data_format="channels_first", bias_initializer="ones")
    last = cls(*args, bias_initializer="ones")
    last(X)
    assert first(x).shape == np.moveaxis(last(X).numpy(), -1, 1).shape
    first.set_weights(last.get_weights())
    first.bias.assign(np.arange(1.0, 1.0 + first.bias.shape[0]))
    last.bias.assign(first.bias.numpy())
    np.testing.assert_allclose(
        first(x).numpy(), np.moveaxis(last(X).numpy(), -1, 1), atol=1e-6
    )


def test_output_shapes_without_building():
    sep = layers.SeparableConv2D(8, (3, 2), strides=(2, 1), padding="valid")
    assert sep.compute_output_shape((None, 9, 9, 3)) == (None, 4, 8, 8)
    dep = layers.DepthwiseConv2D(3, padding="same", depth_multiplier=3)
    assert dep.compute_output_shape((None, 7, 7, 2)) == (None, 7, 7, 6)
    assert dep.compute_output_shape((None, None, None, 2)) == (None, None, None, 6)


def test_bad_arguments_and_inputs_are_explained():
    # TensorFlow's first words, then what to do
    with pytest.raises(ValueError, match="Received filters=0"):
        layers.SeparableConv2D(0, 3)
    for make in (
        lambda: layers.SeparableConv2D(2, 3, depth_multiplier=0),
        lambda: layers.DepthwiseConv2D(3, depth_multiplier=0),
    ):
        with pytest.raises(
            ValueError,
            match="Invalid value for argument `depth_multiplier`. Expected a strictly "
            "positive value. Received depth_multiplier=0.",
        ):
            make()
    with pytest.raises(ValueError, match="`kernel_size` argument must be a tuple"):
        layers.SeparableConv2D(2, 0)
    with pytest.raises(ValueError, match="`strides` argument must be a tuple"):
        layers.DepthwiseConv2D(3, strides=0)
    with pytest.raises(NotImplementedError, match="pointwise_regularizer"):
        layers.SeparableConv2D(2, 3, pointwise_regularizer="l2")
    with pytest.raises(ValueError, match="Computed output size would be negative"):
        layers.SeparableConv2D(2, 7)(X)
    sep = layers.SeparableConv2D(3, 3, name="sep")
    sep(X)
    with pytest.raises(
        ValueError,
        match="Input 0 with name 'None' of layer 'sep' is incompatible with the layer: "
        "expected axis -1 of input shape to have value 2, but received input with "
        r"shape \(1, 5, 5, 3\)",
    ):
        sep(np.ones((1, 5, 5, 3), np.float32))
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
        sep(np.ones((5, 5, 2), np.float32))
