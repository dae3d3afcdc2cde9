"""Functional models: ``Model(inputs, outputs)`` on ``keras.Input`` tensors.

Calling a layer on a ``KerasTensor`` records the call on its output; the model
replays those calls, in an order where every input comes first, on real data.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...engine.tensor import Tensor, Variable
from ..layers.keras_tensor import KerasTensor
from ..layers.layer import Layer
from .model import Model

__all__ = ["Functional"]


class Functional(Model, functional=True):
    """A model defined by calling layers on ``keras.Input``: ``Model(inputs, outputs)``.

    Args:
        inputs: a KerasTensor from ``keras.Input`` (or a list of them).
        outputs: the KerasTensor a layer call returned (or a list of them).
        name: the model's name (default "functional", made unique).
        trainable: whether its weights are trainable.

    Raises:
        ValueError: if ``inputs`` are not ``keras.Input`` tensors or an output does
            not depend on them.

    Example:
        >>> import numpy as np
        >>> from tapemagic.keras import Input, layers
        >>> inputs = Input(shape=(3,))
        >>> outputs = layers.Dense(2)(layers.Dense(4, activation="relu")(inputs))
        >>> model = Model(inputs, outputs)
        >>> model(np.ones((5, 3), np.float32)).shape, model.count_params()
        (TensorShape([5, 2]), 26)
    """

    # call() converts each input itself, to the dtype of its keras.Input
    _convert_input_args = False

    def __init__(
        self,
        inputs: Any,
        outputs: Any,
        name: str | None = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        flat_inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        flat_outputs = (
            list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        )
        for tensor in flat_inputs:
            if not isinstance(tensor, KerasTensor) or tensor._input_layer is None:
                raise ValueError(
                    f"Model inputs must come from `keras.Input`, got {tensor!r}."
                )
        self._inputs = flat_inputs
        self._outputs = flat_outputs
        self._single_input = not isinstance(inputs, (list, tuple))
        self._single_output = not isinstance(outputs, (list, tuple))
        nodes = _topological_nodes(flat_inputs, flat_outputs)
        # set before the nodes, so the layers (and weights) are found in this order
        self._layers = _layers_by_depth(flat_inputs, flat_outputs)
        self._nodes = nodes
        self.__dict__["_build_input_shape"] = (
            flat_inputs[0].shape
            if self._single_input
            else [t.shape for t in flat_inputs]
        )
        self.__dict__["_build_output_shape"] = (
            flat_outputs[0].shape
            if self._single_output
            else [t.shape for t in flat_outputs]
        )
        self.built = True

    @property
    def inputs(self) -> list[KerasTensor]:
        """The model's inputs, as a list."""
        return list(self._inputs)

    @property
    def outputs(self) -> list[KerasTensor]:
        """The model's outputs, as a list."""
        return list(self._outputs)

    @property
    def input(self) -> Any:
        """The inputs as given: one KerasTensor, or the list."""
        return self._inputs[0] if self._single_input else list(self._inputs)

    @property
    def output(self) -> Any:
        """The outputs as given: one KerasTensor, or the list."""
        return self._outputs[0] if self._single_output else list(self._outputs)

    @property
    def input_shape(self) -> Any:
        """The inputs' shapes (one shape for one input), batch axis None."""
        shapes = [t.shape for t in self._inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        """The outputs' shapes (one shape for one output)."""
        shapes = [t.shape for t in self._outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def input_dtype(self) -> str:
        return self._inputs[0].dtype

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self._build_output_shape

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        given = self._given_inputs(inputs)
        if len(given) != len(self._inputs):
            raise ValueError(
                f"Model {self.name!r} expects {len(self._inputs)} input(s), got "
                f"{len(given)}."
            )
        values = {
            id(tensor): self._convert_input(value)
            for tensor, value in zip(self._inputs, given)
        }

        def resolve(arg: Any) -> Any:
            if isinstance(arg, KerasTensor):
                return values[id(arg)]
            if isinstance(arg, (list, tuple)):
                return type(arg)(resolve(a) for a in arg)
            return arg

        for layer, args, kwargs, output in self._nodes:
            call_kwargs = {k: resolve(v) for k, v in kwargs.items()}
            if training is not None:
                call_kwargs["training"] = training
            result = layer(*[resolve(a) for a in args], **call_kwargs)
            if output._call_outputs is None:
                values[id(output)] = result
            else:
                for each, value in zip(output._call_outputs, result):
                    values[id(each)] = value
        results = [values[id(t)] for t in self._outputs]
        # as Keras: a list of one output gives the tensor itself
        return results[0] if len(results) == 1 else results

    def _given_inputs(self, inputs: Any) -> list:
        """The inputs of a call as a list, as Keras 3 standardizes them.

        For a model of one input given in a list, a tensor alone is taken
        silently; NumPy data alone, or a list of one for a model whose input
        was not given as a list, is taken with Keras' warning.
        """
        # a list of arrays is a list of inputs; a nested list of numbers is one
        as_list = isinstance(inputs, (list, tuple)) and all(
            hasattr(v, "shape") for v in inputs
        )
        expects_list = not self._single_input
        if len(self._inputs) != 1 or as_list == expects_list:
            return list(inputs) if expects_list else [inputs]
        if expects_list and isinstance(inputs, (Tensor, Variable)):
            return [inputs]
        expected: Any = self._inputs[0].name
        received: Any = f"Tensor(shape={_shape(inputs)})"
        if as_list:
            received = [f"Tensor(shape={_shape(v)})" for v in inputs]
        else:
            expected = [expected]
        # issued here, as Keras issues it in its own code: shown once per
        # session under Python's default warning filter
        warnings.warn(
            "The structure of `inputs` doesn't match the expected structure.\n"
            f"Expected: {expected}\nReceived: inputs={received}",
            UserWarning,
            stacklevel=1,
        )
        return list(inputs) if as_list else [inputs]


def _shape(value: Any) -> tuple:
    shape = getattr(value, "shape", None)
    return tuple(np.shape(value) if shape is None else shape)


def _keras_tensors(values: Any) -> list[KerasTensor]:
    if isinstance(values, KerasTensor):
        return [values]
    if isinstance(values, (list, tuple)):
        return [t for v in values for t in _keras_tensors(v)]
    if isinstance(values, dict):
        return _keras_tensors(list(values.values()))
    return []


def _layers_by_depth(inputs: list, outputs: list) -> list[Layer]:
    """The model's layers in Keras 3's order (its ``map_graph``), which is the
    order of ``model.layers`` and ``model.weights``: deepest first (a layer's
    depth is its longest path to an output), ties in the order a depth-first
    walk from the outputs first meets them."""
    input_ids = {id(t) for t in inputs}
    walk: list[KerasTensor] = []  # each call's output, inputs before outputs
    first_seen: dict[int, int] = {}
    parents: dict[int, list] = {}
    layer_of: dict[int, Layer] = {}
    made_by: dict[int, Layer] = {}

    def visit(tensor: KerasTensor) -> None:
        if id(tensor) in parents:
            return
        is_input = id(tensor) in input_ids or tensor._producer is None
        layer = tensor._input_layer if is_input else tensor._producer[0]
        layer_of[id(layer)] = made_by[id(tensor)] = layer
        first_seen.setdefault(id(layer), len(first_seen))
        parents[id(tensor)] = []
        if not is_input:
            _, args, kwargs = tensor._producer
            parents[id(tensor)] = _keras_tensors([list(args), kwargs])
            for parent in parents[id(tensor)]:
                visit(parent)
        walk.append(tensor)

    for output in outputs:
        visit(output)
    depths: dict[int, int] = {}
    layer_depths: dict[int, int] = {}
    for tensor in reversed(walk):
        layer = made_by[id(tensor)]
        depth = max(depths.get(id(tensor), 0), layer_depths.get(id(layer), 0))
        layer_depths[id(layer)] = depths[id(tensor)] = depth
        for parent in parents[id(tensor)]:
            depths[id(parent)] = max(depth + 1, depths.get(id(parent), 0))
    for tensor in inputs:
        # an input no output depends on: depth 0, first among its depth
        if id(tensor._input_layer) not in layer_depths:
            layer_of[id(tensor._input_layer)] = tensor._input_layer
            layer_depths[id(tensor._input_layer)] = 0
            first_seen[id(tensor._input_layer)] = -1
    return sorted(
        layer_of.values(),
        key=lambda layer: (-layer_depths[id(layer)], first_seen[id(layer)]),
    )


def _topological_nodes(inputs: list, outputs: list) -> list[tuple]:
    """``(layer, args, kwargs, output)`` for every layer call, inputs first."""
    input_ids = {id(t) for t in inputs}
    nodes: list[tuple] = []
    done: set[int] = set()

    def visit(tensor: Any) -> None:
        if isinstance(tensor, (list, tuple)):
            for item in tensor:
                visit(item)
            return
        if not isinstance(tensor, KerasTensor) or id(tensor) in done:
            return
        if id(tensor) in input_ids:
            done.add(id(tensor))
            return
        if tensor._producer is None:
            raise ValueError(
                f"Graph disconnected: cannot obtain value for {tensor!r}. It is a "
                "keras.Input that was not passed in `inputs`."
            )
        layer, args, kwargs = tensor._producer
        for arg in list(args) + list(kwargs.values()):
            visit(arg)
        # a call of several outputs is one node, for all of them
        for each in tensor._call_outputs or (tensor,):
            done.add(id(each))
        nodes.append((layer, args, kwargs, tensor))

    for output in outputs:
        if not isinstance(output, KerasTensor):
            raise ValueError(
                f"Model outputs must be results of layer calls on keras.Input, got "
                f"{output!r}."
            )
        visit(output)
    return nodes
