"""The engine's hooks for what lives above it: the explanation log and the diagnosis.

``GradientTape(explain=True)`` keeps an explanation log and ``tape.explain()``
runs the why-None diagnosis; both live in ``tapemagic.graph``, which the engine
never imports, not even lazily. What builds the log and what diagnoses are
registered in ``tapemagic.hooks``, a module below the engine that imports
nothing; the package root fills it when it is imported, before any engine
module runs, so the engine never asks for them. ``%tape --all on`` sets the
default of ``explain=`` here.
"""

from __future__ import annotations

from typing import Any

from ..hooks import (
    registered_diagnosis,
    registered_explain_factory,
    set_diagnosis,
    set_explain_factory,
)
from .request import _describe

__all__ = ["set_diagnosis", "set_explain_default", "set_explain_factory"]


# Whether a GradientTape made without ``explain=`` keeps an explanation log:
# ``%tape --all on`` turns this on for every tape the user's code makes.
_explain_default = False


def set_explain_default(on: bool) -> None:
    """Make every ``GradientTape()`` the user's code creates without an
    ``explain=`` argument keep an explanation log (``%tape --all on``), or
    none (the default). Tapes made inside tapemagic (Keras' ``fit``) never do.

    Example:
        >>> from tapemagic.engine.recorder import explain_listener
        >>> from tapemagic.engine.tape import GradientTape
        >>> set_explain_default(True)
        >>> explain_listener(GradientTape()) is not None
        True
        >>> set_explain_default(False)
        >>> explain_listener(GradientTape()) is None
        True
    """
    global _explain_default
    _explain_default = bool(on)


def _explain_observer(explain: Any, tape: Any) -> Any:
    if explain is False or explain is None:
        return None
    if explain is True:
        factory = registered_explain_factory()
        if factory is None:
            raise RuntimeError(
                "GradientTape(explain=True) needs the explanation log of "
                "tapemagic.graph, which is not registered. `import tapemagic` "
                "registers it (every `import tapemagic.tf` does), or pass "
                "explain=<a tapemagic.engine.recorder.Listener>."
            )
        explain = factory()
    if not hasattr(explain, "on_op"):
        raise TypeError(
            f"explain={_describe(explain)} is neither a bool nor an observer with "
            "on_op/on_tape/... methods (tapemagic.engine.recorder.Listener). Pass "
            "explain=True, or a tapemagic.graph.log.ExplainLog()."
        )
    bind = getattr(explain, "bind", None)
    if bind is not None:
        bind(tape)
    return explain


def _diagnose(tape: Any, target: Any, sources: Any) -> Any:
    """What ``tape.explain(target, sources)`` returns, from the registered diagnosis."""
    diagnosis = registered_diagnosis()
    if diagnosis is None:
        raise RuntimeError(
            "GradientTape.explain() needs tapemagic.graph, which is not "
            "registered. `import tapemagic` registers it (every "
            "`import tapemagic.tf` does)."
        )
    return diagnosis(tape, target, sources)
