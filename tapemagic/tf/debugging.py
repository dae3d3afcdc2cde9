"""``tf.debugging``: eager checks that raise TensorFlow's errors."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.errors import InvalidArgumentError
from ..engine.ops import math as _math
from ..engine.tensor import Tensor, array_of, convert_to_tensor

__all__ = ["assert_equal", "check_numerics"]


def _first(values: np.ndarray, count: int) -> str:
    return np.array2string(np.ravel(values)[:count], separator=" ")


def assert_equal(
    x: Any,
    y: Any,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> None:
    """Raise unless ``x == y`` holds elementwise (with broadcasting).

    Args:
        x, y: tensors or values of one dtype.
        message: a prefix for the error message.
        summarize: how many entries to show (default 3).
        name: ignored.

    Raises:
        InvalidArgumentError: if some elements differ, naming the first ones.

    Example:
        >>> assert_equal([1, 2], [1, 2])
    """
    same = array_of(_math.equal(x, y))
    if np.all(same):
        return
    count = 3 if summarize is None else int(summarize)
    xs, ys = np.broadcast_arrays(
        array_of(convert_to_tensor(x)), array_of(convert_to_tensor(y))
    )
    where = np.argwhere(~np.broadcast_to(same, xs.shape))[:count]
    index = tuple(where.T)
    prefix = f"{message}: " if message else ""
    raise InvalidArgumentError(
        f"{prefix}Condition x == y did not hold. Indices of first {len(where)} "
        f"different values: {where.tolist()}. Corresponding x values: "
        f"{_first(xs[index], count)}; y values: {_first(ys[index], count)}. "
        f"First {count} elements of x: {_first(xs, count)}; of y: "
        f"{_first(ys, count)}.",
        op="assert_equal",
    )


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """Return ``tensor`` unchanged, or raise if it holds a NaN or an infinity.

    The result is the input itself, so gradients pass straight through.

    Args:
        tensor: a floating tensor.
        message: the start of the error message.
        name: ignored.

    Returns:
        ``tensor`` (converted to a Tensor).

    Raises:
        InvalidArgumentError: if an element is NaN or infinite.
        TypeError: for a tensor that is not floating.

    Example:
        >>> check_numerics([1.0, 2.0], "weights").numpy()
        array([1., 2.], dtype=float32)
    """
    t = convert_to_tensor(tensor)
    if array_of(t).dtype.kind not in "fc":
        raise TypeError(
            f"check_numerics needs a floating tensor, got {t.dtype.name}. Integer "
            "tensors cannot hold NaN or Inf, so there is nothing to check."
        )
    has_nan = bool(np.isnan(array_of(t)).any())
    has_inf = bool(np.isinf(array_of(t)).any())
    if has_nan or has_inf:
        kind = "Inf and NaN" if has_nan and has_inf else "NaN" if has_nan else "Inf"
        raise InvalidArgumentError(
            f"{message} : Tensor had {kind} values", op="check_numerics"
        )
    return t
