"""Nothing outside tapemagic/engine reads an engine object's private attributes.

The engine's public surface is its public names plus the recorder events and
functions of ``tapemagic.engine.recorder`` (see docs/DESIGN.md). This test
collects every underscore name that an engine class defines (slots,
``self._x = ...`` assignments, methods and properties) and scans each package
outside the engine for ``expr._x`` (and ``getattr(expr, "_x")``) where ``expr``
is not ``self`` or ``cls``. Dunders are public protocol and never flagged.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tapemagic"
ENGINE = PACKAGE / "engine"

# Each part of tapemagic outside the engine, checked on its own so that a
# failure names the package. (tapemagic/tf_recorder reads TensorFlow's objects,
# whose ``_id`` is TensorFlow's own; import-linter keeps it off the engine but
# for the event records.)
PARTS = [
    "tf",
    "keras",
    "graph",
    "viz",
    "magic.py",
    "later.py",
    "cell.py",
    "engines.py",
    "hooks.py",
    "__init__.py",
]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def engine_private_names(root: Path = ENGINE) -> set[str]:
    """The underscore attribute names the engine's classes define."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for cls in ast.walk(tree):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name) and target.id == "__slots__":
                            names.update(_strings(node.value))
                        elif _on_self(target):
                            names.add(target.attr)
                elif isinstance(node, ast.AnnAssign) and _on_self(node.target):
                    names.add(node.target.attr)
    return {name for name in names if _private(name)}


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [s for item in node.elts for s in _strings(item)]
    return []


def _on_self(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "cls")
    )


def private_reads(source: str, filename: str, private: set[str]) -> list[str]:
    """``file:line: expr._name`` for each read of an engine-private name."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        name = None
        if isinstance(node, ast.Attribute) and node.attr in private:
            if not (
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            ):
                name = node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in private
        ):
            name = node.args[1].value
        if name is not None:
            found.append(f"{filename}:{node.lineno}: .{name}")
    return found


def _files(part: str) -> list[Path]:
    path = PACKAGE / part
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


@pytest.fixture(scope="module")
def private() -> set[str]:
    return engine_private_names()


@pytest.mark.parametrize("part", PARTS)
def test_no_engine_private_attribute_is_read_outside_the_engine(part, private):
    found = []
    for path in _files(part):
        rel = path.relative_to(PACKAGE.parent)
        found += private_reads(path.read_text(encoding="utf-8"), str(rel), private)
    assert not found, (
        f"tapemagic/{part} reads private attributes of engine objects; use the "
        "public surface (tapemagic.engine.array_of/id_of, "
        "tapemagic.engine.recorder) instead:\n" + "\n".join(found)
    )


def test_the_scan_knows_the_engine_private_names(private):
    assert {"_value", "_id", "_snapshot", "_explain", "_tracked", "_nodes"} <= private
    assert not any(name.startswith("__") and name.endswith("__") for name in private)


def test_the_scan_catches_a_planted_read(private):
    planted = (
        "def f(t, tape):\n"
        "    a = t._value\n"
        "    b = self._value\n"
        "    c = t.__class__\n"
        "    d = getattr(tape, '_explain', None)\n"
        "    return tape.gradient(a, b)._id\n"
    )
    assert private_reads(planted, "planted.py", private) == [
        "planted.py:2: ._value",
        "planted.py:5: ._explain",
        "planted.py:6: ._id",
    ]


def test_the_scan_collects_slots_assignments_and_methods(tmp_path):
    (tmp_path / "thing.py").write_text(
        "class Thing:\n"
        "    __slots__ = ('_a', 'b', '__weakref__')\n"
        "    def __init__(self):\n"
        "        self._c = 1\n"
        "        self._d: int = 2\n"
        "    def _e(self):\n"
        "        pass\n"
        "    @property\n"
        "    def _f(self):\n"
        "        return 1\n"
        "_not_a_class_attribute = 3\n",
        encoding="utf-8",
    )
    assert engine_private_names(tmp_path) == {"_a", "_c", "_d", "_e", "_f"}
