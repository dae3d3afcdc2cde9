"""Functional-model graph accessors and summaries print what TensorFlow printed.

``model.inputs``/``outputs``/``input``/``output``, ``layer.input``/``output``,
feature extractors built from them (the Keras guides' examples), and the
summaries of models with the new layers. Each expected output below was printed
by the same program under tensorflow-cpu 2.21.0 (Keras 3.15) with ``import
tensorflow as tf`` and ``import keras``; where tapemagic's error messages go on
to say what to do, the program prints TensorFlow's part of them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers


def _tensorflow_part(message: str) -> str:
    """An error message up to where tapemagic adds what to do about it."""
    for added in (" (Calls on data do not count", " Start it with keras.Input"):
        message = message.split(added)[0]
    return message


def _feature_extraction() -> None:
    keras.backend.clear_session()
    initial_model = keras.Sequential(
        [
            keras.Input(shape=(16, 16, 3)),
            layers.Conv2D(4, 5, strides=2, activation="relu"),
            layers.Conv2D(4, 3, activation="relu", name="my_intermediate_layer"),
            layers.Conv2D(4, 3, activation="relu"),
        ]
    )
    print(initial_model.inputs)
    print(initial_model.outputs)
    print(initial_model.input_shape, initial_model.output_shape)
    feature_extractor = keras.Model(
        inputs=initial_model.inputs,
        outputs=[layer.output for layer in initial_model.layers],
    )
    print(
        feature_extractor.name, feature_extractor.input, feature_extractor.output_shape
    )
    x = tf.ones((1, 16, 16, 3))
    features = feature_extractor(x)
    print([tuple(f.shape) for f in features])
    feature_extractor.summary()
    mid = keras.Model(
        inputs=initial_model.inputs,
        outputs=initial_model.get_layer(name="my_intermediate_layer").output,
    )
    print(mid.name, tuple(mid(x).shape), mid.output)
    inputs = keras.Input(shape=(5,), name="features")
    h = layers.Dense(4, name="hidden")(inputs)
    n = layers.BatchNormalization(name="norm")(h)
    outputs = layers.Dense(1, name="out")(n)
    func = keras.Model(inputs, outputs, name="func")
    print(func.input, func.output)
    print(func.layers[0].input, func.layers[0].output)
    print(func.get_layer("norm").input, func.get_layer("norm").output)
    ext = keras.Model(
        inputs=func.inputs, outputs=[layer.output for layer in func.layers], name="ext"
    )
    ext.summary()
    print(ext.outputs)
    mid = keras.Model(func.inputs, func.get_layer("norm").output, name="mid")
    mid.summary()
    func.get_layer("norm").trainable = False
    func.summary()


FEATURE_EXTRACTION = """\
[<KerasTensor shape=(None, 16, 16, 3), dtype=float32, sparse=False, ragged=False, name=keras_tensor>]
[<KerasTensor shape=(None, 2, 2, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_3>]
(None, 16, 16, 3) (None, 2, 2, 4)
functional_1 [<KerasTensor shape=(None, 16, 16, 3), dtype=float32, sparse=False, ragged=False, name=keras_tensor>] [(None, 6, 6, 4), (None, 4, 4, 4), (None, 2, 2, 4)]
[(1, 6, 6, 4), (1, 4, 4, 4), (1, 2, 2, 4)]
Model: "functional_1"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ input_layer (InputLayer)        │ (None, 16, 16, 3)      │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ conv2d (Conv2D)                 │ (None, 6, 6, 4)        │           304 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ my_intermediate_layer (Conv2D)  │ (None, 4, 4, 4)        │           148 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ conv2d_1 (Conv2D)               │ (None, 2, 2, 4)        │           148 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 600 (2.34 KB)
 Trainable params: 600 (2.34 KB)
 Non-trainable params: 0 (0.00 B)
functional_2 (1, 4, 4, 4) <KerasTensor shape=(None, 4, 4, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_2>
<KerasTensor shape=(None, 5), dtype=float32, sparse=False, ragged=False, name=features> <KerasTensor shape=(None, 1), dtype=float32, sparse=False, ragged=False, name=keras_tensor_6>
[] <KerasTensor shape=(None, 5), dtype=float32, sparse=False, ragged=False, name=features>
<KerasTensor shape=(None, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_4> <KerasTensor shape=(None, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_5>
Model: "ext"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ features (InputLayer)           │ (None, 5)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ hidden (Dense)                  │ (None, 4)              │            24 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ norm (BatchNormalization)       │ (None, 4)              │            16 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ out (Dense)                     │ (None, 1)              │             5 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 45 (180.00 B)
 Trainable params: 37 (148.00 B)
 Non-trainable params: 8 (32.00 B)
[<KerasTensor shape=(None, 5), dtype=float32, sparse=False, ragged=False, name=features>, <KerasTensor shape=(None, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_4>, <KerasTensor shape=(None, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_5>, <KerasTensor shape=(None, 1), dtype=float32, sparse=False, ragged=False, name=keras_tensor_6>]
Model: "mid"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ features (InputLayer)           │ (None, 5)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ hidden (Dense)                  │ (None, 4)              │            24 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ norm (BatchNormalization)       │ (None, 4)              │            16 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 40 (160.00 B)
 Trainable params: 32 (128.00 B)
 Non-trainable params: 8 (32.00 B)
Model: "func"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ features (InputLayer)           │ (None, 5)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ hidden (Dense)                  │ (None, 4)              │            24 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ norm (BatchNormalization)       │ (None, 4)              │            16 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ out (Dense)                     │ (None, 1)              │             5 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 45 (180.00 B)
 Trainable params: 29 (116.00 B)
 Non-trainable params: 16 (64.00 B)
"""  # noqa: E501


def _summaries() -> None:
    keras.backend.clear_session()
    model = keras.Sequential(
        [
            keras.Input(shape=(8, 8, 3)),
            layers.Conv2D(4, 3, name="conv"),
            layers.BatchNormalization(name="bn"),
            layers.SeparableConv2D(6, 3, depth_multiplier=2, name="sep"),
            layers.DepthwiseConv2D(2, name="dw"),
            layers.Flatten(name="flat"),
            layers.Dense(2, name="head"),
        ],
        name="cnn",
    )
    model.summary()
    print([w.path for w in model.non_trainable_weights])
    print(len(model.trainable_weights), len(model.weights))
    late = keras.Sequential(
        [layers.Dense(4, name="a"), layers.BatchNormalization(name="b")], name="late"
    )
    late(np.ones((5, 3), "float32"))
    late.summary()
    print(late.inputs, late.layers[-1].output)


SUMMARIES = """\
Model: "cnn"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ conv (Conv2D)                   │ (None, 6, 6, 4)        │           112 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ bn (BatchNormalization)         │ (None, 6, 6, 4)        │            16 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ sep (SeparableConv2D)           │ (None, 4, 4, 6)        │           126 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dw (DepthwiseConv2D)            │ (None, 3, 3, 6)        │            30 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ flat (Flatten)                  │ (None, 54)             │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ head (Dense)                    │ (None, 2)              │           110 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 394 (1.54 KB)
 Trainable params: 386 (1.51 KB)
 Non-trainable params: 8 (32.00 B)
['cnn/bn/moving_mean', 'cnn/bn/moving_variance']
11 13
Model: "late"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ a (Dense)                       │ (5, 4)                 │            16 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ b (BatchNormalization)          │ (5, 4)                 │            16 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 32 (128.00 B)
 Trainable params: 24 (96.00 B)
 Non-trainable params: 8 (32.00 B)
[<KerasTensor shape=(5, 3), dtype=float32, sparse=False, ragged=False, name=keras_tensor_7>] <KerasTensor shape=(5, 4), dtype=float32, sparse=False, ragged=False, name=keras_tensor_9>
"""  # noqa: E501


def _errors() -> None:
    keras.backend.clear_session()
    never = layers.Dense(4, name="never")
    eager = layers.Dense(4, name="eager")
    eager(np.ones((2, 3), "float32"))
    seq = keras.Sequential([layers.Dense(2, name="h")], name="seq")
    inp = keras.Input(shape=(3,), name="x")
    twice = layers.Dense(2, name="twice")
    first = twice(inp)
    twice(keras.Input(shape=(3,), name="y"))
    print(twice.input is inp, twice.output is first)

    class Net(keras.Model):
        def call(self, x):
            return x

    for obj, attr in [
        (never, "output"),
        (never, "input"),
        (eager, "output"),
        (seq, "inputs"),
        (seq, "outputs"),
        (seq, "input"),
        (seq, "output"),
        (seq, "input_shape"),
        (Net(), "inputs"),
        (twice, "input_shape"),
    ]:
        try:
            getattr(obj, attr)
        except AttributeError as e:
            print(type(e).__name__, _tensorflow_part(str(e)))


ERRORS = """\
True True
AttributeError The layer never has never been called and thus has no defined output.
AttributeError The layer never has never been called and thus has no defined input.
AttributeError The layer eager has never been called and thus has no defined output.
AttributeError Sequential model 'seq' has no defined inputs yet.
AttributeError Sequential model 'seq' has no defined outputs yet.
AttributeError The layer seq has never been called and thus has no defined input.
AttributeError The layer seq has never been called and thus has no defined output.
AttributeError Sequential model 'seq' has no defined input shape yet.
AttributeError 'Net' object has no attribute 'inputs'
AttributeError 'Dense' object has no attribute 'input_shape'
"""  # noqa: E501


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        (_feature_extraction, FEATURE_EXTRACTION),
        (_summaries, SUMMARIES),
        (_errors, ERRORS),
    ],
    ids=["feature_extraction", "summaries", "errors"],
)
def test_programs_print_what_tensorflow_printed(capsys, program, expected):
    program()
    assert capsys.readouterr().out == expected


# -- behaviour behind the printed programs ---------------------------------------------


def test_feature_extractors_share_the_layers_and_their_weights():
    rng = np.random.default_rng(0)
    model = keras.Sequential(
        [
            keras.Input(shape=(6, 6, 2)),
            layers.Conv2D(3, 3, activation="relu", name="conv"),
            layers.BatchNormalization(name="bn"),
            layers.Flatten(name="flat"),
            layers.Dense(2, name="head"),
        ]
    )
    extractor = keras.Model(model.inputs, [layer.output for layer in model.layers])
    x = tf.constant(rng.standard_normal((4, 6, 6, 2)).astype(np.float32))
    features = extractor(x)
    expected = x
    for layer, feature in zip(model.layers, features):
        expected = layer(expected)
        np.testing.assert_allclose(feature.numpy(), expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(features[-1].numpy(), model(x).numpy(), rtol=1e-6)
    assert extractor.weights == model.weights
    # the training flag reaches the shared BatchNormalization through the extractor
    bn = model.get_layer("bn")
    extractor(x, training=True)
    assert not np.array_equal(bn.moving_mean.numpy(), np.zeros(3, np.float32))


def test_a_list_of_one_input_or_output_is_unpacked_as_keras_does():
    inputs = keras.Input(shape=(3,), name="x")
    outputs = layers.Dense(1)(inputs)
    listed = keras.Model([inputs], [outputs])
    assert listed.input == [inputs] and listed.output == [outputs]
    assert listed.input_shape == (None, 3) and listed.output_shape == (None, 1)
    x = np.ones((2, 3), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = listed(tf.constant(x))  # a tensor for a list of one: no warning
        assert listed([x]).shape == (2, 1)
    assert out.shape == (2, 1)  # a list of one output gives the tensor
    # NumPy data for a list of one, and a list for one input: Keras' warning
    with pytest.warns(
        UserWarning,
        match=r"^The structure of `inputs` doesn't match the expected structure.\n"
        r"Expected: \['x'\]\nReceived: inputs=Tensor\(shape=\(2, 3\)\)$",
    ):
        listed(x)
    single = keras.Model(inputs, outputs)
    with pytest.warns(
        UserWarning,
        match=r"Expected: x\nReceived: inputs=\['Tensor\(shape=\(2, 3\)\)'\]$",
    ):
        assert single([x]).shape == (2, 1)


def test_a_model_of_several_inputs_takes_a_list_of_arrays():
    a, b = keras.Input(shape=(2,), name="a"), keras.Input(shape=(2,), name="b")
    dense = layers.Dense(1, kernel_initializer="ones", use_bias=False)
    model = keras.Model([a, b], [dense(a), dense(b)])
    ones, twos = np.ones((3, 2), np.float32), np.full((3, 2), 2.0, np.float32)
    out_a, out_b = model([ones, twos])
    np.testing.assert_array_equal(out_a.numpy(), np.full((3, 1), 2.0))
    np.testing.assert_array_equal(out_b.numpy(), np.full((3, 1), 4.0))
    assert model.input_shape == [(None, 2), (None, 2)]
    assert dense.input is a and dense.output is model.outputs[0]


def test_sequential_graph_follows_its_builds():
    model = keras.Sequential([layers.Dense(4, name="h"), layers.Dense(2, name="o")])
    model(np.ones((5, 3), np.float32))
    assert model.input_shape == (5, 3) and model.output_shape == (5, 2)
    assert model.layers[0].input is model.inputs[0]
    assert model.layers[-1].output is model.outputs[0]
    # a batch of another size still runs
    assert model(np.ones((7, 3), np.float32)).shape == (7, 2)
    model.add(layers.Dense(1, name="last"))
    assert model.output_shape == (5, 1)
    extractor = keras.Model(model.inputs, model.get_layer("o").output)
    assert extractor(tf.ones((5, 3))).shape == (5, 2)
    model.pop(rebuild=False)
    with pytest.raises(AttributeError, match="has no defined outputs yet"):
        _ = model.outputs
