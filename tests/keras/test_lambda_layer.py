"""``Lambda``, checked against Keras 3 (tensorflow-cpu 2.21) live or against its
stored record (see ``keras_reference``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
import tapemagic.tf as tf
from tapemagic.keras import layers

from .keras_reference import Case, check_against_keras, keras_side
from .layer_checks import (
    assert_gradients_match_finite_differences,
    assert_second_order_matches_finite_differences,
)

CASES = [
    # the function's code holds its line in this file, so the stored record
    # leaves it out (test_function_is_written_as_keras_writes_it compares it)
    Case(
        "square",
        lambda k: k.layers.Lambda(lambda x: k.tf.square(x) * 0.5),
        ((3, 4),),
        skip_config=("function",),
        second_order=True,
    ),
    Case(
        "arguments",
        lambda k: k.layers.Lambda(lambda x, scale: x * scale, arguments={"scale": 3.0}),
        ((2, 3),),
        skip_config=("function",),
    ),
    Case(
        "output_shape",
        lambda k: k.layers.Lambda(lambda x: x[:, :2] * x[:, 1:], output_shape=(2, 4)),
        ((2, 3, 4),),
        skip_config=("function",),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


def test_gradients_match_finite_differences(float64_layers):
    x = np.random.default_rng(1).standard_normal((3, 4))
    layer = layers.Lambda(lambda t: tf.sin(t) * t)
    assert_gradients_match_finite_differences(layer, x, [])
    assert_second_order_matches_finite_differences(layer, x, [])


def test_infers_its_output_shape_in_a_functional_model():
    inputs = keras.Input(shape=(6,))
    out = layers.Lambda(lambda t: tf.reshape(t, (-1, 2, 3)))(inputs)
    assert out.shape == (None, 2, 3)
    model = keras.Model(inputs, out)
    x = np.arange(12.0, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(model(x).numpy(), x.reshape(2, 2, 3))


def test_passes_training_and_mask_when_the_function_takes_them():
    seen = {}

    def fn(x, training=None, mask=None):
        seen["training"], seen["mask"] = training, mask
        return x

    layers.Lambda(fn)(np.ones((1, 2), np.float32), training=True)
    assert seen == {"training": True, "mask": None}
    assert layers.Lambda(fn, mask=lambda x, m: "m").compute_mask(None) == "m"


def test_config_round_trip_needs_safe_mode_off_for_a_lambda():
    layer = layers.Lambda(lambda x, scale: x * scale, arguments={"scale": 2.0},
                          output_shape=(3,))  # fmt: skip
    config = layer.get_config()
    assert config["function"]["class_name"] == "__lambda__"
    with pytest.raises(ValueError, match="pass `safe_mode=False`"):
        layers.Lambda.from_config(config)
    copy = layers.Lambda.from_config(config, safe_mode=False)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(copy(x).numpy(), 2 * x)
    assert copy.compute_output_shape((None, 3)) == (None, 3)


def test_function_is_written_as_keras_writes_it():
    side = keras_side()
    fn = lambda x, scale=2.0: x * scale  # noqa: E731
    config = layers.Lambda(fn).get_config()["function"]
    assert config["class_name"] == "__lambda__"
    assert config["config"]["defaults"] == (2.0,)
    if side is not None:
        assert config == side.layers.Lambda(fn).get_config()["function"]


def test_function_must_be_callable():
    with pytest.raises(TypeError, match="must be callable"):
        layers.Lambda(3)


def test_on_a_list_of_inputs_in_a_functional_model():
    a, b = keras.Input(shape=(3,)), keras.Input(shape=(3,))
    out = layers.Lambda(lambda ts: ts[0] * ts[1] + 1.0)([a, b])
    assert out.shape == (None, 3)
    model = keras.Model([a, b], out)
    x, y = np.full((2, 3), 2.0, np.float32), np.full((2, 3), 3.0, np.float32)
    np.testing.assert_array_equal(model([x, y]).numpy(), x * y + 1.0)
