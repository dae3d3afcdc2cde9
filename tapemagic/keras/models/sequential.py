"""The Keras 3 ``Sequential`` model: a linear stack of layers.

Building it (from ``keras.Input``, ``build(input_shape)`` or the first call)
calls each layer on the previous layer's KerasTensor, as Keras 3 does, so
``model.inputs`` and every ``layer.output`` are defined and
``keras.Model(model.inputs, model.layers[-2].output)`` is a feature extractor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import backend
from ..layers.call_context import frame
from ..layers.input_layer import InputLayer
from ..layers.keras_tensor import KerasTensor, _shape_of
from ..layers.layer import Layer
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
        # the KerasTensor the last layer returned when the model was built
        self._symbolic_output: KerasTensor | None = None
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
        self._symbolic_output = None
        if rebuild and self._layers:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self) -> None:
        self.built = False
        self._symbolic_output = None
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
            dtype = self._layers[0].compute_dtype
            self._layers.insert(0, InputLayer(batch_shape=input_shape, dtype=dtype))
        self.__dict__["_build_input_shape"] = input_shape
        x = self._layers[0].output
        with frame(self, None):
            for layer in self.layers:
                x = layer(x)
        self._symbolic_output = x
        self.__dict__["_build_output_shape"] = x.shape
        # Keras 3 wraps each build in a functional model, which takes the next
        # "functional" name: the user's own functional models are numbered after it
        backend._unique_name("functional")

    @property
    def inputs(self) -> list[KerasTensor]:
        """The model's input, in a list (once it is built).

        Raises:
            AttributeError: before the model is built.
        """
        self._check_symbolic("inputs")
        return [self._layers[0].output]

    @property
    def outputs(self) -> list[KerasTensor]:
        """The last layer's output, in a list (once the model is built).

        Raises:
            AttributeError: before the model is built.
        """
        self._check_symbolic("outputs")
        return [self._symbolic_output]

    @property
    def input_shape(self) -> tuple:
        """The shape of the model's input, batch axis first.

        Raises:
            AttributeError: before the model is built.
        """
        self._check_symbolic("input shape")
        return self._layers[0].output.shape

    @property
    def output_shape(self) -> tuple:
        """The shape of the last layer's output.

        Raises:
            AttributeError: before the model is built.
        """
        self._check_symbolic("output shape")
        return self._symbolic_output.shape

    def _check_symbolic(self, what: str) -> None:
        if self._symbolic_output is None:
            raise AttributeError(
                f"Sequential model '{self.name}' has no defined {what} yet. Start "
                "it with keras.Input(shape=...), call model.build(input_shape), or "
                "call it on a batch of data first."
            )

    def _build_on_call(self, x: Any) -> None:
        shape = _shape_of(x)
        if isinstance(shape, tuple) and self.layers:
            # as Keras 3: build on the data's shape, batch size included
            self.build(shape)
        else:
            # several inputs: the layers build on the data as it flows through
            self.__dict__["_build_input_shape"] = shape
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
