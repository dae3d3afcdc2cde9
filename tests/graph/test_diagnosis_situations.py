"""The diagnosis in the situations students meet: names as they wrote them,
a rebound name, a wrong gradient call, a gradient of zeros, NaN at a norm.

Each runs buggy cells through the real ``%%tape`` magic (cause, line, fix) and
the corrected cells (no finding). Where TensorFlow's answer matters, it is
pinned as what tensorflow-cpu 2.21.0 printed.
"""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine.recorder import explain_listener
from tapemagic.graph.findings import Findings
from tapemagic.graph.from_tape import assert_no_none_gradients

from .cells import INTERNAL_ID, X_COLUMN_SUMS, check_sentences, explain, run, run_all

# -- names: what the user wrote, one finding per None gradient ---------------------


def test_every_none_of_two_dense_layers_is_its_own_finding_by_layer_path(ip):
    # Two layers' kernels are two None gradients: two findings, by layer path.
    run_all(ip, [
        "tf.keras.utils.set_random_seed(0)\n"
        "model = tf.keras.Sequential([\n"
        "    tf.keras.layers.Dense(4, activation='relu', name='hidden'),\n"
        "    tf.keras.layers.Dense(3, name='scores')])\n"
        "X = tf.constant([[0.5, 1.0], [2.0, -1.0]])\n"
        "y_true = tf.constant([2, 0], dtype=tf.int64)",
        "%%tape\n"
        "logits = model(X)\n"
        "guess = tf.argmax(logits, axis=1)\n"
        "loss = 1.0 - tf.reduce_mean(tf.cast(guess == y_true, tf.float32))\n"
        "grads = tape.gradient(loss, model.trainable_weights)",
    ])  # fmt: skip
    assert ip.user_ns["grads"] == [None] * 4
    found = explain(ip)
    assert [f.source for f in found] == [
        "hidden/kernel", "hidden/bias", "scores/kernel", "scores/bias"
    ]  # fmt: skip
    assert {(f.cause, f.op_name, f.line) for f in found} == {
        ("non_differentiable", "argmax", 3)
    }
    for f in found:
        check_sentences(f, tuple(explain_listener(ip.user_ns["tape"]).lines))
    # The corrected cell: a loss with a gradient, and no finding.
    run_all(ip, [
        "%%tape\n"
        "logits = model(X)\n"
        "loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy("
        "y_true, logits, from_logits=True))\n"
        "grads = tape.gradient(loss, model.trainable_weights)",
    ])  # fmt: skip
    assert all(g is not None for g in ip.user_ns["grads"])
    assert list(explain(ip)) == []


def test_unbound_sources_are_named_by_the_expression_written(ip):
    run_all(ip, [
        "weights = [tf.Variable(1.5), tf.Variable(-0.5)]\n"
        "params = {'scale': tf.Variable(2.0), 'shift': tf.Variable(0.0)}",
        "%%tape --persistent\n"
        "loss = tf.round(weights[0] * weights[1])\n"
        "by_list = tape.gradient(loss, weights)\n"
        "other = tf.floor(params['scale'] + params['shift'])\n"
        "by_dict = tape.gradient(other, params)\n"
        "by_expr = tape.gradient(tf.round(weights[0] * 3.0), weights[0])",
    ])  # fmt: skip
    found = explain(ip)
    assert [(f.source, f.target) for f in found] == [
        ("weights[0]", "loss"),
        ("weights[1]", "loss"),
        ("params['scale']", "other"),
        ("params['shift']", "other"),
        ("weights[0]", "tf.round(weights[0] * 3.0)"),
    ]
    for f in found:
        assert "Variable" not in f.source and not INTERNAL_ID.search(f.message)


def test_two_sources_with_one_name_are_told_apart(ip):
    run_all(ip, [
        "pair = [tf.Variable(1.0, name='w'), tf.Variable(2.0, name='w')]",
        "%%tape\nloss = tf.round(pair[0] + pair[1])\ngrads = tape.gradient(loss, pair)",
    ])  # fmt: skip
    assert [f.source for f in explain(ip)] == ["pair[0]", "pair[1]"]


# -- rebinding: which line rebound which name, what the source still holds ------------


@pytest.mark.parametrize(
    ("setup", "cell", "source", "line", "now", "fix"),
    [
        (  # set to a Python number, the sources a list from an earlier cell
            "params = [w, b]",
            "%%tape --target loss --sources params\nw = 0.5\n"
            "loss = tf.reduce_sum(x * w) + tf.reduce_sum(b)",
            "params[0]", 2, "a Python float", "w.assign(0.5)",
        ),
        (  # the list made in the cell, then the name made again
            "",
            "%%tape\nlayer_w = tf.Variable([[1.0], [2.0]])\nparams = [layer_w, b]\n"
            "layer_w = tf.Variable([[0.0], [0.0]])\n"
            "loss = tf.reduce_sum(tf.matmul(x, layer_w) + b)\n"
            "grads = tape.gradient(loss, params)",
            "params[0]", 4, "a new tf.Variable", "layer_w.assign([[0.0], [0.0]])",
        ),
        (  # a dict of sources
            "params = {'w': w, 'b': b}",
            "%%tape\nw = tf.Variable(tf.ones([2, 1]))\n"
            "loss = tf.reduce_sum(tf.matmul(x, w) + b)\n"
            "grads = tape.gradient(loss, params)",
            "params['w']", 2, "a new tf.Variable", "w.assign(tf.ones([2, 1]))",
        ),
    ],
)  # fmt: skip
def test_a_rebound_name_says_which_line_and_what_the_source_holds(
    ip, setup, cell, source, line, now, fix
):
    run_all(ip, [setup] if setup else [])
    run(ip, cell)
    (finding,) = [f for f in explain(ip) if f.severity == "error"]
    assert (finding.source, finding.cause, finding.line) == (
        source,
        "rebound_name",
        line,
    )
    assert f"{source} still holds the old " in finding.message
    assert f"at line {line}" in finding.message and f"to {now}," in finding.message
    assert finding.fix.endswith(f"rebinding the name: {fix}.")
    check_sentences(finding, tuple(explain_listener(ip.user_ns["tape"]).lines))


# -- misuse of the call ----------------------------------------------------------------

# What tensorflow-cpu 2.21.0 printed for the swapped calls of
# tests/graph/test_diagnosis.py::test_swapped_list_of_sources_*: the answer has
# the structure of the "sources" given (one tensor, then a list of one).
TF_SWAPPED = "None"
TF_SWAPPED_LIST = "[None]"


def test_swapped_list_of_sources_gives_what_tensorflow_gives_and_says_swap(ip):
    run(ip, "%%tape --persistent\n"
            "loss = tf.reduce_sum(tf.matmul(x, w) + b)\n"
            "grads = tape.gradient([w, b], loss)\n"
            "again = tape.gradient([w, b], [loss])")  # fmt: skip
    assert repr(ip.user_ns["grads"]) == TF_SWAPPED
    assert repr(ip.user_ns["again"]) == TF_SWAPPED_LIST
    first, second = explain(ip)
    assert (first.cause, first.line, first.source) == ("swapped_arguments", 3, "loss")
    assert first.fix == "Swap them: grads = tape.gradient(loss, [w, b])."
    assert second.fix == "Swap them: again = tape.gradient([loss], [w, b])."
    assert "loss was computed from w and b" in first.message
    check_sentences(first, tuple(explain_listener(ip.user_ns["tape"]).lines))


def test_swapped_magic_options_say_which_options(ip):
    run(ip, "%%tape --target w,b --sources loss\n"
            "loss = tf.reduce_sum(tf.matmul(x, w) + b)")  # fmt: skip
    assert ip.user_ns["grads"] is None
    (finding,) = explain(ip)
    assert finding.cause == "swapped_arguments"
    assert finding.fix == "Swap the options: --target loss --sources w,b."


def test_a_target_that_is_not_a_tensor_is_explained_under_the_failing_cell(ip):
    result, _ = run(
        ip,
        "%%tape\n"
        "losses = []\n"
        "for row in range(3):\n"
        "    losses.append(float(tf.reduce_sum(x[row] * w[:, 0])))\n"
        "grads = tape.gradient(losses, w)",
    )
    error = result.error_in_exec
    assert isinstance(error, TypeError)  # TensorFlow raises too (AttributeError)
    (finding,) = explain(ip)
    assert (finding.cause, finding.line, finding.target) == (
        "target_not_tensor",
        4,
        "losses",
    )
    assert "losses is a list of Python floats, not a tensor" in finding.message
    assert "turned each one into a number" in finding.message
    assert finding.fix == (
        "Keep it a tensor: losses.append(tf.reduce_sum(x[row] * w[:, 0]))."
    )
    # The cell's error carries the same sentences, under its traceback.
    assert str(finding) in error.__notes__ and f"[{finding.cause_code}]" in str(finding)
    # The fix, pasted: a list of tensors is a fine target (their sum).
    run_all(ip, ["%%tape\nlosses = []\nfor row in range(3):\n"
                 "    losses.append(tf.reduce_sum(x[row] * w[:, 0]))\n"
                 "grads = tape.gradient(losses, w)"])  # fmt: skip
    np.testing.assert_allclose(ip.user_ns["grads"].numpy(), X_COLUMN_SUMS)
    assert list(explain(ip)) == []


def test_a_target_option_that_is_not_a_tensor_says_where_it_became_a_number(ip):
    result, _ = run(
        ip, "%%tape --target loss --sources w\nloss = float(tf.reduce_sum(x @ w))"
    )
    error = result.error_in_exec
    assert type(error).__name__ == "UsageError"
    message = str(error)
    assert message.startswith("--target 'loss' is -7.5 of type 'float', not a tensor")
    assert "float() at line 2 (loss = float(tf.reduce_sum(x @ w))) turned it" in message
    assert message.endswith("Keep it a tensor: loss = tf.reduce_sum(x @ w). [TM003]")
    (finding,) = explain(ip)  # the view keeps the refused call
    assert (finding.cause, finding.line) == ("target_not_tensor", 2)
    # The fix, pasted, gives the gradient.
    run_all(ip, ["%%tape --target loss --sources w\nloss = tf.reduce_sum(x @ w)"])
    np.testing.assert_allclose(ip.user_ns["grads"].numpy(), X_COLUMN_SUMS)


# -- what is not a None ------------------------------------------------------------


def test_sign_gives_zeros_not_none_and_only_a_note(ip):
    run(ip, "%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.sign(w))")
    np.testing.assert_array_equal(ip.user_ns["grads"].numpy(), [[0.0], [0.0]])
    found = explain(ip)
    assert found.errors == () and found.warnings == ()
    (note,) = found.notes
    assert (note.cause, note.op_name, note.line) == ("zero_gradient", "sign", 2)


# -- zero gradients: which op zeroed it, as a note -------------------------------------

# What tensorflow-cpu 2.21.0 printed (g.numpy().tolist()) for the gradients
# of the buggy cells below: zeros, not None.
TF_DEAD_RELU = [[0.0, 0.0], [0.0, 0.0]]
TF_SATURATED_SIGMOID = [0.0, 0.0]
TF_WHERE_CONSTANT = [0.0, 0.0]

ZEROS = {
    "dead_relu": (
        "W1 = tf.Variable(-tf.ones([2, 2]))\n"
        "X = tf.constant([[1.0, 2.0], [3.0, 1.0]])\ntarget = tf.constant([1.0, 2.0])",
        "%%tape --target loss --sources W1\n"
        "hidden = tf.nn.relu(tf.matmul(X, W1))\n"
        "loss = tf.reduce_mean((tf.reduce_sum(hidden, axis=1) - target) ** 2)",
        "W1.assign(tf.ones([2, 2]) * 0.1)",
        "relu", 2, TF_DEAD_RELU, "every unit of relu at line 2",
        "tf.nn.leaky_relu",
    ),
    "saturated_sigmoid": (
        "w = tf.Variable([1.0, 1.0])\n"
        "sizes = tf.constant([[1500.0, 3.0], [2100.0, 4.0]])\n"
        "sold = tf.constant([0.0, 1.0])",
        "%%tape --target loss --sources w\n"
        "p = tf.sigmoid(tf.linalg.matvec(sizes, w))\n"
        "loss = tf.reduce_mean((p - sold) ** 2)",
        "sizes = (sizes - tf.reduce_mean(sizes, axis=0)) / "
        "tf.math.reduce_std(sizes, axis=0)",
        "sigmoid", 2, TF_SATURATED_SIGMOID, "sigmoid at line 2 (p = "
        "tf.sigmoid(tf.linalg.matvec(sizes, w))) is saturated",
        "Scale the inputs down",
    ),
    "where_constant": (
        "w = tf.Variable([1.0, 2.0])",
        "%%tape --target loss --sources w\n"
        "capped = tf.where(w > 5.0, w * 2.0, 10.0)\nloss = tf.reduce_sum(capped)",
        "w.assign([6.0, 7.0])",
        "where", 2, TF_WHERE_CONSTANT, "tf.where at line 2 (capped = "
        "tf.where(w > 5.0, w * 2.0, 10.0)) never picked its first branch",
        "Check the condition of tf.where",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ZEROS))
def test_a_gradient_of_zeros_gets_a_note_on_the_op_that_zeroed_it(ip, name):
    setup, cell, repair, op, line, tf_grads, phrase, fix = ZEROS[name]
    run_all(ip, [setup, cell])
    np.testing.assert_array_equal(ip.user_ns["grads"].numpy(), tf_grads)
    found = explain(ip)
    assert found.errors == () and found.warnings == ()
    (note,) = found.notes
    assert (note.cause, note.op_name, note.line) == ("zero_gradient", op, line)
    assert note.message.startswith(f"{note.source}: the gradient is all zeros")
    assert phrase in note.message and fix in note.fix
    check_sentences(note, tuple(explain_listener(ip.user_ns["tape"]).lines))
    assert_no_none_gradients(ip.user_ns["tape"])  # a note is never an error
    # Repaired (the weights, the data or the values), the same cell: no note.
    run_all(ip, [repair, cell])
    assert np.abs(ip.user_ns["grads"].numpy()).sum() > 0
    assert list(explain(ip)) == []


def test_zeros_that_cancel_out_get_no_note(ip):
    run(ip, "%%tape --target loss --sources w\nloss = tf.reduce_sum(w * 3.0 - w * 3.0)")
    np.testing.assert_array_equal(ip.user_ns["grads"].numpy(), [[0.0], [0.0]])
    assert list(explain(ip)) == []


def test_zeros_standing_for_none_are_explained(ip):
    run(
        ip,
        "%%tape --target loss --sources w --unconnected zero\n"
        "loss = tf.reduce_sum(tf.round(w))",
    )
    np.testing.assert_array_equal(ip.user_ns["grads"].numpy(), [[0.0], [0.0]])
    (finding,) = explain(ip)
    assert finding.cause == "non_differentiable" and finding.line == 2
    assert finding.message.startswith("w: zeros that stand for None")
    # A real zero gradient is not a None: no error, a note on the op.
    run(
        ip,
        "%%tape --target loss --sources w --unconnected zero\n"
        "loss = tf.reduce_sum(w * 0.0)",
    )
    np.testing.assert_array_equal(ip.user_ns["grads"].numpy(), [[0.0], [0.0]])
    found = explain(ip)
    assert found.errors == ()
    assert [(f.cause, f.op_name) for f in found.notes] == [
        ("zero_gradient", "multiply")
    ]


def test_nan_gradient_from_the_masked_branch_of_where(ip):
    run(ip, "xs = tf.Variable([0.0, 1.0, 4.0])")
    run(
        ip,
        "%%tape --target loss --sources xs\n"
        "mask = xs > 0\n"
        "logs = tf.math.log(xs)\n"
        "loss = tf.reduce_sum(tf.where(mask, logs, 0.0))\n",
    )
    grads = ip.user_ns["grads"].numpy()
    assert np.isnan(grads[0]) and grads[1:].tolist() == [1.0, 0.25]
    (finding,) = explain(ip)
    assert (finding.cause, finding.severity, finding.line) == (
        "nan_gradient",
        "warning",
        3,
    )
    assert finding.op_name == "log"
    assert finding.message.startswith("xs: the gradient holds NaN because log at")
    assert "tf.where at line 4" in finding.message
    assert "tf.where(mask, x, 1.0)" in finding.fix
    check_sentences(finding)
    assert Findings(explain(ip)).errors == ()
    # The fix: make the input safe as well.
    run(
        ip,
        "%%tape --target loss --sources xs\n"
        "mask = xs > 0\n"
        "safe = tf.where(mask, xs, 1.0)\n"
        "loss = tf.reduce_sum(tf.where(mask, tf.math.log(safe), 0.0))\n",
    )
    np.testing.assert_allclose(ip.user_ns["grads"].numpy(), [0.0, 1.0, 0.25])
    assert list(explain(ip)) == []


def test_inf_gradient_of_sqrt_at_zero(ip):
    run(ip, "xs = tf.Variable([0.0, 4.0])")
    run(ip, "%%tape --target loss --sources xs\nloss = tf.reduce_sum(tf.sqrt(xs))")
    assert ip.user_ns["grads"].numpy().tolist() == [np.inf, 0.25]
    (finding,) = explain(ip)
    assert (finding.cause, finding.line, finding.op_name) == ("nan_gradient", 2, "sqrt")
    assert finding.message.startswith("xs: the gradient holds Inf because sqrt")
    run(
        ip,
        "%%tape --target loss --sources xs\nloss = tf.reduce_sum(tf.sqrt(xs + 1e-6))",
    )
    assert np.isfinite(ip.user_ns["grads"].numpy()).all()
    assert list(explain(ip)) == []


# What tensorflow-cpu 2.21.0 printed for the gradient of tf.norm(v) at v = 0,
# and of the norm written out with 1e-12 under the square root (print(g.numpy())).
TF_NORM_AT_ZERO = "[nan nan]"
TF_SAFE_NORM_AT_ZERO = "[0. 0.]"


def test_norm_at_zero_gets_the_norm_written_out_as_its_fix(ip):
    run(ip, "v = tf.Variable([0.0, 0.0])")
    run(ip, "%%tape --target dist --sources v\ndist = tf.norm(v)")
    assert str(ip.user_ns["grads"].numpy()) == TF_NORM_AT_ZERO
    (finding,) = explain(ip)
    assert (finding.cause, finding.line, finding.severity) == (
        "nan_gradient",
        2,
        "warning",
    )
    assert "tf.norm at line 2 (dist = tf.norm(v)) takes the square root" in (
        finding.message
    )
    fixed = "dist = tf.sqrt(tf.reduce_sum(tf.square(v)) + 1e-12)"
    assert finding.fix == (
        f"Write the norm out with a small number inside the square root: {fixed}."
    )
    check_sentences(finding)
    run(ip, f"%%tape --target dist --sources v\n{fixed}")
    assert str(ip.user_ns["grads"].numpy()) == TF_SAFE_NORM_AT_ZERO
    assert list(explain(ip)) == []


def test_second_gradient_on_a_non_persistent_tape_is_explained_by_its_error(ip):
    run(ip, "%%tape --target loss --sources w\nloss = tf.reduce_sum(w)")
    result, _ = run(ip, "again = tape.gradient(loss, w)")
    assert isinstance(result.error_in_exec, RuntimeError)
    message = str(result.error_in_exec)
    assert "can only be used to compute one set of gradients" in message
    assert "persistent=True" in message
    assert list(explain(ip)) == []  # the failed call itself gives no None
