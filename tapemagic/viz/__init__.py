"""Renderers of the graph model: text now; graphviz and ipywidgets views later.

Renderers read only :mod:`tapemagic.graph.model` objects, never the engine.
"""

__all__: list[str] = []
