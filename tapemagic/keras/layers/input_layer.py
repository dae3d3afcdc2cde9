"""``keras.Input`` and the ``InputLayer`` behind it."""

from __future__ import annotations

from typing import Any

from .keras_tensor import KerasTensor
from .layer import Layer

__all__ = ["Input", "InputLayer"]


class InputLayer(Layer):
    """The layer behind ``keras.Input``: holds the symbolic input tensor.

    Args:
        shape: the shape of one example (without the batch axis).
        batch_size: a fixed batch size (default None).
        dtype: the input's dtype (default floatx).
        batch_shape: the full shape, batch axis first (instead of ``shape``).
        name: the layer's name.

    Raises:
        ValueError: if neither or both of ``shape`` and ``batch_shape`` are given.

    Example:
        >>> InputLayer(shape=(28, 28, 1)).output.shape
        (None, 28, 28, 1)
    """

    def __init__(
        self,
        shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        batch_shape: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        if (shape is None) == (batch_shape is None):
            raise ValueError(
                "You must pass exactly one of `shape` or `batch_shape` to an Input, "
                f"got shape={shape!r} and batch_shape={batch_shape!r}. E.g. "
                "keras.Input(shape=(784,))."
            )
        if shape is not None:
            if isinstance(shape, int):
                shape = (shape,)
            batch_shape = (batch_size,) + tuple(shape)
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        # as Keras: the tensor takes the given name, else one of its own
        tensor = KerasTensor(self.batch_shape, dtype=self.dtype, name=name)
        tensor._input_layer = self
        # its one node: no inputs, the tensor as output
        self._add_node([], [tensor])
        self.__dict__["_build_input_shape"] = self.batch_shape
        self.__dict__["_build_output_shape"] = self.batch_shape
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs


def Input(
    shape: Any = None,
    batch_size: int | None = None,
    dtype: Any = None,
    batch_shape: Any = None,
    name: str | None = None,
) -> KerasTensor:
    """A symbolic input of ``shape`` (one example, batch axis left out).

    Use it as the first entry of ``keras.Sequential`` to build the model at once,
    or call layers on it and pass inputs and outputs to ``keras.Model``.

    Args:
        shape: the shape of one example, e.g. ``(784,)`` or ``(28, 28, 1)``.
        batch_size: a fixed batch size (default None).
        dtype: the input's dtype (default floatx).
        batch_shape: the full shape, batch axis first (instead of ``shape``).
        name: a name for the input.

    Returns:
        A :class:`KerasTensor`.

    Example:
        >>> Input(shape=(784,)).shape
        (None, 784)
    """
    layer = InputLayer(
        shape=shape, batch_size=batch_size, dtype=dtype, batch_shape=batch_shape,
        name=name,
    )  # fmt: skip
    return layer.output
