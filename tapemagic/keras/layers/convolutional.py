"""Conv2D and 2-D pooling on the engine's ``conv2d``, ``max_pool2d``, ``avg_pool2d``.

Images are ``(batch, height, width, channels)`` ("channels_last", the default)
or ``(batch, channels, height, width)`` ("channels_first"); kernels are
``(kh, kw, in_channels, filters)`` either way, as in Keras.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import nn as _nn
from ...engine.ops.math import add
from ...engine.ops.shape import reshape
from ...engine.tensor import Tensor
from .. import activations, initializers
from .core import _data_format, _float_input, _incompatible, _no_regularizers
from .layer import Layer

__all__ = [
    "AveragePooling2D",
    "AvgPool2D",
    "Conv2D",
    "Convolution2D",
    "MaxPool2D",
    "MaxPooling2D",
]


def _pair(value: Any, name: str, allow_zero: bool = False) -> tuple[int, int]:
    """An int or a pair of ints, as Keras' ``standardize_tuple``."""
    if isinstance(value, int) and not isinstance(value, bool):
        pair = (value, value)
    else:
        try:
            pair = tuple(int(v) for v in value)
        except TypeError:
            pair = ()
    smallest = 0 if allow_zero else 1
    if len(pair) != 2 or any(v < smallest for v in pair):
        raise ValueError(
            f"The `{name}` argument must be a tuple of 2 integers >= {smallest}, or "
            f"one such integer. Received: {name}={value!r}"
        )
    return pair


def _padding(value: Any) -> str:
    padding = str(value).lower()
    if padding not in ("valid", "same"):
        raise ValueError(
            "The `padding` argument must be one of 'valid', 'same'. Received: "
            f"padding={value!r}"
        )
    return padding


def _spatial_axes(data_format: str) -> tuple[int, int, int]:
    """Axes of (height, width, channels) in a 4-D input."""
    return (2, 3, 1) if data_format == "channels_first" else (1, 2, 3)


def _out_size(size: int | None, window: int, stride: int, padding: str) -> int | None:
    if size is None:
        return None
    if padding == "same":
        return (size - 1) // stride + 1
    return (size - window) // stride + 1


def _check_rank4(layer: Layer, shape: Any, spec: str = "ndim") -> None:
    """Raise unless ``shape`` is 4-D; ``spec`` is how Keras words the rule
    ("ndim" for pooling, "min_ndim" for a convolution given fewer axes)."""
    if isinstance(shape, tuple) and len(shape) != 4:
        spec = spec if len(shape) < 4 else "ndim"
        raise ValueError(
            f"{_incompatible(layer)}expected {spec}=4, found ndim={len(shape)}. "
            f"Full shape received: {shape}. Images must be (batch, height, width, "
            "channels); add a channel axis with x[..., None] or a batch axis with "
            "x[None]."
        )


def _check_channels(layer: Layer, shape: Any, expected: int) -> None:
    """Raise unless ``shape`` has the channels the layer was built for."""
    if not isinstance(shape, tuple):
        return
    # as Keras' InputSpec names it: -1 for channels_last, 1 for channels_first
    axis = 1 if layer.data_format == "channels_first" else -1
    if shape[axis] not in (None, expected):
        raise ValueError(
            f"{_incompatible(layer)}expected axis {axis} of input shape to have "
            f"value {expected}, but received input with shape {shape}"
        )


def _conv_output_shape(layer: Layer, input_shape: Any, channels: int) -> tuple:
    """The output shape of a convolution layer with ``channels`` output channels.

    The layer has ``kernel_size``, ``strides``, ``dilation_rate``, ``padding``
    and ``data_format``.
    """
    h_axis, w_axis, c_axis = _spatial_axes(layer.data_format)
    sizes = []
    for axis, k, s, d in zip(
        (h_axis, w_axis), layer.kernel_size, layer.strides, layer.dilation_rate
    ):
        size = _out_size(input_shape[axis], (k - 1) * d + 1, s, layer.padding)
        if size is not None and size <= 0:
            raise ValueError(
                f"Computed output size would be negative or zero for layer "
                f"{layer.name!r}: input shape {tuple(input_shape)}, kernel_size="
                f"{layer.kernel_size}, strides={layer.strides}, dilation_rate="
                f"{layer.dilation_rate}, padding={layer.padding!r}. Use a smaller "
                "kernel or padding='same'."
            )
        sizes.append(size)
    out = list(input_shape)
    out[h_axis], out[w_axis], out[c_axis] = sizes[0], sizes[1], channels
    return tuple(out)


def _add_bias(layer: Layer, out: Tensor, bias: Any) -> Tensor:
    """``out + bias``, the bias along the channel axis of ``data_format``."""
    if bias is None:
        return out
    if layer.data_format == "channels_first":
        return add(out, reshape(bias, (1, -1, 1, 1)))
    return add(out, bias)


def _positive_filters(filters: Any) -> int:
    if not isinstance(filters, int) or isinstance(filters, bool) or filters <= 0:
        raise ValueError(
            "Invalid value for argument `filters`. Expected a strictly positive "
            f"value. Received filters={filters!r}."
        )
    return filters


class Conv2D(Layer):
    """2-D convolution: ``activation(conv2d(inputs, kernel) + bias)``.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a pair ``(kh, kw)``.
        strides: an int or a pair (default 1).
        padding: "valid" (no padding) or "same" (output size ``ceil(in/stride)``).
        data_format: "channels_last" (default) or "channels_first".
        dilation_rate: an int or a pair (default 1).
        groups: must be 1.
        activation: a name, a function, or None (linear).
        use_bias: add one bias per filter.
        kernel_initializer: default "glorot_uniform".
        bias_initializer: default "zeros".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for bad sizes or padding, an input that is not 4-D, or one
            whose channels differ from those the layer was built for.

    Example:
        >>> import numpy as np
        >>> layer = Conv2D(8, 3)
        >>> layer(np.zeros((2, 28, 28, 1), np.float32)).shape, layer.count_params()
        (TensorShape([2, 26, 26, 8]), 80)
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
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
            "Conv2D",
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
        )
        filters = _positive_filters(filters)
        if groups != 1:
            raise NotImplementedError(
                f"Conv2D(groups={groups}) is not supported by tapemagic; use groups=1."
            )
        self.filters = filters
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.groups = groups
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel = None
        self.bias = None

    def build(self, input_shape: Any) -> None:
        channels = input_shape[_spatial_axes(self.data_format)[2]]
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
        _check_rank4(self, shape, "min_ndim")
        if self.kernel is not None:
            _check_channels(self, shape, self.kernel.shape[2])

    def call(self, inputs: Any) -> Tensor:
        fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
        x = _float_input(inputs, self.compute_dtype)
        out = _nn.conv2d(
            x,
            self.kernel,
            strides=self.strides,
            padding=self.padding.upper(),
            data_format=fmt,
            dilations=self.dilation_rate,
        )
        return self.activation(_add_bias(self, out, self.bias))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return _conv_output_shape(self, input_shape, self.filters)


Convolution2D = Conv2D


class _Pooling2D(Layer):
    _op: Any = None

    def __init__(
        self,
        pool_size: Any = (2, 2),
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)

    def _check_input_shape(self, shape: Any) -> None:
        _check_rank4(self, shape)

    def call(self, inputs: Any) -> Tensor:
        fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
        return type(self)._op(
            inputs, self.pool_size, self.strides, self.padding.upper(), data_format=fmt
        )

    def compute_output_shape(self, input_shape: Any) -> tuple:
        h_axis, w_axis, _ = _spatial_axes(self.data_format)
        out = list(input_shape)
        for axis, p, s in zip((h_axis, w_axis), self.pool_size, self.strides):
            size = _out_size(input_shape[axis], p, s, self.padding)
            if size is not None and size <= 0:
                raise ValueError(
                    f"Computed output size would be negative or zero for layer "
                    f"{self.name!r}: input shape {tuple(input_shape)}, pool_size="
                    f"{self.pool_size}. Use a smaller pool or padding='same'."
                )
            out[axis] = size
        return tuple(out)


class MaxPooling2D(_Pooling2D):
    """The maximum of each ``pool_size`` window, moved by ``strides``.

    Args:
        pool_size: an int or a pair (default 2).
        strides: an int or a pair (default: ``pool_size``).
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        **kwargs: base layer arguments.

    Example:
        >>> import numpy as np
        >>> x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
        >>> MaxPooling2D()(x).numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
    """

    _op = staticmethod(_nn.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """The mean of each ``pool_size`` window, moved by ``strides``.

    With "same" padding the padded positions are left out of the mean.

    Args:
        pool_size: an int or a pair (default 2).
        strides: an int or a pair (default: ``pool_size``).
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        **kwargs: base layer arguments.

    Example:
        >>> import numpy as np
        >>> x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
        >>> AveragePooling2D()(x).numpy()[0, :, :, 0]
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
    """

    _op = staticmethod(_nn.avg_pool2d)


MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
