"""The calls the course notebooks and the README teach, on both engines.

Each test runs the same cells through a real IPython shell with ``tf`` bound to
tapemagic's engine and to real TensorFlow (tensorflow-cpu 2.21.0): the
``%%tape`` options, the tape's methods (``gradient``, ``watch``, ``jacobian``,
``batch_jacobian``, ``watched_variables``, ``stop_recording``, ``reset``,
``explain``), ``%tape`` and the package's functions (``tapemagic.explain``,
``tapemagic.show``, ``tapemagic.assert_no_none_gradients``, ``%tape --all``).
Each gives the same answer on both, or says what to call instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

ENGINES = {
    "tapemagic": "import tapemagic.tf as tf",
    "tensorflow": "import tensorflow as tf",
}
SETUP = """
import numpy as np
import tapemagic
w = tf.Variable(2.0, name="w")
x = tf.constant(3.0)
"""
# Notebook 05's first cell and the sentence its `print(tape.explain())` shows.
UNWATCHED = "%%tape --target y --sources w,x\ny = w * x"
NOT_WATCHED = (
    "x: None because x is a plain tensor (not a tf.Variable) and was never watched"
)


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture(params=sorted(ENGINES))
def ip(shell, request):
    """The shell with ``tf`` of one engine, ``w`` and ``x``; names the test
    adds are removed after."""
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    before = set(shell.user_ns)
    run(shell, ENGINES[request.param] + SETUP)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]


def run(ip, code: str):
    """Run a cell; fail on any error. Returns what it printed and displayed."""
    with capture_output() as captured:
        result = ip.run_cell(code, store_history=True)
    assert result.error_in_exec is None, result.error_in_exec
    assert result.error_before_exec is None, result.error_before_exec
    return captured


def value(ip, name: str):
    found = ip.user_ns[name]
    return None if found is None else np.asarray(found)


def test_the_tape_explains_itself(ip):
    run(ip, UNWATCHED)
    dw, dx = ip.user_ns["grads"]
    assert float(dw) == 3.0 and dx is None
    printed = run(ip, "print(tape.explain())").stdout
    assert printed.startswith(NOT_WATCHED)
    for call in ("tape.explain()", "tape.explain(y, x)", "tapemagic.explain(tape)"):
        run(ip, f"_found = {call}")
        (finding,) = ip.user_ns["_found"]
        assert (finding.source, finding.cause) == ("x", "not_watched"), call
    run(ip, "_found = tape.explain(y, w)")
    assert list(ip.user_ns["_found"]) == []


def test_assert_no_none_gradients_names_the_cause(ip):
    run(ip, UNWATCHED)
    run(
        ip,
        "try:\n"
        "    tapemagic.assert_no_none_gradients(tape)\n"
        "except AssertionError as err:\n"
        "    _message = str(err)",
    )
    message = ip.user_ns["_message"]
    assert message.startswith("1 gradient is None:") and NOT_WATCHED in message
    run(ip, "tapemagic.assert_no_none_gradients(tape, y, w)")


def test_show_and_the_line_magic_show_the_tape(ip):
    run(ip, "%%tape --quiet\ny = w * x")
    for cell in ("tapemagic.show(tape)", "%tape", "%tape tape --show text"):
        captured = run(ip, cell)
        texts = [captured.stdout] + [o.data["text/plain"] for o in captured.outputs]
        assert "GradientTape 'tape'" in "".join(texts), cell


def test_watch_and_watch_accessed_variables(ip):
    run(ip, "%%tape --target y --sources w,x --no-watch-accessed --watch x\ny = w * x")
    dw, dx = ip.user_ns["grads"]
    assert dw is None and float(dx) == 2.0
    run(ip, "%%tape\ntape.watch(x)\ny = x * x\ndy_dx = tape.gradient(y, x)")
    assert float(value(ip, "dy_dx")) == 6.0
    run(ip, "_watched = [v.name for v in tape.watched_variables()]")
    assert ip.user_ns["_watched"] == []


def test_a_persistent_tape_gives_jacobians_and_more_gradients(ip):
    run(
        ip,
        "%%tape --persistent\n"
        "v = tf.Variable([1.0, 2.0, 3.0])\n"
        "y = v * v\n"
        "z = tf.reduce_sum(y)\n"
        "xb = tf.constant([[1.0, 2.0], [3.0, 4.0]])\n"
        "tape.watch(xb)\n"
        "yb = xb * xb",
    )
    run(
        ip,
        "J = tape.jacobian(y, v)\n"
        "B = tape.batch_jacobian(yb, xb)\n"
        "dz = tape.gradient(z, v)\n"
        "dz_again = tape.gradient(z, v)\n"
        "_watched = len(tape.watched_variables())",
    )
    np.testing.assert_allclose(value(ip, "J"), np.diag([2.0, 4.0, 6.0]))
    np.testing.assert_allclose(
        value(ip, "B"), [np.diag([2.0, 4.0]), np.diag([6.0, 8.0])]
    )
    np.testing.assert_allclose(value(ip, "dz"), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(value(ip, "dz_again"), value(ip, "dz"))
    assert ip.user_ns["_watched"] == 1


def test_stop_recording_and_reset(ip):
    run(
        ip,
        "%%tape --persistent\n"
        "with tape.stop_recording():\n"
        "    hidden = w * w\n"
        "seen = w * x\n"
        "dh = tape.gradient(hidden, w)\n"
        "ds = tape.gradient(seen, w)\n"
        "tape.reset()\n"
        "after = w * w\n"
        "da = tape.gradient(after, w)",
    )
    assert ip.user_ns["dh"] is None
    assert float(value(ip, "ds")) == 3.0 and float(value(ip, "da")) == 4.0


def test_the_target_and_sources_options_take_structures(ip):
    run(ip, "b = tf.Variable(0.5, name='b')")
    run(ip, "%%tape --quiet --target loss --sources \"{'w': w, 'b': b}\"\n"
            "loss = (w * x + b - 1.0) ** 2")  # fmt: skip
    grads = ip.user_ns["grads"]
    assert sorted(grads) == ["b", "w"]
    assert float(grads["w"]) == 33.0 and float(grads["b"]) == 11.0


def test_tape_all_says_what_works_on_tensorflow(ip):
    engine = ip.user_ns["tf"].__name__
    with capture_output():
        result = ip.run_cell("%tape --all on")
    try:
        if engine == "tensorflow":
            assert isinstance(result.error_in_exec, UsageError)
            assert "Run the cell with %%tape instead" in str(result.error_in_exec)
        else:
            assert result.error_in_exec is None
            run(ip, "with tf.GradientTape() as t:\n    y = w * x\n_f = t.explain(y, x)")
            (finding,) = ip.user_ns["_f"]
            assert finding.cause == "not_watched"
    finally:
        run(ip, "%tape --all off")


def test_a_tape_without_a_log_names_the_call_that_explains(ip):
    # A plain tape made outside %%tape keeps no explanation log on either engine.
    run(
        ip,
        "with tf.GradientTape() as plain:\n"
        "    y = w * x\n"
        "try:\n"
        "    tapemagic.explain(plain)\n"
        "except ValueError as err:\n"
        "    _message = str(err)",
    )
    assert "keeps no explanation log" in ip.user_ns["_message"]
    assert "%%tape" in ip.user_ns["_message"]
