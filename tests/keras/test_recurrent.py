"""SimpleRNN, LSTM, GRU and Bidirectional, checked against Keras 3 (tensorflow-cpu
2.21) live or against its stored record (see ``keras_reference``)."""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.keras as keras
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

MASK = np.array([[True, True, True, False, False], [True, False, True, True, True]])
H0 = np.random.default_rng(5).standard_normal((2, 4)).astype(np.float32)
C0 = np.random.default_rng(6).standard_normal((2, 4)).astype(np.float32)

# an initializer without a seed draws one on first use (Keras' keeps None)
SKIP = ("kernel_initializer", "recurrent_initializer")
# the wrapped layers' configs hold their initializers: compared below
SKIP_WRAPPED = ("layer", "backward_layer")


def _case(name, make, call=None, skip=SKIP, **options):
    return Case(name, make, ((2, 5, 3),), call=call or {}, skip_config=skip, **options)


def _custom_cell_rnn(k):
    class MinimalRNNCell(k.layers.Layer):
        # the cell of the Keras guide "Working with RNNs"
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units

        def build(self, input_shape):
            self.kernel = self.add_weight(
                shape=(input_shape[-1], self.units), name="kernel"
            )
            self.recurrent_kernel = self.add_weight(
                shape=(self.units, self.units), name="recurrent_kernel"
            )

        def call(self, inputs, states):
            h = k.tf.matmul(inputs, self.kernel)
            output = k.tf.tanh(h + k.tf.matmul(states[0], self.recurrent_kernel))
            return output, [output]

    return k.layers.RNN(MinimalRNNCell(4), return_sequences=True, go_backwards=True)


CASES = [
    _case("simple_rnn", lambda k: k.layers.SimpleRNN(4), second_order=True),
    _case(
        "simple_rnn_sequences_masked_backwards",
        lambda k: k.layers.SimpleRNN(
            4, activation="relu", return_sequences=True, go_backwards=True
        ),
        call={"mask": MASK},
        second_order=True,
    ),
    _case(
        "simple_rnn_state",
        lambda k: k.layers.SimpleRNN(4, return_state=True, use_bias=False),
        call={"initial_state": [H0], "mask": MASK},
    ),
    _case("lstm", lambda k: k.layers.LSTM(4), second_order=True),
    _case(
        "lstm_sequences_masked",
        lambda k: k.layers.LSTM(4, return_sequences=True, unit_forget_bias=False),
        call={"mask": MASK},
    ),
    _case(
        "lstm_state_backwards",
        lambda k: k.layers.LSTM(4, return_state=True, go_backwards=True),
        call={"initial_state": [H0, C0], "mask": MASK},
    ),
    _case(
        "lstm_activations",
        lambda k: k.layers.LSTM(
            4, activation="relu", recurrent_activation="softsign", use_bias=False
        ),
    ),
    _case("gru", lambda k: k.layers.GRU(4), second_order=True),
    _case(
        "gru_reset_before_masked",
        lambda k: k.layers.GRU(4, reset_after=False, return_sequences=True),
        call={"mask": MASK},
        second_order=True,
    ),
    _case(
        "gru_state_backwards",
        lambda k: k.layers.GRU(
            4, return_sequences=True, return_state=True, go_backwards=True
        ),
        call={"initial_state": [H0], "mask": MASK},
    ),
    _case("gru_no_bias", lambda k: k.layers.GRU(4, use_bias=False)),
    _case(
        "rnn_lstm_cell",
        lambda k: k.layers.RNN(k.layers.LSTMCell(4), return_state=True),
        call={"mask": MASK},
        skip=("cell",),
    ),
    _case(
        "rnn_custom_cell",
        _custom_cell_rnn,
        call={"mask": MASK},
        compare_config=False,
        second_order=True,
    ),
    _case(
        "bidirectional_lstm",
        lambda k: k.layers.Bidirectional(k.layers.LSTM(4)),
        skip=SKIP_WRAPPED,
        second_order=True,
    ),
    _case(
        "bidirectional_gru_sum_masked",
        lambda k: k.layers.Bidirectional(
            k.layers.GRU(4, return_sequences=True), merge_mode="sum"
        ),
        call={"mask": MASK},
        skip=SKIP_WRAPPED,
    ),
    _case(
        "bidirectional_simple_rnn_none_state",
        lambda k: k.layers.Bidirectional(
            k.layers.SimpleRNN(4, return_sequences=True, return_state=True),
            merge_mode=None,
        ),
        call={"mask": MASK},
        skip=SKIP_WRAPPED,
    ),
    _case(
        "bidirectional_lstm_ave_initial_state",
        lambda k: k.layers.Bidirectional(
            k.layers.LSTM(4, return_state=True), merge_mode="ave"
        ),
        call={"initial_state": [H0, C0, C0, H0]},
        skip=SKIP_WRAPPED,
    ),
    _case(
        "bidirectional_mul_backward_layer",
        lambda k: k.layers.Bidirectional(
            k.layers.SimpleRNN(4, return_sequences=True),
            backward_layer=k.layers.GRU(4, return_sequences=True, go_backwards=True),
            merge_mode="mul",
        ),
        skip=SKIP_WRAPPED,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_matches_keras(case):
    check_against_keras(case, __name__)


def _float64_weights(layer, x):
    layer(x)
    rng = np.random.default_rng(3)
    layer.set_weights([rng.standard_normal(w.shape) / 2 for w in layer.weights])
    return list(layer.trainable_weights)


def _outputs_sum(out):
    # one tensor of the outputs of a layer that returns several
    if isinstance(out, (list, tuple)):
        return sum(o[:, :2] if o.ndim == 2 else o[:, 0, :2] for o in out)
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradients_match_finite_differences(case, float64_layers):
    x = np.random.default_rng(1).standard_normal(case.shapes[0])
    call = {
        k: [s.astype(np.float64) for s in v] if k == "initial_state" else v
        for k, v in case.call.items()
    }
    layer = case.make(tapemagic_side())
    variables = _float64_weights(layer, x)
    assert_gradients_match_finite_differences(
        lambda t: _outputs_sum(layer(t, **call)), x, variables
    )


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.second_order], ids=lambda c: c.name
)
def test_second_order_matches_finite_differences(case, float64_layers):
    x = np.random.default_rng(2).standard_normal(case.shapes[0])
    layer = case.make(tapemagic_side())
    variables = _float64_weights(layer, x)
    assert_second_order_matches_finite_differences(
        lambda t: layer(t, **case.call), x, variables
    )


def _unseeded(config):
    """A config with the initializers' seeds left out, at any depth (of an
    initializer, its class only: tapemagic's write fewer arguments)."""
    if isinstance(config, dict) and config.get("module") == "keras.initializers":
        return config["class_name"]
    if isinstance(config, dict):
        return {
            k: None if k == "seed" else _unseeded(v)
            for k, v in config.items()
            if k != "name"
        }
    return config


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.compare_config], ids=lambda c: c.name
)
def test_config_as_keras_and_round_trip(case):
    layer = case.make(tapemagic_side())
    config = layer.get_config()
    again = type(layer).from_config(config).get_config()
    assert _unseeded(again) == _unseeded(config)
    side = keras_side()
    if side is not None:
        theirs = case.make(side).get_config()
        assert _unseeded(config) == _unseeded(theirs)


def test_masked_steps_keep_the_state():
    # a sequence padded at its end gives the same last output as without it
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, 2)).astype(np.float32)
    padded = np.concatenate([x, rng.standard_normal((1, 2, 2))], 1).astype(np.float32)
    mask = np.array([[True, True, True, False, False]])
    for layer in (layers.SimpleRNN(3), layers.LSTM(3), layers.GRU(3)):
        np.testing.assert_allclose(
            layer(padded, mask=mask).numpy(), layer(x).numpy(), rtol=1e-6
        )


def test_embedding_masks_reach_the_recurrent_layers():
    ids = np.array([[3, 1, 2, 0, 0], [4, 2, 0, 0, 0]])
    for rnn in (layers.SimpleRNN(3), layers.LSTM(3), layers.GRU(3)):
        model = keras.Sequential([
            keras.Input((None,), dtype="int32"),
            layers.Embedding(6, 2, mask_zero=True),
            rnn,
        ])  # fmt: skip
        np.testing.assert_allclose(
            model(ids).numpy(), model(ids[:, :3]).numpy(), rtol=1e-6
        )


def test_functional_model_of_several_outputs_as_keras():
    side = keras_side()
    sides = [tapemagic_side()] + ([side] if side is not None else [])
    ids = np.array([[3, 1, 2, 0], [4, 2, 5, 1]], np.int32)
    results = []
    for k in sides:
        inputs = k.keras.Input((None,), dtype="int32")
        x = k.layers.Embedding(6, 3, mask_zero=True)(inputs)
        seq, h, c = k.layers.LSTM(4, return_sequences=True, return_state=True)(x)
        out = k.layers.GRU(4)(seq, initial_state=[h])
        model = k.keras.Model(inputs, [out, c])
        rng = np.random.default_rng(0)
        model.set_weights(
            [rng.standard_normal(w.shape).astype(np.float32) for w in model.weights]
        )
        results.append(
            ([w.path for w in model.weights], [np.asarray(o) for o in model(ids)])
        )
        assert [tuple(o.shape) for o in model.outputs] == [(None, 4), (None, 4)]
    if len(results) == 2:
        (paths, outs), (want_paths, want) = results
        assert [p.split("/")[-1] for p in paths] == [
            p.split("/")[-1] for p in want_paths
        ]
        for o, w in zip(outs, want):
            np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)


def test_dropout_while_training_only():
    x = np.ones((4, 6, 3), np.float32)
    layer = layers.LSTM(5, dropout=0.5, recurrent_dropout=0.5, seed=1)
    assert np.array_equal(layer(x).numpy(), layer(x, training=False).numpy())
    assert not np.allclose(layer(x, training=True).numpy(), layer(x).numpy())
    model = keras.Sequential([keras.Input((6, 3)), layers.GRU(2, dropout=0.2)])
    model.compile("adam", "mse")
    history = model.fit(x, np.zeros((4, 2)), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


def test_bidirectional_copies_draw_their_own_weights():
    layer = layers.Bidirectional(layers.LSTM(3))
    layer(np.zeros((1, 2, 2), np.float32))
    forward, backward = layer.forward_layer, layer.backward_layer
    assert forward.name == "forward_" + layer.forward_layer.name.removeprefix(
        "forward_"
    )
    assert backward.name == "backward_" + forward.name.removeprefix("forward_")
    assert backward.go_backwards and not forward.go_backwards
    assert not np.allclose(forward.weights[0].numpy(), backward.weights[0].numpy())


@pytest.mark.parametrize("make, error, words", [
    (lambda k: k.layers.SimpleRNN(0), ValueError,
     "Received an invalid value for argument `units`, expected a positive integer"),
    (lambda k: k.layers.LSTM(-2), ValueError,
     "Received an invalid value for argument `units`"),
    (lambda k: k.layers.Bidirectional(k.layers.GRU(2), merge_mode="max"), ValueError,
     "Invalid merge mode. Received: max"),
])  # fmt: skip
def test_errors_as_keras(make, error, words):
    check_error_against_keras(make, error, words)


def test_bad_inputs_say_what_to_do():
    with pytest.raises(ValueError, match="`state_size` attribute"):
        layers.RNN(layers.Dense(2))
    # Keras fails later, deserializing a Dense with go_backwards
    with pytest.raises(ValueError, match="with a recurrent layer"):
        layers.Bidirectional(layers.Dense(2))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        layers.LSTM(2)(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="expects 2 state"):
        layers.LSTM(2)(np.zeros((1, 3, 2), np.float32), initial_state=[H0[:1, :2]])
    with pytest.raises(NotImplementedError, match="initial_state of the next"):
        layers.GRU(2, stateful=True)


def test_summary_lists_the_outputs_as_keras(capsys):
    inputs = keras.Input((None, 2))
    seq, h, c = layers.LSTM(3, return_sequences=True, return_state=True)(inputs)
    keras.Model(inputs, [seq, c]).summary()
    # Keras 3 prints the same list in its Output Shape column
    assert "[(None, None, 3), (None, 3), (None, 3)]" in capsys.readouterr().out
