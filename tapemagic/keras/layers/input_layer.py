"""``keras.Input`` and the ``InputLayer`` behind it, as Keras 3 takes them."""

from __future__ import annotations

import warnings
from typing import Any

from .keras_tensor import KerasTensor
from .layer import Layer

__all__ = ["Input", "InputLayer"]


def _no_sparse_or_ragged(sparse: Any, ragged: Any) -> None:
    if sparse or ragged:
        which = "sparse" if sparse else "ragged"
        raise NotImplementedError(
            f"Input({which}=True) is not supported by tapemagic, which has no "
            f"{which} tensors; pass dense arrays (padded to one length) instead."
        )


class InputLayer(Layer):
    """The layer behind ``keras.Input``: holds the symbolic input tensor.

    As in Keras 3, ``input_shape=`` is taken for ``shape=`` with a deprecation
    warning, and ``batch_input_shape=`` for ``batch_shape=``, so a Keras 2
    ``Sequential([InputLayer(input_shape=(4,)), ...])`` still runs.

    Args:
        shape: the shape of one example (without the batch axis).
        batch_size: a fixed batch size (default None).
        dtype: the input's dtype (default floatx).
        sparse: must be False or None (tapemagic has no sparse tensors).
        ragged: must be False or None (tapemagic has no ragged tensors).
        batch_shape: the full shape, batch axis first (instead of ``shape``).
        input_tensor: a KerasTensor to take as the input instead of a new one.
        optional: whether the input may be None (kept in the config).
        name: the layer's name (and the tensor's).
        **kwargs: ``input_shape`` or ``batch_input_shape``, Keras 2's names.

    Raises:
        ValueError: without a shape, with both ``shape`` and ``batch_shape`` (or
            ``batch_size`` and ``batch_shape``), or an ``input_tensor`` that
            disagrees with them or is not a KerasTensor.
        NotImplementedError: for ``sparse=True`` or ``ragged=True``.

    Example:
        >>> InputLayer(shape=(28, 28, 1)).output.shape
        (None, 28, 28, 1)
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     InputLayer(input_shape=(3,)).batch_shape
        (None, 3)
    """

    def __init__(
        self,
        shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        sparse: Any = None,
        ragged: Any = None,
        batch_shape: Any = None,
        input_tensor: Any = None,
        optional: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if "input_shape" in kwargs:
            warnings.warn(
                "Argument `input_shape` is deprecated. Use `shape` instead.",
                UserWarning,
                stacklevel=2,
            )
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name, dtype=dtype, **kwargs)
        _no_sparse_or_ragged(sparse, ragged)
        if input_tensor is not None:
            batch_shape = self._from_tensor(
                input_tensor, shape, batch_size, batch_shape, dtype
            )
            self.__dict__["_dtype"] = input_tensor.dtype
        else:
            if shape is not None and batch_shape is not None:
                raise ValueError(
                    "You cannot pass both `shape` and `batch_shape` at the same time."
                )
            if batch_size is not None and batch_shape is not None:
                raise ValueError(
                    "You cannot pass both `batch_size` and `batch_shape` at the same "
                    "time."
                )
            if shape is None and batch_shape is None:
                raise ValueError(
                    "You must pass a `shape` argument. E.g. keras.Input(shape=(784,)) "
                    "for vectors of 784 values."
                )
            if shape is not None:
                if isinstance(shape, int):
                    shape = (shape,)
                batch_shape = (batch_size,) + tuple(shape)
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        self.sparse = False
        self.ragged = False
        self.optional = optional
        # as Keras: the tensor takes the given name, else one of its own
        tensor = input_tensor
        if tensor is None:
            tensor = KerasTensor(self.batch_shape, dtype=self.dtype, name=name)
        tensor._input_layer = self
        # its one node: no inputs, the tensor as output
        self._add_node([], [tensor])
        self.__dict__["_build_input_shape"] = self.batch_shape
        self.__dict__["_build_output_shape"] = self.batch_shape
        self.built = True

    @staticmethod
    def _from_tensor(
        tensor: Any, shape: Any, batch_size: Any, batch_shape: Any, dtype: Any
    ) -> tuple:
        """The batch shape of ``input_tensor``, checked against the other
        arguments as Keras 3 checks them."""
        if not isinstance(tensor, KerasTensor):
            raise ValueError(
                "Argument `input_tensor` must be a KerasTensor. Received invalid "
                f"type: input_tensor={tensor} (of type {type(tensor)})"
            )
        agrees = {
            "batch_size": batch_size is None or tensor.shape[:1] == (batch_size,),
            "shape": shape is None or tuple(shape) == tensor.shape[1:],
            "batch_shape": batch_shape is None or tuple(batch_shape) == tensor.shape,
            "dtype": dtype is None or tensor.dtype == dtype,
        }
        for name, ok in agrees.items():
            if not ok:
                raise ValueError(
                    "When providing the `input_tensor` argument, you cannot provide "
                    f"an incompatible `{name}` argument."
                )
        return tensor.shape

    def call(self, inputs: Any) -> Any:
        return inputs

    def get_config(self) -> dict:
        """Keras 3's config of an input: its batch shape, dtype and name."""
        return {
            "batch_shape": self.batch_shape,
            "dtype": self.dtype,
            "sparse": self.sparse,
            "ragged": self.ragged,
            "name": self.name,
            "optional": self.optional,
        }


def Input(
    shape: Any = None,
    batch_size: int | None = None,
    dtype: Any = None,
    sparse: Any = None,
    ragged: Any = None,
    batch_shape: Any = None,
    name: str | None = None,
    tensor: Any = None,
    optional: bool = False,
) -> KerasTensor:
    """A symbolic input of ``shape`` (one example, batch axis left out).

    Use it as the first entry of ``keras.Sequential`` to build the model at once,
    or call layers on it and pass inputs and outputs to ``keras.Model``.

    Args:
        shape: the shape of one example, e.g. ``(784,)`` or ``(28, 28, 1)``.
        batch_size: a fixed batch size (default None).
        dtype: the input's dtype (default floatx).
        sparse: must be False or None.
        ragged: must be False or None.
        batch_shape: the full shape, batch axis first (instead of ``shape``).
        name: a name for the input.
        tensor: a KerasTensor to take as the input.
        optional: whether the input may be None.

    Returns:
        A :class:`KerasTensor`.

    Example:
        >>> Input(shape=(784,)).shape
        (None, 784)
    """
    layer = InputLayer(
        shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
        ragged=ragged, batch_shape=batch_shape, input_tensor=tensor,
        optional=optional, name=name,
    )  # fmt: skip
    return layer.output
