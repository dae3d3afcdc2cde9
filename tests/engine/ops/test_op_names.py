"""Each op's name is written in one place: where the op is declared.

The ``tf`` namespace, the TensorFlow recorder's op types and the NumPy twins
of the fixes are generated from the declarations (tests/tf/test_generated.py),
so no other module restates which ops exist or where they live. The test reads
every module's name tables (the literals of its module-level statements:
``__all__``, dictionaries, sets, declarations) for string literals equal to an
op's name; the ``__all__`` entry of a name the module itself defines is that
module's own API, not a restatement.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tapemagic.engine import OP_TABLE  # the whole table, every op module loaded
from tapemagic.tf._generate import HEADER

PACKAGE = Path(__file__).resolve().parents[3] / "tapemagic"

# Modules whose tables ask about particular ops, by the names a graph model
# or a trace carries, rather than say which ops exist or where they live.
ASKING = {
    # the why-None analysis reads graph models from any recorder and cannot
    # import the engine's table (the graph's import contract): which ops
    # saturate, move values without computing, have a cause of their own
    "graph/": "the diagnosis's questions about particular ops",
    # what a trace asks of an op (shape-only results, draws before the op)
    "engine/trace.py": "ops a trace folds or names as TensorFlow's graph does",
    # Keras's own activation functions, which share TensorFlow's spelling
    "keras/activations.py": "Keras's activation identifiers",
}
# ...but the fixes say which NumPy calls have a twin: that is a name table.
RESTATING = {"graph/fixes.py"}
# Literals that equal an op's name but are something else.
OTHER_MEANINGS = {
    "engine/ops/__init__.py": {"shape", "softmax"},  # module names
    "tf_recorder/opnames.py": {"shape", "size"},  # names of static inputs
    "viz/dot_markup.py": {"shape"},  # graphviz's node attribute
    # Keras's functional merge layers (keras.layers.add, ...), re-exported
    "keras/layers/__init__.py": {"add", "maximum", "minimum", "multiply", "subtract"},
}


def _defined(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _places(more: dict[str, str] | None = None) -> dict[str, set[str]]:
    """op name -> the modules whose name tables hold it as a literal (the
    package's, and ``more``: module path -> text)."""
    modules = {
        path.relative_to(PACKAGE).as_posix(): path.read_text()
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    places: dict[str, set[str]] = defaultdict(set)
    for where, text in {**modules, **(more or {})}.items():
        if text.startswith(HEADER):
            continue  # generated from the declarations
        if where.startswith(tuple(ASKING)) and where not in RESTATING:
            continue
        tree = ast.parse(text)
        defined = _defined(tree)
        for statement in tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
                continue
            own_all = isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets
            )
            for node in ast.walk(statement):
                if not (isinstance(node, ast.Constant) and node.value in OP_TABLE):
                    continue
                if own_all and node.value in defined:
                    continue
                if node.value in OTHER_MEANINGS.get(where, ()):
                    continue
                places[node.value].add(where)
    return places


def test_each_op_is_named_in_one_module_only():
    places = _places()
    assert set(OP_TABLE) <= set(places)  # the declaration itself is found
    restated = {name: sorted(where) for name, where in places.items() if len(where) > 1}
    assert restated == {}


def test_the_tables_once_restating_names_now_read_the_declarations():
    places = _places()
    readers = {"tf_recorder/opnames.py", "graph/fixes.py", "tf/__init__.py"}
    assert not any(readers & where for where in places.values())


def test_the_check_finds_a_restated_name():
    restating = {
        "tf_recorder/table.py": 'x = {"MatMul": "matmul"}\n',
        "tf/reexport.py": 'from ..engine.ops.math import sin\n__all__ = ["sin"]\n',
        "tf/own.py": '__all__ = ["relu"]\ndef relu(x):\n    return "relu"\n',
    }
    places = _places(restating)
    assert places["matmul"] == {"engine/ops/linalg.py", "tf_recorder/table.py"}
    assert places["sin"] == {"engine/ops/elementary.py", "tf/reexport.py"}
    # a module's own function of that name, and a literal inside a function
    assert places["relu"] == {"engine/ops/activations.py"}
