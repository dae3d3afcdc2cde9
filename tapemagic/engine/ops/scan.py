"""The scans ``cumsum`` and ``cumprod``, with their gradients (also scans).

Both store ``axis`` counted from the end, so the same axis names the scanned
axis of a cotangent with leading batch axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..accepts import NUMBER
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import Op, apply, defop
from ..tensor import Tensor, convert_to_tensor

__all__ = ["cumprod", "cumsum"]


def _shift_in(a: np.ndarray, axis: int, fill: Any) -> np.ndarray:
    """``a`` shifted one step along ``axis``, ``fill`` entering first."""
    width = [(0, 0)] * a.ndim
    width[axis] = (1, 0)
    key = [slice(None)] * a.ndim
    key[axis] = slice(0, -1)
    return np.pad(a, width, constant_values=fill)[tuple(key)]


def _scan_forward(numpy_scan, fill):
    def forward(x: np.ndarray, *, axis: int, exclusive: bool, reverse: bool):
        data = np.flip(x, axis) if reverse else x
        out = numpy_scan(data, axis=axis, dtype=x.dtype)
        if exclusive:
            out = _shift_in(out, axis, fill)
        return np.flip(out, axis) if reverse else out

    return forward


def _cumsum_vjp(ns, g, out, x, *, axis, exclusive, reverse):
    # Linear: out = C x with C (strictly, if exclusive) triangular, so g_x = C^T g,
    # the same scan run the other way.
    return (ns.cumsum(g, axis=axis, exclusive=exclusive, reverse=not reverse),)


_cumsum = defop("cumsum", _scan_forward(np.cumsum, 0), _cumsum_vjp, accepts=NUMBER)


def _cumprod_vjp(ns, g, out, x, *, axis, exclusive, reverse):
    # d out_i / d x_k is the product of the scanned x_j (j before i, or up to i)
    # except x_k, for k in the scan before i. Where no x up to and including k is
    # zero, that is out_i / x_k, so g_x = cumsum(g * out, other way) / x (what
    # TensorFlow computes everywhere). At the first zero z of each scan it is the
    # same product with x_z replaced by 1; past z it is 0. No division by zero, so
    # the gradient is exact with zeros. Second derivatives there miss the terms
    # past z (their value is 0, their slope in x_z is not).
    total = ns.cumsum(g * out, axis=axis, exclusive=exclusive, reverse=not reverse)
    zeros = ns.equal(x, 0)
    if not np.any(ns.value(zeros)):
        return (total / x,)
    zero_count = ns.cast(zeros, dtype=ns.dtype(x))
    before = ns.cumsum(zero_count, axis=axis, exclusive=True, reverse=reverse)
    clean = ns.equal(before + zero_count, 0)
    first = ns.logical_and(zeros, ns.equal(before, 0))
    without_first = ns.where(first, 1, x)
    others = ns.cumprod(without_first, axis=axis, exclusive=exclusive, reverse=reverse)
    at_first = ns.cumsum(
        g * others, axis=axis, exclusive=exclusive, reverse=not reverse
    )
    inside = total / ns.where(clean, x, 1)
    return (ns.where(clean, inside, ns.where(first, at_first, 0)),)


# A primitive: the product of the others has no division-free form in the other
# ops, and its VJP above stays exact where the input has zeros.
_cumprod = defop("cumprod", _scan_forward(np.cumprod, 1), _cumprod_vjp, accepts=NUMBER)


def _scan(op: Op, x: Any, axis: Any, exclusive: bool, reverse: bool) -> Tensor:
    t = convert_to_tensor(x)
    op.accepts.check(t)
    ndim = t._value.ndim
    if isinstance(axis, Tensor):
        axis = axis._value
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{op.name}: expected axis in the range [{-ndim}, {ndim}), but got "
            f"{axis} (input shape {list(t._value.shape)}). A scalar has no axis to "
            "scan: reshape it to a vector first.",
            op=op.name,
        )
    params = {
        "axis": axis % ndim - ndim,
        "exclusive": bool(exclusive),
        "reverse": bool(reverse),
    }
    return apply(op, (t,), params)


@tf_export("tf", "tf.math", numpy=("cumsum",))
def cumsum(
    x: Any,
    axis: Any = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Running sums along ``axis``: ``[a, a + b, a + b + c]``.

    ``exclusive=True`` leaves each element out of its own sum (``[0, a, a + b]``);
    ``reverse=True`` sums from the end (``[a + b + c, b + c, c]``). The gradient
    is the same scan run the other way.

    Args:
        x: a numeric tensor of rank >= 1.
        axis: the axis to scan (default 0); negative counts from the end.
        exclusive: leave each element out of its own sum.
        reverse: scan from the last element to the first.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: if ``axis`` is out of range.
        InvalidArgumentError: for a bool tensor, as in TensorFlow.

    Example:
        >>> cumsum([1.0, 2.0, 3.0]).numpy()
        array([1., 3., 6.], dtype=float32)
        >>> cumsum([1.0, 2.0, 3.0], exclusive=True, reverse=True).numpy()
        array([5., 3., 0.], dtype=float32)
    """
    return _scan(_cumsum.op, x, axis, exclusive, reverse)


@tf_export("tf.math")
def cumprod(
    x: Any,
    axis: Any = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Running products along ``axis``: ``[a, a * b, a * b * c]``.

    ``exclusive`` and ``reverse`` work as in :func:`cumsum` (the exclusive product
    starts at 1). The gradient is exact where ``x`` has zeros (TensorFlow divides
    by ``x`` there and gives 0 at the zero instead): for ``[2, 0, 3]`` it is
    ``[1, 8, 0]``. Second derivatives at inputs with exact zeros miss the terms
    past the first zero of a scan.

    Args:
        x: a numeric tensor of rank >= 1.
        axis: the axis to scan (default 0); negative counts from the end.
        exclusive: leave each element out of its own product.
        reverse: scan from the last element to the first.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: if ``axis`` is out of range.
        InvalidArgumentError: for a bool tensor, as in TensorFlow.

    Example:
        >>> cumprod([2.0, 3.0, 4.0]).numpy()
        array([ 2.,  6., 24.], dtype=float32)
        >>> cumprod([2.0, 3.0, 4.0], exclusive=True).numpy()
        array([1., 2., 6.], dtype=float32)
    """
    return _scan(_cumprod.op, x, axis, exclusive, reverse)
