"""LayerNormalization and GroupNormalization, as Keras 3 computes them.

Both normalize each example on its own (no moving statistics): the mean and
variance come from ``tf.nn.moments`` (the variance around a stopped mean, as
TensorFlow composes it, so second derivatives are TensorFlow's too), then
``x * inv + (beta - mean * inv)`` with ``inv = gamma * rsqrt(variance +
epsilon)``, Keras' own arrangement of the arithmetic.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import math as _math
from ...engine.ops import nn as _nn
from ...engine.ops import shape as _shape
from ...engine.tensor import Tensor, convert_to_tensor
from .core import _no_regularizers
from .layer import Layer
from .serialization import initializer_from, serialize_initializer

__all__ = ["GroupNormalization", "LayerNormalization"]


def _normalized(
    x: Tensor, axes: list[int], gamma: Any, beta: Any, epsilon: float
) -> Tensor:
    """``(x - mean) / sqrt(variance + epsilon) * gamma + beta`` over ``axes``,
    arranged as Keras 3's ``ops.layer_normalization``."""
    mean, variance = _nn.moments(x, axes=axes, keepdims=True)
    inv = _math.rsqrt(variance + epsilon)
    if gamma is not None:
        inv = inv * gamma
    res = -mean * inv
    if beta is not None:
        res = res + beta
    return x * inv + res


def _check_axes(axes: list[int], input_shape: Any, axis: Any) -> None:
    for a in axes:
        if a >= len(input_shape) or a < -len(input_shape):
            raise ValueError(
                f"Axis {a} is out of bounds for input shape {tuple(input_shape)}. "
                f"Received: axis={axis}"
            )


def _weights_config(layer: Layer) -> dict:
    return {
        "beta_initializer": serialize_initializer(layer.beta_initializer),
        "gamma_initializer": serialize_initializer(layer.gamma_initializer),
        "beta_regularizer": None,
        "gamma_regularizer": None,
        "beta_constraint": None,
        "gamma_constraint": None,
    }


class LayerNormalization(Layer):
    """Normalize each example over ``axis`` to mean 0 and variance 1, then scale
    by ``gamma`` and shift by ``beta`` (learned, of the normalized axes' shape).

    Args:
        axis: an int or a list of ints (default -1, the features).
        epsilon: added to the variance (default 1e-3).
        center: learn ``beta``.
        scale: learn ``gamma``.
        beta_initializer: default "zeros".
        gamma_initializer: default "ones".
        **kwargs: base layer arguments.

    Raises:
        TypeError: if ``axis`` is not an int or a list of ints.
        ValueError: if an axis is out of the input's range.

    Example:
        >>> import numpy as np
        >>> LayerNormalization(epsilon=0.0)(np.array([[1.0, 3.0]], np.float32)).numpy()
        array([[-1.,  1.]], dtype=float32)
    """

    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        if kwargs.pop("rms_scaling", False):
            raise NotImplementedError(
                "LayerNormalization(rms_scaling=True) is deprecated in Keras 3 and "
                "not supported by tapemagic; leave it False."
            )
        super().__init__(**kwargs)
        _no_regularizers(
            "LayerNormalization",
            beta_regularizer=beta_regularizer,
            gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint,
            gamma_constraint=gamma_constraint,
        )
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = axis
        else:
            raise TypeError(
                "Expected an int or a list/tuple of ints for the argument 'axis', "
                f"but received: {axis!r}"
            )
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializer_from(beta_initializer)
        self.gamma_initializer = initializer_from(gamma_initializer)
        self.supports_masking = True
        self.gamma = None
        self.beta = None

    def _axes(self) -> list[int]:
        return sorted(self.axis) if isinstance(self.axis, list) else [self.axis]

    def build(self, input_shape: Any) -> None:
        axes = self._axes()
        try:
            _check_axes(axes, input_shape, self.axis)
        except ValueError as e:
            # Keras 3 fails here on indexing the shape: TensorFlow's IndexError
            raise IndexError(f"tuple index out of range: {e}") from None
        shape = tuple(input_shape[a] for a in axes)
        # as Keras: the axis becomes a sorted list once built
        self.axis = axes
        if self.scale:
            self.gamma = self.add_weight(
                shape=shape, initializer=self.gamma_initializer, name="gamma"
            )
        if self.center:
            self.beta = self.add_weight(
                shape=shape, initializer=self.beta_initializer, name="beta"
            )

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        axes = [a % x.ndim for a in self._axes()]
        # gamma and beta broadcast as the normalized axes' shape, in place
        shape = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]
        gamma, beta = self.gamma, self.beta
        if axes != [x.ndim - 1]:
            gamma = None if gamma is None else _shape.reshape(gamma, shape)
            beta = None if beta is None else _shape.reshape(beta, shape)
        return _normalized(x, axes, gamma, beta, self.epsilon)

    def compute_output_shape(self, input_shape: Any) -> Any:
        _check_axes(self._axes(), input_shape, self.axis)
        return input_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": False,
            **_weights_config(self),
        }


class GroupNormalization(Layer):
    """Normalize each example over groups of channels (and all other axes but the
    batch): ``groups=1`` is a layer norm over everything, ``groups=-1`` (one
    channel per group) an instance norm.

    Args:
        groups: the number of groups, dividing the channels (default 32), or -1.
        axis: the channel axis (default -1).
        epsilon: added to the variance (default 1e-3).
        center: learn ``beta``, one per channel.
        scale: learn ``gamma``, one per channel.
        beta_initializer: default "zeros".
        gamma_initializer: default "ones".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a ``groups`` that is not a positive int or -1, or (when
            built) one that does not divide the channels.

    Example:
        >>> import numpy as np
        >>> layer = GroupNormalization(groups=2, epsilon=0.0)
        >>> layer(np.array([[1.0, 3.0, 5.0, 9.0]], np.float32)).numpy()
        array([[-1.,  1., -1.,  1.]], dtype=float32)
    """

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError(
                "Received an invalid value for argument `groups`, expected a "
                "positive integer (or `-1` for instance normalization). Received: "
                f"groups={groups}"
            )
        super().__init__(**kwargs)
        _no_regularizers(
            "GroupNormalization",
            beta_regularizer=beta_regularizer,
            gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint,
            gamma_constraint=gamma_constraint,
        )
        self.supports_masking = True
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializer_from(beta_initializer)
        self.gamma_initializer = initializer_from(gamma_initializer)
        self.gamma = None
        self.beta = None

    def build(self, input_shape: Any) -> None:
        _check_axes([self.axis], input_shape, self.axis)
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension "
                f"but the layer received an input with shape {tuple(input_shape)}."
            )
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number "
                f"of channels ({dim})."
            )
        if dim % self.groups != 0:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number "
                f"of channels ({dim})."
            )
        self.__dict__["_built_ndim"] = len(input_shape)
        if self.scale:
            self.gamma = self.add_weight(
                shape=(dim,), initializer=self.gamma_initializer, name="gamma"
            )
        if self.center:
            self.beta = self.add_weight(
                shape=(dim,), initializer=self.beta_initializer, name="beta"
            )

    def _check_input_shape(self, shape: Any) -> None:
        ndim = self.__dict__.get("_built_ndim")
        if ndim is None or not isinstance(shape, tuple):
            return
        if len(shape) != ndim:
            raise ValueError(
                f"Input 0 of layer '{self.name}' is incompatible with the layer: "
                f"expected ndim={ndim}, found ndim={len(shape)}. Full shape "
                f"received: {shape}"
            )
        channels = self.gamma if self.gamma is not None else self.beta
        if channels is not None and shape[self.axis] not in (None, channels.shape[0]):
            raise ValueError(
                f"Input 0 of layer '{self.name}' is incompatible with the layer: "
                f"expected axis {self.axis} of input shape to have value "
                f"{channels.shape[0]}, but received input with shape {shape}"
            )

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        ndim = x.ndim
        axis = self.axis % ndim
        # (..., channels, ...) -> (..., groups, channels // groups, ...)
        grouped_shape = list(x.shape)
        grouped_shape[0] = -1
        grouped_shape[axis] = x.shape[axis] // self.groups
        grouped_shape.insert(axis, self.groups)
        grouped = _shape.reshape(x, grouped_shape)
        # every axis but the batch and the group axis
        axes = [a for a in range(1, ndim + 1) if a != axis]
        broadcast = [1] * (ndim + 1)
        broadcast[axis], broadcast[axis + 1] = self.groups, grouped_shape[axis + 1]
        gamma = None if self.gamma is None else _shape.reshape(self.gamma, broadcast)
        beta = None if self.beta is None else _shape.reshape(self.beta, broadcast)
        out = _normalized(grouped, axes, gamma, beta, self.epsilon)
        return _shape.reshape(out, x.shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        _check_axes([self.axis], input_shape, self.axis)
        return input_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **_weights_config(self),
        }
