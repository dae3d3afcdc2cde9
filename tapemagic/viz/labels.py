"""Plain-text pieces every renderer writes the same way."""

from __future__ import annotations

__all__ = ["shape_text"]


def shape_text(shape: tuple[int, ...] | None) -> str:
    """A shape as the views show it: ``"scalar"``, ``"(3,)"``, ``"(2, 3)"``.

    Args:
        shape: the shape; None when unknown.

    Returns:
        ``"?"`` for an unknown shape, ``"scalar"`` for ``()``, else the tuple.

    Example:
        >>> shape_text(()), shape_text((3,)), shape_text((2, 3)), shape_text(None)
        ('scalar', '(3,)', '(2, 3)', '?')
    """
    if shape is None:
        return "?"
    if not shape:
        return "scalar"
    return (
        "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    )
