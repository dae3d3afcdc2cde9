"""The Keras 3 ``Model``: a layer that holds layers and can be trained.

Subclass it (layers as attributes, the forward pass in ``call``), or call it as
``Model(inputs, outputs)`` on ``keras.Input`` tensors for a functional model
(:mod:`.functional`); :mod:`.sequential` stacks layers in a list. The training
methods (``compile``, ``fit``, ``evaluate``, ``predict``) come from
:class:`~.trainer.Trainer`, the table of ``summary()`` from :mod:`.summary`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...engine.tensor import Tensor
from ..layers.keras_tensor import _shape_of
from ..layers.layer import Layer, shapes_only
from .summary import format_summary
from .trainer import Trainer

__all__ = ["Model"]


class Model(Trainer, Layer):
    """A layer that groups layers and can be trained.

    Subclass it: create layers as attributes in ``__init__`` (after
    ``super().__init__()``) and use them in ``call(inputs, training=None)``. The
    model's weights are those of its attribute layers, in the order the
    attributes were set. ``keras.Model(inputs, outputs)`` builds a functional
    model from ``keras.Input`` instead.

    Example:
        >>> from tapemagic.keras import layers
        >>> class MLP(Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = layers.Dense(4, activation="relu")
        ...         self.out = layers.Dense(2)
        ...     def call(self, x, training=None):
        ...         return self.out(self.hidden(x))
        >>> model = MLP()
        >>> model(np.ones((3, 5), np.float32)).shape, model.count_params()
        (TensorShape([3, 2]), 34)
    """

    # The class Model(inputs, outputs) makes. Functional subclasses Model, so
    # model.py cannot import it: its definition registers itself here
    # (``class Functional(Model, functional=True)``).
    _functional: type | None = None

    def __init_subclass__(cls, functional: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if functional:
            Model._functional = cls

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            return object.__new__(_functional_class())
        if _functional_arguments(args, kwargs) and not issubclass(
            cls, _functional_class()
        ):
            # `class CustomModel(keras.Model)` called as CustomModel(inputs,
            # outputs): a functional model whose methods (train_step...) are the
            # subclass's, as Keras 3 makes it.
            return object.__new__(_functional_variant(cls))
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _functional_arguments(args, kwargs) and isinstance(
            self, _functional_class()
        ):
            # a subclass's __init__ calling keras.Model.__init__(self, inputs,
            # outputs) by name rather than through super()
            _functional_class().__init__(self, *args, **kwargs)
            return
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__ takes keyword arguments only (name, "
                f"trainable, dtype), got positional arguments {args!r}."
            )
        Layer.__init__(self, **kwargs)
        Trainer.__init__(self)

    # -- structure ---------------------------------------------------------------------
    @property
    def layers(self) -> list[Layer]:
        """The model's direct sublayers, in the order they were set."""
        return self._sublayers()

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A sublayer by name or by index in ``layers``.

        Raises:
            ValueError: if no layer matches or neither argument is given.
        """
        if index is not None:
            if not 0 <= index < len(self.layers) and not -len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(self.layers)} layers."
                )
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            names = [layer.name for layer in self.layers]
            raise ValueError(f"No such layer: {name}. Existing layers are: {names}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def build(self, input_shape: Any) -> None:
        """Create every weight by running ``call`` once on zeros of ``input_shape``."""
        if type(self).call is Model.call:
            return
        concrete = tuple(1 if d is None else d for d in input_shape)
        before = {id(layer) for layer in self._flatten_layers() if layer.built}
        dtype = np.dtype(self.input_dtype)
        with shapes_only():
            self.call(Tensor(np.zeros(concrete, dtype)))
        if input_shape and input_shape[0] is None:
            # the zeros had batch size 1; record the layers' shapes with None
            for layer in self._flatten_layers(include_self=False):
                if id(layer) not in before:
                    for attr in ("_build_input_shape", "_build_output_shape"):
                        shape = layer.__dict__.get(attr)
                        if isinstance(shape, tuple) and shape and shape[0] == 1:
                            layer.__dict__[attr] = (None,) + shape[1:]

    def _build_on_call(self, x: Any) -> None:
        self.__dict__["_build_input_shape"] = _shape_of(x)
        if type(self).build is not Model.build:
            self.build(_shape_of(x))
        # otherwise the sublayers build themselves during the call, as in Keras
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"Model {type(self).__name__} has no call() method. Define "
            "call(self, inputs, training=None) using the layers made in __init__."
        )

    def count_params(self) -> int:
        """The number of scalars in the model's weights.

        Raises:
            ValueError: if the model is not built yet (call it on data, or pass
                ``keras.Input`` first).
        """
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the "
                "layer isn't built. You can build it manually via: "
                "`model.build(input_shape)`, or call it on a batch of data first."
            )
        return super().count_params()

    def summary(
        self,
        line_length: int | None = None,
        positions: Any = None,
        print_fn: Callable | None = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Print a table of the layers, their output shapes and parameter counts.

        Args:
            line_length: accepted for compatibility.
            positions: accepted for compatibility.
            print_fn: called with the whole text instead of ``print``.
            expand_nested: accepted for compatibility.
            show_trainable: accepted for compatibility.
            layer_range: accepted for compatibility.
        """
        (print_fn or print)(format_summary(self))


def _functional_arguments(args: tuple, kwargs: dict) -> bool:
    """Whether a model is called as Keras' functional ``Model(inputs, outputs)``."""
    return (
        len(args) == 2
        or (len(args) == 1 and "outputs" in kwargs)
        or ("inputs" in kwargs and "outputs" in kwargs)
    )


def _functional_class() -> type:
    if Model._functional is None:
        raise ImportError(
            "Model(inputs, outputs) needs tapemagic.keras.models.functional: "
            "import tapemagic.keras.models (or tapemagic.keras) first."
        )
    return Model._functional


@functools.cache
def _functional_variant(cls: type) -> type:
    """``cls`` with ``Functional`` after it: the subclass's methods come first.

    Keras 3 rewrites the subclass's bases in place; a new class of the same
    name leaves the user's class as written. Its instances are instances of
    ``cls`` and print and name themselves after it.
    """
    namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
    return type(cls.__name__, (cls, _functional_class()), namespace)
