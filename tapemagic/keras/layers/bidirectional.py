"""Bidirectional: a recurrent layer run forwards and a copy run backwards, merged."""

from __future__ import annotations

import copy
from typing import Any

from ...engine.ops import shape as _shape
from ...engine.ops.math import add, multiply
from .layer import Layer
from .recurrent import RNN

__all__ = ["Bidirectional"]


def _serialize(layer: Layer) -> dict:
    return {
        "module": "keras.layers",
        "class_name": type(layer).__name__,
        "config": layer.get_config(),
        "registered_name": None,
    }


def _copy(layer: RNN, name: str, go_backwards: bool) -> RNN:
    """A new layer of ``layer``'s config: its own weights, drawn afresh where the
    initializers' seeds were drawn, not given."""
    config = copy.deepcopy(layer.get_config())
    config["name"] = name
    config["go_backwards"] = go_backwards
    cell = getattr(layer, "cell", None)
    for key, value in config.items():
        init = getattr(cell, key, None)
        if key.endswith("_initializer") and getattr(init, "_drawn_seed", False):
            value["config"]["seed"] = None
    return type(layer).from_config(config)


class Bidirectional(Layer):
    """Run ``layer`` over the sequence and a copy of it over the reversed
    sequence; merge their outputs.

    Args:
        layer: a recurrent layer (SimpleRNN, LSTM, GRU, RNN); its copy runs with
            ``go_backwards`` flipped.
        merge_mode: "concat" (default), "sum", "mul", "ave", or None (the two
            outputs as a list).
        backward_layer: the layer for the backward direction, instead of a copy.
        **kwargs: base layer arguments.

    With ``return_sequences`` the backward outputs are put back in time order
    before merging. With ``return_state`` the call returns ``(output,
    *forward_states, *backward_states)``; ``initial_state`` takes the forward
    states, then the backward ones.

    Raises:
        ValueError: for a layer that is not recurrent, or an unknown merge mode.

    Example:
        >>> import numpy as np
        >>> from tapemagic.keras.layers import LSTM
        >>> Bidirectional(LSTM(3))(np.zeros((2, 5, 4), np.float32)).shape
        TensorShape([2, 6])
    """

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(layer, RNN):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a recurrent layer "
                f"(SimpleRNN, LSTM, GRU or RNN). Received: {layer}"
            )
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be "
                'one of {"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(**kwargs)
        name = layer.name.removeprefix("forward_")
        self.forward_layer = _copy(layer, "forward_" + name, layer.go_backwards)
        if backward_layer is None:
            self.backward_layer = _copy(
                layer, "backward_" + name, not layer.go_backwards
            )
        else:
            if not isinstance(backward_layer, RNN):
                raise ValueError(
                    "`backward_layer` must be a recurrent layer. Received: "
                    f"backward_layer={backward_layer}"
                )
            self.backward_layer = backward_layer
        for sub in (self.forward_layer, self.backward_layer):
            # as Keras: masked steps give zeros in a sequence output
            sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        if weights is not None:
            raise NotImplementedError(
                "Bidirectional(weights=...) is not supported by tapemagic; call "
                "set_weights on the layer once it is built."
            )

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                sub.build(tuple(sequences_shape))

    def call(
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = None,
    ) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state = list(initial_state[:half])
            backward_state = list(initial_state[half:])
        kwargs: dict = {"mask": mask}
        if training is not None:
            kwargs["training"] = training
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states: tuple = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = _shape.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output: Any = _shape.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = add(y, y_rev)
        elif self.merge_mode == "ave":
            output = multiply(add(y, y_rev), 0.5)
        elif self.merge_mode == "mul":
            output = multiply(y, y_rev)
        else:
            output = (y, y_rev)
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return (output,) + states
        return output

    def compute_output_shape(
        self, sequences_shape: Any, initial_state_shape: Any = None
    ) -> Any:
        output_shape = self.forward_layer.compute_output_shape(sequences_shape)
        state_shape: tuple = ()
        if self.return_state:
            state_shape = tuple(output_shape[1:])
            output_shape = output_shape[0]
        if self.merge_mode == "concat":
            output_shape = tuple(output_shape[:-1]) + (output_shape[-1] * 2,)
        elif self.merge_mode is None:
            output_shape = (tuple(output_shape), tuple(output_shape))
        if self.return_state:
            if self.merge_mode is None:
                return output_shape + state_shape + state_shape
            return (tuple(output_shape),) + state_shape + state_shape
        return tuple(output_shape) if self.merge_mode is not None else output_shape

    def compute_mask(self, _: Any, mask: Any) -> Any:
        if isinstance(mask, list):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.merge_mode is None:
            output_mask = [output_mask, output_mask]
        if self.return_state:
            states = [None] * (2 * len(self.forward_layer._state_sizes))
            if self.merge_mode is None:
                return output_mask + states
            return [output_mask] + states
        return output_mask

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "merge_mode": self.merge_mode,
            "layer": _serialize(self.forward_layer),
            "backward_layer": _serialize(self.backward_layer),
        }

    @classmethod
    def from_config(cls, config: dict) -> Bidirectional:
        from . import recurrent

        config = dict(config)

        def rebuild(entry: Any) -> Any:
            if not isinstance(entry, dict):
                return entry
            layer_cls = getattr(recurrent, entry["class_name"])
            return layer_cls.from_config(entry["config"])

        config["layer"] = rebuild(config["layer"])
        config["backward_layer"] = rebuild(config.get("backward_layer"))
        return super().from_config(config)
