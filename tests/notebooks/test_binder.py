"""binder/ builds an environment in which every course notebook runs.

The test does what Binder's repo2docker does with binder/, minus Docker and
apt: it copies the repository, creates a fresh virtual environment, runs
``pip install -r binder/requirements.txt`` and then ``binder/postBuild`` from the
copy's root with ``HOME`` pointed at a new folder. postBuild installs tapemagic
from the wheel it builds, never as an editable checkout: the test checks that
the package imported is the one in the environment's site-packages. Then it
executes every
notebook with that environment's own nbclient and kernel, with the same checks
as test_notebooks.py, and checks that ``%%tape`` works with no ``%load_ext``
(postBuild's ``lazy_magics``). pip's cache is shared with the machine's, so a
warm run takes about a minute.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

from ..fresh_env import copy_checkout, environment, run, site_packages
from .course import check_cells, check_notebook, course_notebooks
from .test_exercises import HINTS, NAME, student_checks

RUNNER = Path(__file__).with_name("runner.py")


def _lazy_magic_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import tapemagic.tf as tf\nx = tf.Variable(3.0)"),
        nbformat.v4.new_code_cell("%%tape --target y --sources x\ny = x * x"),
        nbformat.v4.new_code_cell("print('dy/dx =', grads.numpy())"),
    ]
    nbformat.write(nb, path)


@pytest.mark.slow
# pip installs about a hundred pinned packages, then builds tapemagic's wheel.
@pytest.mark.timeout(900)
def test_binder_environment_runs_every_notebook(tmp_path):
    repo, home, venv = tmp_path / "repo", tmp_path / "home", tmp_path / "venv"
    repo.mkdir()
    home.mkdir()
    copy_checkout(repo)
    env = environment(home, venv)
    python = venv / "bin" / "python"

    run([sys.executable, "-m", "venv", str(venv)], env=env)
    run(
        [python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        cwd=repo,
        env=env,
    )
    run(["bash", "binder/postBuild"], cwd=repo, env=env)
    config = home / ".ipython" / "profile_default" / "ipython_config.py"
    assert 'lazy_magics = {"tape": "tapemagic"}' in config.read_text()

    # Every installed package is the one binder/requirements.txt pins.
    pinned = {
        line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
        for line in (repo / "binder" / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    frozen = run([python, "-m", "pip", "freeze"], env=env).splitlines()
    installed = {
        line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
        for line in frozen
        if "==" in line
    }
    # tapemagic itself: installed from a wheel file, not editable.
    ours = [line for line in frozen if line.lower().startswith(("tapemagic", "-e"))]
    assert len(ours) == 1 and ours[0].startswith("tapemagic @ file:"), ours
    assert re.search(r"\.whl(#|$)", ours[0]), ours
    where = run(
        [python, "-c", "import tapemagic; print(tapemagic.__file__)"], cwd=home, env=env
    )
    assert Path(where.strip()).is_relative_to(site_packages(venv)), where
    assert installed == pinned

    lazy = tmp_path / "lazy.ipynb"
    _lazy_magic_notebook(lazy)
    notebooks = course_notebooks(repo / "notebooks")
    exercises = repo / "notebooks" / "exercises" / NAME
    report_path = tmp_path / "report.json"
    run(
        [python, RUNNER, "--report", report_path, "--timeout", "180"]
        + [*notebooks, lazy, exercises],
        cwd=repo,
        env=env,
    )
    reports = json.loads(report_path.read_text())

    # The student version of the exercises: otter-grader's checks run there.
    exercise_report = reports.pop()
    assert exercise_report["prefix"] == str(venv)
    assert sorted(student_checks(exercise_report)) == sorted(HINTS)
    lazy_report = reports.pop()
    assert lazy_report["prefix"] == str(venv)
    check_cells("lazy", lazy_report)
    assert lazy_report["cells"][2]["stdout"] == "dy/dx = 6.0\n"
    assert [report["name"] for report in reports] == [nb.stem for nb in notebooks]
    for report in reports:
        assert report["prefix"] == str(venv), "the kernel ran another Python"
        check_notebook(report["name"], report)
