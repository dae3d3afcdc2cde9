"""Values as short text: what a source or a gradient held, kept small until shown.

The explanation log keeps a small copy of each value it may show
(:func:`glimpse`), and :func:`preview` formats one on a line when a view asks:
formatting costs tens of microseconds, keeping nine items per axis almost
nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["glimpse", "preview", "summary"]

_EDGE = 3  # items shown at each end of a long axis
_THRESHOLD = 8  # arrays with more items than this are elided


def preview(array: Any) -> str:
    """A value on one short line: ``[[1., 2.], [3., 4.]]``, elided past 8 items.

    Args:
        array: an array (or what :func:`glimpse` kept of one; text passes
            through).

    Returns:
        The text.

    Example:
        >>> preview(np.arange(12.0))
        '[ 0., 1., 2., ..., 9., 10., 11.]'
    """
    if isinstance(array, str):
        return array
    text = np.array2string(
        np.asarray(array),
        precision=4,
        threshold=_THRESHOLD,
        edgeitems=_EDGE,
        separator=", ",
    )
    return " ".join(text.split())


def glimpse(array: Any) -> np.ndarray | str:
    """A small copy of ``array`` with the same :func:`preview`, to format later.

    Formatting costs tens of microseconds, so the log keeps what the preview
    shows instead of the text: an elided preview shows and takes its number
    format from the first and last three items of each axis, so any axis
    longer than nine keeps those and three of its middle items (which keeps the
    copy elided). Values too big even so are formatted at once.
    """
    a = np.asarray(array)
    if a.size <= _THRESHOLD:
        return a.copy()
    if math.prod(min(n, 3 * _EDGE) for n in a.shape) > 4096:
        return preview(a)
    for axis, n in enumerate(a.shape):
        if n > 3 * _EDGE:
            middle = n // 2 - 1
            keep = [*range(_EDGE), middle, middle + 1, middle + 2,
                    *range(n - _EDGE, n)]  # fmt: skip
            a = np.take(a, keep, axis=axis)
    return a.copy() if a is array else a


_FIRST = 4  # values a summary lists


def summary(array: Any) -> tuple[float, float, float, str] | None:
    """``(min, max, norm, first values)`` of a numeric array, for a table row
    that must stay one line whatever the array's size; None for an empty or
    non-numeric one. NaN shows in all three numbers.

    Example:
        >>> summary(np.arange(6.0).reshape(2, 3))
        (0.0, 5.0, 7.416198487095663, '0., 1., 2., 3., ...')
    """
    a = np.asarray(array)
    if a.size == 0 or a.dtype.kind not in "biuf":
        return None
    flat = a.ravel()
    wide = flat.astype(np.float64)
    first = " ".join(
        np.array2string(flat[:_FIRST], precision=4, separator=", ")[1:-1].split()
    )
    if flat.size > _FIRST:
        first += ", ..."
    return (
        float(wide.min()),
        float(wide.max()),
        float(np.sqrt(np.dot(wide, wide))),
        first,
    )
