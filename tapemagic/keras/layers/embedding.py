"""Embedding (integer indices to rows of a trainable matrix) and Masking: the
layers that make Keras masks, as Keras 3 defines them."""

from __future__ import annotations

import warnings
from typing import Any

from ...engine.ops.indexing import gather
from ...engine.ops.math import cast, multiply, not_equal
from ...engine.ops.reduce import reduce_any
from ...engine.ops.shape import squeeze
from ...engine.tensor import Tensor, convert_to_tensor
from .core import _no_regularizers
from .layer import Layer
from .masking import set_keras_mask
from .serialization import initializer_from, serialize_initializer

__all__ = ["Embedding", "Masking"]


class Embedding(Layer):
    """Turn indices in ``[0, input_dim)`` into vectors of ``output_dim``.

    The output of an input of shape ``(batch, steps)`` has shape ``(batch,
    steps, output_dim)``: row ``i`` of ``embeddings`` for each index ``i``.
    With ``mask_zero=True`` index 0 is padding: the output carries the mask
    ``inputs != 0``, which the layers after it that take a mask receive
    (recurrent layers skip the masked steps, ``GlobalAveragePooling1D``
    leaves them out of the mean).

    Args:
        input_dim: the size of the vocabulary (largest index + 1), a positive int.
        output_dim: the size of each vector, a positive int.
        embeddings_initializer: default "uniform" (``[-0.05, 0.05]``).
        mask_zero: whether index 0 is padding to be masked.
        weights: the initial ``(input_dim, output_dim)`` matrix (or a list of it).
        **kwargs: base layer arguments (name, dtype, trainable).

    Raises:
        ValueError: if ``input_dim`` or ``output_dim`` is not a positive int.
        NotImplementedError: for regularizers, constraints and LoRA.

    Example:
        >>> import numpy as np
        >>> layer = Embedding(10, 4, mask_zero=True)
        >>> out = layer(np.array([[3, 1, 0]]))
        >>> out.shape, layer.compute_mask(np.array([[3, 1, 0]])).numpy()
        (TensorShape([1, 3, 4]), array([[ True,  True, False]]))
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        weights: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        quantization_config: Any = None,
        **kwargs: Any,
    ) -> None:
        for arg, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(
                    f"`{arg}` must be a positive integer. Received: {arg}={value} "
                    f"(of type {type(value).__name__})."
                )
        if kwargs.pop("input_length", None) is not None:
            warnings.warn(
                "Argument `input_length` is deprecated. Just remove it.", stacklevel=2
            )
        super().__init__(**kwargs)
        _no_regularizers(
            "Embedding",
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
        )
        if lora_rank is not None or quantization_config is not None:
            raise NotImplementedError(
                "Embedding's LoRA and quantization are not supported by tapemagic; "
                "leave lora_rank and quantization_config unset."
            )
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializer_from(embeddings_initializer)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self.autocast = False
        self.embeddings = None
        if weights is not None:
            self.build()
            if not (isinstance(weights, list) and len(weights) == 1):
                weights = [weights]
            self.set_weights(weights)

    def build(self, input_shape: Any = None) -> None:
        if self.embeddings is not None:
            return
        self.embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            name="embeddings",
        )

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        if x.dtype not in ("int32", "int64"):
            x = cast(x, "int32")
        out = gather(self.embeddings, x, axis=0)
        if out.dtype != self.compute_dtype:
            out = cast(out, self.compute_dtype)
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Tensor | None:
        """``inputs != 0`` with ``mask_zero``, else None."""
        if not self.mask_zero:
            return None
        return not_equal(convert_to_tensor(inputs), 0)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape, self.output_dim)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": serialize_initializer(
                self.embeddings_initializer
            ),
            "embeddings_regularizer": None,
            "activity_regularizer": None,
            "embeddings_constraint": None,
            "mask_zero": self.mask_zero,
            "quantization_config": None,
        }


class Masking(Layer):
    """Mask the time steps whose features all equal ``mask_value``.

    The output is the input with those steps zeroed, and carries the mask
    ``any(inputs != mask_value, axis=-1)`` for the layers after it (a recurrent
    layer then skips the steps).

    Args:
        mask_value: the value of a padding step's every feature.
        **kwargs: base layer arguments.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0, 2.0], [0.0, 0.0]]], np.float32)
        >>> Masking().compute_mask(x).numpy()
        array([[ True, False]])
    """

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Tensor:
        """True where a step has a feature other than ``mask_value``."""
        return reduce_any(not_equal(convert_to_tensor(inputs), self.mask_value), -1)

    def call(self, inputs: Any) -> Tensor:
        x = convert_to_tensor(inputs)
        keep = reduce_any(not_equal(x, self.mask_value), axis=-1, keepdims=True)
        out = multiply(x, cast(keep, x.dtype))
        set_keras_mask(out, squeeze(keep, axis=-1))
        return out

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
