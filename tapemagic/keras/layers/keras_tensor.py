"""``KerasTensor``: the symbolic input that ``keras.Input`` makes, and shape helpers.

A KerasTensor has a shape and a dtype but no values. A layer called on one
returns another and records the call on it, which is how a functional model
learns its graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Tensor, TensorShape, Variable
from .. import backend

__all__ = ["KerasTensor"]


class KerasTensor:
    """A symbolic input: a shape (batch axis None) and dtype, no values.

    ``keras.Input(shape=(784,))`` makes one. Passed as the first layer of a
    :class:`~tapemagic.keras.Sequential` it builds the model at once; layers called
    on it return new KerasTensors, from which ``keras.Model(inputs, outputs)``
    builds a functional model.

    Example:
        >>> KerasTensor((None, 3), name="x")
        <KerasTensor shape=(None, 3), dtype=float32, sparse=False, ragged=False, name=x>
    """

    def __init__(
        self,
        shape: Any,
        dtype: Any = None,
        name: str | None = None,
        producer: tuple | None = None,
    ) -> None:
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = backend.standardize_dtype(dtype)
        self.name = backend._unique_name("keras_tensor") if name is None else name
        # (layer, args, kwargs) of the call that made it; None for an input
        self._producer = producer
        # the InputLayer that made it, for an input
        self._input_layer: Any = None
        # all the outputs of the call that made it, when it made several
        self._call_outputs: tuple | None = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        # tapemagic has no sparse or ragged tensors; Keras 3 prints both flags
        return (
            f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, "
            f"ragged=False, name={self.name}>"
        )

    def _unsupported(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "A KerasTensor (from keras.Input) holds no values, so tensor ops cannot "
            "run on it. Call layers on it (e.g. layers.Dense(10)(inputs)), or write a "
            "custom Layer whose call() does the computation."
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unsupported
    __truediv__ = __matmul__ = __getitem__ = __array__ = _unsupported


def _is_symbolic(value: Any) -> bool:
    if isinstance(value, KerasTensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_is_symbolic(v) for v in value)
    return False


def _shape_of(value: Any) -> Any:
    """A value's shape as a tuple (a list of tuples for a list of inputs)."""
    if isinstance(value, (Tensor, Variable, np.ndarray, KerasTensor)):
        return tuple(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shape_of(v) for v in value]
    return None


def _as_shape(value: Any) -> Any:
    if isinstance(value, (TensorShape, tuple, list)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in value
    ):
        return tuple(None if d is None else int(d) for d in value)
    return value
