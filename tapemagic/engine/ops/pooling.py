"""Pooling: ``max_pool2d`` and ``avg_pool2d``, with their gradients as ops.

Each gradient op's VJP is again a pooling op (the average and its adjoint are
each other's VJPs; the maximum's gradient scatters to each window's argmax and
that scatter's VJP gathers there), so second derivatives work. Like the
convolutions, they treat axes before the last four as batch axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..accepts import NN_FLOATING, Accepts
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, convert_to_tensor
from ._image import (
    _check_data_format,
    _from_nhwc,
    _out_hw,
    _pad_hw,
    _padding_amounts,
    _scatter_windows,
    _spatial_pair,
    _to_nhwc,
    _windows,
)

__all__ = [
    "avg_pool2d",
    "max_pool2d",
]


def _pool_setup(x: np.ndarray, ksize, strides, pads):
    padded = (x.shape[-3] + pads[0] + pads[1], x.shape[-2] + pads[2] + pads[3])
    return padded, _out_hw(padded, ksize, strides, (1, 1))


def _lowest(dtype: np.dtype) -> Any:
    # Padding that never wins a maximum.
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _max_pool_forward(x, *, ksize, strides, pads):
    _, out_hw = _pool_setup(x, ksize, strides, pads)
    win = _windows(_pad_hw(x, pads, _lowest(x.dtype)), ksize, strides, (1, 1), out_hw)
    return win.max(axis=(-3, -2))


def _max_pool_argmax(x: np.ndarray, ksize, strides, pads) -> np.ndarray:
    """Flat index into the padded input of each window's maximum.

    The first maximum in row-major window order wins a tie, as in TensorFlow's
    MaxPoolGrad; a pixel that is the maximum of several windows gets each of
    their gradients.
    """
    padded, (ho, wo) = _pool_setup(x, ksize, strides, pads)
    xp = _pad_hw(x, pads, _lowest(x.dtype))
    win = _windows(xp, ksize, strides, (1, 1), (ho, wo))
    n, c = x.shape[0], x.shape[-1]
    kh, kw = ksize
    best = win.reshape(n, ho, wo, kh * kw, c).argmax(axis=3)
    row = np.arange(ho)[None, :, None, None] * strides[0] + best // kw
    col = np.arange(wo)[None, None, :, None] * strides[1] + best % kw
    image = np.arange(n)[:, None, None, None]
    return ((image * padded[0] + row) * padded[1] + col) * c + np.arange(c)


def _max_pool_grad_forward(x, g, *, ksize, strides, pads):
    # Scatter g (batch... + pooled shape) onto each window's argmax; one bincount.
    index = _max_pool_argmax(x, ksize, strides, pads).ravel()
    padded, _ = _pool_setup(x, ksize, strides, pads)
    size = x.shape[0] * padded[0] * padded[1] * x.shape[-1]
    batch = g.shape[: g.ndim - 4]
    count = int(np.prod(batch, dtype=np.int64))
    flat = (np.arange(count)[:, None] * size + index[None, :]).ravel()
    total = np.bincount(flat, weights=g.reshape(-1), minlength=count * size)
    full = total.reshape(count, x.shape[0], *padded, x.shape[-1])
    top, left = pads[0], pads[2]
    crop = full[:, :, top : top + x.shape[1], left : left + x.shape[2], :]
    return np.ascontiguousarray(crop).reshape(batch + x.shape).astype(g.dtype)


def _max_pool_grad_grad_forward(x, c, *, ksize, strides, pads):
    # Gather c (batch... + input shape) at each window's argmax.
    index = _max_pool_argmax(x, ksize, strides, pads)
    batch = c.shape[: c.ndim - 4]
    padded = _pad_hw(c, pads).reshape(batch + (-1,))
    return padded[..., index]


def _max_pool_vjp(ns, g, out, x, *, ksize, strides, pads):
    # g goes to each window's maximum
    return (ns.max_pool_grad(x, g, ksize=ksize, strides=strides, pads=pads),)


_max_pool = defop(
    "max_pool2d",
    _max_pool_forward,
    _max_pool_vjp,
    accepts=Accepts(
        "half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, "
        "qint8",
        op="MaxPool",
    ),
    kernels=("MaxPool",),
)


def _no_gradient_to_x(ns, c, out, x, g, **params):
    # The position of a maximum is piecewise constant in x: zeros, as
    # TensorFlow's MaxPoolGradGrad and MaxPoolGradGradGrad give.
    return ns.constant(
        np.zeros(ns.shape(c)[: ns.nb(c, out)] + ns.shape(x), ns.dtype(x))
    )


# The gradient ops are linear in their second input.
_max_pool_grad = defop(
    "max_pool_grad",
    _max_pool_grad_forward,
    (
        _no_gradient_to_x,
        lambda ns, c, out, x, g, **params: ns.max_pool_grad_grad(x, c, **params),
    ),
)
_max_pool_grad_grad = defop(
    "max_pool_grad_grad",
    _max_pool_grad_grad_forward,
    (
        _no_gradient_to_x,
        lambda ns, d, out, x, c, **params: ns.max_pool_grad(x, d, **params),
    ),
)


def _avg_counts(in_hw, ksize, strides, pads, dtype) -> np.ndarray:
    # How many real (unpadded) pixels each window covers: TensorFlow's average
    # excludes the padding.
    ones = np.ones((1, *in_hw, 1), dtype=dtype)
    padded, out_hw = _pool_setup(ones, ksize, strides, pads)
    win = _windows(_pad_hw(ones, pads), ksize, strides, (1, 1), out_hw)
    return win.sum(axis=(-3, -2))[0]  # (Ho, Wo, 1)


def _avg_pool_forward(x, *, ksize, strides, pads):
    _, out_hw = _pool_setup(x, ksize, strides, pads)
    win = _windows(_pad_hw(x, pads), ksize, strides, (1, 1), out_hw)
    counts = _avg_counts(x.shape[-3:-1], ksize, strides, pads, x.dtype)
    return (win.sum(axis=(-3, -2)) / counts).astype(x.dtype, copy=False)


def _avg_pool_grad_forward(g, *, in_hw, ksize, strides, pads):
    # The adjoint of the average: spread g / count over each window.
    ho, wo, c = g.shape[-3:]
    counts = _avg_counts(in_hw, ksize, strides, pads, g.dtype)
    share = (g / counts).reshape(-1, ho, wo, 1, 1, c)
    cols = np.broadcast_to(share, share.shape[:3] + tuple(ksize) + (c,))
    padded = (in_hw[0] + pads[0] + pads[1], in_hw[1] + pads[2] + pads[3])
    full = _scatter_windows(cols, padded, strides, (1, 1))
    crop = full[:, pads[0] : pads[0] + in_hw[0], pads[2] : pads[2] + in_hw[1], :]
    return np.ascontiguousarray(crop).reshape(g.shape[:-3] + (*in_hw, c))


def _avg_pool_vjp(ns, g, out, x, *, ksize, strides, pads):
    return (
        ns.avg_pool_grad(
            g, in_hw=ns.shape(x)[-3:-1], ksize=ksize, strides=strides, pads=pads
        ),
    )


# Linear: each op's VJP is the other.
_avg_pool = defop(
    "avg_pool2d",
    _avg_pool_forward,
    _avg_pool_vjp,
    accepts=NN_FLOATING.for_op("AvgPool"),
    kernels=("AvgPool",),
)
_avg_pool_grad = defop(
    "avg_pool_grad",
    _avg_pool_grad_forward,
    lambda ns, c, out, g, *, in_hw, ksize, strides, pads: (
        ns.avg_pool2d(c, ksize=ksize, strides=strides, pads=pads),
    ),
)


def _pool(op, input, ksize, strides, padding, data_format, op_name) -> Tensor:
    x = convert_to_tensor(input)
    op.accepts.check(x)
    fmt = _check_data_format(data_format)
    if x.ndim != 4:
        raise ValueError(
            f"{op_name}: input must have rank 4, got shape {list(x._value.shape)}."
        )
    x = _to_nhwc(x, fmt)
    k = _spatial_pair("ksize", ksize, fmt)
    s = _spatial_pair("strides", strides, fmt)
    pads = _padding_amounts(
        padding, x._value.shape[1:3], k, s, (1, 1), fmt, allow_explicit=False
    )
    out = apply(op, (x,), {"ksize": k, "strides": s, "pads": pads})
    return _from_nhwc(out, fmt)


@tf_export("tf.nn")
def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """The maximum of each window; the gradient goes to the window's maximum.

    On a tie, the first maximum in the window (row-major) gets the gradient, as in
    TensorFlow. ``'SAME'`` padding never wins (it counts as -inf).

    Args:
        input: ``[N, H, W, C]`` (NHWC) or ``[N, C, H, W]`` (NCHW).
        ksize: the window size: an int or a list of 1, 2 or 4 ints.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``'SAME'`` or ``'VALID'``.
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The pooled tensor.

    Raises:
        ValueError: for a bad ``padding``, ``data_format``, ``ksize`` or rank.

    Example:
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> max_pool2d(x, 2, 2, "VALID").numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]])
    """
    return _pool(
        _max_pool.op, input, ksize, strides, padding, data_format, "max_pool2d"
    )


@tf_export("tf.nn")
def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """The mean of each window; ``'SAME'`` padding is left out of the mean.

    Args:
        input: ``[N, H, W, C]`` (NHWC) or ``[N, C, H, W]`` (NCHW).
        ksize: the window size: an int or a list of 1, 2 or 4 ints.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``'SAME'`` or ``'VALID'``.
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The pooled tensor.

    Raises:
        ValueError: for a bad ``padding``, ``data_format``, ``ksize`` or rank.

    Example:
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> avg_pool2d(x, 2, 2, "SAME").numpy()[0, :, :, 0]
        array([[2. , 3.5],
               [6.5, 8. ]])
    """
    return _pool(
        _avg_pool.op, input, ksize, strides, padding, data_format, "avg_pool2d"
    )
