"""The graph model of a tape, and how it is built.

:mod:`~tapemagic.graph.model` is plain data (no engine import), so renderers can
use it alone; :mod:`~tapemagic.graph.log` (the explanation log) and
:mod:`~tapemagic.graph.from_tape` read the engine and load on first use.
Importing :mod:`tapemagic.graph.log` makes ``GradientTape(explain=True)`` work.
"""

from __future__ import annotations

import importlib
from typing import Any

from .model import (
    SCHEMA_VERSION,
    Assign,
    Binding,
    Cell,
    Edge,
    Escape,
    GradientRequest,
    GradientResult,
    Graph,
    OpNode,
    Read,
    Source,
    TapeEvent,
    TapeInfo,
    Value,
    Watch,
)

__all__ = [
    "SCHEMA_VERSION",
    "Assign",
    "Binding",
    "Cell",
    "Edge",
    "Escape",
    "ExplainLog",
    "GradientRequest",
    "GradientResult",
    "Graph",
    "OpNode",
    "Read",
    "Source",
    "TapeEvent",
    "TapeInfo",
    "Value",
    "Watch",
    "graph_from_tape",
]

# These read the engine: import them only when asked for.
_LAZY = {"ExplainLog": "log", "graph_from_tape": "from_tape"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
