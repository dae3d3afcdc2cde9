"""Keras layers: shapes, parameter counts, values against NumPy, building, Dropout."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import activations, initializers, layers

RNG = np.random.default_rng(0)


def _np_conv_valid(x: np.ndarray, w: np.ndarray, stride: int = 1) -> np.ndarray:
    """Cross-correlation of NHWC ``x`` with HWIO ``w``, no padding."""
    kh, kw = w.shape[:2]
    windows = sliding_window_view(x, (kh, kw), axis=(1, 2))  # N, Ho, Wo, C, kh, kw
    windows = windows[:, ::stride, ::stride]
    return np.einsum("nhwcij,ijco->nhwo", windows, w)


# -- Dense -----------------------------------------------------------------------------


def test_dense_784_to_10_has_7850_params_and_matches_numpy():
    layer = layers.Dense(10, activation="relu")
    x = RNG.standard_normal((4, 784)).astype(np.float32)
    y = layer(x)
    assert y.shape == (4, 10) and y.dtype == tf.float32
    assert layer.count_params() == 7850
    kernel, bias = layer.get_weights()
    assert kernel.shape == (784, 10) and bias.shape == (10,)
    np.testing.assert_array_equal(bias, np.zeros(10))
    expected = np.maximum(x @ kernel + bias, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_dense_builds_on_first_call_from_the_last_axis():
    layer = layers.Dense(3)
    assert not layer.built and layer.weights == []
    with pytest.raises(ValueError, match="isn't built"):
        layer.count_params()
    layer(np.ones((2, 5), np.float32))
    assert layer.built
    assert [tuple(w.shape) for w in layer.weights] == [(5, 3), (3,)]
    assert [w.name for w in layer.weights] == ["kernel", "bias"]
    assert layer.weights[0].path == f"{layer.name}/kernel"
    # a second call reuses the weights
    kernel = layer.kernel
    layer(np.ones((7, 5), np.float32))
    assert layer.kernel is kernel and len(layer.weights) == 2


def test_dense_rejects_inputs_that_do_not_fit():
    layer = layers.Dense(3)
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        layer(np.ones(5, np.float32))
    layer(np.ones((1, 5), np.float32))
    with pytest.raises(
        ValueError, match="expected axis -1 of input shape to have value 5"
    ):
        layer(np.ones((1, 4), np.float32))
    with pytest.raises(ValueError, match="expected a positive integer"):
        layers.Dense(0)


def test_dense_casts_float64_and_integer_inputs_to_float32():
    layer = layers.Dense(2, kernel_initializer="ones")
    assert layer(np.ones((1, 3), np.float64)).dtype == tf.float32
    out = layer(np.full((1, 3), 2, np.uint8))
    np.testing.assert_array_equal(out.numpy(), [[6.0, 6.0]])


def test_dense_without_bias_and_on_rank_3_inputs():
    layer = layers.Dense(4, use_bias=False)
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    y = layer(x)
    assert y.shape == (2, 3, 4) and len(layer.weights) == 1
    np.testing.assert_allclose(y.numpy(), x @ layer.kernel.numpy(), rtol=1e-5)


def test_float64_layer_keeps_float64():
    layer = layers.Dense(2, dtype="float64")
    y = layer(np.ones((1, 3)))
    assert y.dtype == tf.float64 and layer.kernel.dtype == tf.float64


# -- Conv2D and pooling ----------------------------------------------------------------


def test_conv2d_3x3_1_to_8_has_80_params_and_matches_numpy():
    layer = layers.Conv2D(8, 3, activation="relu")
    x = RNG.standard_normal((2, 6, 7, 1)).astype(np.float32)
    y = layer(x)
    assert y.shape == (2, 4, 5, 8)
    assert layer.count_params() == 80
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 3, 1, 8)
    expected = np.maximum(_np_conv_valid(x, kernel) + bias, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_conv2d_strides_same_padding_and_bias():
    layer = layers.Conv2D(
        2,
        (2, 3),
        strides=2,
        padding="same",
        bias_initializer=initializers.Constant(1.5),
    )
    x = RNG.standard_normal((1, 5, 5, 3)).astype(np.float32)
    y = layer(x)
    assert y.shape == (1, 3, 3, 2)
    assert layer.compute_output_shape((None, 5, 5, 3)) == (None, 3, 3, 2)
    # TF pads "same" at the end for an even kernel: rows (0, 1), columns (1, 1)
    padded = np.pad(x, ((0, 0), (0, 1), (1, 1), (0, 0)))
    expected = _np_conv_valid(padded, layer.kernel.numpy(), stride=2) + 1.5
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_conv2d_rejects_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="padding"):
        layers.Conv2D(4, 3, padding="full")
    with pytest.raises(ValueError, match="kernel_size"):
        layers.Conv2D(4, (3, 3, 3))
    layer = layers.Conv2D(4, 3)
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
        layer(np.ones((5, 5, 1), np.float32))
    layer(np.ones((1, 5, 5, 1), np.float32))
    with pytest.raises(
        ValueError, match="expected axis -1 of input shape to have value 1"
    ):
        layer(np.ones((1, 5, 5, 2), np.float32))


def test_conv2d_channels_first_matches_channels_last():
    last = layers.Conv2D(3, 2, kernel_initializer=initializers.RandomNormal(seed=1))
    first = layers.Conv2D(
        3,
        2,
        data_format="channels_first",
        kernel_initializer=initializers.RandomNormal(seed=1),
    )
    x = RNG.standard_normal((1, 4, 4, 2)).astype(np.float32)
    a = last(x).numpy()
    b = first(np.transpose(x, (0, 3, 1, 2))).numpy()
    np.testing.assert_allclose(np.transpose(b, (0, 2, 3, 1)), a, rtol=1e-5)


def test_max_and_average_pooling_match_numpy():
    x = RNG.standard_normal((2, 4, 6, 3)).astype(np.float32)
    blocks = x.reshape(2, 2, 2, 3, 2, 3)  # N, Ho, 2, Wo, 2, C
    max_out = layers.MaxPooling2D()(x)
    avg_out = layers.AveragePooling2D(pool_size=(2, 2))(x)
    np.testing.assert_array_equal(max_out.numpy(), blocks.max(axis=(2, 4)))
    np.testing.assert_allclose(avg_out.numpy(), blocks.mean(axis=(2, 4)), rtol=1e-6)
    assert layers.MaxPool2D is layers.MaxPooling2D


def test_pooling_strides_and_padding_shapes():
    x = np.zeros((1, 7, 7, 2), np.float32)
    for padding, stride, size in [("valid", 2, 3), ("same", 2, 4), ("valid", 1, 6)]:
        layer = layers.MaxPooling2D(2, strides=stride, padding=padding)
        assert layer(x).shape == (1, size, size, 2)
        assert layer.compute_output_shape((None, 7, 7, 2)) == (None, size, size, 2)


def test_flatten():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    y = layers.Flatten()(x)
    np.testing.assert_array_equal(y.numpy(), x.reshape(2, 12))
    assert layers.Flatten().compute_output_shape((None, 28, 28, 1)) == (None, 784)
    assert layers.Flatten()(np.ones(3, np.float32)).shape == (3, 1)


# -- Dropout ---------------------------------------------------------------------------


def test_dropout_is_the_identity_unless_training():
    layer = layers.Dropout(0.5)
    x = tf.constant(np.ones((4, 4), np.float32))
    assert layer(x) is x
    assert layer(x, training=False) is x


def test_dropout_while_training_zeroes_a_fraction_and_scales_the_rest():
    layer = layers.Dropout(0.25, seed=0)
    x = tf.constant(np.ones((200, 100), np.float32))
    y = layer(x, training=True).numpy()
    values = np.unique(y)
    assert values.tolist() == [0.0, pytest.approx(1 / 0.75)]
    dropped = (y == 0).mean()
    assert 0.23 < dropped < 0.27


def test_dropout_gradient_is_the_scaled_mask():
    layer = layers.Dropout(0.5, seed=1)
    x = tf.Variable(np.ones((3, 8), np.float32))
    with tf.GradientTape() as tape:
        y = layer(x, training=True)
        total = tf.reduce_sum(y)
    np.testing.assert_array_equal(tape.gradient(total, x).numpy(), y.numpy())


def test_dropout_seed_repeats_the_sequence_of_masks():
    x = np.ones((5, 5), np.float32)
    a, b = layers.Dropout(0.5, seed=3), layers.Dropout(0.5, seed=3)
    first = [a(x, training=True).numpy() for _ in range(2)]
    second = [b(x, training=True).numpy() for _ in range(2)]
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first[0], first[1])


def test_dropout_follows_the_global_seed():
    x = np.ones((5, 5), np.float32)
    keras.utils.set_random_seed(11)
    a = layers.Dropout(0.5)(x, training=True).numpy()
    keras.utils.set_random_seed(11)
    b = layers.Dropout(0.5)(x, training=True).numpy()
    np.testing.assert_array_equal(a, b)


def test_dropout_noise_shape_drops_whole_columns():
    layer = layers.Dropout(0.5, noise_shape=(1, None), seed=2)
    y = layer(np.ones((6, 10), np.float32), training=True).numpy()
    assert (y == y[0]).all()


def test_dropout_rate_is_validated():
    with pytest.raises(ValueError, match="Expected a float value between 0 and 1"):
        layers.Dropout(1.5)


def test_training_flag_reaches_nested_layers():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = layers.Dropout(0.5, seed=0)

        def call(self, x, training=None):
            return self.drop(x)

    net = Net()
    x = np.ones((4, 50), np.float32)
    assert (net(x).numpy() == 1).all()
    assert (net(x, training=False).numpy() == 1).all()
    assert (net(x, training=True).numpy() == 0).any()
    seq = keras.Sequential([layers.Dropout(0.5, seed=0)])
    assert (seq(x, training=True).numpy() == 0).any()
    assert (seq(x).numpy() == 1).all()


# -- activation layers and functions ---------------------------------------------------


def test_activation_layers_match_numpy():
    x = np.array([[-2.0, -0.5, 0.0, 0.5, 3.0, 8.0]], np.float32)
    np.testing.assert_array_equal(layers.ReLU()(x).numpy(), np.maximum(x, 0))
    np.testing.assert_array_equal(
        layers.ReLU(max_value=6.0)(x).numpy(), np.clip(x, 0, 6)
    )
    np.testing.assert_allclose(
        layers.ReLU(negative_slope=0.1)(x).numpy(), np.where(x > 0, x, 0.1 * x)
    )
    np.testing.assert_allclose(
        layers.ReLU(threshold=1.0)(x).numpy(), np.where(x > 1, x, 0.0)
    )
    e = np.exp(x - x.max())
    np.testing.assert_allclose(layers.Softmax()(x).numpy(), e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(
        layers.Activation("tanh")(x).numpy(), np.tanh(x), rtol=1e-6
    )
    with pytest.raises(ValueError, match="negative_slope"):
        layers.ReLU(negative_slope=-1.0)


def test_softmax_layer_mask_gives_masked_positions_zero():
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    y = layers.Softmax()(x, mask=np.array([[True, True, False]]))
    e = np.exp([1.0, 2.0])
    np.testing.assert_allclose(y.numpy(), [[*(e / e.sum()), 0.0]], rtol=1e-6)


def test_relu_combined_options_match_numpy():
    x = np.array([-3.0, -1.0, 0.5, 2.0, 7.0], np.float32)
    got = activations.relu(x, negative_slope=0.5, max_value=5.0, threshold=1.0)
    # keras: clip(x * (x > t), 0, max) - slope * relu(-x + t)
    expected = np.clip(x * (x > 1.0), 0, 5.0) - 0.5 * np.maximum(-x + 1.0, 0)
    np.testing.assert_allclose(got.numpy(), expected)


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("relu", lambda x: np.maximum(x, 0)),
        ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
        ("tanh", np.tanh),
        ("linear", lambda x: x),
        (None, lambda x: x),
        ("softplus", lambda x: np.log1p(np.exp(x))),
        ("elu", lambda x: np.where(x > 0, x, np.expm1(x))),
    ],
)
def test_activations_by_name(name, reference):
    x = np.array([[-1.5, 0.0, 2.0]], np.float32)
    np.testing.assert_allclose(
        np.asarray(activations.get(name)(tf.constant(x))), reference(x), rtol=1e-5
    )


def test_softmax_activation_by_name_and_unknown_names():
    x = np.array([[1.0, 2.0]], np.float32)
    e = np.exp(x)
    np.testing.assert_allclose(
        activations.get("softmax")(x).numpy(), e / e.sum(), rtol=1e-6
    )
    with pytest.raises(ValueError, match="Could not interpret activation"):
        activations.get("rectifier")


# -- initializers ----------------------------------------------------------------------


def test_glorot_uniform_bounds_and_variance():
    w = initializers.GlorotUniform(seed=0)((400, 600)).numpy()
    limit = np.sqrt(6 / 1000)
    assert np.abs(w).max() <= limit
    assert w.var() == pytest.approx(limit**2 / 3, rel=0.02)


def test_he_normal_is_truncated_with_keras_stddev():
    w = initializers.HeNormal(seed=0)((500, 400)).numpy()
    stddev = np.sqrt(2 / 500)
    assert np.abs(w).max() <= 2 * stddev / 0.87962566103423978 + 1e-7
    # the truncation correction makes the variance 2 / fan_in
    assert w.std() == pytest.approx(stddev, rel=0.02)


def test_simple_initializers():
    np.testing.assert_array_equal(initializers.get("zeros")((2, 2)).numpy(), 0)
    np.testing.assert_array_equal(initializers.get("ones")((3,)).numpy(), 1)
    w = initializers.get("random_normal")((200, 200)).numpy()
    assert w.std() == pytest.approx(0.05, rel=0.02)
    assert initializers.get("he_normal")((2, 2), dtype="float64").dtype == tf.float64
    assert initializers.compute_fans((3, 3, 1, 8)) == (9, 72)
    with pytest.raises(ValueError, match="Could not interpret initializer"):
        initializers.get("xavier")


def test_int_seed_gives_the_same_values_every_call():
    init = initializers.RandomUniform(seed=5)
    np.testing.assert_array_equal(init((3,)).numpy(), init((3,)).numpy())


def test_global_seed_makes_layer_weights_reproducible():
    def weights():
        layer = layers.Dense(4, kernel_initializer="glorot_uniform")
        layer(np.ones((1, 3), np.float32))
        return layer.kernel.numpy()

    tf.random.set_seed(42)
    a = weights()
    tf.random.set_seed(42)
    b = weights()
    c = weights()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


# -- the Layer base class --------------------------------------------------------------


class Linear(layers.Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units), initializer="random_normal", name="w"
        )
        self.steps = self.add_weight(
            shape=(), initializer="zeros", trainable=False, name="steps"
        )
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

    def call(self, x):
        return tf.matmul(x, self.w) + self.b


def test_custom_layer_builds_on_first_call_with_the_input_shape():
    layer = Linear(3)
    assert not layer.built
    y = layer(np.ones((2, 4), np.float32))
    assert layer.built and y.shape == (2, 3)
    assert [w.name for w in layer.weights] == ["w", "b", "steps"]
    assert [w.name for w in layer.trainable_weights] == ["w", "b"]
    assert [w.name for w in layer.non_trainable_weights] == ["steps"]
    assert layer.variables == layer.weights
    assert layer.trainable_variables == layer.trainable_weights
    assert layer.count_params() == 4 * 3 + 3 + 1


def test_manual_build_marks_the_layer_built():
    layer = Linear(2)
    layer.build((None, 5))
    assert layer.built and layer.w.shape == (5, 2)
    layer(np.ones((1, 5), np.float32))
    assert len(layer.weights) == 3  # not built a second time


def test_gradient_reaches_custom_layer_weights():
    layer = Linear(1)
    x = np.array([[1.0, 2.0]], np.float32)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    grad_w, grad_b = tape.gradient(y, layer.trainable_weights)
    np.testing.assert_array_equal(grad_w.numpy(), x.T)
    np.testing.assert_array_equal(grad_b.numpy(), [1.0])


def test_frozen_layer_lists_no_trainable_weights_and_is_not_watched():
    layer = layers.Dense(2)
    layer(np.ones((1, 2), np.float32))
    layer.trainable = False
    assert layer.trainable_weights == []
    assert len(layer.non_trainable_weights) == 2
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(np.ones((1, 2), np.float32)))
    assert tape.gradient(y, layer.kernel) is None


def test_keras_variables_assigned_as_attributes_are_tracked():
    """As in Keras 3: keras.Variable attributes are weights, tf.Variable ones not."""

    class Scale(layers.Layer):
        def __init__(self):
            super().__init__()
            self.alpha = keras.Variable(2.0, name="alpha")
            self.count = keras.Variable(0.0, trainable=False, name="count")
            self.raw = tf.Variable(3.0)

        def call(self, x):
            return x * self.alpha

    layer = Scale()
    assert layer.trainable_weights == [layer.alpha]
    assert layer.non_trainable_weights == [layer.count]
    assert [w.path for w in layer.weights] == ["alpha", "count"]
    zeros = keras.Variable("zeros", shape=(2, 3), name="z")
    assert zeros.shape == (2, 3) and zeros.numpy().sum() == 0.0
    with pytest.raises(ValueError, match="needs its shape"):
        keras.Variable("ones")


def test_forgetting_super_init_is_explained():
    class Broken(layers.Layer):
        def __init__(self):
            self.units = 3

        def call(self, x):
            return x

    with pytest.raises(
        RuntimeError, match="forgot to call `super\\(\\).__init__\\(\\)`"
    ):
        Broken()(np.ones((1, 1), np.float32))


def test_layer_arguments_are_checked():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        layers.Dense(2, unit=3)
    layer = layers.Layer()
    with pytest.raises(NotImplementedError, match="regularizer"):
        layer.add_weight(shape=(1,), regularizer="l2")


def test_layer_names_are_unique_snake_case():
    keras.backend.clear_session()
    names = [layers.Dense(1).name, layers.Dense(1).name, layers.MaxPooling2D().name]
    assert names == ["dense", "dense_1", "max_pooling2d"]
    assert layers.Dense(1, name="out").name == "out"


def test_get_and_set_weights():
    layer = layers.Dense(2)
    layer(np.ones((1, 3), np.float32))
    new = [np.full((3, 2), 0.5, np.float32), np.array([1.0, -1.0], np.float32)]
    layer.set_weights(new)
    np.testing.assert_array_equal(
        layer(np.ones((1, 3), np.float32)).numpy(), [[2.5, 0.5]]
    )
    with pytest.raises(ValueError, match="expected 2 weights"):
        layer.set_weights(new[:1])


def test_keras_variable_names_paths_and_repr():
    layer = layers.Dense(2, name="head")
    layer(np.ones((1, 3), np.float32))
    kernel = layer.kernel
    assert isinstance(kernel, tf.Variable)
    assert (kernel.name, kernel.path) == ("kernel", "head/kernel")
    kernel.assign(np.arange(6.0).reshape(3, 2))
    # what tensorflow-cpu 2.21.0 (Keras 3.15) printed for the same weights
    assert repr(kernel) == (
        "<Variable path=head/kernel, shape=(3, 2), dtype=float32, value=[[0. 1.]\n"
        " [2. 3.]\n [4. 5.]]>"
    )
    assert (
        str(layer.bias)
        == f"{layer.bias}"
        == ("<Variable path=head/bias, shape=(2,), dtype=float32, value=[0. 0.]>")
    )


def test_input_is_a_symbolic_spec():
    inputs = keras.Input(shape=(28, 28, 1))
    assert inputs.shape == (None, 28, 28, 1) and inputs.dtype == "float32"
    with pytest.raises(TypeError, match="holds no values"):
        inputs + 1
    with pytest.raises(ValueError, match="You must pass a `shape` argument"):
        keras.Input()


@pytest.mark.parametrize(
    ("make", "error", "phrase"),
    [
        (lambda: layers.Conv2D(0, 3), ValueError, "strictly positive"),
        (lambda: layers.Conv2D(2, 3, groups=2), NotImplementedError, "groups"),
        (lambda: layers.Conv2D(2, 3, strides=0), ValueError, "strides"),
        (lambda: layers.Flatten(data_format="nhwc"), ValueError, "data_format"),
        (
            lambda: layers.Dense(2, kernel_regularizer="l2"),
            NotImplementedError,
            "kernel_regularizer",
        ),
        (lambda: layers.ReLU(max_value=-1.0), ValueError, "max_value"),
        (lambda: layers.ReLU(threshold=-1.0), ValueError, "threshold"),
        (lambda: initializers.VarianceScaling(scale=0.0), ValueError, "scale"),
        (lambda: initializers.VarianceScaling(mode="fan"), ValueError, "mode"),
        (
            lambda: initializers.VarianceScaling(distribution="cauchy"),
            ValueError,
            "distribution",
        ),
        (lambda: initializers.RandomNormal(seed="1"), ValueError, "seed"),
        (lambda: activations.get(3), ValueError, "Could not interpret activation"),
        (
            lambda: layers.Layer(activity_regularizer="l1"),
            NotImplementedError,
            "activity_regularizer",
        ),
    ],
)
def test_bad_layer_arguments_are_explained(make, error, phrase):
    with pytest.raises(error, match=phrase):
        make()


def test_bad_inputs_at_call_time_are_explained():
    with pytest.raises(ValueError, match="Computed output size would be negative"):
        layers.Conv2D(1, 5).compute_output_shape((None, 3, 3, 1))
    with pytest.raises(ValueError, match="Computed output size would be negative"):
        layers.MaxPooling2D(4).compute_output_shape((None, 3, 3, 1))
    with pytest.raises(ValueError, match="expected ndim=4"):
        layers.MaxPooling2D()(np.ones((2, 4, 4), np.float32))
    with pytest.raises(ValueError, match="rate=1"):
        layers.Dropout(1.0)(np.ones((1, 2), np.float32), training=True)
    with pytest.raises(TypeError, match="called without inputs"):
        layers.Dense(1)()
    with pytest.raises(NotImplementedError, match="does not have a `call\\(\\)`"):
        layers.Layer()(np.ones((1, 1), np.float32))
    layer = layers.Dense(1)
    layer(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="not compatible with provided weight shape"):
        layer.set_weights([np.ones((3, 1)), np.ones(1)])
    bad_init = layers.Layer()
    with pytest.raises(ValueError, match="returned shape"):
        bad_init.add_weight(shape=(2,), initializer=lambda shape, dtype: np.ones(3))
