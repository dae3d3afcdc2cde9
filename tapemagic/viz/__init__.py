"""Renderers of the graph model: graphviz drawing, ipywidgets view, plain text.

Renderers read only :mod:`tapemagic.graph.model` objects and findings, never
the engine. ``graphviz`` and ``ipywidgets`` load on first use, so importing
this package (or :mod:`tapemagic.viz.text`) stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "TapeWidget",
    "build_view",
    "render_svg",
    "render_text",
    "static_html",
    "to_dot",
]

_LAZY = {
    "TapeWidget": "widget",
    "build_view": "dot",
    "render_svg": "dot",
    "render_text": "text",
    "static_html": "widget",
    "to_dot": "dot",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
