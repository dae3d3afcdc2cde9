"""The packaging, setup scripts and CI entry point agree with each other."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_DEPS = {"numpy", "ipython", "ipywidgets", "graphviz"}


def normalize(name: str) -> str:
    """Normalise a distribution name the way the tests compare them."""
    return name.strip().lower().replace("_", "-").replace(".", "-")


def requirement_name(requirement: str) -> str:
    """Return the distribution name of a PEP 508 requirement string."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"cannot read a package name from {requirement!r}"
    return normalize(match.group(1))


@pytest.fixture(scope="module")
def pyproject() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version, f"constraints.txt: {line!r} is not an exact pin"
        pins[normalize(name)] = version.strip()
    return pins


def test_pyproject_declares_package_and_runtime_deps(pyproject):
    project = pyproject["project"]
    assert project["name"] == "tapemagic"
    # The version is written once, in tapemagic/__init__.py.
    assert "version" not in project and project["dynamic"] == ["version"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]
    assert dynamic["version"] == {"attr": "tapemagic.__version__"}
    assert project["requires-python"] == ">=3.11"
    deps = {requirement_name(r) for r in project["dependencies"]}
    assert deps == RUNTIME_DEPS
    assert "ipywidgets>=8" in project["dependencies"]
    assert {"test", "lab"} <= set(project["optional-dependencies"])
    find = pyproject["tool"]["setuptools"]["packages"]["find"]
    assert find["include"] == ["tapemagic*"]


def test_pytest_markers_are_registered(pyproject):
    options = pyproject["tool"]["pytest"]["ini_options"]
    markers = {m.split(":", 1)[0].strip() for m in options["markers"]}
    assert {"browser", "dot", "slow"} <= markers
    assert options["testpaths"] == ["tests"]


def test_every_declared_package_is_pinned(pyproject, pins):
    project = pyproject["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    unpinned = sorted({requirement_name(r) for r in requirements} - set(pins))
    assert not unpinned, (
        f"no pin in constraints.txt for {unpinned}: rebuild the venv with "
        "scripts/setup.sh and refresh constraints.txt from `pip freeze`"
    )


def test_constraints_do_not_pin_tapemagic_itself(pins):
    assert "tapemagic" not in pins


def test_ci_runs_the_test_script():
    run = ROOT / ".ci" / "run"
    text = run.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    assert re.search(r"^exec bash scripts/test\.sh\b", text, re.MULTILINE)
    assert run.stat().st_mode & 0o111, ".ci/run must be executable"


def test_readme_opens_with_the_three_scripts():
    lines = [line for line in (ROOT / "README.md").read_text().splitlines() if line]
    assert lines[0].startswith("# tapemagic")
    assert lines[1].startswith("```"), "the commands come right after the title"
    commands = [line.split("#", 1)[0].strip() for line in lines[2:5]]
    assert commands == [
        "bash scripts/lab.sh",
        "bash scripts/test.sh",
        "bash scripts/docs.sh",
    ]
    assert lines[5] == "```"


def test_the_test_script_builds_the_site(pyproject):
    """CI runs test.sh, so the site is built and its links checked on every run."""
    test = (ROOT / "scripts" / "test.sh").read_text()
    assert re.search(r"^\s*bash scripts/docs\.sh$", test, re.MULTILINE)
    docs = (ROOT / "scripts" / "docs.sh").read_text()
    assert "bash scripts/setup.sh" in docs
    assert re.search(r"sphinx -W --keep-going -E\b", docs), "warnings are errors"
    assert "check_links.py" in docs
    # setup.sh installs what the build needs.
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert '-e ".[test,lab,docs]"' in setup
    docs_extra = {
        requirement_name(r)
        for r in pyproject["project"]["optional-dependencies"]["docs"]
    }
    assert {"sphinx", "myst-nb", "pydata-sphinx-theme"} <= docs_extra


@pytest.mark.parametrize("script", ["setup.sh", "lab.sh", "test.sh", "docs.sh"])
def test_scripts_never_download_a_browser(script):
    text = (ROOT / "scripts" / script).read_text()
    commands = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not any("playwright install" in line for line in commands)


def test_tensorflow_is_an_extra_the_test_extra_includes(pyproject, pins):
    extras = pyproject["project"]["optional-dependencies"]
    assert extras["tensorflow"] == ["tensorflow-cpu==2.21.0"]
    # The test extra installs it, so every test run runs the TensorFlow tests.
    assert set(extras["tensorflow"]) <= set(extras["test"])
    assert pins["tensorflow-cpu"] == "2.21.0"
    # TensorFlow 2.21 works with the pinned NumPy; its own dependencies are pinned.
    assert pins["numpy"] == "2.4.6"
    for name in ("keras", "protobuf", "ml-dtypes", "h5py", "absl-py", "grpcio"):
        assert name in pins, name
    # The course and Binder do not need it.
    assert not any("tensorflow" in r for r in pyproject["project"]["dependencies"])
    assert not any("tensorflow" in r for r in extras["lab"])


def test_the_test_script_fails_without_tensorflow():
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert "import tensorflow" in script
