"""Write the ``tf`` namespace modules (and the names others read) from the op table.

Where an op lives in the ``tf`` namespace is said once, beside the op
(``defop(..., tf=...)`` or ``@tf_export(...)``, engine/exports.py). This
module writes ``tf/__init__.py``, ``tf/math.py``, ``tf/nn.py``,
``tf/linalg.py``, ``tf/random.py`` and ``tf/dtypes.py`` from that table and
from the few names here that are not ops (the tape, the tensor types, the
dtypes, ``tf.function``, the submodules). From the same declarations it
writes the TensorFlow recorder's op types (``tf_recorder/_kernels.py``, so
that package imports no engine module) and the NumPy calls a fix rewrites as
their TensorFlow twins (``graph/numpy_twins.py``). The files are committed;
tests/tf/test_generated.py runs :func:`generate` and fails on any difference.

``tf/__init__.py`` imports at once only what the engine has loaded already
(the core of the op library); the names of the other modules load on first
use, through ``__getattr__``, and are imported under ``TYPE_CHECKING`` too, so
type checkers and import-linter see them.

Run ``python -m tapemagic.tf._generate`` after adding an op or moving one.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from ..engine.exports import Tables, tables
from ..engine.ops import LAZY_MODULES, load_all

__all__ = ["HEADER", "generate", "write"]

HEADER = (
    "# Generated from the op table by tapemagic/tf/_generate.py: do not edit.\n"
    "# Say where an op lives beside it (defop's tf=, @tf_export) and run\n"
    "# python -m tapemagic.tf._generate.\n"
)

_PACKAGE = "tapemagic"
_OPS = "tapemagic.engine.ops."

# Names that are not ops: (namespace, name) -> (module, attribute, lazy).
_DTYPES = [
    "DType",
    "as_dtype",
    "bool",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
]
_OTHERS: dict[tuple[str, str], tuple[str, str, bool]] = {
    **{
        ("tf", name): ("tapemagic.engine", name, False)
        for name in [
            "GradientTape",
            "Tensor",
            "TensorShape",
            "UnconnectedGradients",
            "Variable",
            "convert_to_tensor",
            "is_tensor",
        ]
    },
    **{
        ("tf", name): ("tapemagic.engine", name, True)
        for name in ["Module", "TensorSpec", "custom_gradient", "name_scope"]
    },
    **{("tf", name): ("tapemagic.engine.dtypes", name, False) for name in _DTYPES},
    **{
        ("tf.dtypes", name): ("tapemagic.engine.dtypes", name, False)
        for name in _DTYPES
    },
    ("tf", "executing_eagerly"): ("tapemagic.tf._function", "executing_eagerly", True),
    ("tf", "function"): ("tapemagic.tf._function", "function", True),
    ("tf", "print"): ("tapemagic.tf._print", "print", True),
}
# The submodules of tf, each loaded on first use: name -> module.
_SUBMODULES = {
    "config": "tapemagic.tf.config",
    "data": "tapemagic.tf.data",
    "debugging": "tapemagic.tf.debugging",
    "dtypes": "tapemagic.tf.dtypes",
    "errors": "tapemagic.tf.errors",
    "keras": "tapemagic.tf.keras",
    "linalg": "tapemagic.tf.linalg",
    "math": "tapemagic.tf.math",
    "nest": "tapemagic.tf.nest",
    "nn": "tapemagic.tf.nn",
    "random": "tapemagic.tf.random",
}

_DOCS = {
    "tf": '''"""TensorFlow's API on tapemagic's engine: ``import tapemagic.tf as tf``.

Every name here is an alias of an engine function or class (or a thin adapter of
its arguments), spelled and placed as in TensorFlow 2: ``tf.reduce_sum`` and
``tf.math.reduce_sum``, ``tf.sigmoid`` and ``tf.nn.sigmoid``, but ``tf.math.log``
only, because TensorFlow 2 has no ``tf.log``. Submodules import on their own
(``import tapemagic.tf.math``, ``import tapemagic.tf.keras.layers``) and
``tf.keras`` is :mod:`tapemagic.keras`.

Importing this package needs NumPy alone: no IPython, ipywidgets or graphviz.
It loads what a first gradient needs (tensors, variables, tapes, the
arithmetic, reduction, shape and matrix ops); every other name loads with its
module on first use (``tf.keras``, ``tf.data``, ``tf.nn``, ``tf.constant``,
``tf.function``, ...), so a script that only takes gradients starts without
them.
"""''',
    "tf.math": '"""``tf.math``: elementwise math, comparisons and reductions."""',
    "tf.nn": '"""``tf.nn``: activations, losses and the building blocks of layers."""',
    "tf.linalg": '"""``tf.linalg``: matrix products, norms, traces and diagonals."""',
    "tf.random": '''"""``tf.random``: random tensors and the global seed.

The numbers come from NumPy and differ from TensorFlow's; TensorFlow's seeding
rules hold (see :func:`tapemagic.engine.ops.creation.set_seed`).
"""''',
    "tf.dtypes": '"""``tf.dtypes``: the element types and conversions between them."""',
}

_TF_TAIL = """
# The TensorFlow release whose behaviour tapemagic reproduces.
__version__ = "2.21.0"

newaxis = None
"""

_GETATTR = """

def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        value = importlib.import_module(_SUBMODULES[name], __name__)
    elif name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
"""


def _natural(name: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _member_key(name: str) -> tuple:
    # isort's order, as ruff applies it: CONSTANTS, Classes, then the rest
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, _natural(name))


def _relative(module: str, namespace: str) -> str:
    """``module`` as a relative import from the module of ``namespace``."""
    here = ("tapemagic." + namespace).split(".")
    package = here if namespace == "tf" else here[:-1]
    target = module.split(".")
    common = 0
    while common < min(len(package), len(target)) and package[common] == target[common]:
        common += 1
    dots = "." * (len(package) - common + 1)
    return dots + ".".join(target[common:])


def _imports(namespace: str, entries: list[tuple[str, str, str]], indent: str) -> str:
    """``from module import attribute [as name]`` lines, in isort's order."""
    plain: dict[str, list[str]] = {}
    renamed: list[tuple[str, str, str]] = []
    for name, module, attribute in entries:
        if name == attribute:
            plain.setdefault(module, []).append(name)
        else:
            renamed.append((module, attribute, name))
    lines = []
    modules = sorted({*plain, *(m for m, _, _ in renamed)}, key=_module_key(namespace))
    for module in modules:
        relative = _relative(module, namespace)
        # one statement per group, ordered by the first name each imports
        statements = []
        names = sorted(plain.get(module, []), key=_member_key)
        if names:
            one = f"{indent}from {relative} import {', '.join(names)}"
            if len(names) == 1 and len(one) <= 88:
                statements.append((names[0], one))
            else:
                body = "".join(f"{indent}    {n},\n" for n in names)
                text = f"{indent}from {relative} import (\n{body}{indent})"
                statements.append((names[0], text))
        for m, attribute, name in renamed:
            if m == module:
                text = f"{indent}from {relative} import {attribute} as {name}"
                statements.append((attribute, text))
        lines += [text for _, text in sorted(statements, key=lambda s: _natural(s[0]))]
    return "\n".join(lines) + "\n"


def _module_key(namespace: str):
    def key(module: str) -> tuple:
        relative = _relative(module, namespace)
        dots = len(relative) - len(relative.lstrip("."))
        # furthest first, then by module name (ruff's default for relative imports)
        return (-dots, relative.lstrip(".").lower())

    return key


def _table(declared: Tables) -> dict[str, dict[str, tuple[str, str, bool]]]:
    """namespace -> name -> (module, attribute, lazy)."""
    spaces: dict[str, dict[str, tuple[str, str, bool]]] = {}
    for (namespace, name), (module, attribute) in declared.tf.items():
        lazy = module.startswith(_OPS) and module[len(_OPS) :] in LAZY_MODULES
        spaces.setdefault(namespace, {})[name] = (module, attribute, lazy)
    for (namespace, name), entry in _OTHERS.items():
        spaces.setdefault(namespace, {})[name] = entry
    for namespace, names in spaces.items():
        for name, (module, attribute, _) in names.items():
            if not hasattr(importlib.import_module(module), attribute):
                raise ValueError(f"{namespace}.{name}: {module} has no {attribute}")
    return spaces


def _all(names: list[str]) -> str:
    body = "".join(f'    "{n}",\n' for n in sorted(names, key=_member_key))
    return f"__all__ = [\n{body}]\n"


def _source(namespace: str, names: dict[str, tuple[str, str, bool]]) -> str:
    entries = [(n, m, a) for n, (m, a, _) in names.items()]
    if namespace != "tf":
        # a submodule is itself loaded on first use: it imports what it names
        imports = _imports(namespace, entries, "")
        return f"{HEADER}{_DOCS[namespace]}\n\n{imports}\n{_all(list(names))}"
    eager = [(n, m, a) for n, (m, a, lazy) in names.items() if not lazy]
    lazy = [(n, m, a) for n, (m, a, is_lazy) in names.items() if is_lazy]
    # each submodule as a name of its package: `from .. import keras`
    submodules = [
        (n, m.rpartition(".")[0], m.rpartition(".")[2]) for n, m in _SUBMODULES.items()
    ]
    checking = _imports(namespace, lazy + submodules, "    ")
    every = [*names, *_SUBMODULES, "newaxis"]
    table = "".join(
        f'    "{n}": "{_relative(m, namespace)}",\n' for n, m in _SUBMODULES.items()
    )
    lazy_table = "".join(
        f'    "{n}": "{_relative(m, namespace)}",\n'
        for n, m, _ in sorted(lazy, key=lambda e: (e[1], _natural(e[0])))
    )
    return (
        f"{HEADER}{_DOCS[namespace]}\n\n"
        "import importlib\n"
        "from typing import TYPE_CHECKING, Any\n\n"
        f"{_imports(namespace, eager, '')}\n"
        "if TYPE_CHECKING:  # loaded on first use (see the docstring and _NAMES)\n"
        f"{checking}"
        f"{_TF_TAIL}\n"
        f"{_all(every)}\n"
        "# What loads on first use: the submodules, and each other name with its\n"
        "# module.\n"
        f"_SUBMODULES = {{\n{table}}}\n"
        f"_NAMES = {{\n{lazy_table}}}\n"
        f"{_GETATTR}"
    )


def _kernels(kernels: dict[str, str]) -> str:
    entries = "".join(f'    "{t}": "{kernels[t]}",\n' for t in sorted(kernels))
    return (
        f"{HEADER}"
        '"""TensorFlow\'s op types under the names of the engine\'s ops, where the\n'
        "name is not the op type in snake case (see opnames.py).\n"
        '"""\n\n'
        '__all__ = ["OP_NAMES"]\n\n'
        f"OP_NAMES: dict[str, str] = {{\n{entries}}}\n"
    )


def _twin_path(declared: Tables, numpy_name: str) -> str:
    """Where users write the twin of ``np.<numpy_name>``: ``tf.divide``, under
    the NumPy name where TensorFlow has it, else at its shortest location."""
    target = declared.numpy[numpy_name]
    places = [key for key, held in declared.tf.items() if held == target]
    if not places:
        raise ValueError(f"np.{numpy_name}: its twin {target} is in no tf namespace")
    namespace, name = min(
        places,
        key=lambda p: (p[1] != numpy_name, p[0].count("."), p[1] != target[1]),
    )
    return f"{namespace}.{name}"


def _twins(declared: Tables) -> str:
    entries = "".join(
        f'    "{n}": "{_twin_path(declared, n)}",\n' for n in sorted(declared.numpy)
    )
    return (
        f"{HEADER}"
        '"""NumPy functions and the TensorFlow functions that take the same arguments\n'
        "(positional and ``axis``/``keepdims``) and give the same values, as each op\n"
        "declares them (``numpy=``); the fixes rewrite such a NumPy call as its twin.\n"
        '"""\n\n'
        '__all__ = ["NUMPY_TO_TF"]\n\n'
        f"NUMPY_TO_TF: dict[str, str] = {{\n{entries}}}\n"
    )


def generate() -> dict[Path, str]:
    """The text of each generated module, by its path."""
    root = Path(__file__).resolve().parent
    load_all()
    declared = tables()
    files = {}
    for namespace, names in _table(declared).items():
        leaf = "__init__" if namespace == "tf" else namespace.split(".", 1)[1]
        files[root / f"{leaf}.py"] = _source(namespace, names)
    files[root.parent / "tf_recorder" / "_kernels.py"] = _kernels(declared.kernels)
    files[root.parent / "graph" / "numpy_twins.py"] = _twins(declared)
    return files


def write() -> list[Path]:
    """Write the generated modules; return those that changed."""
    changed = []
    for path, text in generate().items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            changed.append(path)
    return changed


if __name__ == "__main__":
    for path in write():
        print(f"wrote {path}")
