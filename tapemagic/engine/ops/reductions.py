"""Reductions composed of the primitives in ``reduce`` and ``math``: variance,
standard deviation (the euclidean norm is a primitive, in ``reduce``). They
need no VJP of their own.
"""

from __future__ import annotations

from typing import Any

from ..exports import tf_export
from ..tensor import Tensor, convert_to_tensor
from . import math, reduce
from ._util import require_float

__all__ = ["reduce_std", "reduce_variance"]


# -- variance and standard deviation (composed) ------------------------------------


@tf_export("tf.math", numpy=("var",))
def reduce_variance(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Population variance (dividing by N) over ``axis``.

    Args:
        input_tensor: a floating-point tensor.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The variances, in the input's dtype.

    Raises:
        TypeError: for integers, as in TensorFlow.
        InvalidArgumentError: for bool, or if an axis is out of range.

    Example:
        >>> reduce_variance([1.0, 2.0, 3.0, 4.0]).numpy()
        np.float32(1.25)
    """
    x = convert_to_tensor(input_tensor)
    mean = reduce.reduce_mean(x, axis, keepdims=True)
    require_float(x, "reduce_variance")
    return reduce.reduce_mean(math.square(math.subtract(x, mean)), axis, keepdims)


@tf_export("tf.math", numpy=("std",))
def reduce_std(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Population standard deviation over ``axis``: ``sqrt(reduce_variance(x))``.

    Args:
        input_tensor: a floating-point tensor.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The standard deviations, in the input's dtype.

    Raises:
        TypeError: for integers, as in TensorFlow.
        InvalidArgumentError: for bool, or if an axis is out of range.

    Example:
        >>> reduce_std([1.0, 3.0]).numpy()
        np.float32(1.0)
    """
    x = convert_to_tensor(input_tensor)
    return math.sqrt(reduce_variance(x, axis, keepdims))


# -- euclidean norm (composed) -----------------------------------------------------
