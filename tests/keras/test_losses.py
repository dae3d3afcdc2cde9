"""Keras 3 losses against NumPy and hand-computed values, both from_logits ways."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import activations, losses

EPS = 1e-7

LOGITS = np.array([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0], [1.0, 1.0, 1.0]], np.float32)
LABELS = np.array([0, 1, 2])


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z.astype(np.float64)
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _softmax(z: np.ndarray) -> np.ndarray:
    return np.exp(_log_softmax(z))


# -- sparse categorical cross entropy --------------------------------------------------


def test_sparse_from_logits_is_the_mean_negative_log_softmax():
    expected = -_log_softmax(LOGITS)[np.arange(3), LABELS].mean()
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, LOGITS)
    assert loss.dtype == tf.float32 and loss.shape == ()
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-6)


def test_sparse_from_probabilities_clips_then_logs_as_keras():
    # the second row has an exact 0 for its label: Keras clips it to 1e-7
    probs = np.array([[0.7, 0.2, 0.1], [0.5, 0.0, 0.5]], np.float32)
    labels = np.array([0, 1])
    clipped = np.clip(probs.astype(np.float64), EPS, 1 - EPS)
    log_p = np.log(clipped)
    # Keras feeds log(p) to sparse_softmax_cross_entropy_with_logits
    expected = -_log_softmax(log_p)[np.arange(2), labels]
    per_example = losses.sparse_categorical_crossentropy(labels, probs)
    np.testing.assert_allclose(per_example.numpy(), expected, rtol=1e-5)
    assert per_example.numpy()[1] == pytest.approx(-np.log(1e-7), rel=1e-4)
    loss = losses.SparseCategoricalCrossentropy()(labels, probs)
    np.testing.assert_allclose(loss.numpy(), expected.mean(), rtol=1e-5)


def test_sparse_extreme_logits_stay_finite():
    logits = np.array([[1000.0, -1000.0], [-1000.0, 1000.0]], np.float32)
    per_example = losses.sparse_categorical_crossentropy(
        [0, 0], logits, from_logits=True
    )
    np.testing.assert_array_equal(per_example.numpy(), [0.0, 2000.0])
    x = tf.Variable(logits)
    with tf.GradientTape() as tape:
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)([0, 0], x)
    grad = tape.gradient(loss, x).numpy()
    # (softmax - one_hot) / batch
    np.testing.assert_allclose(grad, [[0.0, 0.0], [-0.5, 0.5]], atol=1e-7)


def test_sparse_gradient_is_softmax_minus_one_hot_over_batch():
    x = tf.Variable(LOGITS)
    with tf.GradientTape() as tape:
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, x)
    expected = (_softmax(LOGITS) - np.eye(3)[LABELS]) / 3
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), expected, atol=1e-6)


def test_sparse_labels_of_shape_n_by_1_and_float_labels():
    base = losses.sparse_categorical_crossentropy(LABELS, LOGITS, from_logits=True)
    column = losses.sparse_categorical_crossentropy(
        LABELS[:, None], LOGITS, from_logits=True
    )
    floats = losses.sparse_categorical_crossentropy(
        LABELS.astype(np.float32), LOGITS, from_logits=True
    )
    np.testing.assert_array_equal(base.numpy(), column.numpy())
    np.testing.assert_array_equal(base.numpy(), floats.numpy())


def test_sparse_rank_mismatch_raises():
    with pytest.raises(ValueError, match="must have rank"):
        losses.sparse_categorical_crossentropy([0, 1, 2], np.zeros((3, 2, 2)))
    with pytest.raises(ValueError, match="same shape up until the last"):
        losses.sparse_categorical_crossentropy([0, 1], LOGITS)


# -- the logits behind a Keras softmax/sigmoid -----------------------------------------


def test_keras_softmax_output_is_scored_from_its_logits():
    # softmax([0, 200]) rounds to [0, 1]: clipping would give -log(1e-7) = 16.1,
    # but Keras uses the logits the softmax remembers and gets the exact 200.
    logits = tf.constant([[0.0, 200.0]])
    probs = activations.softmax(logits)
    loss = losses.SparseCategoricalCrossentropy()([0], probs)
    assert loss.numpy() == pytest.approx(200.0)
    plain = tf.nn.softmax(logits)  # not a Keras activation: clipped
    clipped = losses.SparseCategoricalCrossentropy()([0], plain)
    assert clipped.numpy() == pytest.approx(-np.log(1e-7), rel=1e-4)


def test_dense_softmax_layer_gives_finite_gradients_when_saturated():
    layer = keras.layers.Dense(
        2, activation="softmax", kernel_initializer=keras.initializers.Constant(50.0)
    )
    x = np.array([[4.0, -4.0]], np.float32)
    with tf.GradientTape() as tape:
        loss = losses.CategoricalCrossentropy()([[0.0, 1.0]], layer(x))
    grads = tape.gradient(loss, layer.trainable_weights)
    # logits are both 0 (50*4 - 50*4): the loss is log 2 exactly
    assert loss.numpy() == pytest.approx(np.log(2.0))
    assert all(np.isfinite(g.numpy()).all() for g in grads)


def test_from_logits_true_on_a_softmax_output_warns_and_uses_the_logits():
    probs = activations.softmax(tf.constant([[1.0, 2.0]]))
    with pytest.warns(UserWarning, match="from_logits=True"):
        loss = losses.sparse_categorical_crossentropy([1], probs, from_logits=True)
    expected = -_log_softmax(np.array([[1.0, 2.0]]))[0, 1]
    np.testing.assert_allclose(loss.numpy(), [expected], rtol=1e-6)


def test_sigmoid_output_is_scored_from_its_logits():
    logits = tf.constant([[-100.0]])
    probs = activations.sigmoid(logits)  # 3.7e-44: clipping would give 16.1
    loss = losses.BinaryCrossentropy()([[1.0]], probs)
    assert loss.numpy() == pytest.approx(100.0)


# -- categorical cross entropy ---------------------------------------------------------


def test_categorical_from_logits_matches_numpy():
    one_hot = np.eye(3, dtype=np.float32)[LABELS]
    expected = -(one_hot * _log_softmax(LOGITS)).sum(-1)
    got = losses.categorical_crossentropy(one_hot, LOGITS, from_logits=True)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)
    mean = losses.CategoricalCrossentropy(from_logits=True)(one_hot, LOGITS)
    np.testing.assert_allclose(mean.numpy(), expected.mean(), rtol=1e-6)


def test_categorical_from_probabilities_renormalizes_and_clips():
    # rows that do not sum to 1 are divided by their sum first; a 0 is clipped
    probs = np.array([[0.2, 0.2, 0.4], [0.0, 0.5, 0.5]], np.float32)
    one_hot = np.array([[0, 0, 1], [1, 0, 0]], np.float32)
    normalized = probs / probs.sum(-1, keepdims=True)
    expected = -(one_hot * np.log(np.clip(normalized, EPS, 1 - EPS))).sum(-1)
    got = losses.categorical_crossentropy(one_hot, probs)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5)
    assert got.numpy()[0] == pytest.approx(-np.log(0.5), rel=1e-6)


def test_categorical_extreme_logits_and_label_smoothing():
    logits = np.array([[1000.0, -1000.0]], np.float32)
    got = losses.categorical_crossentropy([[0.0, 1.0]], logits, from_logits=True)
    np.testing.assert_array_equal(got.numpy(), [2000.0])
    smoothed = losses.categorical_crossentropy(
        [[0.0, 1.0]], [[0.5, 0.5]], label_smoothing=0.2
    )
    # labels become [0.1, 0.9]; both probabilities are 0.5
    assert smoothed.numpy()[0] == pytest.approx(np.log(2.0), rel=1e-6)


def test_categorical_shape_mismatch_raises():
    with pytest.raises(ValueError, match="same shape"):
        losses.categorical_crossentropy([[0.0, 1.0]], [[0.2, 0.3, 0.5]])
    with pytest.raises(ValueError, match="same rank"):
        losses.categorical_crossentropy([0.0, 1.0], [[0.5, 0.5]])


# -- binary cross entropy --------------------------------------------------------------


def test_binary_from_logits_matches_the_stable_numpy_form():
    z = np.array([[-3.0, 0.0, 2.0], [10.0, -10.0, 0.5]], np.float32)
    y = np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]], np.float32)
    zd = z.astype(np.float64)
    per_element = np.maximum(zd, 0) - zd * y + np.log1p(np.exp(-np.abs(zd)))
    got = losses.binary_crossentropy(y, z, from_logits=True)
    np.testing.assert_allclose(got.numpy(), per_element.mean(-1), rtol=1e-6)
    mean = losses.BinaryCrossentropy(from_logits=True)(y, z)
    np.testing.assert_allclose(mean.numpy(), per_element.mean(), rtol=1e-6)


def test_binary_from_probabilities_clips_zero_and_one():
    p = np.array([[0.0, 1.0, 0.25]], np.float32)
    y = np.array([[1.0, 1.0, 0.0]], np.float32)
    clipped = np.clip(p.astype(np.float64), EPS, 1 - EPS)
    per_element = -(y * np.log(clipped) + (1 - y) * np.log(1 - clipped))
    got = losses.binary_crossentropy(y, p)
    np.testing.assert_allclose(got.numpy(), per_element.mean(-1), rtol=1e-4)
    assert np.isfinite(got.numpy()).all()


def test_binary_extreme_logits_and_gradient():
    z = tf.Variable(np.array([[1000.0], [-1000.0]], np.float32))
    with tf.GradientTape() as tape:
        loss = losses.BinaryCrossentropy(from_logits=True)([[0.0], [0.0]], z)
    assert loss.numpy() == pytest.approx(500.0)
    # d/dz of mean(softplus-form) = (sigmoid(z) - y) / N
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), [[0.5], [0.0]])


def test_binary_labels_of_shape_n_are_expanded_against_n_by_1():
    y = np.array([1.0, 0.0], np.float32)
    p = np.array([[0.8], [0.4]], np.float32)
    expected = -(np.log(0.8) + np.log(0.6)) / 2
    got = losses.BinaryCrossentropy()(y, p)
    assert got.numpy() == pytest.approx(expected, rel=1e-6)


def test_binary_label_smoothing():
    got = losses.binary_crossentropy([[1.0]], [[0.9]], label_smoothing=0.2)
    # the label becomes 0.9
    expected = -(0.9 * np.log(0.9) + 0.1 * np.log(0.1))
    assert got.numpy()[0] == pytest.approx(expected, rel=1e-5)


# -- regression losses -----------------------------------------------------------------


def test_mean_squared_error_per_example_and_reduced():
    y = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    p = np.array([[1.5, 2.0], [1.0, 4.0]], np.float32)
    np.testing.assert_allclose(
        losses.mean_squared_error(y, p).numpy(), [0.125, 2.0], rtol=1e-6
    )
    assert losses.MeanSquaredError()(y, p).numpy() == pytest.approx(1.0625)
    assert losses.mse is losses.mean_squared_error
    assert losses.MeanAbsoluteError()(y, p).numpy() == pytest.approx(0.625)


def test_mse_expands_rank_1_targets_instead_of_broadcasting():
    # (N,) against (N, 1) would broadcast to (N, N) without Keras' expansion
    y = np.array([1.0, 2.0, 3.0], np.float32)
    p = np.array([[1.0], [2.0], [5.0]], np.float32)
    assert losses.MeanSquaredError()(y, p).numpy() == pytest.approx(4.0 / 3.0)


REG_TRUE = np.array(
    [[0.5, 1.0, -2.0], [3.0, 0.0, 1.5], [-1.0, 2.0, 0.25], [4.0, -0.5, 1.0]],
    np.float32,
)
REG_PRED = np.array(
    [[0.0, 1.5, -1.0], [2.5, 0.5, 1.0], [-1.5, 2.5, 0.0], [3.0, 0.0, 2.0]], np.float32
)
W4 = np.array([1.0, 0.5, 2.0, 0.0], np.float32)


def test_percentage_and_squared_log_errors_match_tensorflow():
    """tensorflow-cpu 2.21.0 printed these for the same arrays; a label of 0 is
    divided by epsilon (1e-7) in the percentage error, hence the huge values."""
    mape = losses.MeanAbsolutePercentageError()
    assert mape.name == "mean_absolute_percentage_error"
    assert float(mape(REG_TRUE, REG_PRED)) == pytest.approx(41666724.0, rel=1e-6)
    weighted = mape(REG_TRUE, REG_PRED, sample_weight=W4)
    assert float(weighted) == pytest.approx(20833382.0, rel=1e-6)
    msle = losses.MeanSquaredLogarithmicError()
    assert msle.name == "mean_squared_logarithmic_error"
    assert float(msle(REG_TRUE, REG_PRED)) == pytest.approx(0.061164237558841705)
    weighted = msle(REG_TRUE, REG_PRED, sample_weight=W4)
    assert float(weighted) == pytest.approx(0.03977654501795769, rel=1e-6)
    np.testing.assert_allclose(
        losses.mean_squared_logarithmic_error(REG_TRUE[:2], REG_PRED[:2]).numpy(),
        [0.0713983, 0.07734183],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        losses.mean_absolute_percentage_error(REG_TRUE[:2], REG_PRED[:2]).numpy(),
        [6.6666672e01, 1.6666669e08],
        rtol=1e-6,
    )
    assert losses.get("mape") is losses.mean_absolute_percentage_error
    assert losses.get("msle") is losses.mean_squared_logarithmic_error
    assert isinstance(
        losses.get("MeanAbsolutePercentageError"), losses.MeanAbsolutePercentageError
    )
    assert losses.MAPE is losses.mape is losses.mean_absolute_percentage_error


@pytest.mark.parametrize(
    "loss",
    [losses.MeanAbsolutePercentageError(), losses.MeanSquaredLogarithmicError()],
    ids=["mape", "msle"],
)
def test_percentage_and_squared_log_gradients_match_finite_differences(loss):
    # labels and predictions apart and positive: off the kinks of abs and max
    rng = np.random.default_rng(3)
    y_true = rng.uniform(0.5, 2.0, (4, 3))
    p0 = y_true + rng.choice([-1.0, 1.0], (4, 3)) * rng.uniform(0.1, 0.4, (4, 3))
    weight = rng.uniform(0.5, 1.5, 4)
    loss64 = type(loss)(dtype="float64")
    p = tf.Variable(p0)
    with tf.GradientTape() as tape:
        value = loss64(y_true, p, sample_weight=weight)
    grad = tape.gradient(value, p).numpy()
    h = 1e-6
    for _ in range(3):
        d = rng.standard_normal(p0.shape)
        up = float(loss64(y_true, p0 + h * d, sample_weight=weight))
        down = float(loss64(y_true, p0 - h * d, sample_weight=weight))
        assert np.sum(grad * d) == pytest.approx((up - down) / (2 * h), rel=1e-6)


# -- reductions, weights and dtypes ----------------------------------------------------


@pytest.mark.parametrize(
    ("reduction", "expected"),
    [
        ("sum_over_batch_size", (0.5 + 2.0 + 4.5) / 3),
        ("mean", (0.5 + 2.0 + 4.5) / 3),
        ("sum", 0.5 + 2.0 + 4.5),
        (None, [0.5, 2.0, 4.5]),
        ("none", [0.5, 2.0, 4.5]),
    ],
)
def test_reductions(reduction, expected):
    y = np.zeros((3, 2), np.float32)
    p = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]], np.float32)
    loss = losses.MeanSquaredError(reduction=reduction)(y, p)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-6)


def test_sample_weight_and_mean_with_sample_weight():
    y = np.zeros((3, 1), np.float32)
    p = np.array([[1.0], [2.0], [3.0]], np.float32)  # per-example losses 1, 4, 9
    w = np.array([1.0, 0.0, 2.0], np.float32)
    weighted = losses.MeanSquaredError()(y, p, sample_weight=w)
    assert weighted.numpy() == pytest.approx((1 + 18) / 3)
    by_weight = losses.MeanSquaredError(reduction="mean_with_sample_weight")(
        y, p, sample_weight=w
    )
    assert by_weight.numpy() == pytest.approx((1 + 18) / 3.0)
    assert losses.MeanSquaredError(reduction="sum")(
        y, p, sample_weight=w
    ).numpy() == pytest.approx(19.0)


def test_invalid_reduction_raises():
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        losses.MeanSquaredError(reduction="average")


def test_loss_objects_compute_in_their_dtype():
    y = np.array([0, 1])
    z = np.array([[0.1, 0.2], [0.3, -0.4]], np.float64)
    default = losses.SparseCategoricalCrossentropy(from_logits=True)(y, z)
    assert default.dtype == tf.float32  # floatx, as Keras casts y_pred
    double = losses.SparseCategoricalCrossentropy(from_logits=True, dtype="float64")(
        y, z
    )
    assert double.dtype == tf.float64
    expected = -_log_softmax(z)[np.arange(2), y].mean()
    assert double.numpy() == pytest.approx(expected, rel=1e-12)
    # the function form keeps the input's dtype
    assert losses.sparse_categorical_crossentropy(y, z, True).dtype == tf.float64


def test_custom_loss_subclass_gets_reduction():
    class AbsoluteError(losses.Loss):
        def call(self, y_true, y_pred):
            return tf.abs(y_true - y_pred)

    loss = AbsoluteError()([1.0, 2.0, 3.0], [2.0, 2.0, 0.0])
    assert loss.numpy() == pytest.approx(4.0 / 3.0)
    assert AbsoluteError().name.startswith("absolute_error")


def test_get_resolves_names_and_rejects_unknown():
    assert losses.get("sparse_categorical_crossentropy") is (
        losses.sparse_categorical_crossentropy
    )
    assert isinstance(losses.get("BinaryCrossentropy"), losses.BinaryCrossentropy)
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        losses.get("cross_entropy")


def test_ignore_class_is_reported_as_unsupported():
    with pytest.raises(NotImplementedError, match="ignore_class"):
        losses.sparse_categorical_crossentropy([0], [[0.5, 0.5]], ignore_class=0)


def test_no_warning_for_plain_probabilities():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        losses.sparse_categorical_crossentropy([0], [[0.5, 0.5]])
