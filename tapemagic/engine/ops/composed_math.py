"""Elementwise ops composed of the primitives in ``math``: ``add_n`` and
``squared_difference``. They need no VJP of their own.
"""

from __future__ import annotations

from typing import Any

from ..accepts import Accepts
from ..exports import tf_export
from ..tensor import Tensor, convert_inputs, convert_to_tensor
from . import math

__all__ = ["SQUARED_DIFFERENCE", "add_n", "squared_difference"]

# TensorFlow's SquaredDifference: no 8- or 16-bit integers
SQUARED_DIFFERENCE = Accepts(
    "bfloat16, half, float, double, int32, int64, complex64, complex128",
    op="SquaredDifference",
)


@tf_export("tf.math")
def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``(x - y) ** 2`` elementwise.

    Raises:
        InvalidArgumentError: for bool, 8- and 16-bit integers, as in TensorFlow.
    """
    x, y = convert_inputs((x, y))
    SQUARED_DIFFERENCE.check(x)
    return math.square(math.subtract(x, y))


@tf_export("tf", "tf.math")
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
