"""The activation layers with parameters: LeakyReLU, ELU and PReLU (a learned
slope), as Keras 3 defines them. ``ReLU`` and ``Softmax`` are in ``core``."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine.ops import nn as _nn
from ...engine.tensor import Tensor, convert_to_tensor
from .. import activations
from .core import _no_regularizers
from .layer import Layer
from .serialization import initializer_from, serialize_initializer

__all__ = ["ELU", "LeakyReLU", "PReLU"]


class LeakyReLU(Layer):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    Args:
        negative_slope: the slope below 0, a float >= 0 (default 0.3, as in
            Keras' layer; the function ``leaky_relu`` defaults to 0.2).
        **kwargs: base layer arguments; ``alpha`` is the old name of
            ``negative_slope`` (with Keras' deprecation warning).

    Raises:
        ValueError: if ``negative_slope`` is None or negative.

    Example:
        >>> import numpy as np
        >>> LeakyReLU()(np.array([[-1.0, 2.0]], np.float32)).numpy()
        array([[-0.3,  2. ]], dtype=float32)
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn(
                "Argument `alpha` is deprecated. Use `negative_slope` instead.",
                stacklevel=2,
            )
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or "
                "negative value. Expected a float. Received: "
                f"negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(Layer):
    """Exponential linear unit: ``x`` if ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Args:
        alpha: the scale of the negative part (default 1.0).
        **kwargs: base layer arguments.

    Example:
        >>> import numpy as np
        >>> ELU()(np.array([[0.0, 1.0]], np.float32)).numpy()
        array([[0., 1.]], dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        return activations.elu(inputs, alpha=self.alpha)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class PReLU(Layer):
    """Leaky ReLU with a learned slope: ``relu(x) - alpha * relu(-x)``.

    ``alpha`` has the shape of one example, with size 1 along ``shared_axes``
    (``shared_axes=[1, 2]`` learns one slope per channel of an image).

    Args:
        alpha_initializer: default "zeros" (a plain ReLU to start with).
        alpha_regularizer: not supported (must be None).
        alpha_constraint: not supported (must be None).
        shared_axes: an axis or a list of axes (1 is the first after the batch
            axis) along which the slope is shared.
        **kwargs: base layer arguments.

    Raises:
        ValueError: when called on an input of another rank, or another size
            along an axis that is not shared, than it was built for.

    Example:
        >>> import numpy as np
        >>> layer = PReLU(shared_axes=[1, 2])
        >>> layer(np.zeros((2, 5, 5, 3), np.float32)).shape, layer.alpha.shape
        (TensorShape([2, 5, 5, 3]), TensorShape([1, 1, 3]))
    """

    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _no_regularizers(
            "PReLU", alpha_regularizer=alpha_regularizer,
            alpha_constraint=alpha_constraint,
        )  # fmt: skip
        self.supports_masking = True
        self.alpha_initializer = initializer_from(alpha_initializer)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)
        self.alpha = None

    def build(self, input_shape: Any) -> None:
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        if None in param_shape:
            raise ValueError(
                f"PReLU {self.name!r} needs every axis of its input but the batch "
                f"axis to be known, or shared: input shape {tuple(input_shape)}. "
                "Pass shared_axes= for the axes of unknown size."
            )
        self.alpha = self.add_weight(
            shape=param_shape, initializer=self.alpha_initializer, name="alpha"
        )

    def _check_input_shape(self, shape: Any) -> None:
        if self.alpha is None or not isinstance(shape, tuple):
            return
        want = len(self.alpha.shape) + 1
        if len(shape) != want:
            raise ValueError(
                f"Input 0 of layer '{self.name}' is incompatible with the layer: "
                f"expected ndim={want}, found ndim={len(shape)}. Full shape "
                f"received: {shape}"
            )
        for axis, size in enumerate(self.alpha.shape, start=1):
            shared = axis in (self.shared_axes or ())
            if not shared and shape[axis] not in (None, size):
                raise ValueError(
                    f"Input 0 of layer '{self.name}' is incompatible with the "
                    f"layer: expected axis {axis} of input shape to have value "
                    f"{size}, but received input with shape {shape}"
                )

    def call(self, inputs: Any) -> Tensor:
        # composed as Keras composes it, so the gradients are relu's
        x = convert_to_tensor(inputs)
        return _nn.relu(x) - self.alpha * _nn.relu(-x)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "alpha_initializer": serialize_initializer(self.alpha_initializer),
            "alpha_regularizer": None,
            "alpha_constraint": None,
            "shared_axes": self.shared_axes,
        }
