"""Keras 3 optimizers: update rules against NumPy by hand, and Keras' bookkeeping."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, Tensor, Variable, array_of
from tapemagic.engine.ops.reduce import reduce_sum
from tapemagic.keras import optimizers
from tapemagic.keras.optimizers import SGD, Adam, RMSprop
from tapemagic.keras.optimizers.schedules import ExponentialDecay

W0 = np.array([1.0, -2.0], np.float32)
# three steps' gradients, as a training loop would produce them
GRADS = [
    np.array([0.5, -1.0], np.float32),
    np.array([0.25, 2.0], np.float32),
    np.array([-0.75, 0.5], np.float32),
]

f32 = np.float32


# -- the update rules, written out by hand in float32 -------------------------------


def _sgd(lr, momentum=0.0, nesterov=False):
    w, m = W0.copy(), np.zeros(2, f32)
    for g in GRADS:
        if momentum:
            m = m * f32(momentum) - g * f32(lr)
            w = w + (m * f32(momentum) - g * f32(lr) if nesterov else m)
        else:
            w = w - g * f32(lr)
    return w


def _adam(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False):
    w, m, v, v_max = W0.copy(), np.zeros(2, f32), np.zeros(2, f32), np.zeros(2, f32)
    for t, g in enumerate(GRADS, start=1):
        alpha = (
            f32(lr) * np.sqrt(1 - f32(beta_2) ** f32(t)) / (1 - f32(beta_1) ** f32(t))
        )
        m = m + (g - m) * f32(1 - beta_1)
        v = v + (g * g - v) * f32(1 - beta_2)
        v_max = np.maximum(v_max, v)
        w = w - m * alpha / (np.sqrt(v_max if amsgrad else v) + f32(epsilon))
    return w


def _rmsprop(lr, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    w, v, mom, mean_g = W0.copy(), np.zeros(2, f32), np.zeros(2, f32), np.zeros(2, f32)
    for g in GRADS:
        v = f32(rho) * v + f32(1 - rho) * g * g
        mean_g = f32(rho) * mean_g + f32(1 - rho) * g
        denominator = v - mean_g * mean_g if centered else v
        step = f32(lr) * g / np.sqrt(denominator + f32(epsilon))
        mom = f32(momentum) * mom + step
        w = w - (mom if momentum else step)
    return w


CASES = [
    ("sgd", lambda: SGD(learning_rate=0.1), _sgd(0.1)),
    ("sgd-momentum", lambda: SGD(0.1, momentum=0.9), _sgd(0.1, 0.9)),
    ("sgd-nesterov", lambda: SGD(0.1, 0.9, nesterov=True), _sgd(0.1, 0.9, True)),
    ("adam", lambda: Adam(learning_rate=0.01), _adam(0.01)),
    ("adam-betas", lambda: Adam(0.05, 0.8, 0.99, 1e-3), _adam(0.05, 0.8, 0.99, 1e-3)),
    ("adam-amsgrad", lambda: Adam(0.01, amsgrad=True), _adam(0.01, amsgrad=True)),
    ("rmsprop", lambda: RMSprop(learning_rate=0.01), _rmsprop(0.01)),
    ("rmsprop-momentum", lambda: RMSprop(0.01, momentum=0.5), _rmsprop(0.01, 0.9, 0.5)),
    (
        "rmsprop-centered",
        lambda: RMSprop(0.01, centered=True),
        _rmsprop(0.01, centered=True),
    ),
]


@pytest.mark.parametrize(
    "make, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_three_steps_match_the_update_rule(make, expected) -> None:
    w = Variable(W0, name="w")
    opt = make()
    for g in GRADS:
        opt.apply_gradients(zip([Tensor(g)], [w]))
    np.testing.assert_allclose(w.numpy(), expected, rtol=2e-6, atol=1e-7)
    assert int(opt.iterations.numpy()) == 3


@pytest.mark.parametrize("make", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_updates_write_into_the_variables_array(make) -> None:
    # Nothing but the variable holds its value between steps, so the engine's
    # assign_sub/assign_add update it in place; an optimizer that kept a
    # reference to it across the call would make every step allocate.
    w = Variable(W0, name="w")
    opt = make()
    opt.apply_gradients(zip([Tensor(GRADS[0])], [w]))
    for g in GRADS[1:]:
        array = id(array_of(w))
        opt.apply_gradients(zip([Tensor(g)], [w]))
        assert id(array_of(w)) == array


@pytest.mark.parametrize("make", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_apply_and_apply_gradients_agree(make) -> None:
    w1, b1 = Variable(W0), Variable(0.5)
    w2, b2 = Variable(W0), Variable(0.5)
    opt1, opt2 = make(), make()
    for g in GRADS:
        opt1.apply_gradients([(g, w1), (g[0], b1)])
        opt2.apply([g, g[0]], [w2, b2])
    np.testing.assert_array_equal(w1.numpy(), w2.numpy())
    np.testing.assert_array_equal(b1.numpy(), b2.numpy())


def test_apply_without_variables_uses_the_built_ones() -> None:
    w = Variable(W0)
    opt = SGD(learning_rate=0.1)
    with pytest.raises(ValueError, match="must already be built"):
        opt.apply([GRADS[0]])
    opt.apply([GRADS[0]], [w])
    opt.apply([GRADS[1]])
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * GRADS[0] - 0.1 * GRADS[1])


def test_float64_variables_update_in_float64() -> None:
    w = Variable(np.array([1.0, 2.0]))
    SGD(learning_rate=0.5).apply_gradients([(np.array([1.0, 1.0]), w)])
    # the learning rate is a float32 variable cast to the variable's dtype
    lr = np.float64(np.float32(0.5))
    assert w.numpy().dtype == np.float64
    np.testing.assert_array_equal(w.numpy(), np.array([1.0, 2.0]) - lr)


# -- the course example -------------------------------------------------------------


def test_seed_example_gradients_and_manual_update(capsys) -> None:
    w = tf.Variable([1.0, -2.0], name="w")
    b = tf.Variable(0.5, name="b")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * [3.0, 4.0]) + b
    dw, db = tape.gradient(loss, [w, b])
    print(dw.numpy(), db.numpy())
    w.assign_sub(0.1 * dw)
    print(w.numpy())
    assert capsys.readouterr().out == "[3. 4.] 1.0\n[ 0.7 -2.4]\n"


def test_seed_example_with_an_optimizer() -> None:
    w, b = Variable([1.0, -2.0], name="w"), Variable(0.5, name="b")
    opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    with GradientTape() as tape:
        loss = reduce_sum(w * [3.0, 4.0]) + b
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [w, b]))
    np.testing.assert_allclose(w.numpy(), [0.7, -2.4], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), 0.4, rtol=1e-6)


# -- None gradients, unknown variables --------------------------------------------


def test_none_gradients_are_skipped_with_a_warning_naming_them() -> None:
    w, b, c = Variable(W0, name="w"), Variable(0.5, name="b"), Variable(1.0, name="c")
    opt = SGD(learning_rate=0.1)
    with pytest.warns(
        UserWarning, match=r"Gradients do not exist for variables \['b:0', 'c:0'\]"
    ):
        opt.apply_gradients(zip([GRADS[0], None, None], [w, b, c]))
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * GRADS[0])
    assert float(b.numpy()) == 0.5 and float(c.numpy()) == 1.0
    assert int(opt.iterations.numpy()) == 1


def test_the_warning_points_at_the_caller() -> None:
    w, b = Variable(W0), Variable(0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SGD(0.1).apply_gradients([(GRADS[0], w), (None, b)])
    assert caught[0].filename == __file__


def test_all_gradients_none_is_an_error() -> None:
    w = Variable(W0, name="w")
    with pytest.raises(
        ValueError, match=r"No gradients provided for any variable: \['w:0'\]"
    ):
        SGD(0.1).apply_gradients([(None, w)])


def test_variables_outside_the_first_call_are_refused() -> None:
    w, other = Variable(W0), Variable(W0)
    opt = Adam(0.1)
    opt.apply_gradients([(GRADS[0], w)])
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(GRADS[0], other)])


def test_bad_inputs_raise() -> None:
    w = Variable(W0)
    with pytest.raises(ValueError, match="no \\(gradient, variable\\) pairs"):
        SGD(0.1).apply_gradients([])
    with pytest.raises(ValueError, match="has shape \\(3,\\)"):
        SGD(0.1).apply_gradients([(np.ones(3, np.float32), w)])
    with pytest.raises(TypeError, match="can only update tf.Variable"):
        SGD(0.1).apply_gradients([(GRADS[0], Tensor(W0))])


# -- updates are never recorded --------------------------------------------------------


def test_apply_inside_a_tape_records_nothing() -> None:
    w = Variable(W0)
    opt = Adam(0.1)
    with GradientTape(persistent=True) as tape:
        loss = reduce_sum(w * w)
        grads = tape.gradient(loss, [w])
        recorded = len(tape._nodes)
        opt.apply_gradients(zip(grads, [w]))
        assert len(tape._nodes) == recorded
    np.testing.assert_array_equal(tape.gradient(loss, w).numpy(), 2 * W0)


# -- state: slots, iterations, learning rate, config --------------------------------


def test_slot_variables_per_model_variable() -> None:
    w, b = Variable(W0, name="w"), Variable(0.5, name="b")
    opt = Adam(0.01)
    opt.apply_gradients([(GRADS[0], w), (np.float32(1.0), b)])
    names = [v.name for v in opt.variables]
    assert names == [
        "iteration:0",
        "learning_rate:0",
        "w_0_momentum:0",
        "b_0_momentum:0",
        "w_0_velocity:0",
        "b_0_velocity:0",
    ]
    assert all(not v.trainable for v in opt.variables)
    m_w = opt.variables[2]
    np.testing.assert_allclose(m_w.numpy(), GRADS[0] * f32(1 - 0.9))
    assert opt.variables[3].shape == ()


def test_plain_sgd_has_no_slots_and_momentum_sgd_has_one_each() -> None:
    w = Variable(W0)
    plain, heavy = SGD(0.1), SGD(0.1, momentum=0.5)
    plain.apply_gradients([(GRADS[0], w)])
    heavy.apply_gradients([(GRADS[0], w)])
    assert len(plain.variables) == 2 and len(heavy.variables) == 3


def test_iterations_is_an_int64_counter_returned_by_apply_gradients() -> None:
    w = Variable(W0)
    opt = SGD(0.1)
    result = opt.apply_gradients([(GRADS[0], w)])
    assert result is opt.iterations
    assert opt.iterations.dtype.name == "int64" and not opt.iterations.trainable
    assert int(result.numpy()) == 1


def test_learning_rate_is_readable_and_settable() -> None:
    w = Variable(W0)
    opt = SGD(learning_rate=0.1)
    assert opt.learning_rate.dtype.name == "float32"
    assert float(opt.learning_rate.numpy()) == f32(0.1)
    opt.learning_rate = 0.5
    assert float(opt.learning_rate.numpy()) == 0.5
    opt.apply_gradients([(GRADS[0], w)])
    np.testing.assert_allclose(w.numpy(), W0 - 0.5 * GRADS[0])


def test_learning_rate_must_be_a_float_as_in_keras() -> None:
    with pytest.raises(ValueError, match="should be float.*learning_rate=1.0"):
        SGD(learning_rate=1)
    with pytest.raises(ValueError, match="`momentum` must be a float between"):
        SGD(0.1, momentum=1)


def test_callable_learning_rate() -> None:
    w = Variable(W0)
    rates = iter([0.5, 0.25])
    opt = SGD(learning_rate=lambda: next(rates))
    opt.apply_gradients([(GRADS[0], w)])
    opt.apply_gradients([(GRADS[1], w)])
    np.testing.assert_allclose(w.numpy(), W0 - 0.5 * GRADS[0] - 0.25 * GRADS[1])


def test_schedule_learning_rate_follows_iterations() -> None:
    w = Variable(W0)
    schedule = ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    opt = SGD(learning_rate=schedule)
    for g in GRADS:
        opt.apply_gradients([(g, w)])
    expected = W0 - sum(f32(0.1) * f32(0.5) ** f32(i) * g for i, g in enumerate(GRADS))
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(float(opt.learning_rate), 0.1 * 0.5**3, rtol=1e-6)
    with pytest.raises(TypeError, match="not settable"):
        opt.learning_rate = 0.1


def test_exponential_decay_staircase_and_errors() -> None:
    stairs = ExponentialDecay(1.0, decay_steps=10, decay_rate=0.5, staircase=True)
    assert float(stairs(19)) == 0.5 and float(stairs(20)) == 0.25
    assert stairs(5).dtype.name == "float32"
    with pytest.raises(ValueError, match="decay_steps"):
        ExponentialDecay(1.0, decay_steps=0, decay_rate=0.5)


def test_get_config_round_trips() -> None:
    opt = Adam(learning_rate=0.01, beta_1=0.8, amsgrad=True)
    config = opt.get_config()
    assert config["learning_rate"] == float(f32(0.01))
    assert (config["beta_1"], config["amsgrad"], config["name"]) == (0.8, True, "adam")
    clone = Adam.from_config(config)
    assert clone.get_config() == config
    assert SGD(0.1, momentum=0.9, nesterov=True).get_config()["nesterov"] is True


def test_unsupported_and_unknown_options_raise() -> None:
    with pytest.raises(NotImplementedError, match="clipnorm=1.0"):
        SGD(0.1, clipnorm=1.0)
    with pytest.raises(
        ValueError, match="not recognized.*learning_rate= instead of lr="
    ):
        SGD(lr=0.1)


def test_tf_keras_optimizers_is_this_module() -> None:
    assert tf.keras.optimizers is optimizers
    assert tf.keras.optimizers.SGD is SGD and tf.keras.optimizers.Adam is Adam


def test_decay_is_ignored_with_a_warning_as_in_keras() -> None:
    with pytest.warns(UserWarning, match="`decay` is no longer supported"):
        SGD(0.1, decay=0.01)


def test_learning_rate_can_switch_between_float_and_callable() -> None:
    opt = SGD(learning_rate=0.1)
    opt.learning_rate = lambda: 0.3
    assert opt.learning_rate == 0.3
    assert [v.name for v in opt.variables] == ["iteration:0"]
    opt.learning_rate = 0.2
    assert float(opt.learning_rate.numpy()) == f32(0.2)
    assert [v.name for v in opt.variables] == ["iteration:0", "learning_rate:0"]
