"""Keras metrics (running means) and keras.utils, against hand-computed values."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.keras import backend, metrics, utils


def test_sparse_categorical_accuracy_accumulates_and_resets():
    m = metrics.SparseCategoricalAccuracy()
    assert m.name == "sparse_categorical_accuracy"
    m.update_state([0, 1, 2], [[0.9, 0.1, 0.0], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7]])
    assert float(m.result()) == pytest.approx(2 / 3)
    m.update_state(np.array([[1]]), np.array([[0.2, 0.8, 0.0]]))  # (N, 1) labels
    assert float(m.result()) == pytest.approx(3 / 4)
    assert m.result().dtype == tf.float32
    m.reset_state()
    assert float(m.result()) == 0.0
    assert all(not v.trainable for v in m.variables)


def test_sparse_categorical_accuracy_with_sample_weight():
    m = metrics.SparseCategoricalAccuracy()
    m.update_state([0, 1], [[0.9, 0.1], [0.9, 0.1]], sample_weight=[3.0, 1.0])
    assert float(m.result()) == pytest.approx(0.75)


def test_call_updates_then_returns_the_result():
    m = metrics.SparseCategoricalAccuracy()
    assert float(m([0], [[1.0, 0.0]])) == 1.0
    assert float(m([0], [[0.0, 1.0]])) == 0.5


def test_mean_weights_and_per_example_rows():
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state(10.0, sample_weight=2.0)
    assert float(m.result()) == pytest.approx((1 + 2 + 3 + 20) / 5)
    rows = metrics.Mean()
    # each row counts once: row means 1.5 and 5.0
    rows.update_state([[1.0, 2.0], [4.0, 6.0]])
    assert float(rows.result()) == pytest.approx(3.25)
    assert float(rows.count) == 2.0


def test_mean_of_tensors_is_not_recorded_on_a_tape():
    x = tf.Variable(2.0)
    m = metrics.Mean()
    with tf.GradientTape() as tape:
        y = x * 3.0
        m.update_state(y)
    assert float(m.result()) == 6.0
    assert float(tape.gradient(y, x)) == 3.0


def test_categorical_binary_and_exact_accuracy():
    assert float(metrics.CategoricalAccuracy()([[0, 1], [1, 0]], [[0.4, 0.6]] * 2)) == (
        0.5
    )
    binary = metrics.BinaryAccuracy()
    binary.update_state([[1.0], [0.0], [1.0], [0.0]], [[0.7], [0.6], [0.2], [0.1]])
    assert float(binary.result()) == 0.5
    strict = metrics.BinaryAccuracy(threshold=0.65)
    strict.update_state([[1.0], [0.0]], [[0.7], [0.6]])
    assert float(strict.result()) == 1.0
    assert float(metrics.Accuracy()([1, 2, 3, 4], [1, 2, 0, 0])) == 0.5


def test_metric_functions_return_per_example_matches():
    got = metrics.sparse_categorical_accuracy(
        [2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]]
    )
    np.testing.assert_array_equal(got.numpy(), [1.0, 0.0])


def test_metrics_get():
    assert isinstance(metrics.get("sparse_categorical_accuracy"),
                      metrics.SparseCategoricalAccuracy)  # fmt: skip
    with pytest.raises(ValueError, match="Could not interpret metric identifier"):
        metrics.get("precision_at_k")


def test_to_categorical():
    got = utils.to_categorical([0, 2, 1])
    np.testing.assert_array_equal(got, np.eye(3)[[0, 2, 1]])
    assert got.dtype == np.float64
    column = utils.to_categorical(np.array([[1], [0]]), num_classes=4)
    assert column.shape == (2, 4)
    from_tensor = utils.to_categorical(tf.constant([1, 0]), 2)
    assert from_tensor.dtype == tf.float32
    np.testing.assert_array_equal(from_tensor.numpy(), [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="outside"):
        utils.to_categorical([3], num_classes=3)


def test_set_random_seed_seeds_python_numpy_and_tf():
    utils.set_random_seed(3)
    first = (random.random(), np.random.rand(), tf.random.uniform([2]).numpy())
    utils.set_random_seed(3)
    second = (random.random(), np.random.rand(), tf.random.uniform([2]).numpy())
    assert first[0] == second[0] and first[1] == second[1]
    np.testing.assert_array_equal(first[2], second[2])
    with pytest.raises(ValueError, match="integer"):
        utils.set_random_seed(1.5)


def test_backend_settings():
    assert backend.floatx() == "float32"
    assert backend.epsilon() == 1e-7
    backend.clear_session()
    names = [backend._auto_name("MaxPooling2D") for _ in range(2)]
    assert names == ["max_pooling2d", "max_pooling2d_1"]
    assert backend._to_snake_case("ReLU") == "re_lu"
    with pytest.raises(ValueError, match="floatx"):
        backend.set_floatx("int32")
