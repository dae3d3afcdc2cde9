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
    # The check itself: the package's modules, empty, but for an engine module
    # that imports the magic; the contracts must catch it.
    for path in (ROOT / "tapemagic").rglob("*.py"):
        empty = tmp_path / path.relative_to(ROOT)
        empty.parent.mkdir(parents=True, exist_ok=True)
        empty.write_text("")
    (tmp_path / "tapemagic" / "engine" / "tape.py").write_text("from .. import magic\n")
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


def test_the_graph_contract_names_every_engine_module_but_the_public_surface():
    # A new engine module is private to the graph package until it is named here.
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "importlinter"
    ]["contracts"]
    (graph,) = [c for c in contracts if c.get("source_modules") == ["tapemagic.graph"]]
    engine = ROOT / "tapemagic" / "engine"
    modules = {
        p.stem if p.is_file() else p.name
        for p in engine.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    public = {"__init__", "recorder", "events"}
    assert set(graph["forbidden_modules"]) == {
        f"tapemagic.engine.{m}" for m in modules - public
    }


def test_the_tensorflow_recorder_contract_names_every_engine_module_but_events():
    # The TensorFlow recorder builds the engine's event records and nothing else
    # of the engine: a new engine module is closed to it until named here.
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "importlinter"
    ]["contracts"]
    (recorder,) = [
        c for c in contracts if c.get("source_modules") == ["tapemagic.tf_recorder"]
    ]
    engine = ROOT / "tapemagic" / "engine"
    modules = {
        p.stem if p.is_file() else p.name
        for p in engine.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    named = {
        m for m in recorder["forbidden_modules"] if m.startswith("tapemagic.engine")
    }
    assert named == {f"tapemagic.engine.{m}" for m in modules - {"__init__", "events"}}
    others = {"graph", "viz", "magic", "keras", "data", "tf"}
    assert {f"tapemagic.{m}" for m in others} <= set(recorder["forbidden_modules"])
