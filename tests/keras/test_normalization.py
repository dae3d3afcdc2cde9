"""BatchNormalization: batch statistics while training, moving ones otherwise.

The numbers pinned here are what tensorflow-cpu 2.21.0 (Keras 3.15) computed for
the same programs, written as their float32 values; the reprs and weight names
are what it printed.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers

from .layer_checks import assert_gradients_match_finite_differences

X = np.array(
    [[1.0, 2.0, -1.0], [3.0, 0.5, 0.0], [-2.0, 1.5, 4.0], [0.5, -1.0, 2.5]], np.float32
)
GAMMA, BETA = [1.5, 0.5, 2.0], [0.1, -0.2, 0.3]

# -- what TensorFlow computed ----------------------------------------------------------
# bn(X) before any training call: the moving statistics are 0 and 1
TF_INFERENCE_FIRST = [
    [0.9995004, 1.9990008, -0.9995004], [2.9985013, 0.4997502, 0.0],
    [-1.9990008, 1.4992507, 3.9980016], [0.4997502, -0.9995004, 2.498751],
]  # fmt: skip
# bn(X, training=True) with GAMMA and BETA
TF_TRAINING_1 = [
    [0.41578832, 0.34533703, -2.098233], [2.0999928, -0.30906737, -1.0884507],
    [-2.1105182, 0.12720221, 2.9506786], [-0.0052627623, -0.9634718, 1.4360051],
]  # fmt: skip
TF_MOVING_1 = ([0.0062499996, 0.0075, 0.01375], [1.0217187, 1.003125, 1.0292188])
# then bn(X * 2 + 1, training=True)
TF_TRAINING_2 = [
    [0.41582566, 0.34549278, -2.098462], [2.100229, -0.30909854, -1.0885834],
    [-2.1107795, 0.12729567, 2.9509323], [-0.00527519, -0.96368986, 1.4361138],
]  # fmt: skip
TF_MOVING_2 = ([0.0286875, 0.032424998, 0.0511125], [1.1383766, 1.0455937, 1.1758016])
# then bn(X, training=False): the moving statistics after the two calls
TF_INFERENCE_AFTER = [
    [1.4649496, 0.7616393, -1.6378831], [4.275476, 0.02852419, 0.20576647],
    [-2.7508397, 0.5172676, 7.5803647], [0.7623181, -0.7045909, 4.8148904],
]  # fmt: skip
# the gradients of sum(out * out * [1, 2, 3] + out), out = bn(X, training=True)
# right after: with respect to X, gamma and beta
TF_GRAD_X = [
    [0.00016754866, 0.00072449446, -0.003704071],
    [0.0010616779, -0.00014489889, -0.0021438599],
    [-0.0011730194, 0.00043469667, 0.0040950775],
    [-5.5789948e-05, -0.0010143518, 0.0017542839],
]
TF_GRAD_GAMMA = [11.99622, 7.993909, 47.987762]
TF_GRAD_BETA = [4.8, 0.8000004, 11.2]


def test_batch_normalization_matches_tensorflow_in_both_modes():
    bn = layers.BatchNormalization(name="bn")
    assert repr(bn) == "<BatchNormalization name=bn, built=False>"
    out = bn(X)
    assert [w.path for w in bn.weights] == [
        "bn/gamma",
        "bn/beta",
        "bn/moving_mean",
        "bn/moving_variance",
    ]
    assert [w.name for w in bn.trainable_weights] == ["gamma", "beta"]
    assert [w.name for w in bn.non_trainable_weights] == [
        "moving_mean",
        "moving_variance",
    ]
    assert repr(bn.weights[2]) == (
        "<Variable path=bn/moving_mean, shape=(3,), dtype=float32, value=[0. 0. 0.]>"
    )
    assert bn.count_params() == 12
    np.testing.assert_allclose(out.numpy(), TF_INFERENCE_FIRST, rtol=1e-6)

    bn.gamma.assign(GAMMA)
    bn.beta.assign(BETA)
    out = bn(X, training=True)
    np.testing.assert_allclose(out.numpy(), TF_TRAINING_1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), TF_MOVING_1[0], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), TF_MOVING_1[1], rtol=1e-6)
    out = bn(X * 2.0 + 1.0, training=True)
    np.testing.assert_allclose(out.numpy(), TF_TRAINING_2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), TF_MOVING_2[0], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), TF_MOVING_2[1], rtol=1e-6)
    out = bn(X, training=False)
    np.testing.assert_allclose(out.numpy(), TF_INFERENCE_AFTER, rtol=1e-6)
    # a plain call is an inference call
    np.testing.assert_array_equal(bn(X).numpy(), out.numpy())


def test_training_call_gradients_match_tensorflow():
    bn = layers.BatchNormalization()
    bn.build((None, 3))
    bn.gamma.assign(GAMMA)
    bn.beta.assign(BETA)
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = bn(x, training=True)
        loss = tf.reduce_sum(out * out * tf.constant([[1.0, 2.0, 3.0]]) + out)
    gx, gg, gb = tape.gradient(loss, [x, bn.gamma, bn.beta])
    # the true gradient of x is a small difference of large terms: float32 noise
    np.testing.assert_allclose(gx.numpy(), TF_GRAD_X, atol=1e-6)
    np.testing.assert_allclose(gg.numpy(), TF_GRAD_GAMMA, rtol=1e-5)
    np.testing.assert_allclose(gb.numpy(), TF_GRAD_BETA, rtol=1e-5)
    # the moving statistics are not trainable: the tape does not watch them
    watched = tape.watched_variables()
    assert len(watched) == 2 and not any("moving" in v.name for v in watched)


@pytest.mark.parametrize("axis", [-1, 1])
def test_training_output_gradients_match_finite_differences(axis):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 3, 2))
    bn = layers.BatchNormalization(axis=axis, dtype="float64")
    bn.build(x.shape)
    bn.gamma.assign(rng.uniform(0.5, 2.0, bn.gamma.shape))
    bn.beta.assign(rng.standard_normal(bn.beta.shape))
    assert_gradients_match_finite_differences(
        lambda inputs: bn(inputs, training=True), x, [bn.gamma, bn.beta]
    )


def test_axis_1_with_momentum_and_epsilon_matches_tensorflow():
    x = (np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) % 5) - 1.5
    bn = layers.BatchNormalization(
        axis=1, center=False, scale=False, momentum=0.5, epsilon=0.1
    )
    out = bn(x, training=True)
    assert [w.name for w in bn.weights] == ["moving_mean", "moving_variance"]
    tf_out = [
        [[[-1.3394992, -0.62509966], [0.08929995, 0.8036995]],
         [[1.3394992, -1.5180991], [-0.8036995, -0.08929995]],
         [[0.87571186, 1.5762812], [-1.2259966, -0.5254271]]],
        [[[0.08929995, 0.8036995], [1.5180991, -1.3394992]],
         [[-0.8036995, -0.08929995], [0.62509966, 1.3394992]],
         [[-1.2259966, -0.5254271], [0.17514236, 0.87571186]]],
    ]  # fmt: skip
    np.testing.assert_allclose(out.numpy(), tf_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.1875, 0.3125, 0.125])
    np.testing.assert_allclose(
        bn.moving_variance.numpy(), [1.4296875, 1.4296875, 1.46875]
    )
    assert bn.compute_output_shape((None, 3, 2, 2)) == (None, 3, 2, 2)


def test_dtypes_follow_the_layer():
    ints = np.array([[1, 2], [3, 5]], np.int32)
    out = layers.BatchNormalization()(ints, training=True)
    assert out.dtype == tf.float32
    # TensorFlow printed [[-0.9995004 -0.9997778] [0.9995005 0.99977803]]
    np.testing.assert_allclose(
        out.numpy(), [[-0.9995004, -0.9997778], [0.9995005, 0.99977803]], rtol=1e-6
    )
    floats = np.array([[1.0, 2.0], [3.0, 5.0]])
    assert layers.BatchNormalization()(floats, training=True).dtype == tf.float32
    wide = layers.BatchNormalization(dtype="float64")
    assert wide(floats.astype(np.float32), training=True).dtype == tf.float64
    assert wide.moving_mean.dtype == tf.float64


def test_frozen_layer_runs_in_inference_mode():
    bn = layers.BatchNormalization()
    bn(X, training=True)
    inference = bn(X).numpy()
    moving = [v.numpy().copy() for v in bn.non_trainable_weights]
    bn.trainable = False
    assert bn.trainable_weights == []
    assert [w.name for w in bn.non_trainable_weights] == [
        "gamma",
        "beta",
        "moving_mean",
        "moving_variance",
    ]
    np.testing.assert_array_equal(bn(X, training=True).numpy(), inference)
    for v, before in zip(bn.non_trainable_weights[2:], moving):
        np.testing.assert_array_equal(v.numpy(), before)
    bn.trainable = True
    assert not np.array_equal(bn(X, training=True).numpy(), inference)


def test_the_training_flag_reaches_batch_normalization_in_every_kind_of_model():
    def fresh() -> layers.BatchNormalization:
        return layers.BatchNormalization(name="bn")

    standalone = fresh()
    batch_stats = standalone(X, training=True).numpy()

    seq = keras.Sequential([keras.Input(shape=(3,)), fresh()])
    inputs = keras.Input(shape=(3,))
    func = keras.Model(inputs, fresh()(inputs))

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.bn = fresh()

        def call(self, x, training=None):
            return self.bn(x)  # no training=: it comes from the call context

    for model in (seq, func, Net()):
        np.testing.assert_allclose(
            model(X, training=True).numpy(), batch_stats, rtol=1e-6
        )
        bn = model.get_layer("bn") if not isinstance(model, Net) else model.bn
        np.testing.assert_allclose(
            bn.moving_mean.numpy(), standalone.moving_mean.numpy()
        )
        moving = bn.moving_mean.numpy().copy()
        np.testing.assert_array_equal(model(X).numpy(), bn(X, training=False).numpy())
        model(X, training=False)
        np.testing.assert_array_equal(bn.moving_mean.numpy(), moving)


def test_fit_trains_with_batch_statistics_and_predict_uses_the_moving_ones():
    y = np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)
    model = keras.Sequential(
        [
            keras.Input(shape=(3,)),
            layers.BatchNormalization(name="bn"),
            layers.Dense(1, kernel_initializer="ones", name="out"),
        ]
    )
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(X, y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    bn = model.get_layer("bn")
    # TensorFlow: two training steps moved the statistics to these
    np.testing.assert_allclose(
        bn.moving_mean.numpy(), [0.0123, 0.014874998, 0.027549999], rtol=1e-6
    )
    np.testing.assert_allclose(
        bn.moving_variance.numpy(), [1.005625, 1.0012938, 0.9882], rtol=1e-6
    )
    before = [v.numpy().copy() for v in bn.non_trainable_weights]
    model.evaluate(X, y, verbose=0)
    model.predict(X, verbose=0)
    for v, b in zip(bn.non_trainable_weights, before):
        np.testing.assert_array_equal(v.numpy(), b)


def test_bad_arguments_and_inputs_are_explained():
    with pytest.raises(IndexError, match=r"axis=3, which is not an axis .* \[-2, 1\]"):
        layers.BatchNormalization(axis=3)(X)
    with pytest.raises(NotImplementedError, match="beta_regularizer"):
        layers.BatchNormalization(beta_regularizer="l2")
    with pytest.raises(NotImplementedError, match="renorm"):
        layers.BatchNormalization(renorm=True)
    bn = layers.BatchNormalization(name="bn")
    bn(X)
    with pytest.raises(
        ValueError,
        match="Input 0 with name 'None' of layer 'bn' is incompatible with the "
        "layer: expected axis -1 of input shape to have value 3, but received "
        r"input with shape \(2, 4\)",
    ):
        bn(np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        bn(np.ones((2, 2, 3), np.float32))
