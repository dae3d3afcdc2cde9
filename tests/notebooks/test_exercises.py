"""The graded exercises: otter-grader's student version, its checks and hints.

``notebooks/exercises/master/`` holds the instructor's notebooks (solutions and
checks in otter-grader's assignment format); ``notebooks/exercises/assign.py``
runs ``otter assign`` on them. Here it runs again into a temporary folder, and:

- the committed student version is exactly what it writes, and holds no line
  of a solution, no solution marker and no hidden test;
- run with nbclient as "Run All" would, the student version's exercise cells
  run without raising, and every check fails with its hint: the cause, line and
  fix that tapemagic's diagnosis finds for a None gradient, or the value the
  exercise expects;
- the autograder version (the solutions) passes every check.

``tests/browser/test_exercise_browser.py`` does the same for one exercise in a
real JupyterLab.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from .runner import run_notebook

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "notebooks" / "exercises"
NAME = "gradient-tape-exercises.ipynb"

# What each check must say on the unsolved student version: the diagnosis'
# cause, line and fix for a None gradient, or the value expected.
HINTS = {
    "none_gradient": [
        "w: None because w was converted to a NumPy array by .numpy() at line 4 "
        "(y = w.numpy() * x)",
        "Keep w a tensor: y = w * x.",
    ],
    "persistent_tape": [
        "dz_dx is not computed yet: ask the same tape for tape.gradient(z, x).",
        "tf.GradientTape(persistent=True)",
    ],
    "jacobian": [
        "dy_dx has shape (3,): it is the gradient of tf.reduce_sum(y), [2.0, 4.0, 6.0]",
        "tape.jacobian(y, x) gives [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]",
    ],
    "second_derivative": [
        "x: None because dy_dx was computed after the tape stopped recording",
        "Compute dy_dx inside the tape",
    ],
    "training_step": [
        "b: None because b was converted to a NumPy array by .numpy() at line 9 "
        "(prediction = tf.matmul(x, w) + b.numpy())",
        "Keep b a tensor: prediction = tf.matmul(x, w) + b.",
        "w should end close to [[2.0], [-1.0]]",
    ],
    "gradient_ascent": [
        "v should climb to the peak [1.0, -2.0]",
        "gradient ascent adds it (v.assign_add(step * grad))",
    ],
}
# What each exercise cell prints, unsolved and solved: what tensorflow-cpu
# 2.21.0 printed for the same cells with `import tensorflow as tf` (the checks
# themselves need tapemagic's engine: `%tape --all on` explains its tapes only).
PRINTED = {
    "student": {
        "none_gradient": "",
        "persistent_tape": "tf.Tensor(6.0, shape=(), dtype=float32) Ellipsis\n",
        "jacobian": "tf.Tensor([2. 4. 6.], shape=(3,), dtype=float32)\n",
        "second_derivative": "tf.Tensor(12.0, shape=(), dtype=float32) None\n",
        "training_step": "loss 0.22874  w [ 1.9063002 -0.8212108]  b [0.]\n",
        "gradient_ascent": "v [-9099.4375 18198.875 ]  score -414089792.0000\n",
    },
    "autograder": {
        "none_gradient": "",
        "persistent_tape": "tf.Tensor(6.0, shape=(), dtype=float32) "
        "tf.Tensor(108.0, shape=(), dtype=float32)\n",
        "jacobian": "tf.Tensor(\n[[2. 0. 0.]\n [0. 4. 0.]\n [0. 0. 6.]], "
        "shape=(3, 3), dtype=float32)\n",
        "second_derivative": "tf.Tensor(12.0, shape=(), dtype=float32) "
        "tf.Tensor(12.0, shape=(), dtype=float32)\n",
        "training_step": "loss 0.00000  w [ 1.9999996 -0.9999996]  b [0.49999982]\n",
        "gradient_ascent": "v [ 0.99998575 -1.9999715 ]  score 5.0000\n",
    },
}
# Exercise cells whose None gradient the tape flags in the student version.
FLAGGED = {"none_gradient": ["w"], "second_derivative": ["x"], "training_step": ["b"]}
PASSED = "results: All test cases passed!"
FAILED = "Test case failed"
_CHECK = re.compile(r'^grader\.check\("(\w+)"\)$')


@pytest.fixture(scope="module")
def assigned(tmp_path_factory) -> dict[str, Path]:
    """Both versions, as ``assign.py --out`` writes them from the masters."""
    out = tmp_path_factory.mktemp("assigned")
    result = subprocess.run(
        [sys.executable, str(EXERCISES / "assign.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return {kind: out / kind / NAME for kind in ("student", "autograder")}


def _run_copy(path: Path, folder: Path) -> dict:
    """Run a copy of the notebook in its own folder (otter logs next to it)."""
    folder.mkdir()
    shutil.copy(path, folder / NAME)
    return run_notebook(folder / NAME, timeout=300)


def _checks(report: dict) -> dict[str, tuple[dict, dict]]:
    """``{question: (exercise cell, check cell)}``: a check follows its cell."""
    cells = report["cells"]
    found = {}
    for before, cell in zip(cells, cells[1:]):
        match = _CHECK.match(cell["source"].strip())
        if match:
            found[match.group(1)] = (before, cell)
    return found


def _solution_lines(master: nbformat.NotebookNode) -> set[str]:
    """Every line a solution marker hides from students, marker removed."""
    lines, inside = set(), False
    for cell in master.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            end = line.rstrip()
            if end.endswith("# BEGIN SOLUTION") or end.endswith(
                "# BEGIN SOLUTION NO PROMPT"
            ):
                inside = True
            elif end.endswith("# END SOLUTION"):
                inside = False
            elif inside:
                lines.add(end)
            elif re.search(r"# SOLUTION( NO PROMPT)?$", end):
                lines.add(re.sub(r"\s*# SOLUTION( NO PROMPT)?$", "", end))
    return {line for line in lines if line.strip()}


def test_the_committed_student_version_is_what_otter_assign_writes(assigned):
    committed = EXERCISES / NAME
    assert committed.read_text() == assigned["student"].read_text(), (
        "notebooks/exercises/gradient-tape-exercises.ipynb is out of date: rerun "
        "`python notebooks/exercises/assign.py` after editing the master"
    )


def test_the_student_version_holds_no_solution_and_no_hidden_test():
    master = nbformat.read(EXERCISES / "master" / NAME, as_version=4)
    student = nbformat.read(EXERCISES / NAME, as_version=4)
    hidden = _solution_lines(master)
    assert len(hidden) >= 6, "every exercise has a solution line"
    shown = {
        line.rstrip()
        for cell in student.cells
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
    }
    leaked = hidden & shown
    assert not leaked, f"solution lines in the student version: {leaked}"
    text = "\n".join(cell.source for cell in student.cells)
    for marker in ("SOLUTION", "BEGIN PROMPT", "END PROMPT", "BEGIN QUESTION"):
        assert marker not in text
    tests = student.metadata["otter"]["tests"]
    assert sorted(tests) == sorted(HINTS)
    assert all("hidden=True" not in source for source in tests.values())


def student_checks(report: dict) -> dict[str, dict]:
    """Check that every exercise of a student-version run fails with its hint.

    Args:
        report: :func:`run_notebook`'s report of the unsolved student version.

    Returns:
        ``{question: check cell}`` for every check that did so.
    """
    checks = _checks(report)
    assert sorted(checks) == sorted(HINTS)
    for question, (exercise, check) in checks.items():
        # The unsolved exercise runs (Run All reaches every check) ...
        assert exercise["errors"] == [], (question, exercise["text"])
        assert check["errors"] == [], (question, check["text"])
        # ... and its check fails, saying why.
        assert FAILED in check["text"] and PASSED not in check["text"], question
        for hint in HINTS[question]:
            # Said once: not in the check's source line and again filled in.
            assert check["text"].count(hint) == 1, (question, hint, check["text"])
        assert not re.search(r"\bf[\"']", check["text"]), (question, check["text"])
        flagged = [name.split(" ")[0] for name in exercise["nones"]]
        assert flagged == FLAGGED.get(question, []), (question, exercise["nones"])
        assert exercise["stdout"] == PRINTED["student"][question], question
    return {question: check for question, (_, check) in checks.items()}


def test_every_check_fails_on_the_student_version_with_its_hint(tmp_path):
    report = _run_copy(EXERCISES / NAME, tmp_path / "student")
    assert len(student_checks(report)) == 6


def test_every_check_passes_on_the_solutions(assigned, tmp_path):
    report = _run_copy(assigned["autograder"], tmp_path / "autograder")
    checks = _checks(report)
    assert sorted(checks) == sorted(HINTS)
    for question, (exercise, check) in checks.items():
        assert exercise["errors"] == [] and exercise["nones"] == [], question
        assert exercise["stdout"] == PRINTED["autograder"][question], question
        assert f"{question} {PASSED}" in check["text"], (question, check["text"])
    assert all(cell["errors"] == [] for cell in report["cells"])
