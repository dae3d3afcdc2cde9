"""keras uses the engine through its public surface only.

A tensor's or variable's array is read with ``engine.array_of``, its id with
``engine.id_of`` and a dtype's NumPy type with ``as_numpy_dtype``; no keras module
reads a private attribute of an engine object, so the engine may change how it
stores them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tapemagic.keras
from tapemagic.engine import GradientTape, Tensor, Variable, dtypes

KERAS = Path(tapemagic.keras.__file__).parent


def _private_engine_names() -> set[str]:
    slots = [*Tensor.__slots__, *Variable.__slots__, *dtypes.DType.__slots__]
    names = set(slots) | set(vars(GradientTape()))
    names.add("_value")  # on a Variable, a property rather than a slot
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _private_reads(source: str, label: str, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        # Keras classes have attributes of some of these names on themselves
        # (Layer._trainable); read on another object, they are an engine's.
        on_self = isinstance(node, ast.Attribute) and (
            isinstance(node.value, ast.Name) and node.value.id == "self"
        )
        if isinstance(node, ast.Attribute) and node.attr in names and not on_self:
            found.append(f"{label}:{node.lineno} .{node.attr}")
    return found


def test_keras_reads_no_private_attribute_of_an_engine_object() -> None:
    names = _private_engine_names()
    found = []
    for path in sorted(KERAS.rglob("*.py")):
        label = str(path.relative_to(KERAS))
        found += _private_reads(path.read_text(), label, names)
    assert found == [], (
        "Read engine tensors and variables with tapemagic.engine.array_of and "
        f"id_of, and dtypes with as_numpy_dtype, not their private attributes: {found}"
    )


def test_the_check_sees_private_engine_reads() -> None:
    names = _private_engine_names()
    assert {"_value", "_id", "_snapshot", "_np", "_nodes"} <= names
    source = "def f(v, t):\n    return v._value, t.dtype._np, self._value\n"
    assert _private_reads(source, "f", names) == ["f:2 ._value", "f:2 ._np"]
