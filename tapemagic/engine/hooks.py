"""The engine's hooks for what lives above it: the explanation log and the diagnosis.

``GradientTape(explain=True)`` keeps an explanation log and ``tape.explain()``
runs the why-None diagnosis; both live in ``tapemagic.graph``, which the engine
never imports, not even lazily. The package root fills these hooks with loaders
of the graph package when this module is first imported (``_take_package_hooks``),
and ``%tape --all on`` sets the default of ``explain=``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .request import _describe

__all__ = ["set_diagnosis", "set_explain_default", "set_explain_factory"]


# The explanation log lives in tapemagic.graph, which the engine never imports,
# not even lazily: the package root (tapemagic/__init__.py, run by every import
# of tapemagic.tf) registers a factory here that loads it on first use.
_explain_factory: Callable[[], Any] | None = None


def set_explain_factory(factory: Callable[[], Any] | None) -> None:
    """Register what ``GradientTape(explain=True)`` builds (``tapemagic`` does).

    Args:
        factory: called with no arguments, returns a listener (see
            ``tapemagic.engine.recorder.Listener``); None unregisters it.

    Example:
        >>> from tapemagic.engine.recorder import explain_listener
        >>> from tapemagic.engine.tape import GradientTape
        >>> type(explain_listener(GradientTape(explain=True))).__name__
        'ExplainLog'
    """
    global _explain_factory
    _explain_factory = factory


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


# GradientTape.explain runs the why-None diagnosis of tapemagic.graph, which
# the package root registers here (loading it on first use).
_diagnosis: Callable[[Any, Any, Any], Any] | None = None


def set_diagnosis(diagnosis: Callable[[Any, Any, Any], Any] | None) -> None:
    """Register what ``GradientTape.explain`` runs (``tapemagic`` does).

    Args:
        diagnosis: called as ``diagnosis(tape, target, sources)``, returns the
            findings; None unregisters it.

    Example:
        >>> import tapemagic  # registers the diagnosis here
        >>> _diagnosis is not None
        True
    """
    global _diagnosis
    _diagnosis = diagnosis


def _explain_observer(explain: Any, tape: Any) -> Any:
    if explain is False or explain is None:
        return None
    if explain is True:
        if _explain_factory is None:
            raise RuntimeError(
                "GradientTape(explain=True) needs the explanation log of "
                "tapemagic.graph, which is not registered. `import tapemagic` "
                "registers it (every `import tapemagic.tf` does), or pass "
                "explain=<a tapemagic.engine.recorder.Listener>."
            )
        explain = _explain_factory()
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
    if _diagnosis is None:
        raise RuntimeError(
            "GradientTape.explain() needs tapemagic.graph, which is not "
            "registered. `import tapemagic` registers it (every "
            "`import tapemagic.tf` does)."
        )
    return _diagnosis(tape, target, sources)


def _take_package_hooks() -> None:
    # The package root (always imported before any engine module) registers
    # its lazy loaders of the explanation log and the diagnosis here; without
    # it (the engine copied alone), explain=True says what to register.
    root = sys.modules.get(__name__.split(".")[0])
    register = getattr(root, "_register_engine_hooks", None)
    if register is not None:
        register(sys.modules[__name__])


_take_package_hooks()
