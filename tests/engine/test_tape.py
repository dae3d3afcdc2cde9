"""GradientTape: TensorFlow's behaviours, pinned with hand-computed values."""

from __future__ import annotations

import threading
import warnings
import weakref

import numpy as np
import pytest

from tapemagic.engine import (
    OP_TABLE,
    GradientTape,
    Tensor,
    UnconnectedGradients,
    Variable,
    convert_to_tensor,
    defop,
)
from tapemagic.engine import jacobian as jacobian_module
from tapemagic.engine.context import state
from tapemagic.engine.ops import linalg as L
from tapemagic.engine.ops import math as M
from tapemagic.engine.ops import reduce as R
from tapemagic.engine.variable import backing_variable


def constant(value, dtype=None):
    return convert_to_tensor(value, dtype=dtype)


# -- the seed examples, with TensorFlow's printed output -------------------------------


def test_seed_example_variable(capsys):
    x = Variable(3.0)
    with GradientTape() as tape:
        y = x**2 + 2 * x
    print(tape.gradient(y, x).numpy())
    assert capsys.readouterr().out == "8.0\n"


def test_seed_example_watched_constant_cube():
    c = constant(3.0)
    with GradientTape() as tape:
        tape.watch(c)
        y = c**3
    assert tape.gradient(y, c).numpy() == 27.0


def test_seed_example_linear_model(capsys):
    w = Variable([1.0, -2.0])
    b = Variable(0.5)
    with GradientTape() as tape:
        loss = R.reduce_sum(w * [3.0, 4.0]) + b
    dw, db = tape.gradient(loss, [w, b])
    print(dw.numpy(), db.numpy())
    w.assign_sub(0.1 * dw)
    print(w.numpy())
    assert capsys.readouterr().out == "[3. 4.] 1.0\n[ 0.7 -2.4]\n"


def test_seed_example_printed_tensor(capsys):
    x = constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    print(tape.gradient(y, x))
    assert capsys.readouterr().out == "tf.Tensor(6.0, shape=(), dtype=float32)\n"


def test_persistent_tape_answers_twice():
    x = constant(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy() == 108.0  # 4 x^3
    assert tape.gradient(y, x).numpy() == 6.0


# -- what is watched -------------------------------------------------------------------


def test_constant_not_watched_gives_none():
    c = constant(2.0)
    with GradientTape() as tape:
        y = c * c
    assert tape.gradient(y, c) is None


def test_non_trainable_variable_is_not_watched_unless_asked():
    v = Variable(2.0, trainable=False)
    with GradientTape(persistent=True) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert tape.gradient(y, v).numpy() == 4.0


def test_watch_accessed_variables_false():
    a, b = Variable(2.0), Variable(3.0)
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a)
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert ga.numpy() == 3.0 and gb is None
    assert tape.watched_variables() == (a,)


def test_gradient_of_a_source_with_respect_to_itself_is_ones_even_unwatched():
    x = constant([1.0, 2.0])
    with GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), [1.0, 1.0])


def test_unconnected_gradients_zero_has_the_source_dtype():
    x = constant(np.float64(1.0))
    i = constant(np.int64(3))
    y = constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(y)
        z = y * 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gx, gi = tape.gradient(
            z, [x, i], unconnected_gradients=UnconnectedGradients.ZERO
        )
    assert gx.dtype.name == "float64" and gx.numpy() == 0.0
    assert gi.dtype.name == "int64" and gi.numpy() == 0
    assert tape.gradient(z, x) is None
    assert tape.gradient(z, x, unconnected_gradients="zero").numpy() == 0.0


def test_integer_source_gives_none_with_a_warning():
    i = constant(3)
    with GradientTape() as tape:
        with pytest.warns(UserWarning, match="must be floating"):
            tape.watch(i)
        y = i * 2
    with pytest.warns(UserWarning, match="must be floating"):
        assert tape.gradient(y, i) is None


def test_non_scalar_target_gives_gradient_of_its_sum():
    x = constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_several_targets_give_the_gradient_of_their_sum():
    x = Variable(2.0)
    with GradientTape() as tape:
        a, b = x * x, 3.0 * x
    assert tape.gradient([a, b], x).numpy() == 7.0


def test_output_gradients_weight_the_targets():
    x = Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = x * x
    g = tape.gradient(y, x, output_gradients=constant([10.0, 0.5]))
    np.testing.assert_array_equal(g.numpy(), [20.0, 2.0])


def test_sources_keep_their_nested_structure():
    a, b, c = Variable(1.0), Variable(2.0), Variable(3.0)
    with GradientTape() as tape:
        y = a * b * c
    grads = tape.gradient(y, {"first": a, "rest": [b, (c,)]})
    assert set(grads) == {"first", "rest"}
    assert grads["first"].numpy() == 6.0
    assert grads["rest"][0].numpy() == 3.0
    assert isinstance(grads["rest"][1], tuple) and grads["rest"][1][0].numpy() == 2.0


def test_watch_accepts_nested_structures():
    a, b = constant(1.0), constant(2.0)
    with GradientTape() as tape:
        tape.watch({"a": a, "b": [b]})
        y = a * b
    assert [g.numpy() for g in tape.gradient(y, [a, b])] == [2.0, 1.0]


def test_gradient_uses_the_value_at_the_time_of_the_read():
    x = Variable(3.0)
    with GradientTape() as tape:
        y = x * x
        x.assign(5.0)
    assert tape.gradient(y, x).numpy() == 6.0


def test_watched_variables_in_creation_order_including_int_and_inner_reads():
    late = Variable(1.0)
    early_int = Variable(2)
    first = Variable(3.0)
    # creation order: late, early_int, first
    with GradientTape() as outer:
        with GradientTape() as inner:
            _ = first * 2.0
        _ = early_int * 2
        _ = late * 2.0
    assert outer.watched_variables() == (late, early_int, first)
    assert inner.watched_variables() == (first,)


# -- persistence and errors ------------------------------------------------------------


def test_second_gradient_call_on_non_persistent_tape_raises():
    x = Variable(1.0)
    with GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"persistent=True"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="only be used to compute one set"):
        tape.jacobian(y, x)


def test_gradient_on_a_tape_never_entered_raises():
    with pytest.raises(RuntimeError, match="never entered"):
        GradientTape().gradient(constant(1.0), constant(1.0))


def test_jacobian_without_pfor_needs_a_persistent_tape():
    x = Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = x * x
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.jacobian(y, x, experimental_use_pfor=False)


def test_stop_recording_outside_the_tape_raises():
    tape = GradientTape()
    with pytest.raises(RuntimeError, match="not recording"):
        with tape.stop_recording():
            pass


def test_stop_recording_hides_ops_and_variable_reads():
    x, v = Variable(2.0), Variable(5.0)
    with GradientTape(persistent=True) as tape:
        y = x * x
        with tape.stop_recording():
            z = y * v
    assert tape.gradient(z, x) is None
    assert tape.watched_variables() == (x,)


def test_reentering_an_active_tape_raises_and_reentering_later_resumes():
    x = Variable(2.0)
    tape = GradientTape(persistent=True)
    with tape:
        y = x * x
        with pytest.raises(ValueError, match="still recording"):
            tape.__enter__()
    with tape:
        z = y * x  # recording resumes on the same tape
    assert tape.gradient(z, x).numpy() == 12.0  # d(x^3)/dx


def test_reset_forgets_watched_tensors_and_rewatches_variables_on_read():
    c, v = constant(2.0), Variable(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(c)
        _ = c * v
        tape.reset()
        assert tape.watched_variables() == ()
        y = c * v
    gc, gv = tape.gradient(y, [c, v])
    assert gc is None and gv.numpy() == 2.0


def test_reset_outside_the_tape_raises():
    with GradientTape() as tape:
        pass
    with pytest.raises(ValueError, match="not recording"):
        tape.reset()


def test_tape_leaves_the_stack_when_its_block_raises():
    before = list(state.tapes)
    with pytest.raises(ZeroDivisionError):
        with GradientTape():
            _ = 1 / 0
    assert state.tapes == before


def test_bad_arguments_give_clear_errors_and_leave_the_tape_usable():
    x = Variable([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        y = x * x
    with pytest.raises(TypeError, match="target must be a tensor"):
        tape.gradient(3.0, x)
    with pytest.raises(ValueError, match=r"sources\[1\] is None"):
        tape.gradient(y, [x, None])
    with pytest.raises(ValueError, match=r"sources\[0\].*not a tf.Tensor"):
        tape.gradient(y, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"output_gradients\[0\] has shape \(3,\)"):
        tape.gradient(y, x, output_gradients=constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="has 2 entries but there are 1 targets"):
        tape.gradient(y, x, output_gradients=[1.0, 2.0])
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="sometimes")
    with pytest.raises(ValueError, match="not tf.Tensor"):
        tape.watch(1.5)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_gradient_after_reset_of_a_value_recorded_before_is_none():
    x = Variable(2.0)
    with GradientTape() as tape:
        y = x * x
        tape.reset()
    assert tape.gradient(y, x) is None


# -- nesting ---------------------------------------------------------------------------


def test_nested_tapes_give_second_and_third_derivatives():
    x = Variable(2.0)
    with GradientTape() as t3:
        with GradientTape() as t2:
            with GradientTape() as t1:
                y = x**4
            d1 = t1.gradient(y, x)  # 4 x^3 = 32
        d2 = t2.gradient(d1, x)  # 12 x^2 = 48
    d3 = t3.gradient(d2, x)  # 24 x = 48
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (32.0, 48.0, 48.0)


def test_persistent_tape_inside_its_context_records_its_own_gradient():
    x = Variable(3.0)
    with GradientTape(persistent=True) as tape:
        y = x * x * x
        dy = tape.gradient(y, x)  # 3 x^2, recorded on the same tape
    assert dy.numpy() == 27.0
    assert tape.gradient(dy, x).numpy() == 18.0  # 6 x


def test_hessian_by_jacobian_of_a_gradient():
    x = Variable([1.0, 2.0, 3.0])
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = R.reduce_sum(x**3)
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    np.testing.assert_allclose(h.numpy(), np.diag([6.0, 12.0, 18.0]))


# -- jacobians -------------------------------------------------------------------------


def test_jacobian_matches_the_analytic_value():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4))
    x0 = rng.standard_normal(4)
    x = constant(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = M.tanh(L.matmul(constant(w), M.negative(M.negative(x))[:, None]))[:, 0]
    jac = tape.jacobian(y, x)
    expected = (1 - np.tanh(w @ x0) ** 2)[:, None] * w
    np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-12)
    assert jac.shape == (3, 4)


def test_jacobian_shapes_and_unconnected_sources():
    x = Variable(np.ones((2, 3)))
    u = Variable(np.ones(5))
    with GradientTape(persistent=True) as tape:
        y = x * 2.0
    jx, ju = tape.jacobian(y, [x, u])
    assert jx.shape == (2, 3, 2, 3) and ju is None
    np.testing.assert_array_equal(jx.numpy().reshape(6, 6), 2 * np.eye(6))
    zero = tape.jacobian(y, u, unconnected_gradients=UnconnectedGradients.ZERO)
    assert zero.shape == (2, 3, 5) and not zero.numpy().any()


def test_jacobian_of_256_outputs_is_one_backward_sweep(monkeypatch):
    sweeps = []
    original = GradientTape._sweep

    def counting(self, seeds, source_ids):
        sweeps.append(next(iter(seeds.values())).shape)
        return original(self, seeds, source_ids)

    monkeypatch.setattr(GradientTape, "_sweep", counting)
    rng = np.random.default_rng(1)
    w = constant(rng.standard_normal((256, 256)))
    x = Variable(rng.standard_normal((256, 1)))
    with GradientTape() as tape:
        y = M.tanh(L.matmul(w, x))
    jac = tape.jacobian(y, x)
    assert len(sweeps) == 1 and sweeps[0] == (256, 256, 1)
    assert jac.shape == (256, 1, 256, 1)


def test_large_jacobians_are_chunked_into_several_sweeps_with_the_same_result(
    monkeypatch,
):
    x = Variable(np.linspace(-1, 1, 40))
    with GradientTape(persistent=True) as tape:
        y = M.sin(x) * x
    whole = tape.jacobian(y, x).numpy()
    calls = []
    original = GradientTape._sweep

    def counting(self, seeds, source_ids):
        calls.append(1)
        return original(self, seeds, source_ids)

    monkeypatch.setattr(GradientTape, "_sweep", counting)
    monkeypatch.setattr(jacobian_module, "JACOBIAN_CHUNK_ELEMENTS", 400)  # 10 rows each
    chunked = tape.jacobian(y, x).numpy()
    assert len(calls) == 4
    np.testing.assert_array_equal(chunked, whole)
    xs = np.linspace(-1, 1, 40)
    np.testing.assert_allclose(np.diag(whole), np.cos(xs) * xs + np.sin(xs))


def test_batch_jacobian_matches_per_example_jacobians():
    rng = np.random.default_rng(2)
    w = constant(rng.standard_normal((3, 2)))
    x = constant(rng.standard_normal((4, 3)))
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = M.tanh(L.matmul(x, w))
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (4, 2, 3)
    full = tape.jacobian(y, x).numpy()  # (4, 2, 4, 3)
    for b in range(4):
        np.testing.assert_allclose(bj.numpy()[b], full[b, :, b, :], rtol=1e-12)


def test_batch_jacobian_errors_and_unconnected_zeros():
    x = constant(np.ones((3, 2), np.float32))
    v = constant(np.ones(3, np.float32))
    other = constant(np.ones((3, 2), np.float64))
    with GradientTape(persistent=True) as tape:
        tape.watch([x, v, other])
        y = x * 2.0
    with pytest.raises(ValueError, match="rank at least 2"):
        tape.batch_jacobian(y, v)
    with pytest.raises(ValueError, match="first dimension"):
        tape.batch_jacobian(y, constant(np.ones((2, 2), np.float32)))
    z = tape.batch_jacobian(y, other)  # unconnected: zeros in the target's dtype
    assert z.dtype.name == "float32" and z.shape == (3, 2, 2) and not z.numpy().any()


# -- threads ---------------------------------------------------------------------------


def test_tapes_in_threads_record_only_their_own_thread():
    results = {}
    barrier = threading.Barrier(4)

    def work(k):
        x = Variable(float(k))
        with GradientTape() as tape:
            barrier.wait()
            y = x * x * float(k)
            barrier.wait()
        results[k] = (tape.gradient(y, x).numpy(), len(tape.watched_variables()))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: (2.0 * k * k, 1) for k in range(1, 5)}


# -- bookkeeping -----------------------------------------------------------------------


def test_non_persistent_tape_frees_what_it_recorded():
    x = Variable(np.ones(1000))
    with GradientTape() as tape:
        y = M.exp(x)
    tape.gradient(y, x)
    assert tape._nodes is None and not tape._tracked


def test_repr_mentions_state():
    with GradientTape(persistent=True) as tape:
        _ = Variable(1.0) * 2.0
    assert repr(tape) == "<GradientTape persistent, stopped, 1 ops recorded>"


def test_tensor_inputs_outside_any_tape_are_not_recorded():
    x = Variable(1.0)
    y = x * 2.0  # no tape: nothing recorded anywhere
    with GradientTape() as tape:
        z = y * 3.0
    assert tape.gradient(z, x) is None
    assert isinstance(z, Tensor)


def test_unwatched_constant_used_with_a_variable_still_gets_none():
    c, v = constant(3.0), Variable(2.0)
    with GradientTape() as tape:
        y = c * v
    gc, gv = tape.gradient(y, [c, v])
    assert gc is None and gv.numpy() == 3.0


def test_gradient_with_respect_to_an_intermediate_tensor():
    x = Variable(2.0)
    with GradientTape() as tape:
        y = x * x
        z = y * 3.0
    assert tape.gradient(z, y).numpy() == 3.0


def test_nodes_keep_only_the_values_their_vjps_read():
    x = Variable(np.linspace(-1.0, 1.0, 1000))
    with GradientTape() as tape:
        y = x + 1.0  # add keeps neither input nor output
        kept = weakref.ref(y)
        z = M.tanh(y)  # tanh keeps its output only
        del y
        assert kept() is None  # nothing on the tape holds y's array
    expected = 1 - np.tanh(np.linspace(-1.0, 1.0, 1000) + 1.0) ** 2
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), expected)


def test_saves_must_name_the_vjps_arguments():
    with pytest.raises(ValueError, match="saves names"):
        defop("_bad_saves", lambda x: x, lambda ns, g, out, x: (g,), saves=("y",))
    assert "_bad_saves" not in OP_TABLE


def test_integer_source_warning_points_at_the_users_line():
    count = Variable(3)
    with GradientTape() as tape:
        y = M.cast(count, "float32") * 2.0
    with pytest.warns(UserWarning, match="must be floating") as record:
        tape.gradient(y, count)
    assert record[0].filename == __file__


def test_a_variable_that_refuses_watching_raises_tensorflows_value_error():
    """The protocol a Keras weight uses (the engine imports no Keras)."""

    class Refusing(Variable):
        __slots__ = ()

        def _watch_refusal(self) -> str:
            return "Watch its backing variable."

    v = Refusing(1.0, name="r")
    with GradientTape() as tape:
        with pytest.raises(ValueError) as raised:
            tape.watch([constant(1.0), v])
        tape.watch(backing_variable(v, "outer/r"))
    assert str(raised.value) == (
        f"Passed in object {v!r} of type 'Refusing', not tf.Tensor or "
        "tf.Variable or ExtensionType. Watch its backing variable."
    )
    assert tape.watched_variables() == (v,)


@pytest.mark.parametrize(
    ("item", "tensorflow_says"),
    [
        (3.0, "Passed in object 3.0 of type 'float'"),
        (np.float32(1.0), "Passed in object 1.0 of type 'float32'"),
        ("a", "Passed in object a of type 'str'"),
    ],
)
def test_watching_a_plain_value_raises_tensorflows_sentence_then_the_fix(
    item, tensorflow_says
):
    """The first sentence is what tensorflow-cpu 2.21.0 raised for tape.watch(item)."""
    with GradientTape() as tape, pytest.raises(ValueError) as raised:
        tape.watch(item)
    assert str(raised.value) == (
        f"{tensorflow_says}, not tf.Tensor or tf.Variable or ExtensionType. "
        "Convert it first: x = tf.constant(value), then tape.watch(x)."
    )
