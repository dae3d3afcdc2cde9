"""Dense, Flatten, Dropout and the activation layers, as Keras 3 defines them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...engine.ops.creation import random_uniform
from ...engine.ops.linalg import matmul
from ...engine.ops.math import add, cast, multiply
from ...engine.ops.shape import reshape
from ...engine.tensor import Tensor, array_of, convert_to_tensor
from .. import activations, initializers
from .layer import Layer

__all__ = ["Activation", "Dense", "Dropout", "Flatten", "ReLU", "Softmax"]


def _no_regularizers(layer_name: str, **options: Any) -> None:
    given = {k: v for k, v in options.items() if v is not None}
    if given:
        raise NotImplementedError(
            f"{layer_name}({', '.join(f'{k}=...' for k in given)}) is not supported by "
            "tapemagic's layers. Add a penalty to the loss in your train step, or "
            "clip the weights after each step with w.assign(...)."
        )


def _incompatible(layer: Layer) -> str:
    """How Keras 3 starts the message for an input that does not fit a layer."""
    return (
        f"Input 0 with name 'None' of layer '{layer.name}' is incompatible with the "
        "layer: "
    )


def _float_input(x: Any, dtype: str) -> Tensor:
    # Keras' ops promote integer inputs (e.g. uint8 pixels) to the layer's dtype.
    x = convert_to_tensor(x)
    if array_of(x).dtype.kind != "f":
        x = cast(x, dtype)
    return x


class Dense(Layer):
    """A fully connected layer: ``activation(inputs @ kernel + bias)``.

    The kernel has shape ``(input_dim, units)`` and is created on the first call,
    from the last axis of the input.

    Args:
        units: the output size, a positive int.
        activation: a name ("relu", "softmax", ...), a function, or None (linear).
        use_bias: add a bias vector.
        kernel_initializer: default "glorot_uniform".
        bias_initializer: default "zeros".
        **kwargs: base layer arguments (name, dtype, trainable, input_shape).

    Raises:
        ValueError: if ``units`` is not a positive int, or (when called) the input
            has rank < 2 or a last axis other than the one it was built for.

    Example:
        >>> layer = Dense(10)
        >>> layer(np.zeros((2, 784), np.float32)).shape, layer.count_params()
        (TensorShape([2, 10]), 7850)
    """

    def __init__(
        self,
        units: int,
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
            "Dense",
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
        )
        if (
            not isinstance(units, (int, np.integer))
            or isinstance(units, bool)
            or (units <= 0)
        ):
            raise ValueError(
                "Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units!r}"
            )
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel = None
        self.bias = None
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(input_dim, self.units),
            initializer=self.kernel_initializer,
            name="kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,), initializer=self.bias_initializer, name="bias"
            )

    def _check_input_shape(self, shape: Any) -> None:
        if not isinstance(shape, tuple):
            return
        if len(shape) < 2:
            raise ValueError(
                f"{_incompatible(self)}expected min_ndim=2, found ndim={len(shape)}. "
                "Full shape received: "
                f"{shape}. Add a batch axis, e.g. x[None, :] or tf.expand_dims(x, 0)."
            )
        if self.kernel is not None and shape[-1] not in (None, self.kernel.shape[0]):
            raise ValueError(
                f"{_incompatible(self)}expected axis -1 of input shape to have value "
                f"{self.kernel.shape[0]}, but received input with shape {shape}"
            )

    def call(self, inputs: Any, training: Any = None) -> Tensor:
        x = matmul(_float_input(inputs, self.compute_dtype), self.kernel)
        if self.bias is not None:
            x = add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape[:-1]) + (self.units,)


class Flatten(Layer):
    """Flatten every axis but the batch axis: ``(N, 28, 28, 1)`` -> ``(N, 784)``.

    Example:
        >>> Flatten()(np.zeros((2, 3, 4), np.float32)).shape
        TensorShape([2, 12])
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        if self.data_format == "channels_first" and x.ndim > 2:
            from ...engine.ops.shape import transpose

            x = transpose(x, (0,) + tuple(range(2, x.ndim)) + (1,))
        return reshape(x, (x.shape[0], _flat_size(tuple(x.shape))))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], _flat_size(tuple(input_shape)))


def _flat_size(shape: tuple) -> int | None:
    rest = shape[1:]
    if not rest:
        return 1
    if any(d is None for d in rest):
        return None
    return math.prod(rest)


def _data_format(value: str | None) -> str:
    value = "channels_last" if value is None else str(value).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', "
            f"'channels_last'}}. Received: data_format={value!r}"
        )
    return value


class Dropout(Layer):
    """Zero inputs with probability ``rate`` while training; scale the rest up.

    Kept values are multiplied by ``1 / (1 - rate)`` so the expected sum is
    unchanged. Only a call with ``training=True`` (given directly or by an outer
    model call) drops anything; otherwise the input comes back as it is.

    Args:
        rate: the drop probability, a float in [0, 1].
        noise_shape: the shape of the mask, broadcast to the input (None entries
            take the input's size), e.g. ``(None, 1, 1, C)`` for whole channels.
        seed: an int makes the sequence of masks repeatable; without it masks come
            from the global random state (``tf.random.set_seed``).
        **kwargs: base layer arguments.

    Raises:
        ValueError: if ``rate`` is not in [0, 1].

    Example:
        >>> layer = Dropout(0.5, seed=0)
        >>> x = np.ones((1, 6), np.float32)
        >>> bool((layer(x).numpy() == 1).all())  # not training: unchanged
        True
        >>> sorted(set(layer(x, training=True).numpy().ravel().tolist()))
        [0.0, 2.0]
    """

    def __init__(
        self,
        rate: float,
        noise_shape: Any = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        if (
            isinstance(rate, bool)
            or not isinstance(rate, (int, float))
            or not (0 <= rate <= 1)
        ):
            raise ValueError(
                "Invalid value received for argument `rate`. Expected a float value "
                f"between 0 and 1. Received: rate={rate!r}"
            )
        self.rate = rate
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self._rng = None if seed is None else np.random.default_rng(seed)

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training and self.rate > 0:
            return self._drop(convert_to_tensor(inputs))
        return inputs

    def _drop(self, x: Tensor) -> Tensor:
        if self.rate >= 1:
            raise ValueError(
                f"Dropout {self.name!r} has rate={self.rate}: it would drop every "
                "value and divide by 1 - rate = 0. Use a rate below 1."
            )
        shape = tuple(x.shape)
        if self.noise_shape is not None:
            shape = tuple(
                full if d is None else int(d)
                for d, full in zip(self.noise_shape, shape)
            )
        np_dtype = np.dtype(x.dtype.as_numpy_dtype)
        if self._rng is None:
            draws = array_of(random_uniform(shape, dtype=x.dtype))
        else:
            draws = self._rng.random(shape).astype(np_dtype)
        keep = (draws >= self.rate).astype(np_dtype)
        # x * scale * keep, composed as tf.nn.dropout composes it
        scale = np.asarray(1.0 / (1.0 - self.rate), np_dtype)
        return multiply(multiply(x, scale), Tensor(keep))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class Activation(Layer):
    """Apply an activation function: ``Activation("relu")``.

    Example:
        >>> Activation("relu")(np.array([[-1.0, 2.0]], np.float32)).numpy()
        array([[0., 2.]], dtype=float32)
    """

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class ReLU(Layer):
    """Rectified linear unit, optionally capped, leaky or shifted.

    Args:
        max_value: the largest output (None: no cap), >= 0.
        negative_slope: the slope below the threshold, >= 0.
        threshold: values at or below it are zeroed (or sloped), >= 0.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a negative or None argument where a number is required.

    Example:
        >>> ReLU(max_value=1.0)(np.array([[-1.0, 0.5, 3.0]], np.float32)).numpy()
        array([[0. , 0.5, 1. ]], dtype=float32)
    """

    def __init__(
        self,
        max_value: float | None = None,
        negative_slope: float = 0.0,
        threshold: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        if max_value is not None and max_value < 0.0:
            raise ValueError(
                "max_value of a ReLU layer cannot be a negative value. Received: "
                f"max_value={max_value}"
            )
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(
                "The negative_slope value of a ReLU layer cannot be None or a "
                f"negative value. Received: negative_slope={negative_slope}"
            )
        if threshold is None or threshold < 0.0:
            raise ValueError(
                "threshold of a ReLU layer cannot be None or a negative value. "
                f"Received: threshold={threshold}"
            )
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs: Any) -> Tensor:
        return activations.relu(
            inputs,
            negative_slope=self.negative_slope,
            max_value=self.max_value,
            threshold=self.threshold,
        )

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class Softmax(Layer):
    """Softmax along ``axis``; masked-out positions (``mask`` False) get 0.

    Example:
        >>> Softmax()(np.array([[1.0, 1.0]], np.float32)).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Tensor:
        x = convert_to_tensor(inputs)
        if mask is not None:
            # a large negative number where masked: exp() of it is 0
            large = -3e4 if x.dtype == "float16" else -1e9
            x = add(x, multiply(1.0 - cast(mask, x.dtype), large))
        return activations.softmax(x, axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
