"""The merge layers, and functional models of several inputs and outputs,
checked against Keras 3 (tensorflow-cpu 2.21) live or against its stored record
(see ``keras_reference``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
import tapemagic.tf as tf
from tapemagic.keras import layers

from .keras_reference import (
    Case,
    check_against_keras,
    check_error_against_keras,
    keras_side,
    tapemagic_side,
)
from .layer_checks import (
    assert_gradients_match_finite_differences,
    assert_second_order_matches_finite_differences,
)


def _two_in_two_out(k):
    """A model of two inputs and two outputs, Keras' functional API guide's
    shape: the inputs merged, one head each."""
    title = k.keras.Input(shape=(4,), name="title")
    body = k.keras.Input(shape=(3, 2), name="body")
    flat = k.layers.Flatten()(body)
    merged = k.layers.Concatenate()([k.layers.Dense(3)(title), flat])
    hidden = k.layers.Dense(5, activation="tanh")(merged)
    priority = k.layers.Dense(1, name="priority")(hidden)
    scaled = k.layers.Multiply()([hidden, k.layers.Dense(5)(title)])
    department = k.layers.Dense(2, activation="softmax", name="department")(scaled)
    return k.keras.Model([title, body], [priority, department])


def _residual(k):
    """One input used twice, merged back: a residual block."""
    inputs = k.keras.Input(shape=(6,))
    x = k.layers.Dense(6, activation="relu")(inputs)
    x = k.layers.Add()([x, inputs])
    mean = k.layers.Average()([x, k.layers.Dense(6)(x)])
    return k.keras.Model(inputs, k.layers.Subtract()([mean, inputs]))


CASES = [
    Case("add", lambda k: k.layers.Add(), ((2, 3), (2, 3), (2, 3))),
    Case("add_broadcast", lambda k: k.layers.Add(), ((2, 3, 4), (2, 1, 4))),
    Case("add_ranks", lambda k: k.layers.Add(), ((2, 3, 4), (2, 4))),
    Case("subtract", lambda k: k.layers.Subtract(), ((2, 5), (2, 5))),
    Case(
        "multiply",
        lambda k: k.layers.Multiply(),
        ((2, 4), (2, 4), (2, 1)),
        second_order=True,
    ),  # fmt: skip
    Case("average", lambda k: k.layers.Average(), ((2, 3, 2), (2, 3, 2))),
    Case("maximum", lambda k: k.layers.Maximum(), ((3, 4), (3, 4), (3, 4))),
    Case("minimum", lambda k: k.layers.Minimum(), ((3, 4), (3, 4))),
    Case("concatenate", lambda k: k.layers.Concatenate(), ((2, 3), (2, 1), (2, 2))),
    Case(
        "concatenate_axis_1",
        lambda k: k.layers.Concatenate(axis=1),
        ((2, 3, 4), (2, 2, 4)),
    ),  # fmt: skip
    Case(
        "dot_vectors",
        lambda k: k.layers.Dot(axes=1),
        ((3, 4), (3, 4)),
        second_order=True,
    ),  # fmt: skip
    Case(
        "dot_matrices",
        lambda k: k.layers.Dot(axes=(1, 2)),
        ((2, 3, 4), (2, 5, 3)),
        second_order=True,
    ),  # fmt: skip
    Case("dot_last_axes", lambda k: k.layers.Dot(axes=-1), ((2, 3, 4), (2, 5, 4))),
    Case(
        "dot_matrix_vector", lambda k: k.layers.Dot(axes=(2, 1)), ((2, 3, 4), (2, 4))
    ),  # fmt: skip
    Case(
        "dot_normalize",
        lambda k: k.layers.Dot(axes=1, normalize=True),
        ((3, 4), (3, 4)),
        second_order=True,
    ),  # fmt: skip
    Case(
        "model_two_in_two_out",
        _two_in_two_out,
        ((2, 4), (2, 3, 2)),
        compare_config=False,
        second_order=True,
    ),  # fmt: skip
    Case("model_residual", _residual, ((3, 6),), compare_config=False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(s) for s in case.shapes]
    layer = case.make(tapemagic_side())
    tensors = [tf.constant(x) for x in xs]
    layer(tensors if len(tensors) > 1 else tensors[0])
    for w in layer.weights:
        w.assign(rng.standard_normal(tuple(w.shape)) / 2)
    # every input moves: the first through the checker, the others with it
    sizes = [x.size for x in xs]
    flat = np.concatenate([x.ravel() for x in xs])

    def fn(t):
        parts = tf.split(tf.reshape(t, [-1]), sizes)
        ins = [tf.reshape(p, s) for p, s in zip(parts, case.shapes)]
        out = layer(ins if len(ins) > 1 else ins[0])
        outs = out if isinstance(out, list) else [out]
        return tf.concat([tf.reshape(o, [-1]) for o in outs], 0)

    assert_gradients_match_finite_differences(fn, flat, layer.trainable_weights)
    if case.second_order:
        assert_second_order_matches_finite_differences(
            fn, flat, layer.trainable_weights
        )


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.compare_config], ids=lambda c: c.name
)
def test_config_round_trip(case):
    layer = case.make(keras)
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_functional_forms():
    a, b = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    for fn, want in [
        (layers.add, a + b), (layers.subtract, a - b), (layers.multiply, a * b),
        (layers.average, (a + b) / 2), (layers.maximum, b), (layers.minimum, a),
    ]:  # fmt: skip
        np.testing.assert_array_equal(fn([a, b]).numpy(), want)
    assert layers.concatenate([a, b], axis=0).shape == (4, 3)
    np.testing.assert_array_equal(layers.dot([a, b], axes=1).numpy(), [[6.0], [6.0]])


def test_symbolic_calls_record_every_input():
    a, b = keras.Input(shape=(3,)), keras.Input(shape=(3,))
    merge = layers.Maximum()
    out = merge([a, b])
    assert out.shape == (None, 3)
    assert merge.input == [a, b] and merge.output is out
    assert layers.Concatenate(axis=1)([a, b]).shape == (None, 6)
    assert layers.Dot(axes=1)([a, b]).shape == (None, 1)
    c = keras.Input(shape=(None, 4))
    assert layers.Dot(axes=(2, 2))([c, c]).shape == (None, None, None)


def test_a_model_of_two_inputs_trains_with_fit():
    rng = np.random.default_rng(7)
    left, right = keras.Input(shape=(3,)), keras.Input(shape=(2,))
    merged = layers.concatenate([layers.Dense(4)(left), right])
    model = keras.Model([left, right], layers.Dense(1)(merged))
    model.compile(optimizer="adam", loss="mse")
    data = [rng.standard_normal((16, 3)).astype(np.float32),
            rng.standard_normal((16, 2)).astype(np.float32)]  # fmt: skip
    target = rng.standard_normal((16, 1)).astype(np.float32)
    history = model.fit(
        data, target, epochs=6, batch_size=4, validation_split=0.25, verbose=0
    )
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert len(history.history["val_loss"]) == 6
    assert model.predict(data, batch_size=5, verbose=0).shape == (16, 1)
    loss = model.evaluate(data, target, verbose=0)
    np.testing.assert_allclose(
        loss, np.mean((model.predict(data, verbose=0) - target) ** 2), rtol=1e-5
    )
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit([data[0], data[1][:8]], target, verbose=0)


def _fit_two_inputs(k) -> list[float]:
    """A two-input model fitted without shuffling from fixed weights: the
    losses of each epoch, then the evaluation's."""
    rng = np.random.default_rng(8)
    left, right = k.keras.Input(shape=(3,)), k.keras.Input(shape=(2,))
    merged = k.layers.Concatenate()([k.layers.Dense(4)(left), right])
    model = k.keras.Model([left, right], k.layers.Dense(1)(merged))
    model.set_weights(
        [(rng.standard_normal(tuple(w.shape)) / 2).astype(np.float32)
         for w in model.weights]
    )  # fmt: skip
    model.compile(optimizer=k.keras.optimizers.SGD(0.1), loss="mse")
    data = [rng.standard_normal((12, 3)).astype(np.float32),
            rng.standard_normal((12, 2)).astype(np.float32)]  # fmt: skip
    target = rng.standard_normal((12, 1)).astype(np.float32)
    history = model.fit(data, target, epochs=3, batch_size=4, shuffle=False, verbose=0)
    return history.history["loss"] + [model.evaluate(data, target, verbose=0)]


# what tensorflow-cpu 2.21 (Keras 3.15) gave
FIT_TWO_INPUTS = [2.27255988, 2.60525322, 1.15291011, 0.734327495]


def test_fit_with_two_inputs_matches_keras():
    side = keras_side()
    if side is not None:
        np.testing.assert_allclose(_fit_two_inputs(side), FIT_TWO_INPUTS, rtol=1e-6)
    np.testing.assert_allclose(
        _fit_two_inputs(tapemagic_side()), FIT_TWO_INPUTS, rtol=1e-5
    )


def test_a_model_of_two_inputs_and_two_outputs_trains_in_a_custom_loop():
    rng = np.random.default_rng(6)
    left, right = keras.Input(shape=(3,)), keras.Input(shape=(2,))
    merged = layers.concatenate([layers.Dense(4)(left), right])
    model = keras.Model(
        [left, right], [layers.Dense(1)(merged), layers.Dense(2)(merged)]
    )
    optimizer = keras.optimizers.Adam(0.05)
    data = [tf.constant(rng.standard_normal((16, 3)).astype(np.float32)),
            tf.constant(rng.standard_normal((16, 2)).astype(np.float32))]  # fmt: skip
    targets = [rng.standard_normal((16, 1)).astype(np.float32),
               rng.standard_normal((16, 2)).astype(np.float32)]  # fmt: skip
    losses = []
    for _ in range(10):
        with tf.GradientTape() as tape:
            first, second = model(data, training=True)
            loss = tf.reduce_mean((first - targets[0]) ** 2) + tf.reduce_mean(
                (second - targets[1]) ** 2
            )
        grads = tape.gradient(loss, model.trainable_weights)
        assert all(g is not None for g in grads)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        losses.append(float(loss))
    assert losses[-1] < losses[0]


ONE = np.ones((1, 2), np.float32)


# Keras 3.15's words, which tapemagic keeps (then says what to do)
@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.Add()(np.ones((2, 3), np.float32)), ValueError,
     "A merge layer should be called on a list of inputs"),
    (lambda k: k.layers.Subtract()([ONE, ONE, ONE]), ValueError,
     "A `Subtract` layer should be called on exactly 2 inputs"),
    (lambda k: k.layers.Add()([ONE, np.ones((1, 3), np.float32)]), ValueError,
     "Inputs have incompatible shapes"),
    (lambda k: k.layers.Add()([ONE, np.ones((2, 2), np.float32)]), ValueError,
     "Cannot merge tensors with different batch sizes"),
    (lambda k: k.layers.Concatenate()([ONE, np.ones((2, 3), np.float32)]),
     ValueError, "requires inputs with matching shapes except for the "
     "concatenation axis"),
    (lambda k: k.layers.Dot(axes=1)([ONE, ONE, ONE]), ValueError,
     "A `Dot` layer should be called on a list of 2 inputs"),
    (lambda k: k.layers.Dot(axes=1)([ONE, np.ones((1, 3), np.float32)]), ValueError,
     r"Incompatible input shapes: axis values 2 \(at axis 1\) != 3"),
    (lambda k: k.layers.Dot(axes="last"), TypeError,
     "Invalid type for argument `axes`"),
    (lambda k: k.layers.Dot(axes=(1, 2, 3)), ValueError,
     "it should contain two elements"),
    (lambda k: k.layers.Dot(axes=0)([ONE, ONE]), ValueError,
     "Cannot perform batch_dot over axis 0"),
])  # fmt: skip
def test_bad_arguments_and_inputs_are_refused_as_keras_refuses_them(make, error, words):
    check_error_against_keras(make, error, words)
