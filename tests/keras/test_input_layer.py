"""``InputLayer`` and ``Input`` as Keras 3 takes them: ``shape=``, Keras 2's
``input_shape=`` (with Keras 3's deprecation warning), ``batch_input_shape=``,
``input_tensor``, the config and the errors.

``_program`` runs on tapemagic and, where TensorFlow imports, on Keras 3
(tensorflow-cpu 2.21); both print the same lines, which are stored below for
where TensorFlow is absent.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.keras as tm_keras

from .keras_reference import keras_side


def _program(keras) -> list[str]:
    lines = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layer = keras.layers.InputLayer(input_shape=(3,), name="old")
    lines.append(f"warned: {[str(w.message) for w in caught]}")
    lines.append(f"batch_shape: {layer.batch_shape} output: {layer.output.shape}")
    config = layer.get_config()
    lines.append(f"config: {config}")
    lines.append(f"from_config: {type(layer).from_config(config).batch_shape}")
    old_batch = keras.layers.InputLayer(batch_input_shape=(4, 3))
    lines.append(f"batch_input_shape: {old_batch.batch_shape}")
    sized = keras.layers.InputLayer(shape=(2, 5), batch_size=8)
    lines.append(f"batch_size: {sized.batch_shape}")
    typed = keras.layers.InputLayer(shape=(2,), dtype="int32", name="ids")
    lines.append(f"dtype: {typed.dtype} {typed.output.dtype} {typed.output.name}")
    given = keras.Input(shape=(6,), name="given")
    reused = keras.layers.InputLayer(input_tensor=given)
    lines.append(f"input_tensor: {reused.batch_shape} {reused.output is given}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = keras.Sequential(
            [keras.layers.InputLayer(input_shape=(3,)), keras.layers.Dense(2)]
        )
    sizes = f"{len(model.layers)} layer, {model.count_params()} weights"
    lines.append(f"sequential: {model.input_shape} -> {model.output_shape}, {sizes}")
    out = model(np.ones((5, 3), np.float32))
    lines.append(f"called: {tuple(out.shape)}")
    for kwargs in [
        {},
        {"shape": (3,), "batch_shape": (None, 3)},
        {"batch_size": 2, "batch_shape": (2, 3)},
        {"input_tensor": np.zeros((2, 3))},
        {"input_tensor": given, "shape": (5,)},
        {"input_tensor": given, "dtype": "int32"},
    ]:
        try:
            keras.layers.InputLayer(**kwargs)
        except ValueError as e:
            words = str(e).split(". ")[0].split(" Received")[0].rstrip(".")
            lines.append(f"ValueError: {words}")
    return lines


# what tensorflow-cpu 2.21 (Keras 3.15) printed
TENSORFLOW = [
    "warned: ['Argument `input_shape` is deprecated. Use `shape` instead.']",
    "batch_shape: (None, 3) output: (None, 3)",
    "config: {'batch_shape': (None, 3), 'dtype': 'float32', 'sparse': False, "
    "'ragged': False, 'name': 'old', 'optional': False}",
    "from_config: (None, 3)",
    "batch_input_shape: (4, 3)",
    "batch_size: (8, 2, 5)",
    "dtype: int32 int32 ids",
    "input_tensor: (None, 6) True",
    "sequential: (None, 3) -> (None, 2), 1 layer, 8 weights",
    "called: (5, 2)",
    "ValueError: You must pass a `shape` argument",
    "ValueError: You cannot pass both `shape` and `batch_shape` at the same time",
    "ValueError: You cannot pass both `batch_size` and `batch_shape` at the same time",
    "ValueError: Argument `input_tensor` must be a KerasTensor",
    "ValueError: When providing the `input_tensor` argument, you cannot provide an "
    "incompatible `shape` argument",
    "ValueError: When providing the `input_tensor` argument, you cannot provide an "
    "incompatible `dtype` argument",
]


def test_tensorflow_prints_the_stored_lines():
    side = keras_side()
    if side is None:
        pytest.skip("TensorFlow is not installed; the stored lines stand in")
    assert _program(side.keras) == TENSORFLOW


def test_tapemagic_prints_what_tensorflow_prints():
    assert _program(tm_keras) == TENSORFLOW


def test_sparse_and_ragged_are_refused_with_what_to_do():
    with pytest.raises(NotImplementedError, match="no sparse tensors"):
        tm_keras.Input(shape=(3,), sparse=True)
    with pytest.raises(NotImplementedError, match="padded to one length"):
        tm_keras.layers.InputLayer(shape=(3,), ragged=True)
