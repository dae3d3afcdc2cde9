"""Embedding and Keras' masks carried through the layers, checked against Keras 3
(tensorflow-cpu 2.21) live or against its stored record (see ``keras_reference``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
from tapemagic.keras import layers
from tapemagic.keras.layers.masking import get_keras_mask

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


def _sequential(k):
    return k.keras.Sequential([
        k.layers.Embedding(7, 4, mask_zero=True),
        k.layers.Dense(3, activation="tanh"),
        k.layers.Dropout(0.5),
        k.layers.GlobalAveragePooling1D(),
    ])  # fmt: skip


def _functional(k):
    inputs = k.keras.Input((5,), dtype="int32")
    x = k.layers.Embedding(7, 4, mask_zero=True)(inputs)
    x = k.layers.Dense(3)(x)
    x = k.layers.ReLU()(x)
    return k.keras.Model(inputs, k.layers.GlobalAveragePooling1D()(x))


# an initializer without a seed draws one on first use (Keras' keeps None)
SKIP = ("embeddings_initializer",)

STEPS_MASK = np.array(
    [[True, True, False, True, False], [False, True, True, True, True],
     [True, False, False, False, True]]
)  # fmt: skip


def _normalized(k):
    return k.keras.Sequential([
        k.layers.Embedding(7, 4, mask_zero=True),
        k.layers.BatchNormalization(momentum=0.5),
        k.layers.GlobalAveragePooling1D(),
    ])  # fmt: skip


CASES = [
    Case(
        "embedding",
        lambda k: k.layers.Embedding(7, 3),
        ((2, 5),),
        ints=7,
        skip_config=SKIP,
    ),
    Case(
        "embedding_mask_zero",
        lambda k: k.layers.Embedding(7, 3, mask_zero=True),
        ((2, 3, 4),),
        ints=7,
        skip_config=SKIP,
    ),
    Case(
        "embedding_initializer",
        lambda k: k.layers.Embedding(4, 2, embeddings_initializer="he_normal"),
        ((3, 2),),
        ints=4,
        skip_config=SKIP,
    ),
    Case("masked_sequential", _sequential, ((3, 5),), ints=7, compare_config=False),
    Case("masked_functional", _functional, ((3, 5),), ints=7, compare_config=False),
    # a mask leaves the masked steps out of the batch statistics
    Case(
        "masked_batch_normalization",
        lambda k: k.layers.BatchNormalization(momentum=0.5),
        ((3, 5, 4),),
        call={"mask": STEPS_MASK, "training": True},
        compare_config=False,  # tapemagic's BatchNormalization writes the base keys
    ),
    Case(
        "masked_sequential_batch_normalization",
        _normalized,
        ((3, 5),),
        ints=7,
        call={"training": True},
        compare_config=False,
    ),
]

IDS = np.array([[1, 2, 0, 0, 3], [4, 0, 5, 6, 0], [0, 0, 0, 1, 2]], np.int32)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


def test_the_record_has_padding():
    # the masked cases mean something only where some indices are 0
    rng = np.random.default_rng(0)
    assert (rng.integers(0, 7, (3, 5)) == 0).any()


@pytest.mark.parametrize("mask_zero", [False, True])
def test_gradients_match_finite_differences(mask_zero, float64_layers):
    layer = layers.Embedding(7, 3, mask_zero=mask_zero)
    pool = layers.GlobalAveragePooling1D()
    layer(IDS)
    scale = np.random.default_rng(1).standard_normal((3, 5, 3))

    def fn(t):
        return pool(layer(IDS) * t, mask=layer.compute_mask(IDS))

    assert_gradients_match_finite_differences(fn, scale, [layer.embeddings])
    assert_second_order_matches_finite_differences(
        lambda t: fn(t) ** 2, scale, [layer.embeddings]
    )


def test_masks_reach_the_layers_that_take_them():
    # Dense and Dropout keep the mask; the pooling uses it and ends it
    embed = layers.Embedding(7, 2, mask_zero=True)
    x = embed(IDS)
    mask = get_keras_mask(x)
    np.testing.assert_array_equal(mask.numpy(), IDS != 0)
    dense = layers.Dense(2)(x)
    assert get_keras_mask(dense) is mask
    dropped = layers.Dropout(0.3)(dense, training=True)
    assert get_keras_mask(dropped) is mask
    pooled = layers.GlobalAveragePooling1D()(dropped)
    assert get_keras_mask(pooled) is None
    want = (dropped.numpy() * mask.numpy()[..., None]).sum(1) / mask.numpy().sum(
        1, keepdims=True
    )
    np.testing.assert_allclose(pooled.numpy(), want, rtol=1e-6)
    # an explicit mask wins over the attached one
    ones = np.ones((3, 5), bool)
    np.testing.assert_allclose(
        layers.GlobalAveragePooling1D()(dropped, mask=ones).numpy(),
        dropped.numpy().mean(1),
        rtol=1e-6,
    )


def test_masks_as_keras_attaches_them():
    # Keras 3 gives the Embedding's mask to Dense's and ReLU's outputs, and
    # none after Flatten (which warns): the same where TensorFlow imports
    padding = (IDS != 0).tolist()
    sides = [tapemagic_side()] + ([keras_side()] if keras_side() else [])
    for k in sides:
        masks = []
        x = k.layers.Embedding(7, 2, mask_zero=True)(IDS)
        for layer in (k.layers.Dense(2), k.layers.ReLU(), k.layers.Flatten()):
            masks.append(_mask(k, x))
            if isinstance(layer, k.layers.Flatten):
                with pytest.warns(UserWarning, match="does not support masking"):
                    x = layer(x)
            else:
                x = layer(x)
        masks.append(_mask(k, x))
        assert masks == [padding, padding, padding, None]


def _mask(k, x):
    if "tapemagic" in k.keras.__name__:
        m = get_keras_mask(x)
    else:
        m = getattr(x, "_keras_mask", None)
    return None if m is None else np.asarray(m).tolist()


def test_a_layer_without_masking_drops_the_mask_with_keras_warning():
    x = layers.Embedding(7, 2, mask_zero=True)(IDS)
    with pytest.warns(UserWarning, match="does not support masking and will"):
        out = layers.Flatten()(x)
    assert get_keras_mask(out) is None


def test_masked_models_train():
    model = keras.Sequential([
        keras.Input((5,), dtype="int32"),
        layers.Embedding(7, 4, mask_zero=True),
        layers.GlobalAveragePooling1D(),
        layers.Dense(1),
    ])  # fmt: skip
    model.compile("sgd", "mse")
    y = np.ones((3, 1), np.float32)
    before = model.evaluate(IDS, y, verbose=0)
    model.fit(IDS, y, epochs=5, verbose=0)
    assert model.evaluate(IDS, y, verbose=0) < before
    # padding changes nothing: the masked steps are left out of the mean
    padded = np.concatenate([IDS, np.zeros((3, 2), np.int32)], axis=1)
    np.testing.assert_allclose(model(padded).numpy(), model(IDS).numpy(), rtol=1e-6)


def test_masked_batch_statistics_match_finite_differences(float64_layers):
    layer = layers.BatchNormalization()
    x = np.random.default_rng(4).standard_normal((3, 5, 4))
    layer(x)
    assert_gradients_match_finite_differences(
        lambda t: layer(t, mask=STEPS_MASK, training=True),
        x,
        list(layer.trainable_weights),
    )


@pytest.mark.parametrize("case", CASES[:3], ids=lambda c: c.name)
def test_config_round_trip(case):
    layer = case.make(tapemagic_side())
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_weights_argument_and_shapes():
    table = np.arange(6, dtype=np.float32).reshape(3, 2)
    layer = layers.Embedding(3, 2, weights=table)
    np.testing.assert_array_equal(layer(np.array([[2, 0]])).numpy(), table[[[2, 0]]])
    assert layer.compute_output_shape((None, 4)) == (None, 4, 2)
    inputs = keras.Input((None,), dtype="int32")
    assert layers.Embedding(3, 5)(inputs).shape == (None, None, 5)
    # floats are taken as indices, as Keras casts them
    np.testing.assert_array_equal(layer(np.array([[2.0]])).numpy(), table[[[2]]])


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.Embedding(0, 2), ValueError,
     r"`input_dim` must be a positive integer. Received: input_dim=0"),
    (lambda k: k.layers.Embedding(3, 2.5), ValueError,
     r"`output_dim` must be a positive integer. Received: output_dim=2.5 "
     r"\(of type float\)"),
])  # fmt: skip
def test_errors_as_keras(make, error, words):
    check_error_against_keras(make, error, words)


def test_unsupported_arguments_say_what_to_do():
    with pytest.raises(NotImplementedError, match="penalty to the loss"):
        layers.Embedding(3, 2, embeddings_regularizer="l2")
    with pytest.raises(NotImplementedError, match="LoRA"):
        layers.Embedding(3, 2, lora_rank=2)


def _padded_steps():
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32)
    x[0, 2] = 0.0
    x[1, [0, 3]] = 0.0
    return x


def test_masking_as_keras():
    x = _padded_steps()
    got = []
    sides = [tapemagic_side()] + ([keras_side()] if keras_side() else [])
    for k in sides:
        masking = k.layers.Masking()
        rnn = k.layers.SimpleRNN(2)
        out = masking(x)
        rnn(out)
        rnn.set_weights([np.full(w.shape, 0.3, np.float32) for w in rnn.weights])
        got.append((np.asarray(out), _mask(k, out), np.asarray(rnn(out))))
    np.testing.assert_array_equal(got[0][1], (x != 0).any(-1).tolist())
    # the masked steps are skipped: the same as leaving them out
    rnn = layers.SimpleRNN(2)
    rnn(x)
    rnn.set_weights([np.full(w.shape, 0.3, np.float32) for w in rnn.weights])
    for row, kept in enumerate((x != 0).any(-1)):
        np.testing.assert_allclose(
            got[0][2][row], rnn(x[row : row + 1, kept]).numpy()[0], rtol=1e-6
        )
    if len(got) == 2:
        for ours, theirs in zip(got[0], got[1]):
            np.testing.assert_allclose(
                np.asarray(ours, np.float64), theirs, rtol=1e-5, atol=1e-6
            )


def test_masking_gradients_match_finite_differences(float64_layers):
    x = _padded_steps().astype(np.float64)
    masking, rnn = layers.Masking(), layers.GRU(2)
    rnn(masking(x))
    # the padding stays padding as the input moves
    padding = (x != 0).any(-1, keepdims=True).astype(np.float64)
    assert_gradients_match_finite_differences(
        lambda t: rnn(masking(t * padding)), x, list(rnn.trainable_weights)
    )
    config = masking.get_config()
    assert config["mask_value"] == 0.0
    assert layers.Masking.from_config(config).get_config() == config
