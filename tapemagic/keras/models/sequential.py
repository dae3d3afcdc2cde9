"""The Keras 3 ``Sequential`` model: a linear stack of layers."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..layers.input_layer import InputLayer
from ..layers.keras_tensor import KerasTensor, _shape_of
from ..layers.layer import Layer, _frame
from .model import Model

__all__ = ["Sequential"]


class Sequential(Model):
    """A linear stack of layers: each layer's output is the next one's input.

    Start with ``keras.Input(shape)`` to build the model at once; otherwise it is
    built on its first call (or ``build(input_shape)``, or ``fit``).

    Args:
        layers: the layers, in order (a ``keras.Input`` may come first).
        trainable: whether its weights are trainable.
        name: the model's name (default "sequential", made unique).

    Raises:
        ValueError: for an entry that is not a layer, or two layers of one name.

    Example:
        >>> from tapemagic.keras import Input, layers
        >>> model = Sequential([Input(shape=(784,)), layers.Dense(10, name="out")],
        ...                    name="mlp")
        >>> model.count_params(), [w.path for w in model.weights]
        (7850, ['mlp/out/kernel', 'mlp/out/bias'])
    """

    def __init__(
        self,
        layers: list | None = None,
        trainable: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(trainable=trainable, name=name)
        self._layers: list[Layer] = []
        for layer in layers or []:
            self.add(layer, rebuild=False)
        if self._layers:
            self._maybe_rebuild()

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Append a layer (or a ``keras.Input`` as the first entry).

        Raises:
            ValueError: if ``layer`` is not a layer, its name is taken, or an Input
                comes after other layers.
        """
        if not self._layers and getattr(layer, "_input_shape_arg", None) is not None:
            self.add(InputLayer(shape=layer._input_shape_arg), rebuild=False)
        if isinstance(layer, KerasTensor) and layer._input_layer is not None:
            layer = layer._input_layer
        if not isinstance(layer, Layer):
            raise ValueError(
                "Only instances of `keras.Layer` can be added to a Sequential model. "
                f"Received: {layer!r} (of type {type(layer).__name__})"
            )
        if isinstance(layer, InputLayer) and self._layers:
            raise ValueError(
                f"Sequential model '{self.name}' already has layers; an Input can only "
                "be its first entry."
            )
        if any(
            other.name == layer.name and other is not layer for other in self._layers
        ):
            raise ValueError(
                "All layers added to a Sequential model should have unique names. "
                f"Name '{layer.name}' is already the name of a layer in this model. "
                "Update the `name` argument to pass a unique name."
            )
        self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()
        else:
            self.built = False

    def pop(self, rebuild: bool = True) -> Layer:
        """Remove and return the last layer."""
        layer = self._layers.pop()
        self.built = False
        if rebuild and self._layers:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self) -> None:
        self.built = False
        first = self._layers[0]
        if isinstance(first, InputLayer) and len(self._layers) > 1:
            self.build(first.batch_shape)

    @property
    def layers(self) -> list[Layer]:
        """The layers added, without the Input."""
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    @property
    def input_dtype(self) -> str:
        if self._layers and isinstance(self._layers[0], InputLayer):
            return self._layers[0].dtype
        return self.compute_dtype

    def build(self, input_shape: Any = None) -> None:
        """Build every layer for inputs of ``input_shape`` (batch axis first).

        Raises:
            ValueError: if the model has no layers or was built for another shape.
        """
        if not self.layers:
            raise ValueError(
                f"Sequential model {self.name} cannot be built because it has no "
                "layers. Call `model.add(layer)`."
            )
        input_shape = tuple(None if d is None else int(d) for d in input_shape)
        first = self._layers[0]
        if isinstance(first, InputLayer):
            if first.batch_shape != input_shape:
                raise ValueError(
                    f"Sequential model '{self.name}' has already been configured to "
                    f"use input shape {first.batch_shape}. You cannot build it with "
                    f"input_shape {input_shape}"
                )
        else:
            self._layers.insert(0, InputLayer(batch_shape=input_shape))
        self.__dict__["_build_input_shape"] = input_shape
        shape: Any = input_shape
        with _frame(self, None):
            for layer in self.layers:
                shape = layer._build_symbolic(shape)
        self.__dict__["_build_output_shape"] = shape

    def _build_on_call(self, x: Any) -> None:
        # the layers build themselves on the data as it flows through them
        self.__dict__["_build_input_shape"] = _shape_of(x)
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = input_shape
        for layer in self.layers:
            shape = layer.compute_output_shape(shape)
        return shape

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = inputs
        for layer in self.layers:
            x = layer(x) if training is None else layer(x, training=training)
        return x

    def _build_for_fit(self, x: np.ndarray) -> None:
        # the data's shape is all a Sequential model needs to make its weights
        self.build((None,) + tuple(x.shape[1:]))
