"""binder/ builds an environment in which every course notebook runs.

The test does what Binder's repo2docker does with binder/, minus Docker and
apt: it copies the repository, creates a fresh virtual environment, runs
``pip install -r binder/requirements.txt`` and then ``binder/postBuild`` from the
copy's root with ``HOME`` pointed at a new folder. Then it executes every
notebook with that environment's own nbclient and kernel, with the same checks
as test_notebooks.py, and checks that ``%%tape`` works with no ``%load_ext``
(postBuild's ``lazy_magics``). pip's cache is shared with the machine's, so a
warm run takes about a minute.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from .course import ROOT, check_cells, check_notebook, course_notebooks
from .test_exercises import HINTS, NAME, student_checks

RUNNER = Path(__file__).with_name("runner.py")


def _copy_repository(target: Path) -> None:
    """The files a clone would have, as they are in this working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _environment(home: Path, venv: Path) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("JUPYTER", "IPYTHON", "PYTHON", "VIRTUAL_ENV", "MPL"))
    }
    # Reuse the machine's pip cache even though HOME moves.
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env.update(
        HOME=str(home),
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def _run(command: list, **kwargs) -> None:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} failed ({done.returncode}):\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )


def _lazy_magic_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import tapemagic.tf as tf\nx = tf.Variable(3.0)"),
        nbformat.v4.new_code_cell("%%tape --target y --sources x\ny = x * x"),
        nbformat.v4.new_code_cell("print('dy/dx =', grads.numpy())"),
    ]
    nbformat.write(nb, path)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_binder_environment_runs_every_notebook(tmp_path):
    repo, home, venv = tmp_path / "repo", tmp_path / "home", tmp_path / "venv"
    repo.mkdir()
    home.mkdir()
    _copy_repository(repo)
    env = _environment(home, venv)
    python = venv / "bin" / "python"

    _run([sys.executable, "-m", "venv", str(venv)], env=env)
    _run(
        [python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        cwd=repo,
        env=env,
    )
    _run(["bash", "binder/postBuild"], cwd=repo, env=env)
    config = home / ".ipython" / "profile_default" / "ipython_config.py"
    assert 'lazy_magics = {"tape": "tapemagic"}' in config.read_text()

    # Every installed package is the one binder/requirements.txt pins.
    pinned = {
        line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
        for line in (repo / "binder" / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    frozen = subprocess.run(
        [python, "-m", "pip", "freeze", "--exclude-editable"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    installed = {
        line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
        for line in frozen
        if "==" in line
    }
    assert installed == pinned

    lazy = tmp_path / "lazy.ipynb"
    _lazy_magic_notebook(lazy)
    notebooks = course_notebooks(repo / "notebooks")
    exercises = repo / "notebooks" / "exercises" / NAME
    report_path = tmp_path / "report.json"
    _run(
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
