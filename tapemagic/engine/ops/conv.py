"""Convolution: ``conv2d`` and its two gradients as ops of their own.

Convolution is one im2col ``matmul`` per call (a strided window view of the
padded input, no Python loop over pixels). Its two gradients are ops too
(``conv2d_backprop_input`` and ``conv2d_backprop_filter``), whose own VJPs are
again convolutions and backprops, so second derivatives work. These three ops
treat every axis before the last four as a leading (batch) axis and broadcast
those between their two inputs, which is how batched cotangents pass through
them, and how ``depthwise_conv2d`` convolves each channel with its own filters
in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..accepts import Accepts
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs
from . import shape
from ._image import (
    _check_data_format,
    _check_filters,
    _check_input,
    _conv_params,
    _from_nhwc,
    _im2col,
    _out_hw,
    _scatter_windows,
    _static_sizes,
    _to_nhwc,
)

__all__ = [
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
    "conv2d_transpose",
    "depthwise_conv2d",
]


def _conv_core(x, w, *, strides, dilations, pads):
    # x: Px + (N, H, W, Ci); w: Pw + (kh, kw, Ci, Co) -> P + (N, Ho, Wo, Co)
    kh, kw, ci, co = w.shape[-4:]
    padded = (x.shape[-3] + pads[0] + pads[1], x.shape[-2] + pads[2] + pads[3])
    out_hw = _out_hw(padded, (kh, kw), strides, dilations)
    cols = _im2col(x, (kh, kw), strides, dilations, pads, out_hw)
    out = np.matmul(cols, w.reshape(w.shape[:-4] + (kh * kw * ci, co)))
    return out.reshape(out.shape[:-2] + (x.shape[-4], *out_hw, co))


def _input_grad_core(g, w, *, in_hw, strides, dilations, pads):
    # g: Pg + (N, Ho, Wo, Co); w: Pw + (kh, kw, Ci, Co) -> P + (N, H, W, Ci)
    kh, kw, ci, co = w.shape[-4:]
    n, ho, wo = g.shape[-4:-1]
    gm = g.reshape(g.shape[:-4] + (n * ho * wo, co))
    wm = w.reshape(w.shape[:-4] + (kh * kw * ci, co))
    cols = np.matmul(gm, np.swapaxes(wm, -1, -2))
    prefix = cols.shape[:-2]
    padded = (in_hw[0] + pads[0] + pads[1], in_hw[1] + pads[2] + pads[3])
    xp = _scatter_windows(
        cols.reshape(-1, ho, wo, kh, kw, ci), padded, strides, dilations
    )
    x = xp[:, pads[0] : pads[0] + in_hw[0], pads[2] : pads[2] + in_hw[1], :]
    return np.ascontiguousarray(x).reshape(prefix + (n, *in_hw, ci))


def _filter_grad_core(x, g, *, k_hw, strides, dilations, pads):
    # x: Px + (N, H, W, Ci); g: Pg + (N, Ho, Wo, Co) -> P + (kh, kw, Ci, Co)
    ci, co = x.shape[-1], g.shape[-1]
    ho, wo = g.shape[-3:-1]
    cols = _im2col(x, k_hw, strides, dilations, pads, (ho, wo))
    gm = g.reshape(g.shape[:-4] + (g.shape[-4] * ho * wo, co))
    out = np.matmul(np.swapaxes(cols, -1, -2), gm)
    return out.reshape(out.shape[:-2] + (*k_hw, ci, co))


# -- convolution: the three ops ------------------------------------------------------
# Each takes two inputs whose last four axes are the natural ones and whose earlier
# axes broadcast (NumPy rules); the output has the broadcast leading axes. A VJP
# result therefore has batch + broadcast axes, and `unbroadcast` sums it back to
# the input's shape.


# The VJPs of all three are again convolutions and backprops (each op is linear
# in each input): the adjoint of the convolution in x is conv2d_backprop_input,
# in w conv2d_backprop_filter, and so on around.
def _conv2d_vjp_x(ns, g, out, x, w, *, strides, dilations, pads):
    gx = ns.conv2d_backprop_input(
        g, w, in_hw=ns.shape(x)[-3:-1], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gx, x, out)


def _conv2d_vjp_w(ns, g, out, x, w, *, strides, dilations, pads):
    gw = ns.conv2d_backprop_filter(
        x, g, k_hw=ns.shape(w)[-4:-2], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gw, w, out)


# Each input's gradient reads the other input only: a node never keeps the
# output, nor the input of a filter's data that needs no gradient.
_conv2d = defop(
    "conv2d",
    _conv_core,
    (_conv2d_vjp_x, _conv2d_vjp_w),
    saves={"x": ("w",), "w": ("x",)},
    accepts=Accepts("half, bfloat16, float, double, int32", op="Conv2D"),
    kernels=("Conv2D",),
)


def _input_vjp_g(ns, c, out, g, w, *, in_hw, strides, dilations, pads):
    gg = ns.conv2d(c, w, strides=strides, dilations=dilations, pads=pads)
    return ns.unbroadcast(gg, g, out)


def _input_vjp_w(ns, c, out, g, w, *, in_hw, strides, dilations, pads):
    gw = ns.conv2d_backprop_filter(
        c, g, k_hw=ns.shape(w)[-4:-2], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gw, w, out)


_backprop_input = defop(
    "conv2d_backprop_input",
    _input_grad_core,
    (_input_vjp_g, _input_vjp_w),
    saves={"g": ("w",), "w": ("g",)},
)


def _filter_vjp_x(ns, c, out, x, g, *, k_hw, strides, dilations, pads):
    gx = ns.conv2d_backprop_input(
        g, c, in_hw=ns.shape(x)[-3:-1], strides=strides, dilations=dilations,
        pads=pads,
    )  # fmt: skip
    return ns.unbroadcast(gx, x, out)


def _filter_vjp_g(ns, c, out, x, g, *, k_hw, strides, dilations, pads):
    gg = ns.conv2d(x, c, strides=strides, dilations=dilations, pads=pads)
    return ns.unbroadcast(gg, g, out)


_backprop_filter = defop(
    "conv2d_backprop_filter",
    _filter_grad_core,
    (_filter_vjp_x, _filter_vjp_g),
    saves={"x": ("g",), "g": ("x",)},
)


def _conv2d_backprop_input(g, w, in_hw, strides, dilations, pads) -> Tensor:
    params = {"in_hw": tuple(in_hw), "strides": strides, "dilations": dilations,
              "pads": pads}  # fmt: skip
    return apply(_backprop_input.op, (g, w), params)


def _conv2d_backprop_filter(x, g, k_hw, strides, dilations, pads) -> Tensor:
    params = {"k_hw": tuple(k_hw), "strides": strides, "dilations": dilations,
              "pads": pads}  # fmt: skip
    return apply(_backprop_filter.op, (x, g), params)


@tf_export("tf.nn")
def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """2-D convolution (cross-correlation, as in TensorFlow) of images with filters.

    ``out[n, i, j, o] = sum_{di, dj, c} in[n, s*i + d*di, s*j + d*dj, c] *
    filters[di, dj, c, o]`` after zero padding. ``'SAME'`` pads exactly as
    TensorFlow does (the odd extra row/column at the end), so outputs match.

    Args:
        input: ``[batch..., H, W, C]`` (NHWC) or ``[batch..., C, H, W]`` (NCHW);
            axes before the last three are batch axes.
        filters: ``[kh, kw, C, out_channels]``.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``'SAME'``, ``'VALID'`` or explicit pairs
            ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` (NHWC order).
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        dilations: an int or a list of 1, 2 or 4 ints (default 1).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The convolved images, in ``data_format`` layout.

    Raises:
        ValueError: for a bad ``padding``, ``data_format``, ``strides`` or
            ``dilations``, wrong ranks, or if the input's channels differ from
            ``filters``' in_channels.
        InvalidArgumentError: if the output size would be negative.

    Example:
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> conv2d(x, np.ones((2, 2, 1, 1)), 1, "VALID").numpy()[0, :, :, 0]
        array([[ 8., 12.],
               [20., 24.]])
    """
    x, w = convert_inputs((input, filters))
    _conv2d.op.accepts.check(x)
    fmt = _check_data_format(data_format)
    _check_input(x, "conv2d")
    _check_filters(w, "conv2d")
    x = _to_nhwc(x, fmt)
    if x._value.shape[-1] != w._value.shape[2]:
        raise ValueError(
            f"conv2d: input has {x._value.shape[-1]} channels but filters expect "
            f"{w._value.shape[2]} (input shape {list(x._value.shape)}, filters shape "
            f"{list(w._value.shape)}); filters' third axis must equal the input's "
            "channel axis."
        )
    params = _conv_params(
        padding, fmt, strides, dilations, x._value.shape[-3:-1], w._value.shape[:2]
    )
    lead = x._value.shape[:-3]
    folded = shape.reshape(x, (-1,) + x._value.shape[-3:]) if len(lead) != 1 else x
    out = apply(_conv2d.op, (folded, w), params)
    if len(lead) != 1:
        out = shape.reshape(out, lead + out._value.shape[-3:])
    return _from_nhwc(out, fmt)


def conv2d_backprop_input(
    input_sizes: Any,
    filters: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input.

    Args:
        input_sizes: the input's shape, 4 ints in ``data_format`` layout.
        filters: ``[kh, kw, in_channels, out_channels]``.
        out_backprop: the gradient of the convolution's output.
        strides: as in ``conv2d``.
        padding: as in ``conv2d``.
        data_format: ``'NHWC'`` or ``'NCHW'``.
        dilations: as in ``conv2d``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``input_sizes``.

    Raises:
        ValueError: for bad arguments or shapes that do not fit together.

    Example:
        >>> g = np.ones((1, 2, 2, 1))
        >>> conv2d_backprop_input([1, 3, 3, 1], np.ones((2, 2, 1, 1)), g, 1,
        ...                       "VALID").numpy()[0, :, :, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    w, g = convert_inputs((filters, out_backprop))
    fmt = _check_data_format(data_format)
    sizes = _static_sizes(input_sizes, "input_sizes")
    _check_filters(w, "conv2d_backprop_input")
    _check_input(g, "conv2d_backprop_input", "out_backprop")
    if len(sizes) != 4:
        raise ValueError(f"input_sizes must have 4 entries, got {list(sizes)}.")
    g = _to_nhwc(g, fmt)
    n, h, wd, c = sizes if fmt == "NHWC" else (sizes[0], sizes[2], sizes[3], sizes[1])
    kh, kw, ci, co = w._value.shape
    params = _conv_params(padding, fmt, strides, dilations, (h, wd), (kh, kw))
    padded = (h + params["pads"][0] + params["pads"][1],
              wd + params["pads"][2] + params["pads"][3])  # fmt: skip
    expected = (
        n,
        *_out_hw(padded, (kh, kw), params["strides"], params["dilations"]),
        co,
    )
    if c != ci or g._value.shape != expected:
        raise ValueError(
            f"conv2d_backprop_input: out_backprop has shape {list(g._value.shape)} "
            f"(NHWC) but a convolution of an input of shape {[n, h, wd, c]} with "
            f"filters {list(w._value.shape)} gives {list(expected)}; check "
            "input_sizes, strides and padding."
        )
    out = _conv2d_backprop_input(g, w, (h, wd), **params)
    return _from_nhwc(out, fmt)


def conv2d_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its filters.

    Args:
        input: the convolution's input.
        filter_sizes: the filters' shape ``[kh, kw, in_channels, out_channels]``.
        out_backprop: the gradient of the convolution's output.
        strides: as in ``conv2d``.
        padding: as in ``conv2d``.
        data_format: ``'NHWC'`` or ``'NCHW'``.
        dilations: as in ``conv2d``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``filter_sizes``.

    Raises:
        ValueError: for bad arguments or shapes that do not fit together.

    Example:
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> conv2d_backprop_filter(x, [2, 2, 1, 1], np.ones((1, 2, 2, 1)), 1,
        ...                        "VALID").numpy()[:, :, 0, 0]
        array([[ 8., 12.],
               [20., 24.]])
    """
    x, g = convert_inputs((input, out_backprop))
    fmt = _check_data_format(data_format)
    sizes = _static_sizes(filter_sizes, "filter_sizes")
    _check_input(x, "conv2d_backprop_filter")
    _check_input(g, "conv2d_backprop_filter", "out_backprop")
    if len(sizes) != 4:
        raise ValueError(f"filter_sizes must have 4 entries, got {list(sizes)}.")
    x, g = _to_nhwc(x, fmt), _to_nhwc(g, fmt)
    kh, kw, ci, co = sizes
    params = _conv_params(
        padding, fmt, strides, dilations, x._value.shape[1:3], (kh, kw)
    )
    n, h, wd, c = x._value.shape
    padded = (h + params["pads"][0] + params["pads"][1],
              wd + params["pads"][2] + params["pads"][3])  # fmt: skip
    expected = (
        n,
        *_out_hw(padded, (kh, kw), params["strides"], params["dilations"]),
        co,
    )
    if c != ci or g._value.shape != expected:
        raise ValueError(
            f"conv2d_backprop_filter: out_backprop has shape {list(g._value.shape)} "
            f"(NHWC) but a convolution of an input of shape {[n, h, wd, c]} with "
            f"filters {list(sizes)} gives {list(expected)}; check filter_sizes, "
            "strides and padding."
        )
    return _conv2d_backprop_filter(x, g, (kh, kw), **params)


@tf_export("tf.nn")
def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Transposed convolution: the gradient of ``conv2d`` applied to ``input``.

    Args:
        input: ``[N, H, W, in_channels]`` (NHWC).
        filters: ``[kh, kw, output_channels, in_channels]``.
        output_shape: the output's shape, 4 ints.
        strides: as in ``conv2d``.
        padding: ``'SAME'`` or ``'VALID'`` (or explicit pairs).
        data_format: ``'NHWC'`` or ``'NCHW'``.
        dilations: as in ``conv2d``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``output_shape``.

    Raises:
        ValueError: if the shapes do not fit together.

    Example:
        >>> conv2d_transpose(np.ones((1, 1, 1, 1)), np.ones((2, 2, 1, 1)),
        ...                  [1, 2, 2, 1], 2).numpy()[0, :, :, 0]
        array([[1., 1.],
               [1., 1.]])
    """
    return conv2d_backprop_input(
        output_shape, filters, input, strides, padding, data_format, dilations
    )


# TensorFlow's DepthwiseConv2dNative: floating point only (conv2d takes int32)
_DEPTHWISE = Accepts("half, bfloat16, float, double", op="DepthwiseConv2dNative")


@tf_export("tf.nn")
def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Convolve each input channel with its own ``channel_multiplier`` filters.

    ``out[n, i, j, c * M + m] = sum_{di, dj} in[n, s*i + d*di, s*j + d*dj, c] *
    filter[di, dj, c, m]`` after zero padding, where ``M`` is the channel
    multiplier. It is the ``conv2d`` op with the channels moved to a leading
    axis that the op broadcasts, each channel a one-channel image with its own
    filters: one batched matmul, and gradients (of any order) from
    ``conv2d``'s.

    Args:
        input: ``[batch..., H, W, C]`` (NHWC) or ``[batch..., C, H, W]`` (NCHW).
        filter: ``[kh, kw, C, channel_multiplier]``.
        strides: a list of 4 ints as TensorFlow asks (``[1, sh, sw, 1]`` in
            NHWC); an int or a pair is accepted too.
        padding: ``'SAME'``, ``'VALID'`` or explicit pairs, as in ``conv2d``.
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        dilations: an int or a pair (default 1).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The output, with ``C * channel_multiplier`` channels, in
        ``data_format`` layout.

    Raises:
        ValueError: for wrong ranks, bad arguments, or if the input's channels
            differ from ``filter``'s third axis.

    Example:
        >>> x = np.arange(8.0).reshape(1, 2, 2, 2)
        >>> depthwise_conv2d(x, np.ones((2, 2, 2, 1)), [1, 1, 1, 1],
        ...                  "VALID").numpy().ravel()
        array([12., 16.])
    """
    x, w = convert_inputs((input, filter))
    _DEPTHWISE.check(x)
    fmt = _check_data_format("NHWC" if data_format is None else data_format)
    _check_input(x, "depthwise_conv2d")
    _check_filters(w, "depthwise_conv2d")
    x = _to_nhwc(x, fmt)
    *lead, h, wd, c = x._value.shape
    kh, kw, ci, multiplier = w._value.shape
    if c != ci:
        raise ValueError(
            f"depthwise_conv2d: input has {c} channels but filter expects {ci} "
            f"(input shape {list(x._value.shape)}, filter shape "
            f"{list(w._value.shape)}); filter's third axis must equal the input's "
            "channel axis."
        )
    params = _conv_params(padding, fmt, strides, dilations, (h, wd), (kh, kw))
    # (C, N, H, W, 1) images against (C, kh, kw, 1, M) filters -> (C, N, Ho, Wo, M)
    images = shape.reshape(x, (-1, h, wd, c))
    images = shape.expand_dims(shape.transpose(images, (3, 0, 1, 2)), -1)
    filters = shape.expand_dims(shape.transpose(w, (2, 0, 1, 3)), 3)
    out = apply(_conv2d.op, (images, filters), params)
    ho, wo = out._value.shape[2:4]
    out = shape.transpose(out, (1, 2, 3, 0, 4))
    out = shape.reshape(out, (*lead, ho, wo, c * multiplier))
    return _from_nhwc(out, fmt)
