"""MultiHeadAttention and Attention, checked against Keras 3 (tensorflow-cpu 2.21)
live or against its stored record (see ``keras_reference``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
import tapemagic.tf as tf
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

ATTENTION_MASK = np.random.default_rng(7).random((2, 4, 5)) > 0.3
ATTENTION_MASK[:, :, 0] = True  # every query attends somewhere
Q_MASK = np.array([[True, True, True, False], [True, True, False, False]])
V_MASK = np.array([[True, True, True, False, True], [True, True, False, False, False]])
SKIP = ("kernel_initializer",)


def _mha(name, make, shapes, call=None, **options):
    return Case(
        name, make, shapes, call=call or {}, skip_config=SKIP, spread=True, **options
    )


CASES = [
    _mha(
        "mha_self",
        lambda k: k.layers.MultiHeadAttention(2, 3),
        ((2, 4, 6), (2, 4, 6)),
        second_order=True,
    ),
    _mha(
        "mha_cross_attention_mask",
        lambda k: k.layers.MultiHeadAttention(2, 3, value_dim=2, output_shape=5),
        ((2, 4, 6), (2, 5, 3)),
        call={"attention_mask": ATTENTION_MASK},
        second_order=True,
    ),
    _mha(
        "mha_causal_scores",
        lambda k: k.layers.MultiHeadAttention(3, 2),
        ((2, 4, 6), (2, 4, 6)),
        call={"use_causal_mask": True, "return_attention_scores": True},
        second_order=True,
    ),
    _mha(
        "mha_key_no_bias_all_masks",
        lambda k: k.layers.MultiHeadAttention(2, 3, use_bias=False),
        ((2, 4, 6), (2, 4, 3), (2, 4, 2)),
        call={
            "attention_mask": ATTENTION_MASK[:, :, :4],
            "use_causal_mask": True,
            "return_attention_scores": True,
        },
    ),
    Case("attention", lambda k: k.layers.Attention(), ((2, 4, 3), (2, 5, 3))),
    Case(
        "attention_scaled_masked",
        lambda k: k.layers.Attention(use_scale=True),
        ((2, 4, 3), (2, 5, 3)),
        call={"mask": [Q_MASK, V_MASK]},
        second_order=True,
    ),
    Case(
        "attention_concat_causal_key_scores",
        lambda k: k.layers.Attention(use_scale=True, score_mode="concat"),
        ((2, 4, 3), (2, 5, 3), (2, 5, 3)),
        call={
            "use_causal_mask": True,
            "return_attention_scores": True,
            "mask": [None, V_MASK],
        },
        second_order=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


def _float64(case):
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(s) for s in case.shapes]
    layer = case.make(tapemagic_side())
    if case.spread:
        layer(*xs, **case.call)
    else:
        layer(xs, **case.call)
    layer.set_weights([rng.standard_normal(w.shape) / 2 for w in layer.weights])
    sizes = [int(np.prod(s)) for s in case.shapes]

    def fn(flat):
        # all the inputs in one flat tensor, so each gets its gradient checked
        parts, start = [], 0
        for s, n in zip(case.shapes, sizes):
            parts.append(tf.reshape(flat[start : start + n], s))
            start += n
        out = layer(*parts, **case.call) if case.spread else layer(parts, **case.call)
        if isinstance(out, tuple):
            out = tf.concat([tf.reshape(o, (2, -1)) for o in out], axis=1)
        return out

    x = np.concatenate([v.ravel() for v in xs])
    return fn, x, list(layer.trainable_weights)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    fn, x, variables = _float64(case)
    assert_gradients_match_finite_differences(fn, x, variables)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.second_order], ids=lambda c: c.name
)
def test_second_order_matches_finite_differences(case, float64_layers):
    fn, x, variables = _float64(case)
    assert_second_order_matches_finite_differences(fn, x, variables)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_config_round_trip(case):
    layer = case.make(tapemagic_side())
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_keras_masks_reach_the_attention():
    # an Embedding's mask is the query's and the value's mask, as Keras takes it
    ids = np.array([[3, 1, 2, 0], [4, 2, 0, 0]], np.int32)
    results = []
    sides = [tapemagic_side()] + ([keras_side()] if keras_side() else [])
    for k in sides:
        embed = k.layers.Embedding(6, 4, mask_zero=True)
        mha = k.layers.MultiHeadAttention(2, 3)
        att = k.layers.Attention()
        x = embed(ids)
        rng = np.random.default_rng(0)
        mha(x, x)
        for layer in (embed, mha):
            layer.set_weights(
                [rng.standard_normal(w.shape).astype(np.float32) for w in layer.weights]
            )
        x = embed(ids)
        out = mha(x, x)
        mask = (
            get_keras_mask(out)
            if "tapemagic" in k.keras.__name__
            else getattr(out, "_keras_mask", None)
        )
        y = embed(ids)
        pooled = att([y, y])
        results.append((np.asarray(out), np.asarray(mask), np.asarray(pooled)))
    np.testing.assert_array_equal(results[0][1], ids != 0)
    if len(results) == 2:
        for got, want in zip(results[0], results[1]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_transformer_block_in_a_functional_model():
    inputs = keras.Input((None,), dtype="int32")
    x = layers.Embedding(20, 8, mask_zero=True)(inputs)
    attended, scores = layers.MultiHeadAttention(2, 4)(
        x, x, use_causal_mask=True, return_attention_scores=True
    )
    x = layers.LayerNormalization()(layers.Add()([x, attended]))
    out = layers.Dense(1)(layers.GlobalAveragePooling1D()(x))
    model = keras.Model(inputs, [out, scores])
    assert [t.shape for t in model.outputs] == [(None, 1), (None, 2, None, None)]
    ids = np.array([[3, 1, 2, 0, 0], [4, 2, 5, 6, 1]], np.int32)
    _, weights = model(ids)
    assert tuple(weights.shape) == (2, 2, 5, 5)
    np.testing.assert_allclose(weights.numpy().sum(-1), 1.0, rtol=1e-5)
    assert np.all(np.triu(weights.numpy()[1, 0], 1) == 0)
    model = keras.Model(inputs, out)
    model.compile("adam", "mse")
    history = model.fit(ids, np.ones((2, 1)), epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_dropout_while_training_only():
    x = np.random.default_rng(0).standard_normal((2, 4, 6)).astype(np.float32)
    mha = layers.MultiHeadAttention(2, 3, dropout=0.5, seed=1)
    assert np.array_equal(mha(x, x).numpy(), mha(x, x, training=False).numpy())
    assert not np.allclose(mha(x, x, training=True).numpy(), mha(x, x).numpy())


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.MultiHeadAttention(0, 2), ValueError,
     "invalid value for argument `num_heads`, expected a positive integer"),
    (lambda k: k.layers.MultiHeadAttention(2, -1), ValueError,
     "invalid value for argument `key_dim`"),
    (lambda k: k.layers.MultiHeadAttention(2, 2, value_dim=0), ValueError,
     "invalid value for argument `value_dim`"),
    (lambda k: k.layers.MultiHeadAttention(2, 2)(
        np.zeros((1, 3, 2), np.float32), np.zeros((1, 4, 2), np.float32),
        np.zeros((1, 5, 2), np.float32)), ValueError,
     "All dimensions of `value` and `key`, except the last one, must be equal"),
    (lambda k: k.layers.Attention(score_mode="add"), ValueError,
     "Invalid value for argument score_mode"),
    (lambda k: k.layers.Attention()(np.zeros((1, 2, 2), np.float32)), ValueError,
     "must be called on a list of inputs"),
])  # fmt: skip
def test_errors_as_keras(make, error, words):
    check_error_against_keras(make, error, words)


def test_unsupported_arguments_say_what_to_do():
    with pytest.raises(NotImplementedError, match="attention_axes=None or 1"):
        layers.MultiHeadAttention(2, 2, attention_axes=(1, 2))
    with pytest.raises(NotImplementedError, match="attention_mask"):
        layers.MultiHeadAttention(2, 2, sliding_window=3)


def test_summary_lists_the_scores_as_keras(capsys):
    inputs = keras.Input((None, 4))
    out, scores = layers.MultiHeadAttention(2, 3)(
        inputs, inputs, return_attention_scores=True
    )
    keras.Model(inputs, [out, scores]).summary()
    # Keras 3 prints the same list in its Output Shape column
    assert "[(None, None, 4), (None, 2, None, None)]" in capsys.readouterr().out
