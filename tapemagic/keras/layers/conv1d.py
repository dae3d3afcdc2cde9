"""``Conv1D``: the engine's ``conv2d`` on sequences seen as images one row high.

A sequence ``(batch, steps, channels)`` becomes ``(batch, 1, steps, channels)``
and the kernel ``(k, in, filters)`` becomes ``(1, k, in, filters)``, so the
gradients with respect to the input and the kernel, of any order, are
``conv2d``'s (its backprop ops); no primitive of its own is needed.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import nn as _nn
from ...engine.ops import shape as _shape
from ...engine.ops.math import add
from ...engine.tensor import Tensor
from .. import activations
from .convolutional import _out_size, _positive_filters
from .core import _data_format, _float_input, _incompatible, _no_regularizers
from .layer import Layer
from .pooling import as_image, from_image
from .reshaping import check_ndim, standardize_tuple
from .serialization import initializer_from, serialize_initializer

__all__ = ["Conv1D", "Convolution1D", "conv_config"]


def conv_config(layer: Layer) -> dict:
    """What Keras 3's convolution layers share in their configs."""
    return {
        "filters": layer.filters,
        "kernel_size": layer.kernel_size,
        "strides": layer.strides,
        "padding": layer.padding,
        "data_format": layer.data_format,
        "dilation_rate": layer.dilation_rate,
    }


def conv_weights_config(layer: Layer) -> dict:
    """The activation, bias and weight arguments of a convolution's config."""
    return {
        "activation": activations.serialize(layer.activation),
        "use_bias": layer.use_bias,
        "kernel_initializer": serialize_initializer(layer.kernel_initializer),
        "bias_initializer": serialize_initializer(layer.bias_initializer),
        "kernel_regularizer": None,
        "bias_regularizer": None,
        "activity_regularizer": None,
        "kernel_constraint": None,
        "bias_constraint": None,
    }


class Conv1D(Layer):
    """1-D convolution over steps: ``activation(conv1d(inputs, kernel) + bias)``.

    Args:
        filters: the number of output channels.
        kernel_size: an int (or a 1-tuple): the window length.
        strides: an int (default 1).
        padding: "valid", "same" or "causal" (zeros before the first step only,
            so ``output[t]`` never depends on ``input[t + 1:]``).
        data_format: "channels_last" (default, ``(batch, steps, channels)``) or
            "channels_first".
        dilation_rate: an int (default 1).
        groups: must be 1.
        activation: a name, a function, or None (linear).
        use_bias: add one bias per filter.
        kernel_initializer: default "glorot_uniform".
        bias_initializer: default "zeros".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for bad sizes or padding, an input that is not 3-D, or one
            whose channels differ from those the layer was built for.

    Example:
        >>> import numpy as np
        >>> layer = Conv1D(4, 3, padding="causal")
        >>> layer(np.zeros((2, 10, 3), np.float32)).shape
        TensorShape([2, 10, 4])
        >>> [(w.name, tuple(w.shape)) for w in layer.weights]
        [('kernel', (3, 3, 4)), ('bias', (4,))]
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        groups: int = 1,
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
            "Conv1D",
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
        )
        self.filters = _positive_filters(filters)
        if groups != 1:
            raise NotImplementedError(
                f"Conv1D(groups={groups}) is not supported by tapemagic; use groups=1."
            )
        self.kernel_size = standardize_tuple(kernel_size, 1, "kernel_size")
        self.strides = standardize_tuple(strides, 1, "strides")
        self.dilation_rate = standardize_tuple(dilation_rate, 1, "dilation_rate")
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same", "causal"):
            raise ValueError(
                "The `padding` argument must be a list/tuple or one of {'valid', "
                f"'same', 'causal'}}. Received: {padding}"
            )
        self.data_format = _data_format(data_format)
        self.groups = groups
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializer_from(kernel_initializer)
        self.bias_initializer = initializer_from(bias_initializer)
        self.kernel = None
        self.bias = None

    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape: Any) -> None:
        channels = input_shape[self._channel_axis()]
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(
            shape=self.kernel_size + (channels, self.filters),
            initializer=self.kernel_initializer,
            name="kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.filters,), initializer=self.bias_initializer, name="bias"
            )

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 3, "sequences, (batch, steps, channels)")
        if self.kernel is None or not isinstance(shape, tuple):
            return
        axis = self._channel_axis()
        if shape[axis] not in (None, self.kernel.shape[1]):
            raise ValueError(
                f"{_incompatible(self)}expected axis {axis} of input shape to have "
                f"value {self.kernel.shape[1]}, but received input with shape {shape}"
            )

    def call(self, inputs: Any) -> Tensor:
        x = _float_input(inputs, self.compute_dtype)
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            paddings = [[0, 0], [0, 0], [0, 0]]
            paddings[2 if self.data_format == "channels_first" else 1] = [left, 0]
            x = _shape.pad(x, paddings)
            padding = "valid"
        image, fmt = as_image(x, self.data_format)
        out = _nn.conv2d(
            image,
            _shape.expand_dims(self.kernel, 0),
            strides=(1, self.strides[0]),
            padding=padding.upper(),
            data_format=fmt,
            dilations=(1, self.dilation_rate[0]),
        )
        out = from_image(out, self.data_format)
        if self.bias is not None:
            bias = self.bias
            if self.data_format == "channels_first":
                bias = _shape.reshape(bias, (1, -1, 1))
            out = add(out, bias)
        return self.activation(out)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        axis = 2 if self.data_format == "channels_first" else 1
        window = (self.kernel_size[0] - 1) * self.dilation_rate[0] + 1
        padding = "same" if self.padding == "causal" else self.padding
        steps = input_shape[axis]
        if self.padding == "causal" and steps is not None:
            # the left padding makes a "valid" window fit at every step
            steps = (steps - 1) // self.strides[0] + 1
        else:
            steps = _out_size(steps, window, self.strides[0], padding)
        if steps is not None and steps <= 0:
            raise ValueError(
                f"Computed output size would be negative or zero for layer "
                f"{self.name!r}: input shape {tuple(input_shape)}, kernel_size="
                f"{self.kernel_size}, strides={self.strides}, dilation_rate="
                f"{self.dilation_rate}, padding={self.padding!r}. Use a smaller "
                "kernel or padding='same'."
            )
        out = list(input_shape)
        out[axis] = steps
        out[1 if self.data_format == "channels_first" else 2] = self.filters
        return tuple(out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            **conv_config(self),
            "groups": self.groups,
            **conv_weights_config(self),
        }


Convolution1D = Conv1D
