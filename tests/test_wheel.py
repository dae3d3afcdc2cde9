"""The wheel and sdist a release makes: their metadata, their contents, and the
wheel installed into a fresh environment with no checkout beside it.

``python -m build`` runs on a copy of the files a clone would have (so a file
left out of git or out of ``MANIFEST.in`` shows here), building the sdist first
and the wheel from the sdist, as a release does. The wheel is then installed
into a new virtual environment in a temporary folder, with its runtime
dependencies and the two packages that run a notebook (nbclient, ipykernel),
each at its pinned version; pip's cache is the machine's, so a warm run
downloads nothing. There a notebook loads the extension and runs a ``%%tape``
cell, and the first course notebook, taken from the sdist, runs with the same
checks as in tests/notebooks/.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import nbformat
import pytest

import tapemagic

from .fresh_env import ROOT, copy_checkout, environment, run, site_packages
from .notebooks.course import WIDGET_MIME, check_cells, check_notebook

pytestmark = pytest.mark.slow

VERSION = tapemagic.__version__
RUNNER = ROOT / "tests" / "notebooks" / "runner.py"
COURSE = "01-gradient-tape-basics"
# Beside the wheel's own dependencies: what runs a notebook.
NOTEBOOK_PACKAGES = ["ipykernel", "nbclient", "nbformat"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The folder holding the sdist and the wheel that ``python -m build`` made."""
    top = tmp_path_factory.mktemp("release")
    source, out = top / "source", top / "dist"
    copy_checkout(source)
    run([sys.executable, "-m", "build", "--outdir", str(out), str(source)])
    return out


@pytest.fixture(scope="module")
def wheel(dist) -> Path:
    (found,) = dist.glob("*.whl")
    return found


@pytest.fixture(scope="module")
def sdist(dist) -> Path:
    (found,) = dist.glob("*.tar.gz")
    return found


def test_build_names_both_files_by_the_version(wheel, sdist):
    assert wheel.name == f"tapemagic-{VERSION}-py3-none-any.whl"
    assert sdist.name == f"tapemagic-{VERSION}.tar.gz"


def test_twine_accepts_both(wheel, sdist):
    out = run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist])
    assert out.count("PASSED") == 2, out


def test_wheel_metadata_licence_and_types(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"tapemagic-{VERSION}.dist-info"
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        licence = archive.read(f"{info}/licenses/LICENSE").decode()
    assert metadata["Name"] == "tapemagic"
    assert metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT"
    assert licence.startswith("MIT License")
    assert licence == (ROOT / "LICENSE").read_text()
    classifiers = metadata.get_all("Classifier")
    for wanted in ("Typing :: Typed", "Framework :: Jupyter :: JupyterLab"):
        assert wanted in classifiers
    assert metadata["Requires-Python"] == ">=3.11"
    runtime = {r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r}
    assert runtime == {"numpy", "ipython", "ipywidgets>=8", "graphviz"}
    # The package, its type marker, and nothing of the tests or notebooks.
    assert "tapemagic/py.typed" in names
    assert "tapemagic/graph/causes/__init__.py" in names
    assert not [n for n in names if n.startswith(("tests/", "notebooks/", "docs/"))]
    packaged = {n for n in names if n.startswith("tapemagic/") and n.endswith(".py")}
    in_checkout = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "tapemagic").rglob("*.py")
    }
    assert packaged == in_checkout


def test_changelog_names_the_version():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\S+)", changelog, re.MULTILINE)
    assert headings and headings[0] == VERSION, (
        f"CHANGELOG.md's newest heading is {headings[:1]}, not ## {VERSION}: "
        "say what changed in this release there"
    )


def test_sdist_carries_the_course(sdist):
    top = f"tapemagic-{VERSION}"
    with tarfile.open(sdist) as archive:
        names = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    for name in ("LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml"):
        assert name in names
    course = {p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").rglob("*")}
    course = {n for n in course if ".ipynb_checkpoints" not in n and "." in n}
    assert course <= names, f"missing from the sdist: {sorted(course - names)}"
    assert "tapemagic/py.typed" in names


def _tape_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import sys, tapemagic\nprint(tapemagic.__file__)\n"
            "print(tapemagic.__version__)\nprint(sys.prefix)"
        ),
        nbformat.v4.new_code_cell("%load_ext tapemagic"),
        nbformat.v4.new_code_cell("import tapemagic.tf as tf\nx = tf.Variable(3.0)"),
        nbformat.v4.new_code_cell("%%tape --target y --sources x\ny = x * x"),
        nbformat.v4.new_code_cell("print('dy/dx =', grads.numpy())"),
    ]
    nbformat.write(nb, path)


@pytest.mark.timeout(600)
def test_wheel_runs_tape_and_a_course_notebook_in_a_fresh_venv(wheel, sdist, tmp_path):
    home, venv, work = tmp_path / "home", tmp_path / "venv", tmp_path / "work"
    for folder in (home, work):
        folder.mkdir()
    env = environment(home, venv)
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "venv", str(venv)], env=env)
    run(
        [python, "-m", "pip", "install", "-q", "-c", ROOT / "constraints.txt"]
        + [wheel, *NOTEBOOK_PACKAGES],
        cwd=work,
        env=env,
    )

    # The course notebook as the sdist ships it; the runner, and nothing else
    # of the checkout, beside it.
    with tarfile.open(sdist) as archive:
        member = archive.getmember(f"tapemagic-{VERSION}/notebooks/{COURSE}.ipynb")
        (work / f"{COURSE}.ipynb").write_bytes(archive.extractfile(member).read())
    shutil.copy(RUNNER, work / "runner.py")
    _tape_notebook(work / "tape.ipynb")
    report = work / "report.json"
    run(
        [python, "runner.py", "--report", report, "--timeout", "120"]
        + ["tape.ipynb", f"{COURSE}.ipynb"],
        cwd=work,
        env=env,
    )
    tape, course = json.loads(report.read_text())

    where, version, prefix = tape["cells"][0]["stdout"].split()
    assert Path(where).resolve().is_relative_to(site_packages(venv))
    assert version == VERSION
    assert Path(prefix) == venv and tape["prefix"] == str(venv)
    check_cells("tape", tape)
    assert WIDGET_MIME in tape["cells"][3]["mimes"], "the widget is not displayed"
    assert tape["widgets"], "no widget state was saved with the notebook"
    assert tape["cells"][4]["stdout"] == "dy/dx = 6.0\n"

    assert course["name"] == COURSE and course["prefix"] == str(venv)
    check_notebook(COURSE, course)
