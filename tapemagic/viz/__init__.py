"""Renderers of the graph model: graphviz drawing, ipywidgets view, plain text.

Renderers read only :mod:`tapemagic.graph.model` objects and findings, never
the engine; :mod:`~tapemagic.viz.view` holds a tape as an opaque object and
asks :mod:`tapemagic.graph` for its model. ``graphviz`` and ``ipywidgets`` load
on first use, so importing this package (or :mod:`tapemagic.viz.text`) stays
light.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "TapeView",
    "TapeWidget",
    "build_view",
    "render_svg",
    "render_text",
    "static_html",
    "tape_mimebundle",
    "to_dot",
]

_LAZY = {
    "TapeView": "view",
    "TapeWidget": "widget",
    "build_view": "dot",
    "render_svg": "dot",
    "render_text": "text",
    "static_html": "page",
    "tape_mimebundle": "view",
    "to_dot": "dot",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
