"""1-D pooling and global pooling, as Keras 3 defines them.

``MaxPooling1D`` and ``AveragePooling1D`` are the engine's 2-D pooling ops on
sequences seen as images one row high, so their gradients (of any order) are
those ops'; the global poolings are ``reduce_max`` and ``reduce_mean`` (or a
masked mean) over the steps or the pixels.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import nn as _nn
from ...engine.ops import reduce as _reduce
from ...engine.ops import shape as _shape
from ...engine.ops.math import cast
from ...engine.tensor import Tensor, convert_to_tensor
from .convolutional import _out_size, _padding
from .core import _data_format
from .layer import Layer
from .reshaping import check_ndim, standardize_tuple

__all__ = [
    "AveragePooling1D",
    "AvgPool1D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "MaxPool1D",
    "MaxPooling1D",
]


def as_image(x: Tensor, data_format: str) -> tuple[Tensor, str]:
    """A sequence as an image one row high, and the engine's data format."""
    if data_format == "channels_first":
        return _shape.expand_dims(x, 2), "NCHW"
    return _shape.expand_dims(x, 1), "NHWC"


def from_image(x: Tensor, data_format: str) -> Tensor:
    """The sequence back from ``as_image``'s one-row image."""
    return _shape.squeeze(x, [2 if data_format == "channels_first" else 1])


class _Pooling1D(Layer):
    _op: Any = None

    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.pool_size = standardize_tuple(pool_size, 1, "pool_size")
        strides = pool_size if strides is None else strides
        self.strides = standardize_tuple(strides, 1, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format)

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 3, "sequences, (batch, steps, features)")

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        self.compute_output_shape(tuple(x.shape))
        image, fmt = as_image(x, self.data_format)
        out = type(self)._op(
            image, (1, self.pool_size[0]), (1, self.strides[0]),
            self.padding.upper(), data_format=fmt,
        )  # fmt: skip
        return from_image(out, self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        axis = 2 if self.data_format == "channels_first" else 1
        out = list(input_shape)
        size = _out_size(out[axis], self.pool_size[0], self.strides[0], self.padding)
        if size is not None and size <= 0:
            raise ValueError(
                f"Computed output size would be negative or zero for layer "
                f"{self.name!r}: input shape {tuple(input_shape)}, pool_size="
                f"{self.pool_size}. Use a smaller pool or padding='same'."
            )
        out[axis] = size
        return tuple(out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling1D(_Pooling1D):
    """The maximum of each ``pool_size`` window of steps, moved by ``strides``.

    Args:
        pool_size: an int (default 2).
        strides: an int (default: ``pool_size``).
        padding: "valid" or "same".
        data_format: "channels_last" (default, ``(batch, steps, features)``) or
            "channels_first".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a bad size or padding, or an input that is not 3-D.

    Example:
        >>> import numpy as np
        >>> x = np.array([1.0, 3.0, 2.0, 5.0, 4.0], np.float32).reshape(1, 5, 1)
        >>> MaxPooling1D()(x).numpy()[0, :, 0]
        array([3., 5.], dtype=float32)
    """

    _op = staticmethod(_nn.max_pool2d)


class AveragePooling1D(_Pooling1D):
    """The mean of each ``pool_size`` window of steps, moved by ``strides``.

    With "same" padding the padded positions are left out of the mean.

    Args:
        pool_size: an int (required, as in Keras 3; ``MaxPooling1D`` defaults
            to 2).
        strides: an int (default: ``pool_size``).
        padding: "valid" or "same".
        data_format: "channels_last" (default) or "channels_first".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a bad size or padding, or an input that is not 3-D.

    Example:
        >>> import numpy as np
        >>> x = np.array([1.0, 3.0, 2.0, 5.0, 4.0], np.float32).reshape(1, 5, 1)
        >>> AveragePooling1D(2, padding="same")(x).numpy()[0, :, 0]
        array([2. , 3.5, 4. ], dtype=float32)
    """

    _op = staticmethod(_nn.avg_pool2d)

    def __init__(
        self,
        pool_size: Any,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D


class _GlobalPooling(Layer):
    _rank = 1

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.keepdims = keepdims
        self.built = True

    def _spatial_axes(self) -> list[int]:
        first = 2 if self.data_format == "channels_first" else 1
        return list(range(first, first + self._rank))

    def _check_input_shape(self, shape: Any) -> None:
        what = "sequences, (batch, steps, features)" if self._rank == 1 else (
            "images, (batch, height, width, channels)"
        )  # fmt: skip
        check_ndim(self, shape, self._rank + 2, what)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        if self.data_format == "channels_last":
            channels = (input_shape[-1],)
            return (
                (input_shape[0],) + (1,) * self._rank + channels
                if self.keepdims
                else (input_shape[0],) + channels
            )
        ones = (1,) * self._rank if self.keepdims else ()
        return (input_shape[0], input_shape[1]) + ones

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "data_format": self.data_format,
            "keepdims": self.keepdims,
        }


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps: ``(batch, steps, f)`` -> ``(batch, f)``.

    With a ``mask`` (``(batch, steps)``, True where a step counts), the mean is
    over the unmasked steps only.

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the steps axis, with size 1.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for an input that is not 3-D.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0], [2.0], [6.0]]], np.float32)
        >>> GlobalAveragePooling1D()(x).numpy()
        array([[3.]], dtype=float32)
        >>> mask = np.array([[True, True, False]])
        >>> GlobalAveragePooling1D()(x, mask=mask).numpy()
        array([[1.5]], dtype=float32)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Tensor:
        x = convert_to_tensor(inputs)
        axis = self._spatial_axes()
        if mask is None:
            return _reduce.reduce_mean(x, axis=axis, keepdims=self.keepdims)
        # as Keras: the masked steps' values leave the sum, their count the divisor
        channel_axis = 1 if self.data_format == "channels_first" else 2
        weights = _shape.expand_dims(cast(mask, x.dtype), channel_axis)
        total = _reduce.reduce_sum(x * weights, axis=axis, keepdims=self.keepdims)
        count = _reduce.reduce_sum(weights, axis=axis, keepdims=self.keepdims)
        return total / count

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        """None: the steps the mask was about are gone."""
        return None


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps: ``(batch, steps, f)`` -> ``(batch, f)``.

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the steps axis, with size 1.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for an input that is not 3-D.

    Example:
        >>> import numpy as np
        >>> GlobalMaxPooling1D()(np.array([[[1.0], [6.0], [2.0]]], np.float32)).numpy()
        array([[6.]], dtype=float32)
    """

    def call(self, inputs: Any) -> Tensor:
        return _reduce.reduce_max(
            inputs, axis=self._spatial_axes(), keepdims=self.keepdims
        )


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over the pixels: ``(batch, h, w, c)`` -> ``(batch, c)``.

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the two spatial axes, with size 1.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for an input that is not 4-D.

    Example:
        >>> import numpy as np
        >>> x = np.arange(8.0, dtype=np.float32).reshape(1, 2, 2, 2)
        >>> GlobalAveragePooling2D()(x).numpy()
        array([[3., 4.]], dtype=float32)
    """

    _rank = 2

    def call(self, inputs: Any) -> Tensor:
        return _reduce.reduce_mean(
            inputs, axis=self._spatial_axes(), keepdims=self.keepdims
        )


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over the pixels: ``(batch, h, w, c)`` -> ``(batch, c)``.

    Args:
        data_format: "channels_last" (default) or "channels_first".
        keepdims: keep the two spatial axes, with size 1.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for an input that is not 4-D.

    Example:
        >>> import numpy as np
        >>> x = np.arange(8.0, dtype=np.float32).reshape(1, 2, 2, 2)
        >>> GlobalMaxPooling2D(keepdims=True)(x).shape
        TensorShape([1, 1, 1, 2])
    """

    _rank = 2

    def call(self, inputs: Any) -> Tensor:
        return _reduce.reduce_max(
            inputs, axis=self._spatial_axes(), keepdims=self.keepdims
        )


GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
