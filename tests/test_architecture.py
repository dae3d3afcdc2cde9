"""The layering contract of docs/DESIGN.md, checked by import-linter.

The contracts live in pyproject.toml (``[tool.importlinter]``): the engine imports
nothing above it, the renderers never import the engine, the graph package reaches
the engine through its public surface only, and the op library has no import
cycles. import-linter follows every import, those inside functions included, so a
lazy import cannot hide a dependency.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports() -> str:
    exe = Path(sys.executable).with_name("lint-imports")
    command = str(exe) if exe.exists() else shutil.which("lint-imports")
    if command is None:
        pytest.fail(
            "lint-imports is missing: install the test extra "
            "(bash scripts/setup.sh, or pip install -e '.[test]')."
        )
    return command


def test_import_contracts_are_kept() -> None:
    done = subprocess.run(
        [_lint_imports(), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Every contract of pyproject.toml was read and checked.
    declared = len(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
            "contracts"
        ]
    )
    assert f"Contracts: {declared} kept, 0 broken." in done.stdout, done.stdout


def test_a_broken_contract_fails(tmp_path: Path) -> None:
    # The check itself: a package whose engine imports its magic must fail.
    pkg = tmp_path / "tapemagic"
    for sub in ("engine", "graph", "viz", "tf", "keras", "data"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "magic.py").write_text("")
    (pkg / "engine" / "ops").mkdir()
    (pkg / "engine" / "ops" / "__init__.py").write_text("")
    (pkg / "engine" / "tape.py").write_text("from .. import magic\n")
    config = (ROOT / "pyproject.toml").read_text()
    (tmp_path / "pyproject.toml").write_text(config)
    done = subprocess.run(
        [_lint_imports(), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode != 0, done.stdout
    assert "tapemagic.engine.tape -> tapemagic.magic" in done.stdout
