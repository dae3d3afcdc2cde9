"""What a tape asks of the layers above the engine: its log and its diagnosis.

``GradientTape(explain=True)`` keeps an explanation log, and ``tape.explain()``
runs the why-None diagnosis; both live in ``tapemagic.graph``, which the engine
never imports, not even lazily. This module holds the two slots between them.
It imports nothing, so it sits below the engine: the engine reads the slots
(``tapemagic.engine.hooks``, which re-exports the setters), and the package
root fills them when it is imported, which is before any engine module runs
(the engine is a subpackage), and without loading the engine. Nothing in the
engine asks for the root.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "registered_diagnosis",
    "registered_explain_factory",
    "set_diagnosis",
    "set_explain_factory",
]

_explain_factory: Callable[[], Any] | None = None
_diagnosis: Callable[[Any, Any, Any], Any] | None = None


def set_explain_factory(
    factory: Callable[[], Any] | None,
) -> Callable[[], Any] | None:
    """Register what ``GradientTape(explain=True)`` builds (``tapemagic`` does).

    Args:
        factory: called with no arguments, returns a listener (see
            ``tapemagic.engine.recorder.Listener``); None unregisters it.

    Returns:
        The factory it replaces (None if there was none), to put it back.

    Example:
        >>> import tapemagic  # registers the explanation log of tapemagic.graph
        >>> mine = set_explain_factory(None)
        >>> registered_explain_factory() is None
        True
        >>> set_explain_factory(mine) is None
        True
    """
    global _explain_factory
    previous, _explain_factory = _explain_factory, factory
    return previous


def set_diagnosis(
    diagnosis: Callable[[Any, Any, Any], Any] | None,
) -> Callable[[Any, Any, Any], Any] | None:
    """Register what ``GradientTape.explain`` runs (``tapemagic`` does).

    Args:
        diagnosis: called as ``diagnosis(tape, target, sources)``, returns the
            findings; None unregisters it.

    Returns:
        The diagnosis it replaces (None if there was none), to put it back.

    Example:
        >>> import tapemagic  # registers the diagnosis of tapemagic.graph
        >>> registered_diagnosis() is not None
        True
    """
    global _diagnosis
    previous, _diagnosis = _diagnosis, diagnosis
    return previous


def registered_explain_factory() -> Callable[[], Any] | None:
    """What ``GradientTape(explain=True)`` builds its log with, if registered."""
    return _explain_factory


def registered_diagnosis() -> Callable[[Any, Any, Any], Any] | None:
    """What ``GradientTape.explain`` runs, if registered."""
    return _diagnosis
