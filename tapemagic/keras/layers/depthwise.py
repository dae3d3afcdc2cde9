"""DepthwiseConv2D and SeparableConv2D on the engine's ``depthwise_conv2d``.

A depthwise convolution filters each input channel on its own, with
``depth_multiplier`` filters per channel; a separable convolution follows it
with a 1x1 convolution that mixes the channels into ``filters`` outputs, for far
fewer weights than a ``Conv2D`` of the same size.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import nn as _nn
from ...engine.tensor import Tensor
from .. import activations, initializers
from .convolutional import (
    _add_bias,
    _check_channels,
    _check_rank4,
    _conv_output_shape,
    _padding,
    _pair,
    _spatial_axes,
)
from .core import _data_format, _float_input, _no_regularizers
from .layer import Layer

__all__ = ["DepthwiseConv2D", "SeparableConv2D", "SeparableConvolution2D"]


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(
            f"Invalid value for argument `{name}`. Expected a strictly positive "
            f"value. Received {name}={value!r}."
        )
    return value


class _DepthwiseBase(Layer):
    """What the two layers share: the arguments, the depthwise step, the shapes."""

    def __init__(
        self,
        kernel_size: Any,
        strides: Any,
        padding: str,
        depth_multiplier: int,
        data_format: str | None,
        dilation_rate: Any,
        activation: Any,
        use_bias: bool,
        depthwise_initializer: Any,
        bias_initializer: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.depth_multiplier = _positive(depth_multiplier, "depth_multiplier")
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.bias = None

    def _depthwise_shape(self, input_shape: Any) -> tuple:
        channels = input_shape[_spatial_axes(self.data_format)[2]]
        if channels is None:
            raise ValueError(
                f"Layer {self.name!r} needs the number of input channels, but the "
                f"input shape {tuple(input_shape)} leaves it unknown."
            )
        return self.kernel_size + (channels, self.depth_multiplier)

    def _conv_arguments(self) -> dict:
        """The engine op's strides, padding, data_format and dilations."""
        fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
        strides = (1, 1, *self.strides) if fmt == "NCHW" else (1, *self.strides, 1)
        return {
            "strides": list(strides),
            "padding": self.padding.upper(),
            "data_format": fmt,
            "dilations": list(self.dilation_rate),
        }


class DepthwiseConv2D(_DepthwiseBase):
    """Filter each input channel on its own: ``depth_multiplier`` filters each.

    The output has ``in_channels * depth_multiplier`` channels; output channel
    ``c * depth_multiplier + m`` is channel ``c`` filtered by ``kernel[:, :, c,
    m]``.

    Args:
        kernel_size: an int or a pair ``(kh, kw)``.
        strides: an int or a pair (default 1).
        padding: "valid" or "same".
        depth_multiplier: the number of filters per input channel.
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: an int or a pair (default 1).
        activation: a name, a function, or None (linear).
        use_bias: add one bias per output channel.
        depthwise_initializer: default "glorot_uniform".
        bias_initializer: default "zeros".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for bad sizes or padding, an input that is not 4-D, or one
            whose channels differ from those the layer was built for.

    Example:
        >>> import numpy as np
        >>> layer = DepthwiseConv2D(3, depth_multiplier=2)
        >>> layer(np.zeros((1, 8, 8, 4), np.float32)).shape
        TensorShape([1, 6, 6, 8])
        >>> [(w.name, tuple(w.shape)) for w in layer.weights]
        [('kernel', (3, 3, 4, 2)), ('bias', (8,))]
    """

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            kernel_size, strides, padding, depth_multiplier, data_format,
            dilation_rate, activation, use_bias, depthwise_initializer,
            bias_initializer, activity_regularizer=activity_regularizer, **kwargs,
        )  # fmt: skip
        _no_regularizers(
            "DepthwiseConv2D",
            depthwise_regularizer=depthwise_regularizer,
            bias_regularizer=bias_regularizer,
            depthwise_constraint=depthwise_constraint,
            bias_constraint=bias_constraint,
        )
        self.kernel = None

    def build(self, input_shape: Any) -> None:
        # Keras names the depthwise layer's filters "kernel"
        shape = self._depthwise_shape(input_shape)
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            shape=shape, initializer=self.depthwise_initializer, name="kernel"
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(shape[2] * shape[3],),
                initializer=self.bias_initializer,
                name="bias",
            )

    def _check_input_shape(self, shape: Any) -> None:
        _check_rank4(self, shape, "min_ndim")
        if self.kernel is not None:
            _check_channels(self, shape, self.kernel.shape[2])

    def call(self, inputs: Any) -> Tensor:
        x = _float_input(inputs, self.compute_dtype)
        out = _nn.depthwise_conv2d(x, self.kernel, **self._conv_arguments())
        return self.activation(_add_bias(self, out, self.bias))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        channels = self._depthwise_shape(input_shape)[2] * self.depth_multiplier
        return _conv_output_shape(self, input_shape, channels)


class SeparableConv2D(_DepthwiseBase):
    """A depthwise convolution, then a 1x1 convolution into ``filters`` channels.

    ``activation(pointwise(depthwise(inputs)) + bias)``: the depthwise step
    filters each input channel with ``depth_multiplier`` filters (with the
    strides, padding and dilation), the pointwise step mixes the
    ``in_channels * depth_multiplier`` results.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a pair ``(kh, kw)``.
        strides: an int or a pair (default 1).
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: an int or a pair (default 1).
        depth_multiplier: the number of depthwise filters per input channel.
        activation: a name, a function, or None (linear).
        use_bias: add one bias per filter.
        depthwise_initializer: default "glorot_uniform".
        pointwise_initializer: default "glorot_uniform".
        bias_initializer: default "zeros".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for bad sizes or padding, an input that is not 4-D, or one
            whose channels differ from those the layer was built for.

    Example:
        >>> import numpy as np
        >>> layer = SeparableConv2D(16, 3, depth_multiplier=2)
        >>> layer(np.zeros((1, 8, 8, 4), np.float32)).shape, layer.count_params()
        (TensorShape([1, 6, 6, 16]), 216)
        >>> [(w.name, tuple(w.shape)) for w in layer.weights]
        [('depthwise_kernel', (3, 3, 4, 2)), ('pointwise_kernel', (1, 1, 8, 16)), ('bias', (16,))]
    """  # noqa: E501

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            kernel_size, strides, padding, depth_multiplier, data_format,
            dilation_rate, activation, use_bias, depthwise_initializer,
            bias_initializer, activity_regularizer=activity_regularizer, **kwargs,
        )  # fmt: skip
        _no_regularizers(
            "SeparableConv2D",
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint,
        )
        self.filters = _positive(filters, "filters")
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_kernel = None
        self.pointwise_kernel = None

    def build(self, input_shape: Any) -> None:
        shape = self._depthwise_shape(input_shape)
        self.compute_output_shape(input_shape)
        self.depthwise_kernel = self.add_weight(
            shape=shape, initializer=self.depthwise_initializer,
            name="depthwise_kernel",
        )  # fmt: skip
        self.pointwise_kernel = self.add_weight(
            shape=(1, 1, shape[2] * shape[3], self.filters),
            initializer=self.pointwise_initializer,
            name="pointwise_kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.filters,), initializer=self.bias_initializer, name="bias"
            )

    def _check_input_shape(self, shape: Any) -> None:
        _check_rank4(self, shape, "min_ndim")
        if self.depthwise_kernel is not None:
            _check_channels(self, shape, self.depthwise_kernel.shape[2])

    def call(self, inputs: Any) -> Tensor:
        x = _float_input(inputs, self.compute_dtype)
        out = _nn.separable_conv2d(
            x, self.depthwise_kernel, self.pointwise_kernel, **self._conv_arguments()
        )
        # the bias goes along the channel axis of either data format (Keras 3.15
        # adds it along the last axis for "channels_first", unlike its Conv2D)
        return self.activation(_add_bias(self, out, self.bias))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        self._depthwise_shape(input_shape)
        return _conv_output_shape(self, input_shape, self.filters)


SeparableConvolution2D = SeparableConv2D
