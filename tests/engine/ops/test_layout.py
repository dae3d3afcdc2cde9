"""The op library's layout: modules import each other downwards only, at the top."""

from __future__ import annotations

import ast
import pathlib

import tapemagic.engine

ENGINE = pathlib.Path(tapemagic.engine.__file__).parent


def _modules() -> dict[str, ast.Module]:
    paths = sorted(ENGINE.glob("*.py")) + sorted((ENGINE / "ops").glob("*.py"))
    return {str(p.relative_to(ENGINE)): ast.parse(p.read_text()) for p in paths}


def test_no_engine_module_imports_inside_a_function():
    found = []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom):
                    where = "." * inner.level + (inner.module or "")
                    found.append(f"{name}: from {where} import ...")
                elif isinstance(inner, ast.Import):
                    found.append(f"{name}: import ...")
    assert not found, found


def _sibling_imports(tree: ast.Module) -> set[str]:
    """The op modules a module of ops/ imports at its top."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module)
            else:
                names.update(alias.name for alias in node.names)
    return names


def test_the_op_modules_import_each_other_without_a_cycle():
    graph = {
        name.removeprefix("ops/").removesuffix(".py"): _sibling_imports(tree)
        for name, tree in _modules().items()
        if name.startswith("ops/") and name != "ops/__init__.py"
    }
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join(path + (module,))}"
        if module in done:
            return
        for imported in graph.get(module, ()):
            visit(imported, path + (module,))
        done.add(module)

    for module in graph:
        visit(module, ())
