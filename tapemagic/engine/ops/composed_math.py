"""Elementwise ops composed of the primitives in ``math``: ``add_n`` and
``squared_difference``. They need no VJP of their own.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor, convert_to_tensor
from . import math

__all__ = ["add_n", "squared_difference"]


def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``(x - y) ** 2`` elementwise."""
    return math.square(math.subtract(x, y))


def add_n(inputs: list, name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype.

    Raises:
        ValueError: if ``inputs`` is empty.
    """
    items = list(inputs)
    if not items:
        raise ValueError("add_n needs at least one tensor to add.")
    total = convert_to_tensor(items[0])
    for item in items[1:]:
        total = math.add(total, item)
    return total
