"""Every None cause, explained the same on both engines.

The cells of tests/graph/test_diagnosis.py (one buggy cell and its fix per
cause) run through the real ``%%tape`` magic with ``tf`` bound to tapemagic's
engine and to real TensorFlow (tensorflow-cpu 2.21.0); on each, the finding
names the same cause, cell line and fix, the gradient is None as TensorFlow
says, and the corrected cell has no finding and TensorFlow's gradient.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.graph import log_names
from tapemagic.graph.findings import CAUSES, Findings
from tapemagic.graph.recorders import surface_of
from tests.graph.cells import SETUP, check_sentences
from tests.graph.test_diagnosis import CASES, check_corrected_gradient
from tests.graph.test_diagnosis_situations import ZEROS

ENGINES = {
    "tapemagic": SETUP,
    "tensorflow": SETUP.replace("import tapemagic.tf as tf", "import tensorflow as tf"),
}
TAPE_TYPES = {
    "tapemagic": "tapemagic.engine.tape.GradientTape",
    "tensorflow": "tapemagic.tf_recorder.tape.RecordingTape",
}


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture(params=sorted(ENGINES))
def engine(request):
    return request.param


@pytest.fixture
def ip(shell, engine):
    """The shell with x, y, w, b of ``engine``; names the test adds go after."""
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    log_names._NAMED_VARIABLES.clear()
    before = set(shell.user_ns)
    run_all(shell, [ENGINES[engine], "import tapemagic"])
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]
    log_names._NAMED_VARIABLES.clear()


def run(ip, code: str):
    with capture_output() as captured, warnings.catch_warnings():
        # Watching an integer tensor warns on both engines; not the point here.
        warnings.simplefilter("ignore", UserWarning)
        result = ip.run_cell(code, store_history=True)
    return result, captured


def run_all(ip, cells: list[str]) -> None:
    for cell in cells:
        result, _ = run(ip, cell)
        assert result.error_in_exec is None, (cell, result.error_in_exec)


def explain(ip, call: str) -> Findings:
    """``tape.explain(...)`` of a case, asked as ``tapemagic.explain(tape, ...)``,
    which takes a tape of either engine."""
    args = re.fullmatch(r"tape\.explain\((.*)\)", call).group(1)
    result, _ = run(ip, f"_found = tapemagic.explain(tape{', ' if args else ''}{args})")
    assert result.success, result.error_in_exec
    return ip.user_ns["_found"]


def tape_type(ip) -> str:
    cls = type(ip.user_ns["tape"])
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_cause_has_a_case_on_both_engines():
    # NaN has its test below, a gradient of zeros the cells of ZEROS.
    covered = {case.cause for case in CASES.values()} | {"nan_gradient"}
    assert ZEROS
    assert covered | {"zero_gradient"} == set(CAUSES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_buggy_cell_is_explained(ip, engine, name):
    case = CASES[name]
    for cell in case.buggy:
        run(ip, cell)  # the rebinding loop raises (0.5 * None): still explained
    assert tape_type(ip) == TAPE_TYPES[engine]
    found = explain(ip, case.call)
    (finding,) = [f for f in found if f.source == case.source]
    assert (finding.cause, finding.line) == (case.cause, case.line)
    assert finding.severity == case.severity
    assert case.fix_phrase in finding.fix
    assert case.message_phrase in finding.message
    tape = ip.user_ns["tape"]
    lines = surface_of(tape).explain_listener(tape).lines
    check_sentences(finding, tuple(lines))
    if case.line is not None:
        assert f"at line {case.line}" in finding.message
        assert finding.line_text == lines[case.line - 1].strip()
    # The gradient is None, as TensorFlow says: for an error. A note (a source
    # that is the target) explains a gradient that is there (all ones).
    if case.severity == "error" and "grads" in ip.user_ns:
        grads = ip.user_ns["grads"]
        assert grads is None or (isinstance(grads, list) and None in grads)


@pytest.mark.parametrize("name", sorted(CASES))
def test_corrected_cell_has_no_finding(ip, engine, name):
    case = CASES[name]
    run_all(ip, case.fixed)
    assert list(explain(ip, case.call)) == []
    check_corrected_gradient(name, ip.user_ns["grads"])


@pytest.mark.parametrize("name", sorted(ZEROS))
def test_a_gradient_of_zeros_gets_the_same_note(ip, engine, name):
    setup, cell, repair, op, line, tf_grads, phrase, fix = ZEROS[name]
    run_all(ip, [setup, cell])
    np.testing.assert_array_equal(ip.user_ns["grads"].numpy(), tf_grads)
    found = explain(ip, "tape.explain()")
    assert found.errors == () and found.warnings == ()
    (note,) = found.notes
    assert (note.cause, note.op_name, note.line) == ("zero_gradient", op, line)
    assert phrase in note.message and fix in note.fix
    tape = ip.user_ns["tape"]
    check_sentences(note, tuple(surface_of(tape).explain_listener(tape).lines))
    run_all(ip, [repair, cell])
    assert np.abs(ip.user_ns["grads"].numpy()).sum() > 0
    assert list(explain(ip, "tape.explain()")) == []


def test_nan_gradient_from_the_masked_branch_of_where(ip):
    run_all(ip, ["xs = tf.Variable([0.0, 1.0, 4.0])"])
    run_all(
        ip,
        [
            "%%tape --target loss --sources xs\n"
            "mask = xs > 0\n"
            "logs = tf.math.log(xs)\n"
            "loss = tf.reduce_sum(tf.where(mask, logs, 0.0))\n"
        ],
    )
    grads = ip.user_ns["grads"].numpy()
    assert np.isnan(grads[0]) and grads[1:].tolist() == [1.0, 0.25]
    (finding,) = explain(ip, "tape.explain()")
    assert (finding.cause, finding.severity, finding.line, finding.op_name) == (
        "nan_gradient",
        "warning",
        3,
        "log",
    )
    assert "tf.where at line 4" in finding.message
    assert "tf.where(mask, x, 1.0)" in finding.fix
    run_all(
        ip,
        [
            "%%tape --target loss --sources xs\n"
            "mask = xs > 0\n"
            "safe = tf.where(mask, xs, 1.0)\n"
            "loss = tf.reduce_sum(tf.where(mask, tf.math.log(safe), 0.0))\n"
        ],
    )
    np.testing.assert_allclose(ip.user_ns["grads"].numpy(), [0.0, 1.0, 0.25])
    assert list(explain(ip, "tape.explain()")) == []


def test_two_bugs_are_both_reported_against_their_source(ip):
    run_all(
        ip,
        [
            "%%tape --target loss --sources w,b\n"
            "b_np = b.numpy()\n"
            "wi = tf.cast(w, tf.int32)\n"
            "loss = tf.reduce_sum(tf.cast(wi, tf.float32)) + tf.reduce_sum(b_np)\n"
        ],
    )
    assert ip.user_ns["grads"] == [None, None]
    found = explain(ip, "tape.explain()")
    assert [(f.source, f.cause, f.line) for f in found] == [
        ("w", "integer_cast", 3),
        ("b", "numpy_copy", 2),
    ]


def test_assert_no_none_gradients_takes_either_tape(ip):
    run_all(ip, ["%%tape --target loss --sources w,b\nloss = tf.reduce_sum(w)"])
    result, _ = run(ip, "tapemagic.assert_no_none_gradients(tape)")
    assert isinstance(result.error_in_exec, AssertionError)
    message = str(result.error_in_exec)
    assert message.startswith("1 gradient is None:")
    assert "b: None because loss" in message
    result, _ = run(ip, "tapemagic.assert_no_none_gradients(tape, loss, w)")
    assert result.success
