"""The recorders a tape can come from, and how the graph package reads a tape.

A tape is read through the public surface of the recorder that made it: how to
describe a tensor or variable as a :class:`~tapemagic.engine.events.ValueRef`,
how to describe the tape itself (a :class:`~tapemagic.engine.events.TapeState`),
which listener explains it, and in which order a nested structure's leaves come.
tapemagic's engine is always one such recorder (:data:`ENGINE`, through
:mod:`tapemagic.engine.recorder`). Another recorder, such as the one of real
TensorFlow in :mod:`tapemagic.tf_recorder`, hands its surface to
:func:`register` when it loads (the magic does that); the graph package never
imports it, so it needs no code of its own for any recorder.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..engine import recorder as _engine
from ..engine.events import TapeState, ValueRef

__all__ = ["ENGINE", "Surface", "register", "registered", "surface_of", "unregister"]


class Surface(Protocol):
    """What the graph package needs from a recorder to read its tapes.

    Attributes:
        name: the recorder's name for people (``"tapemagic"``, ``"tensorflow"``).
    """

    name: str

    def owns(self, tape: Any) -> bool:
        """Whether ``tape`` is one of this recorder's tapes."""

    def describe(self, obj: Any) -> ValueRef | None:
        """A tensor or variable as a ValueRef (its id in this recorder's events);
        None for anything else. Never heard by a listener."""

    def describe_tape(self, tape: Any, nodes: bool = True) -> TapeState:
        """The tape's public state."""

    def explain_listener(self, tape: Any) -> Any:
        """The listener that explains ``tape``, or None."""

    def flatten(self, structure: Any) -> list:
        """The leaves of a nested structure, in the order of a gradient's sources."""


class _EngineSurface:
    """tapemagic's own engine, read through :mod:`tapemagic.engine.recorder`."""

    name = "tapemagic"

    def owns(self, tape: Any) -> bool:
        return _engine.is_tape(tape)

    def describe(self, obj: Any) -> ValueRef | None:
        return _engine.describe(obj)

    def describe_tape(self, tape: Any, nodes: bool = True) -> TapeState:
        return _engine.describe_tape(tape, nodes=nodes)

    def explain_listener(self, tape: Any) -> Any:
        return _engine.explain_listener(tape)

    def flatten(self, structure: Any) -> list:
        return _engine.flatten(structure)

    def __repr__(self) -> str:
        return "<recorder surface 'tapemagic'>"


ENGINE: Surface = _EngineSurface()

_REGISTERED: list[Surface] = []


def register(surface: Surface) -> None:
    """Let the graph package read the tapes of another recorder (once each).

    Example:
        >>> register(ENGINE)
        >>> ENGINE in registered()
        True
        >>> unregister(ENGINE)
        >>> ENGINE in registered()
        False
    """
    if not any(s is surface for s in _REGISTERED):
        _REGISTERED.append(surface)


def unregister(surface: Surface) -> None:
    """Undo :func:`register` (nothing happens for a surface never registered)."""
    _REGISTERED[:] = [s for s in _REGISTERED if s is not surface]


def registered() -> tuple[Surface, ...]:
    """The surfaces registered besides the engine's, in registration order."""
    return tuple(_REGISTERED)


def surface_of(tape: Any) -> Surface:
    """The surface of the recorder that owns ``tape``.

    Raises:
        TypeError: if no recorder owns it, saying what a tape can be.

    Example:
        >>> from tapemagic.engine import GradientTape
        >>> surface_of(GradientTape()).name
        'tapemagic'
    """
    for surface in (*_REGISTERED, ENGINE):
        if surface.owns(tape):
            return surface
    kinds = " or ".join(f"a {s.name} GradientTape" for s in (ENGINE, *_REGISTERED))
    raise TypeError(
        f"Expected a GradientTape, got {type(tape).__name__!r}. Pass {kinds} "
        "(the tape a %%tape cell binds to `tape`)."
    )
