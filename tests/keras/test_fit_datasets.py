"""fit/evaluate/predict on a tf.data.Dataset and with step counts, as in TF 2.21.

Every expected history, result, warning and error below was printed by
tensorflow-cpu 2.21.0 running the same calls on the same data (weights set
with ``set_weights``); values are compared to float32 rounding. One behaviour
is tapemagic's own, and said so: an infinite dataset without a step count is
refused, where TensorFlow runs forever.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic import keras
from tapemagic.keras import layers

RNG = np.random.default_rng(0)
X = RNG.random((10, 3)).astype("float32")
Y = RNG.random((10, 1)).astype("float32")
SW = RNG.random((10,)).astype("float32")
WEIGHTS = [np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")]

SHUFFLE_WARNING = (
    "`shuffle=True` was passed, but will be ignored since the data `x` was provided "
    "as a tf.data.Dataset. The Dataset is expected to already be shuffled (via "
    "`.shuffle(buffer_size)`)."
)
RAN_OUT_WARNING = (
    "Your input ran out of data; interrupting training. Make sure that your dataset "
    "or generator can generate at least `steps_per_epoch * epochs` batches. You may "
    "need to use the `.repeat()` function when building your dataset."
)

# TensorFlow's histories: two epochs over the 3 batches of 4, 4 and 2 examples
FULL = {
    "loss": [0.16440100967884064, 0.11301951110363007],
    "mae": [0.3396148085594177, 0.29333776235580444],
}
# two batches, then the third alone (the data ran out: one warning)
SHORT = {
    "loss": [0.15337884426116943, 0.20848967134952545],
    "mae": [0.3337368965148926, 0.3631264567375183],
}


def _model() -> keras.Model:
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    model.set_weights(WEIGHTS)
    model.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return model


def _dataset() -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)


def _run(call):
    """The result of ``call()`` and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught]


def _approx(values):
    if isinstance(values, dict):
        return {k: pytest.approx(v, rel=1e-6) for k, v in values.items()}
    return pytest.approx(values, rel=1e-6)


def test_fit_takes_batches_from_a_dataset():
    history, caught = _run(lambda: _model().fit(_dataset(), epochs=2, verbose=0))
    assert history.history == _approx(FULL)
    assert caught == [SHUFFLE_WARNING]  # fit shuffles by default: not a dataset
    history, caught = _run(
        lambda: _model().fit(_dataset(), epochs=2, verbose=0, shuffle=False)
    )
    assert history.history == _approx(FULL) and caught == []
    # a dataset batches itself: batch_size is ignored, silently
    history, caught = _run(
        lambda: _model().fit(
            _dataset(), epochs=2, verbose=0, shuffle=False, batch_size=2
        )
    )
    assert history.history == _approx(FULL) and caught == []
    assert history.params == {"verbose": 0, "epochs": 2, "steps": 3}


def test_targets_and_weights_belong_to_the_dataset():
    with pytest.raises(
        ValueError,
        match="When providing `x` as a tf.data.Dataset, `y` should not be passed. "
        "Instead, the targets should be included as part of the tf.data.Dataset.",
    ):
        _model().fit(_dataset(), Y, verbose=0, shuffle=False)
    with pytest.raises(
        ValueError,
        match="`sample_weights` should not be passed. Instead, the sample weights "
        "should be included as part of the tf.data.Dataset.",
    ):
        _model().fit(_dataset(), verbose=0, shuffle=False, sample_weight=SW)
    with pytest.raises(
        ValueError,
        match="Argument `validation_split` is only supported for tensors or NumPy "
        "arrays.Found incompatible type in the input: \\[<class '.*_BatchDataset'>\\]",
    ):
        _model().fit(_dataset(), verbose=0, shuffle=False, validation_split=0.2)
    weighted = tf.data.Dataset.from_tensor_slices((X, Y, SW)).batch(4)
    logs = _model().evaluate(weighted, verbose=0, return_dict=True)
    assert logs == _approx({"loss": 0.12856349349021912, "mae": 0.3565572500228882})


def test_validation_data_as_a_dataset():
    history = _model().fit(
        _dataset(), epochs=2, verbose=0, shuffle=False, validation_data=_dataset()
    )
    assert history.history == _approx(
        {
            **FULL,
            "val_loss": [0.1093149334192276, 0.10697976499795914],
            "val_mae": [0.29351794719696045, 0.2921374440193176],
        }
    )
    # one batch each time, from the start of the dataset
    history = _model().fit(
        _dataset(),
        epochs=2,
        verbose=0,
        shuffle=False,
        validation_data=_dataset(),
        validation_steps=1,
    )
    assert history.history["val_loss"] == _approx(
        [0.12615513801574707, 0.11840882897377014]
    )
    assert history.history["val_mae"] == _approx(
        [0.3177526593208313, 0.3123236894607544]
    )


def test_steps_per_epoch_goes_on_from_where_the_last_epoch_stopped():
    repeated = _dataset().repeat()
    history, caught = _run(
        lambda: _model().fit(
            repeated, epochs=2, verbose=0, shuffle=False, steps_per_epoch=2
        )
    )
    # batches 1, 2 then 3, 1
    assert history.history == _approx(
        {
            "loss": [0.15337884426116943, 0.15359997749328613],
            "mae": [0.3337368965148926, 0.3328772485256195],
        }
    )
    assert caught == []
    assert history.params["steps"] == 2


@pytest.mark.parametrize("use_dataset", [True, False], ids=["dataset", "arrays"])
def test_data_that_runs_out_ends_the_epoch_with_a_warning(use_dataset):
    def fit(steps):
        if use_dataset:
            return _model().fit(
                _dataset(), epochs=2, verbose=0, shuffle=False, steps_per_epoch=steps
            )
        return _model().fit(
            X,
            Y,
            batch_size=4,
            epochs=2,
            verbose=0,
            shuffle=False,
            steps_per_epoch=steps,
        )

    history, caught = _run(lambda: fit(2))
    assert history.history == _approx(SHORT)
    assert caught == [RAN_OUT_WARNING]
    history, caught = _run(lambda: fit(5))
    assert history.history == _approx(FULL)
    assert caught == [RAN_OUT_WARNING, RAN_OUT_WARNING]


def test_evaluate_and_predict_on_datasets_and_steps():
    assert _model().evaluate(_dataset(), verbose=0) == _approx(
        [0.19477184116840363, 0.3565572500228882]
    )
    one_batch = [0.2376299351453781, 0.41426679491996765]
    assert _model().evaluate(_dataset(), verbose=0, steps=1) == _approx(one_batch)
    assert _model().evaluate(X, Y, verbose=0, steps=1, batch_size=4) == _approx(
        one_batch
    )
    assert _model().evaluate(_dataset().repeat(), verbose=0, steps=3) == _approx(
        [0.19477184116840363, 0.3565572500228882]
    )
    inputs = tf.data.Dataset.from_tensor_slices(X).batch(4)
    predicted = _model().predict(inputs, verbose=0)
    assert predicted.shape == (10, 1)
    np.testing.assert_allclose(predicted[:2], [[0.47386098], [0.87127674]], rtol=1e-6)
    assert _model().predict(_dataset(), verbose=0).shape == (10, 1)
    assert _model().predict(_dataset().repeat(), verbose=0, steps=4).shape == (14, 1)
    assert _model().predict(inputs, verbose=0, steps=1).shape == (4, 1)
    assert _model().predict(inputs, verbose=0, batch_size=3).shape == (10, 1)
    assert _model().predict(X, verbose=0, steps=1).shape == (10, 1)


def test_a_dataset_of_inputs_alone_has_no_targets_for_the_loss():
    inputs = tf.data.Dataset.from_tensor_slices(X).batch(4)
    with pytest.raises(ValueError, match="None values not supported"):
        _model().evaluate(inputs, verbose=0)
    with pytest.raises(ValueError, match="None values not supported"):
        _model().fit(inputs, verbose=0, shuffle=False)


def test_a_dataset_of_unknown_length_warns_when_it_runs_out():
    unknown = (
        tf.data.Dataset.from_tensor_slices((X, Y)).filter(lambda a, b: True).batch(4)
    )
    assert int(unknown.cardinality()) == -2
    history, caught = _run(
        lambda: _model().fit(unknown, epochs=3, verbose=0, shuffle=False)
    )
    assert history.history == _approx(
        {
            "loss": [0.16440100967884064, 0.11301951110363007, 0.11042799055576324],
            "mae": [0.3396148085594177, 0.29333776235580444, 0.2939383387565613],
        }
    )
    assert caught == [RAN_OUT_WARNING] * 3
    assert history.params["steps"] is None
    result, caught = _run(lambda: _model().evaluate(unknown, verbose=0))
    assert result == _approx([0.19477184116840363, 0.3565572500228882])
    assert caught == [RAN_OUT_WARNING]
    result, caught = _run(lambda: _model().predict(unknown, verbose=0))
    assert result.shape == (10, 1) and caught == [RAN_OUT_WARNING]
    history, caught = _run(
        lambda: _model().fit(
            unknown, epochs=2, verbose=0, shuffle=False, steps_per_epoch=2
        )
    )
    assert history.history == _approx(SHORT) and caught == [RAN_OUT_WARNING]
    history, caught = _run(
        lambda: _model().fit(
            unknown,
            epochs=2,
            verbose=0,
            shuffle=False,
            validation_data=unknown,
            validation_steps=2,
        )
    )
    assert history.history["val_loss"] == _approx(
        [0.10161304473876953, 0.10266876220703125]
    )
    assert caught == [RAN_OUT_WARNING] * 2


def test_an_infinite_dataset_needs_a_step_count():
    """tapemagic's own: TensorFlow would run these forever."""
    repeated = _dataset().repeat()
    with pytest.raises(ValueError, match="infinite.*Pass steps_per_epoch="):
        _model().fit(repeated, verbose=0, shuffle=False)
    with pytest.raises(ValueError, match="infinite.*Pass validation_steps="):
        _model().fit(_dataset(), verbose=0, shuffle=False, validation_data=repeated)
    with pytest.raises(ValueError, match="infinite.*Pass steps="):
        _model().evaluate(repeated, verbose=0)
    with pytest.raises(ValueError, match="infinite.*Pass steps="):
        _model().predict(repeated, verbose=0)
    history = _model().fit(
        _dataset(),
        epochs=2,
        verbose=0,
        shuffle=False,
        validation_data=repeated,
        validation_steps=4,
    )
    assert history.history["val_loss"] == _approx(
        [0.11412642151117325, 0.11024521291255951]
    )


def test_an_unbatched_dataset_gives_the_model_single_examples():
    # TensorFlow raises a ValueError too, in its words ("Invalid input shape ...
    # Expected shape (None, 3), but input has incompatible shape (3,)")
    single = tf.data.Dataset.from_tensor_slices((X, Y))
    with pytest.raises(ValueError, match="Full shape received: \\(3,\\)"):
        _model().fit(single, verbose=0, shuffle=False)


def test_keras_utils_pack_and_unpack_batches_as_fit_does(capsys):
    u = keras.utils
    print(
        u.unpack_x_y_sample_weight((1,)),
        u.unpack_x_y_sample_weight(1),
        u.unpack_x_y_sample_weight([1, 2]),
        u.unpack_x_y_sample_weight((1, 2, 3)),
    )
    print(
        u.pack_x_y_sample_weight(1),
        u.pack_x_y_sample_weight((1, 2)),
        u.pack_x_y_sample_weight(1, 2),
        u.pack_x_y_sample_weight(1, 2, 3),
    )
    assert capsys.readouterr().out == (
        "(1, None, None) (1, None, None) (1, 2, None) (1, 2, 3)\n"
        "1 ((1, 2),) (1, 2) (1, 2, 3)\n"
    )
    with pytest.raises(
        ValueError,
        match="Data is expected to be in format `x`, `\\(x,\\)`, `\\(x, y\\)`, or "
        "`\\(x, y, sample_weight\\)`, found: \\(1, 2, 3, 4\\)",
    ):
        u.unpack_x_y_sample_weight((1, 2, 3, 4))
