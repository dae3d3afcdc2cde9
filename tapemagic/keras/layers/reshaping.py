"""Layers that move values without computing new ones, as Keras 3 defines them:
Reshape, Permute, RepeatVector, the zero paddings, the croppings, the upsamplings.

Each is composed of the engine's shape ops (``reshape``, ``transpose``, ``pad``,
slicing, ``repeat``), so its gradient is theirs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...engine.ops import composed_shape as _composed_shape
from ...engine.ops import shape as _shape
from ...engine.tensor import Tensor, convert_to_tensor
from .core import _data_format, _incompatible
from .layer import Layer

__all__ = [
    "Cropping1D",
    "Cropping2D",
    "Permute",
    "RepeatVector",
    "Reshape",
    "UpSampling1D",
    "UpSampling2D",
    "ZeroPadding1D",
    "ZeroPadding2D",
]


def check_ndim(layer: Layer, shape: Any, ndim: int, what: str = "") -> None:
    """Raise Keras' InputSpec error unless ``shape`` has ``ndim`` axes.

    ``what`` says what the axes are, for the hint that follows Keras' words.
    """
    if isinstance(shape, tuple) and len(shape) != ndim:
        hint = f" The layer takes {what}." if what else ""
        raise ValueError(
            f"{_incompatible(layer)}expected ndim={ndim}, found ndim={len(shape)}. "
            f"Full shape received: {shape}.{hint}"
        )


def standardize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> tuple:
    """An int or ``n`` ints as a tuple of ``n`` ints, checked with the words of
    Keras' ``argument_validation.standardize_tuple``."""
    message = (
        f"The `{name}` argument must be a tuple of {n} integers. Received "
        f"{name}={value}"
    )
    if isinstance(value, int) and not isinstance(value, bool):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for v in values:
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise ValueError(f"{message} including element {v} of type {type(v)}")
        values = tuple(int(v) for v in values)
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        raise ValueError(
            f"{message}, including values {bad} that do not satisfy "
            f"`value {'>= 0' if allow_zero else '> 0'}`"
        )
    return values


def _pairs(value: Any, name: str, noun: str) -> tuple:
    """``((top, bottom), (left, right))`` from an int, 2 ints or 2 pairs (Keras')."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
        return ((value, value), (value, value))
    if not hasattr(value, "__len__"):
        raise ValueError(
            f"`{name}` should be either an int, a tuple of 2 ints "
            f"(symmetric_height_{noun}, symmetric_width_{noun}), or a tuple of 2 "
            f"tuples of 2 ints ((top_{noun}, bottom_{noun}), (left_{noun}, "
            f"right_{noun})). Received: {name}={value}."
        )
    if len(value) != 2:
        raise ValueError(
            f"`{name}` should have two elements. Received: {name}={value}."
        )
    return (
        standardize_tuple(value[0], 2, f"1st entry of {name}", allow_zero=True),
        standardize_tuple(value[1], 2, f"2nd entry of {name}", allow_zero=True),
    )


def _reshaped(input_shape: tuple, target: tuple) -> tuple:
    """``target`` with its -1 resolved against ``input_shape`` (Keras' rule)."""
    if None in input_shape:
        return tuple(None if d == -1 else d for d in target)
    size = math.prod(input_shape)
    known = math.prod(d for d in target if d != -1)
    if -1 not in target:
        if size != known:
            raise ValueError(
                "The total size of the tensor must be unchanged. Received: "
                f"input_shape={input_shape}, target_shape={target}"
            )
        return target
    if known == 0 or size % known != 0:
        raise ValueError(
            "The total size of the tensor must be unchanged, however, the input "
            "size cannot by divided by the specified dimensions in target_shape. "
            f"Received: input_shape={input_shape}, target_shape={target}"
        )
    return tuple(size // known if d == -1 else d for d in target)


class Reshape(Layer):
    """Reshape each example to ``target_shape`` (the batch axis stays).

    Args:
        target_shape: the shape of one example; one entry may be -1.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for an entry below -1, more than one -1, or (when called)
            an input whose size does not fit.

    Example:
        >>> import numpy as np
        >>> Reshape((3, -1))(np.zeros((2, 12), np.float32)).shape
        TensorShape([2, 3, 4])
        >>> Reshape((-1, 2, 2)).compute_output_shape((None, 12))
        (None, 3, 2, 2)
    """

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        target_shape = tuple(target_shape)
        for d in target_shape:
            if isinstance(d, int) and d < -1:
                raise ValueError(
                    "Each dimension in `target_shape` must be a non-negative "
                    "integer, or `-1` for a single unknown dimension. Received: "
                    f"target_shape={target_shape}."
                )
        if target_shape.count(-1) > 1:
            raise ValueError(
                "There must be at most one unknown dimension (-1) in "
                f"`target_shape`. Received: target_shape={target_shape}."
            )
        self.target_shape = target_shape
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        target = _reshaped(tuple(x.shape)[1:], self.target_shape)
        return _shape.reshape(x, (x.shape[0],) + target)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0],) + _reshaped(tuple(input_shape[1:]), self.target_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Permute the axes of each example: ``Permute((2, 1))`` swaps the two.

    Args:
        dims: a permutation of ``1..ndim`` (the batch axis is 0 and stays).
        **kwargs: base layer arguments.

    Raises:
        ValueError: if ``dims`` is not a permutation of ``1..len(dims)``, or the
            input has not ``len(dims) + 1`` axes.

    Example:
        >>> import numpy as np
        >>> Permute((2, 1))(np.zeros((1, 3, 4), np.float32)).shape
        TensorShape([1, 4, 3])
    """

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of "
                "indices in `dims` must be consecutive and start from 1. Received "
                f"dims={dims}"
            )

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, len(self.dims) + 1)

    def call(self, inputs: Any) -> Tensor:
        return _shape.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeat each input vector ``n`` times: ``(batch, f)`` -> ``(batch, n, f)``.

    Args:
        n: the number of repetitions, a positive int.
        **kwargs: base layer arguments.

    Raises:
        TypeError: if ``n`` is not an int.
        ValueError: if ``n`` is not positive, or the input is not 2-D.

    Example:
        >>> import numpy as np
        >>> RepeatVector(3)(np.array([[1.0, 2.0]], np.float32)).numpy()
        array([[[1., 2.],
                [1., 2.],
                [1., 2.]]], dtype=float32)
    """

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(
                f"Argument `n` should be a positive integer. Received: n={n}"
            )
        self.n = n

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 2, "vectors, (batch, features)")

    def call(self, inputs: Any) -> Tensor:
        x = _shape.expand_dims(convert_to_tensor(inputs), 1)
        return _composed_shape.repeat(x, self.n, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}


def _grown(size: int | None, extra: int) -> int | None:
    return None if size is None else size + extra


class ZeroPadding1D(Layer):
    """Add zeros at the start and end of the steps axis of ``(batch, steps, f)``.

    Args:
        padding: an int (both ends) or a pair ``(start, end)``.
        data_format: "channels_last" (default) or "channels_first"
            (``(batch, f, steps)``).
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a negative or malformed ``padding``, or an input that is
            not 3-D.

    Example:
        >>> import numpy as np
        >>> ZeroPadding1D((1, 2))(np.ones((1, 2, 1), np.float32)).numpy()[0, :, 0]
        array([0., 1., 1., 0., 0.], dtype=float32)
    """

    def __init__(
        self, padding: Any = 1, data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.padding = standardize_tuple(padding, 2, "padding", allow_zero=True)

    def _axis(self) -> int:
        return 2 if self.data_format == "channels_first" else 1

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 3, "sequences, (batch, steps, features)")

    def call(self, inputs: Any) -> Tensor:
        paddings = [[0, 0], [0, 0], [0, 0]]
        paddings[self._axis()] = list(self.padding)
        return _shape.pad(inputs, paddings)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        out = list(input_shape)
        out[self._axis()] = _grown(out[self._axis()], sum(self.padding))
        return tuple(out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "padding": self.padding,
            "data_format": self.data_format,
        }


class ZeroPadding2D(Layer):
    """Add rows and columns of zeros around each image.

    Args:
        padding: an int (all sides), ``(rows, columns)`` (symmetric), or
            ``((top, bottom), (left, right))``.
        data_format: "channels_last" (default) or "channels_first".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a negative or malformed ``padding``, or an input that is
            not 4-D.

    Example:
        >>> import numpy as np
        >>> ZeroPadding2D(((1, 0), (0, 1)))(np.ones((1, 1, 1, 1), np.float32)).numpy()[0, :, :, 0]
        array([[0., 0.],
               [1., 0.]], dtype=float32)
    """  # noqa: E501

    def __init__(
        self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.padding = _pairs(padding, "padding", "pad")

    def _axes(self) -> tuple[int, int]:
        return (2, 3) if self.data_format == "channels_first" else (1, 2)

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 4, "images, (batch, height, width, channels)")

    def call(self, inputs: Any) -> Tensor:
        paddings = [[0, 0], [0, 0], [0, 0], [0, 0]]
        for axis, pair in zip(self._axes(), self.padding):
            paddings[axis] = list(pair)
        return _shape.pad(inputs, paddings)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        out = list(input_shape)
        for axis, pair in zip(self._axes(), self.padding):
            out[axis] = _grown(out[axis], sum(pair))
        return tuple(out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "padding": self.padding,
            "data_format": self.data_format,
        }


class Cropping1D(Layer):
    """Cut steps off the start and end of ``(batch, steps, features)``.

    Args:
        cropping: an int (both ends) or a pair ``(start, end)``.
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a negative or malformed ``cropping``, an input that is
            not 3-D, or one with no step left.

    Example:
        >>> import numpy as np
        >>> x = np.arange(5.0, dtype=np.float32).reshape(1, 5, 1)
        >>> Cropping1D((1, 2))(x).numpy()[0, :, 0]
        array([1., 2.], dtype=float32)
    """

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = standardize_tuple(cropping, 2, "cropping", allow_zero=True)

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 3, "sequences, (batch, steps, features)")

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        self.compute_output_shape(tuple(x.shape))
        start, end = self.cropping
        return x[:, start : x.shape[1] - end, :]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        steps = input_shape[1]
        if steps is not None:
            steps -= sum(self.cropping)
            if steps < 0:
                raise ValueError(
                    "`cropping` parameter of `Cropping1D` layer must be smaller than "
                    f"the input length. Received: input_shape={tuple(input_shape)}, "
                    f"cropping={self.cropping}"
                )
        return (input_shape[0], steps, input_shape[2])

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    """Cut rows and columns off the edges of each image.

    Args:
        cropping: an int (all sides), ``(rows, columns)`` (symmetric), or
            ``((top, bottom), (left, right))``.
        data_format: "channels_last" (default) or "channels_first".
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a negative or malformed ``cropping``, an input that is
            not 4-D, or one the cropping would leave empty.

    Example:
        >>> import numpy as np
        >>> Cropping2D(((1, 0), (1, 1)))(np.zeros((2, 4, 5, 3), np.float32)).shape
        TensorShape([2, 3, 3, 3])
    """

    def __init__(
        self,
        cropping: Any = ((0, 0), (0, 0)),
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.cropping = _pairs(cropping, "cropping", "crop")

    def _axes(self) -> tuple[int, int]:
        return (2, 3) if self.data_format == "channels_first" else (1, 2)

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 4, "images, (batch, height, width, channels)")

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        self.compute_output_shape(tuple(x.shape))
        index = [slice(None)] * 4
        for axis, (start, end) in zip(self._axes(), self.cropping):
            index[axis] = slice(start, x.shape[axis] - end)
        return x[tuple(index)]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        out = list(input_shape)
        for axis, pair in zip(self._axes(), self.cropping):
            if out[axis] is not None and sum(pair) >= out[axis]:
                raise ValueError(
                    "Values in `cropping` argument should be smaller than the "
                    "corresponding spatial dimension of the input. Received: "
                    f"input_shape={tuple(input_shape)}, cropping={self.cropping}"
                )
            out[axis] = None if out[axis] is None else out[axis] - sum(pair)
        return tuple(out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "cropping": self.cropping,
            "data_format": self.data_format,
        }


class UpSampling1D(Layer):
    """Repeat each step ``size`` times: ``(batch, steps, f)`` -> ``(batch, steps *
    size, f)``.

    Args:
        size: the number of repetitions, a positive int.
        **kwargs: base layer arguments.

    Raises:
        TypeError: if ``size`` is not an int.
        ValueError: if ``size`` is not positive, or the input is not 3-D.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0], [2.0]]], np.float32)
        >>> UpSampling1D(2)(x).numpy()[0, :, 0]
        array([1., 1., 2., 2.], dtype=float32)
    """

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"Expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(
                f"Argument `size` should be a positive integer. Received: size={size}"
            )
        self.size = size

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 3, "sequences, (batch, steps, features)")

    def call(self, inputs: Any) -> Tensor:
        return _composed_shape.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        steps = input_shape[1]
        return (input_shape[0], None if steps is None else steps * self.size,
                input_shape[2])  # fmt: skip

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    """Repeat each row ``size[0]`` times and each column ``size[1]`` times.

    Args:
        size: an int or a pair ``(rows, columns)`` of positive ints.
        data_format: "channels_last" (default) or "channels_first".
        interpolation: "nearest" (the repetition; tapemagic has no other).
        **kwargs: base layer arguments.

    Raises:
        ValueError: for a bad ``size``, or an input that is not 4-D.
        NotImplementedError: for an interpolation other than "nearest".

    Example:
        >>> import numpy as np
        >>> x = np.array([[1.0, 2.0]], np.float32).reshape(1, 1, 2, 1)
        >>> UpSampling2D((2, 1))(x).numpy()[0, :, :, 0]
        array([[1., 2.],
               [1., 2.]], dtype=float32)
    """

    def __init__(
        self,
        size: Any = (2, 2),
        data_format: str | None = None,
        interpolation: str = "nearest",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.size = standardize_tuple(size, 2, "size")
        self.interpolation = interpolation.lower()
        if self.interpolation != "nearest":
            raise NotImplementedError(
                f"UpSampling2D(interpolation={interpolation!r}) is not supported by "
                "tapemagic; use interpolation='nearest', or a Conv2DTranspose that "
                "learns the upsampling."
            )

    def _axes(self) -> tuple[int, int]:
        return (2, 3) if self.data_format == "channels_first" else (1, 2)

    def _check_input_shape(self, shape: Any) -> None:
        check_ndim(self, shape, 4, "images, (batch, height, width, channels)")

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        for axis, times in zip(self._axes(), self.size):
            x = _composed_shape.repeat(x, times, axis=axis)
        return x

    def compute_output_shape(self, input_shape: Any) -> tuple:
        out = list(input_shape)
        for axis, times in zip(self._axes(), self.size):
            out[axis] = None if out[axis] is None else out[axis] * times
        return tuple(out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "size": self.size,
            "data_format": self.data_format,
            "interpolation": self.interpolation,
        }
