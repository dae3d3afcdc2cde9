"""``Conv2DTranspose``: the engine's ``conv2d_transpose``, which is
``conv2d_backprop_input`` (the gradient of a convolution with respect to its
input) applied to the layer's input.

That op's VJPs are again a convolution (for the input) and
``conv2d_backprop_filter`` (for the kernel), so the layer's gradients, of any
order, need no primitive of its own.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import nn as _nn
from ...engine.tensor import Tensor
from .. import activations
from .conv1d import conv_config, conv_weights_config
from .convolutional import (
    _add_bias,
    _check_channels,
    _check_rank4,
    _pair,
    _positive_filters,
    _spatial_axes,
)
from .core import _data_format, _float_input, _no_regularizers
from .layer import Layer
from .serialization import initializer_from

__all__ = ["Conv2DTranspose", "Convolution2DTranspose"]


def _transposed_size(
    size: int | None, kernel: int, stride: int, padding: str, output_padding: Any,
    dilation: int,
) -> int | None:  # fmt: skip
    """Keras 3's output length of a transposed convolution (TensorFlow's rule)."""
    if size is None:
        return None
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = (
            max(kernel, stride) - kernel if output_padding is None else output_padding
        )
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


class Conv2DTranspose(Layer):
    """Transposed 2-D convolution ("deconvolution"): upsample with a learned
    kernel, the gradient of a ``Conv2D`` applied to the input.

    The kernel has shape ``(kh, kw, filters, in_channels)``, as in Keras. With
    ``padding="same"`` and no ``output_padding`` the output is ``strides`` times
    the input's size.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a pair ``(kh, kw)``.
        strides: an int or a pair (default 1).
        padding: "valid" or "same".
        output_padding: None, an int or a pair: extra rows and columns at the
            end of the output, each smaller than the stride.
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: an int or a pair (default 1).
        activation: a name, a function, or None (linear).
        use_bias: add one bias per filter.
        kernel_initializer: default "glorot_uniform".
        bias_initializer: default "zeros".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for bad sizes or padding, an ``output_padding`` not smaller
            than the stride, an input that is not 4-D, or one whose channels
            differ from those the layer was built for.

    Example:
        >>> import numpy as np
        >>> layer = Conv2DTranspose(8, 3, strides=2, padding="same")
        >>> layer(np.zeros((1, 7, 7, 16), np.float32)).shape
        TensorShape([1, 14, 14, 8])
        >>> [(w.name, tuple(w.shape)) for w in layer.weights]
        [('kernel', (3, 3, 8, 16)), ('bias', (8,))]
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        _no_regularizers(
            "Conv2DTranspose",
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
        )
        self.filters = _positive_filters(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(
                "The `padding` argument must be a list/tuple or one of {'valid', "
                f"'same'}}. Received: {padding}"
            )
        self.output_padding = (
            None if output_padding is None
            else _pair(output_padding, "output_padding", allow_zero=True)
        )  # fmt: skip
        if self.output_padding is not None:
            for extra, stride in zip(self.output_padding, self.strides):
                if extra >= stride:
                    raise ValueError(
                        "Strides must be greater than output padding. Received "
                        f"strides={self.strides}, output_padding="
                        f"{self.output_padding}."
                    )
        self.data_format = _data_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializer_from(kernel_initializer)
        self.bias_initializer = initializer_from(bias_initializer)
        self.kernel = None
        self.bias = None

    def build(self, input_shape: Any) -> None:
        channels = input_shape[_spatial_axes(self.data_format)[2]]
        self.kernel = self.add_weight(
            shape=self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer,
            name="kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.filters,), initializer=self.bias_initializer, name="bias"
            )

    def _check_input_shape(self, shape: Any) -> None:
        _check_rank4(self, shape, "min_ndim")
        if self.kernel is not None:
            _check_channels(self, shape, self.kernel.shape[3])

    def call(self, inputs: Any) -> Tensor:
        x = _float_input(inputs, self.compute_dtype)
        output_shape = self.compute_output_shape(tuple(x.shape))
        out = _nn.conv2d_transpose(
            x,
            self.kernel,
            output_shape,
            strides=self.strides,
            padding=self.padding.upper(),
            data_format="NCHW" if self.data_format == "channels_first" else "NHWC",
            dilations=self.dilation_rate,
        )
        return self.activation(_add_bias(self, out, self.bias))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        h_axis, w_axis, c_axis = _spatial_axes(self.data_format)
        out = list(input_shape)
        extras = self.output_padding or (None, None)
        for i, axis in enumerate((h_axis, w_axis)):
            out[axis] = _transposed_size(
                input_shape[axis], self.kernel_size[i], self.strides[i],
                self.padding, extras[i], self.dilation_rate[i],
            )  # fmt: skip
        out[c_axis] = self.filters
        return tuple(out)

    def get_config(self) -> dict:
        config = conv_config(self)
        config = {
            **{k: v for k, v in config.items() if k != "data_format"},
            "output_padding": self.output_padding,
            "data_format": self.data_format,
        }
        return {**super().get_config(), **config, **conv_weights_config(self)}


Convolution2DTranspose = Conv2DTranspose
