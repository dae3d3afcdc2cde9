"""The user's place in the running code: the innermost frame that is theirs.

The explanation log reports each op on the line of the user's code that ran
it, and ``tape.explain()`` names values as the user's code does; both look
up the stack past tapemagic's and IPython's own frames.
"""

from __future__ import annotations

import sys

__all__ = ["user_location", "user_namespace"]

# Packages whose frames are never "the user's line".
_INTERNAL = ("tapemagic.", "IPython.", "ipykernel.")


def user_location() -> tuple[str, int] | tuple[None, None]:
    """The file and line of the innermost frame that is not tapemagic or IPython.

    Returns:
        ``(filename, lineno)``, or ``(None, None)`` when every frame is internal.

    Example:
        >>> filename, line = user_location()
        >>> isinstance(line, int)
        True
    """
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != "tapemagic" and not name.startswith(_INTERNAL):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None, None


def user_namespace() -> dict:
    """The names of the innermost frame that is not tapemagic or IPython.

    Returns:
        Its globals updated with its locals; empty when every frame is internal.

    Example:
        >>> scope = {"__name__": "__main__", "user_namespace": user_namespace}
        >>> exec("answer = 42; found = user_namespace()['answer']", scope)
        >>> scope["found"]
        42
    """
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name != "tapemagic" and not name.startswith(_INTERNAL):
            return {**frame.f_globals, **frame.f_locals}
        frame = frame.f_back
    return {}
