"""The layering contract of docs/DESIGN.md, checked by import-linter.

The contracts live in pyproject.toml (``[tool.importlinter]``): the engine imports
nothing above it, the renderers never import the engine, the graph package reaches
the engine through its public surface only, and the op library has no import
cycles. import-linter follows every import, those inside functions included, so a
lazy import cannot hide a dependency.
"""

from __future__ import annotations

import ast
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


def test_every_top_level_module_has_its_place_in_the_layers():
    # A new module beside magic.py (the cell's run, the later cells, the
    # engine's hooks) is placed in the layer order, or import-linter would not
    # see it cross a layer. The root and the TensorFlow recorder stand outside.
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "importlinter"
    ]["contracts"]
    # the package's own layers (the others order the modules of one package)
    (layers,) = [
        c for c in contracts if c["type"] == "layers" and "containers" not in c
    ]
    package = ROOT / "tapemagic"
    top = {
        p.stem if p.is_file() else p.name
        for p in package.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    # __main__ (`python -m tapemagic run`) is an entry point, as the root is.
    outside = {"__init__", "__main__", "tf_recorder"}
    assert set(layers["layers"]) == {f"tapemagic.{m}" for m in top - outside}
    assert layers["layers"][:3] == [
        "tapemagic.magic",
        "tapemagic.later",
        "tapemagic.cell",
    ]
    # At the bottom, two modules that import nothing of tapemagic: the
    # engine's hook slots, and the finder that gives a module a second name.
    assert layers["layers"][-3:] == [
        "tapemagic.engine",
        "tapemagic.hooks",
        "tapemagic._aliases",
    ]


# -- nothing inside the package reaches up to its root ---------------------------
#
# The root (tapemagic/__init__.py) fills the engine's hooks when it is imported;
# no module imports it back, and none finds it through sys.modules (as
# ``sys.modules["tapemagic"]`` or ``sys.modules[__name__.split(".")[0]]``).

_MODULE_NAMES = {"__name__", "__package__", "__spec__"}
# The package's modules and subpackages, which `from . import` may name.
_SUBMODULES = {
    p.stem if p.is_file() else p.name
    for p in (ROOT / "tapemagic").iterdir()
    if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
}


def _module_of(path: Path) -> tuple[str, bool]:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _names_the_root(key: ast.AST) -> bool:
    for node in ast.walk(key):
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and text.split(".")[0] == "tapemagic":
            return True
        if isinstance(node, ast.Name) and node.id in _MODULE_NAMES:
            return True
    return False


def _is_sys_modules(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def root_reaches(source: str, module: str, is_package: bool = False) -> list[str]:
    """``line: what`` for each import of the package root in ``source`` (the
    module ``module``; importing its modules through it is fine), and each
    look-up of a tapemagic module in sys.modules."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name == "tapemagic"
                bound = alias.name.startswith("tapemagic.") and alias.asname is None
                if root or bound:  # `import tapemagic.x` binds the root too
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            # `from . import tf_recorder` imports a module, not the root's code
            names = {alias.name for alias in node.names} - _SUBMODULES
            if names and _imported_from(node, module, is_package) == "tapemagic":
                found.append(f"{node.lineno}: from the root import {sorted(names)}")
        elif isinstance(node, ast.Subscript) and _is_sys_modules(node.value):
            # A look-up; a module that puts another in its own place
            # (``sys.modules[__name__] = ...``, as tf/keras.py) reaches nothing.
            if isinstance(node.ctx, ast.Load) and _names_the_root(node.slice):
                found.append(f"{node.lineno}: sys.modules[...]")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _is_sys_modules(node.func.value)
            and any(_names_the_root(arg) for arg in node.args)
        ):
            found.append(f"{node.lineno}: sys.modules.{node.func.attr}(...)")
        elif (
            isinstance(node, ast.Compare)
            and any(_is_sys_modules(c) for c in node.comparators)
            and _names_the_root(node.left)
        ):
            found.append(f"{node.lineno}: ... in sys.modules")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "tapemagic"
        ):
            found.append(f"{node.lineno}: import_module('tapemagic')")
    return found


def _package_modules() -> list[Path]:
    root = ROOT / "tapemagic" / "__init__.py"
    return [p for p in sorted((ROOT / "tapemagic").rglob("*.py")) if p != root]


def test_no_module_reaches_up_to_the_package_root():
    found = {}
    for path in _package_modules():
        module, is_package = _module_of(path)
        reaches = root_reaches(path.read_text(encoding="utf-8"), module, is_package)
        if reaches:
            found[module] = reaches
    assert found == {}


@pytest.mark.parametrize(
    ("source", "module", "is_package"),
    [
        ("import tapemagic\n", "tapemagic.magic", False),
        ("import tapemagic.graph\n", "tapemagic.later", False),
        ("from tapemagic import _register\n", "tapemagic.magic", False),
        ("from . import show\n", "tapemagic.cell", False),
        ("from .. import explain\n", "tapemagic.engine.hooks", False),
        ("from .. import explain\n", "tapemagic.engine", True),
        ("from .. import keras, explain\n", "tapemagic.tf", True),
        ("import sys\nroot = sys.modules['tapemagic']\n", "tapemagic.engine.x", False),
        (
            "import sys\nroot = sys.modules.get(__name__.split('.')[0])\n",
            "tapemagic.engine.hooks",
            False,
        ),
        ("import sys\nok = 'tapemagic' in sys.modules\n", "tapemagic.engine.x", False),
        (
            "import importlib\nimportlib.import_module('tapemagic')\n",
            "tapemagic.x",
            False,
        ),
    ],
)
def test_the_root_scan_catches_a_planted_reach(source, module, is_package):
    assert len(root_reaches(source, module, is_package)) == 1


@pytest.mark.parametrize(
    ("source", "module", "is_package"),
    [
        ("from ..hooks import set_diagnosis\n", "tapemagic.engine.hooks", False),
        ("from .. import backend\n", "tapemagic.keras.metrics.base", False),
        ("from .. import keras\n", "tapemagic.tf", True),
        ("from tapemagic import graph, viz\n", "tapemagic.later", False),
        ("from . import nest\n", "tapemagic.engine", True),
        (
            "import sys\nm = sys.modules.get('keras.src.backend')\n",
            "tapemagic.x",
            False,
        ),
    ],
)
def test_the_root_scan_lets_submodule_imports_pass(source, module, is_package):
    assert root_reaches(source, module, is_package) == []


def test_the_magic_holds_the_options_and_the_display_only():
    # Running a cell is tapemagic/cell.py, what later cells are told is
    # tapemagic/later.py: the magic stays a thin adapter.
    lines = (ROOT / "tapemagic" / "magic.py").read_text().count("\n")
    assert lines < 300, f"tapemagic/magic.py has {lines} lines"
