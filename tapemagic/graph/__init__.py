"""The graph model of a tape, how it is built, and why its gradients are None.

:mod:`~tapemagic.graph.model` is plain data (no engine import), so renderers can
use it alone, with its :mod:`~tapemagic.graph.index`, and so can
:mod:`~tapemagic.graph.diagnosis` (the findings; each cause is declared once in
:mod:`~tapemagic.graph.causes`, with its code, whose page of text is in
:mod:`~tapemagic.graph.pages` and printed by
:mod:`~tapemagic.graph.catalogue`); :mod:`~tapemagic.graph.log` (the
explanation log, a listener of recorder events) and
:mod:`~tapemagic.graph.from_tape` use the engine's public surface
(:mod:`tapemagic.engine.recorder`) and load on first use: the package root
registers them for ``GradientTape(explain=True)`` and ``tape.explain()``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .diagnosis import diagnose
from .findings import CAUSES, Finding, Findings
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
    "CAUSES",
    "SCHEMA_VERSION",
    "Assign",
    "Binding",
    "Cell",
    "Edge",
    "Escape",
    "ExplainLog",
    "Finding",
    "Findings",
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
    "assert_no_none_gradients",
    "diagnose",
    "explain_tape",
    "graph_from_tape",
    "view_model",
]

# These read the engine: import them only when asked for.
_LAZY = {
    "ExplainLog": "log",
    "assert_no_none_gradients": "from_tape",
    "explain_tape": "from_tape",
    "graph_from_tape": "build",
    "view_model": "from_tape",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
