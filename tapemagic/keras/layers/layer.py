"""The Keras 3 ``Layer``: weights, losses, building on first call, and its nodes.

A layer creates its weights when it first sees an input (``build(input_shape)``
runs inside the first ``__call__``), so ``Dense(10)`` needs no input size. Its
weights are :class:`~.variable.KerasVariable` objects, engine Variables named and
pathed as Keras 3 names them (``kernel``, ``dense/kernel``); a tape watches them
like any trainable Variable. Called on a :class:`~.keras_tensor.KerasTensor`, a
layer computes only the output's shape.

Which weights belong to a layer follows Keras 3: the layer's own weights in
creation order, then those of the layers held in its attributes (also inside
lists, tuples and dicts), in the order the attributes were first set. The
``training`` flag passed to an outer call reaches every layer called inside it
that is not given its own. A call on KerasTensors is recorded on the layer as
Keras 3 records its nodes: ``layer.input`` and ``layer.output`` are those of the
first such call.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

from ...engine import dtypes
from ...engine.ops.math import cast
from ...engine.tensor import Tensor, Variable, array_of, convert_to_tensor
from .. import backend, initializers
from .call_context import (
    call_spec,
    call_state,
    context_training,
    frame,
    marking_built,
    scope_path,
    shapes_only,
)
from .keras_tensor import KerasTensor, _is_symbolic, _shape_of
from .masking import get_keras_mask, has_masks, mask_of, set_keras_mask
from .variable import KerasVariable

__all__ = ["Layer", "shapes_only"]


# -- the call context ------------------------------------------------------------------


# The layers holding losses from add_loss. While it is empty (no layer adds
# losses, the common case) a call has nothing to clear and `losses` nothing to
# collect, so neither walks the layers.
_loss_holders: weakref.WeakSet = weakref.WeakSet()


def _is_tensor(value: Any) -> bool:
    return isinstance(value, (Tensor, Variable, KerasTensor))


def _tensor_arguments(spec: Any, args: tuple, kwargs: dict) -> dict:
    """The call's arguments that are tensors (or lists of them), by name."""
    found = {}
    named = list(zip(spec.names, args)) + list(kwargs.items())
    for name, value in named:
        if _is_tensor(value) or (
            isinstance(value, (list, tuple))
            and value
            and all(v is None or _is_tensor(v) for v in value)
            and any(v is not None for v in value)
        ):
            found[name] = value
    return found


def _give_masks(spec: Any, args: tuple, kwargs: dict) -> None:
    """Keras 3's rule: a call of one tensor argument gets its mask as ``mask``;
    a call of several gets each one's mask as ``<name>_mask`` where call() has
    that parameter (MultiHeadAttention's ``query_mask``), and no ``mask``."""
    tensors = _tensor_arguments(spec, args, kwargs)
    if len(tensors) <= 1:
        if spec.has_mask and kwargs.get("mask") is None:
            mask = mask_of(args[0])
            if _any_mask(mask):
                kwargs["mask"] = mask
        return
    for name, value in tensors.items():
        key = f"{name}_mask"
        if key in spec.names and kwargs.get(key) is None:
            mask = mask_of(value)
            if _any_mask(mask):
                kwargs[key] = mask


def _several_shapes(shape: Any) -> bool:
    return (
        isinstance(shape, (list, tuple))
        and len(shape) > 0
        and all(isinstance(s, (list, tuple)) for s in shape)
    )


def _any_mask(mask: Any) -> bool:
    if isinstance(mask, list):
        return any(m is not None for m in mask)
    return mask is not None


# -- the base class --------------------------------------------------------------------

_LAYER_KWARGS = ("input_shape", "input_dim", "batch_input_shape", "batch_size")


class Layer:
    """Base class of all layers: subclass it and define ``call`` (and ``build``).

    ``build(input_shape)`` runs once, on the first call, with the shape of the
    first input (a tuple of ints; the batch axis is None when building from
    ``keras.Input``); create weights there with :meth:`add_weight`. ``call(inputs,
    training=None)`` computes the output with tensor ops.

    Args:
        trainable: whether the layer's weights are listed as trainable.
        dtype: the dtype of its weights and computations (default floatx).
        autocast: cast floating inputs to the layer's dtype.
        name: the layer's name (default: from the class, made unique).
        **kwargs: ``input_shape``/``input_dim`` for the first layer of a
            Sequential model (prefer ``keras.Input``).

    Raises:
        ValueError: for an unknown keyword argument.

    Example:
        >>> class Scale(Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1],),
        ...                                  initializer="ones", name="w")
        ...     def call(self, x):
        ...         return x * self.w
        >>> layer = Scale()
        >>> layer(np.ones((2, 3), np.float32)).shape, layer.built
        (TensorShape([2, 3]), True)
        >>> [w.name for w in layer.trainable_weights]
        ['w']
    """

    # whether __call__ converts the first input to a tensor before call() sees it
    _convert_input_args = True

    # whether the class defines its own compute_mask (may make a mask from none)
    _own_compute_mask = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._own_compute_mask = cls.compute_mask is not Layer.compute_mask
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_marks_built", False):
            cls.build = marking_built(build)

    def __init__(
        self,
        *,
        activity_regularizer: Any = None,
        trainable: bool = True,
        dtype: Any = None,
        autocast: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        kwargs.pop("batch_size", None)
        if kwargs:
            raise ValueError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                f"{kwargs}"
            )
        if activity_regularizer is not None:
            raise NotImplementedError(
                "activity_regularizer is not supported by tapemagic's layers; add "
                "the penalty to the loss inside your train step instead."
            )
        d = self.__dict__
        d.setdefault("_trainable_variables", [])
        d.setdefault("_non_trainable_variables", [])
        d["_losses"] = []
        d["_super_called"] = True
        d["name"] = backend._auto_name(type(self).__name__) if name is None else name
        d["_dtype"] = backend.standardize_dtype(dtype)
        d["_trainable"] = bool(trainable)
        d["autocast"] = bool(autocast)
        d["built"] = False
        d["_build_input_shape"] = None
        d["_build_output_shape"] = None
        # as Keras 3: a layer that defines compute_mask supports masking
        d.setdefault("_supports_masking", self._own_compute_mask)
        if input_shape is None and input_dim is not None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            input_shape = tuple(batch_input_shape)[1:]
        d["_input_shape_arg"] = None if input_shape is None else tuple(input_shape)
        if input_shape is not None:
            warnings.warn(
                "Do not pass an `input_shape`/`input_dim` argument to a layer. When "
                "using Sequential models, prefer using an `Input(shape)` object as the "
                "first layer in the model instead.",
                UserWarning,
                stacklevel=3,
            )

    # -- attribute tracking ------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        # As Keras 3: only Keras variables (add_weight, keras.Variable) become
        # weights; a plain tf.Variable attribute is not tracked, so fit() does
        # not train it (the trainer explains this when it finds one).
        if isinstance(value, KerasVariable):
            self._track_variable(value)
        object.__setattr__(self, name, value)

    def _track_variable(self, variable: Variable) -> None:
        d = self.__dict__
        trainable = d.setdefault("_trainable_variables", [])
        other = d.setdefault("_non_trainable_variables", [])
        if any(v is variable for v in trainable) or any(v is variable for v in other):
            return
        (trainable if variable.trainable else other).append(variable)

    def _check_super_called(self) -> None:
        if not self.__dict__.get("_super_called", False):
            raise RuntimeError(
                f"In layer '{type(self).__name__}', you forgot to call "
                "`super().__init__()` as the first statement in the `__init__()` "
                "method. Go add it!"
            )

    def _sublayers(self) -> list[Layer]:
        """The layers held in attributes (and their lists and dicts), in order."""
        found: list[Layer] = []
        seen = {id(self)}

        def visit(value: Any) -> None:
            if isinstance(value, Layer):
                if id(value) not in seen:
                    seen.add(id(value))
                    found.append(value)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    visit(item)
            elif isinstance(value, dict):
                for item in value.values():
                    visit(item)

        for value in list(vars(self).values()):
            visit(value)
        return found

    def _flatten_layers(self, include_self: bool = True) -> list[Layer]:
        out: list[Layer] = [self] if include_self else []
        seen = {id(self)}
        stack = list(reversed(self._sublayers()))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            stack.extend(reversed(layer._sublayers()))
        return out

    # -- weights ---------------------------------------------------------------------
    @property
    def weights(self) -> list[KerasVariable]:
        """All weights: the layer's own (creation order), then its sublayers'."""
        out: list = []
        seen: set[int] = set()
        for layer in self._flatten_layers():
            d = layer.__dict__
            own = d.get("_trainable_variables", []) + d.get(
                "_non_trainable_variables", []
            )
            for v in own:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def trainable_weights(self) -> list[KerasVariable]:
        """The weights a training step updates (none if ``trainable`` is False)."""
        if not self.trainable:
            return []
        return [v for v in self.weights if v.trainable]

    @property
    def non_trainable_weights(self) -> list[KerasVariable]:
        """The weights a training step leaves alone."""
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    @property
    def variables(self) -> list[KerasVariable]:
        """The same list as ``weights``."""
        return self.weights

    @property
    def trainable_variables(self) -> list[KerasVariable]:
        """The same list as ``trainable_weights``."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[KerasVariable]:
        """The same list as ``non_trainable_weights``."""
        return self.non_trainable_weights

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        # as Keras 3: the flag reaches every weight and every sublayer
        value = bool(value)
        self.__dict__["_trainable"] = value
        for v in self._trainable_variables:
            if isinstance(v, KerasVariable):
                v.trainable = value
        for layer in self._sublayers():
            layer.trainable = value

    @property
    def losses(self) -> list:
        """The scalar losses ``add_loss`` added in the last call, then those of
        the sublayers (a top-level call clears them all first)."""
        if not _loss_holders:
            return []
        found = list(self.__dict__.get("_losses", ()))
        for layer in self._flatten_layers(include_self=False):
            found.extend(layer.__dict__.get("_losses", ()))
        return found

    def add_loss(self, loss: Any) -> None:
        """Add a loss (a scalar tensor, or a list of them) from ``call`` or ``build``.

        ``compute_loss`` (and so ``fit``) adds every loss in ``losses`` to the
        compiled loss. The losses stay until the next call of the outermost layer
        or model.

        Raises:
            ValueError: if a value is not a tensor.

        Example:
            >>> import tapemagic.tf as tf
            >>> class Penalized(Layer):
            ...     def call(self, x):
            ...         self.add_loss(0.5 * tf.reduce_sum(x))
            ...         return x
            >>> layer = Penalized()
            >>> _ = layer(np.ones((2, 2), np.float32))
            >>> [float(v) for v in layer.losses]
            [2.0]
        """
        losses = list(loss) if isinstance(loss, (list, tuple)) else [loss]
        for value in losses:
            if not isinstance(value, (Tensor, Variable)):
                raise ValueError(
                    "`add_loss()` can only be called from inside `build()` or "
                    f"`call()`, on a tensor input. Received invalid value: {value}. "
                    "Compute the loss with tensor ops, or wrap a number in "
                    "tf.constant(...)."
                )
        if not call_state.shape_only and losses:
            self.__dict__.setdefault("_losses", []).extend(losses)
            _loss_holders.add(self)

    def _clear_losses(self) -> None:
        if not _loss_holders:
            return
        for layer in self._flatten_layers():
            if layer.__dict__.get("_losses"):
                layer.__dict__["_losses"] = []
                _loss_holders.discard(layer)

    @property
    def dtype(self) -> str:
        """The dtype of the layer's weights, e.g. "float32"."""
        return self._dtype

    @property
    def compute_dtype(self) -> str:
        return self._dtype

    @property
    def variable_dtype(self) -> str:
        return self._dtype

    @property
    def input_dtype(self) -> str:
        return self._dtype

    def add_weight(
        self,
        shape: Any = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        aggregation: str = "none",
        overwrite_with_gradient: bool = False,
        name: str | None = None,
    ) -> KerasVariable:
        """Create a weight, track it, and return it.

        Args:
            shape: the weight's shape (default ``()``).
            initializer: a name ("glorot_uniform", "zeros", ...), an initializer or
                a function of ``(shape, dtype)``; default "glorot_uniform" for
                floats, "zeros" otherwise.
            dtype: default the layer's dtype.
            trainable: whether it is listed in ``trainable_weights`` and watched by
                tapes automatically.
            autocast: accepted for compatibility.
            regularizer: not supported (must be None).
            constraint: not supported (must be None).
            aggregation: accepted for compatibility.
            overwrite_with_gradient: accepted for compatibility.
            name: the weight's name (default "variable").

        Returns:
            The new :class:`KerasVariable`.

        Raises:
            RuntimeError: if ``super().__init__()`` was not called.
            NotImplementedError: for a regularizer or constraint.

        Example:
            >>> layer = Layer(name="custom")
            >>> w = layer.add_weight(shape=(2, 3), initializer="zeros", name="w")
            >>> w.path, w.shape
            ('custom/w', TensorShape([2, 3]))
        """
        self._check_super_called()
        if isinstance(shape, str) and name is None:
            # Keras 2 order: add_weight(name, shape, ...)
            shape, name = None, shape
        if regularizer is not None or constraint is not None:
            raise NotImplementedError(
                f"add_weight(regularizer=..., constraint=...) is not supported by "
                f"tapemagic (layer {self.name!r}). Add a penalty to the loss, or "
                "clip the weight after each step with w.assign(...)."
            )
        shape = () if shape is None else tuple(int(d) for d in shape)
        dtype = backend.standardize_dtype(dtype or self.variable_dtype)
        if initializer is None:
            floating = dtypes.as_dtype(dtype).is_floating
            initializer = "glorot_uniform" if floating else "zeros"
        init = initializers.get(initializer)
        value = init(shape, dtype=dtype)
        value = convert_to_tensor(value, dtype=dtype)
        if tuple(value.shape) != shape:
            raise ValueError(
                f"The initializer of weight {name!r} returned shape "
                f"{tuple(value.shape)}, but shape={shape} was asked for."
            )
        name = "variable" if name is None else name
        variable = KerasVariable(
            value,
            trainable=trainable,
            name=name,
            dtype=dtype,
            path=scope_path(self, name),
        )
        self._track_variable(variable)
        return variable

    def count_params(self) -> int:
        """The number of scalars in the layer's weights.

        Raises:
            ValueError: if the layer is not built yet.
        """
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the "
                "layer isn't built. You can build it manually via: "
                "`layer.build(input_shape)`, or call it on data first."
            )
        return int(sum(int(np.prod(v.shape)) for v in self.weights))

    def get_weights(self) -> list[np.ndarray]:
        """The weights' values as NumPy arrays, in ``weights`` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights: list) -> None:
        """Assign NumPy arrays to the weights, in ``weights`` order.

        Raises:
            ValueError: if the count or a shape differs.
        """
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(
                f"Layer {self.name!r} expected {len(mine)} weights, but received "
                f"{len(weights)} input weights."
            )
        for variable, value in zip(mine, weights):
            value = np.asarray(value)
            if value.shape != tuple(variable.shape):
                raise ValueError(
                    f"Layer {self.name!r} weight shape {tuple(variable.shape)} is not "
                    f"compatible with provided weight shape {value.shape}."
                )
            variable.assign(value.astype(array_of(variable).dtype))

    # -- building and calling ----------------------------------------------------------
    # -- masks -------------------------------------------------------------------------
    @property
    def supports_masking(self) -> bool:
        """Whether the layer attaches ``compute_mask``'s mask to its output.

        A layer that does not support masking drops the mask of its input (with
        Keras' warning); the layers after it see none.
        """
        return self.__dict__.get("_supports_masking", False)

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self.__dict__["_supports_masking"] = bool(value)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        """The mask of the output: the input's, unchanged (subclasses override)."""
        return previous_mask

    def _set_mask_metadata(self, inputs: Any, outputs: Any, previous_mask: Any) -> None:
        flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if all(get_keras_mask(o) is not None for o in flat):
            return
        masks = self.compute_mask(inputs, previous_mask)
        if masks is None:
            return
        masks = list(masks) if isinstance(masks, (list, tuple)) else [masks]
        for tensor, mask in zip(flat, masks):
            if mask is not None and get_keras_mask(tensor) is None:
                set_keras_mask(tensor, mask)

    def build(self, input_shape: Any) -> None:
        """Create the weights for inputs of ``input_shape`` (subclasses override)."""
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """The computation (subclasses override)."""
        raise NotImplementedError(
            f"Layer {type(self).__name__} does not have a `call()` method "
            "implemented. Define call(self, inputs) returning the output."
        )

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for ``input_shape``, found by running ``call`` on zeros.

        Built-in layers compute it directly; a None batch axis stays None.
        """
        dtype = dtypes.as_dtype(self.compute_dtype).as_numpy_dtype

        def zeros(shape: Any) -> Tensor:
            return Tensor(np.zeros(tuple(1 if d is None else d for d in shape), dtype))

        several = isinstance(input_shape, list) and all(
            isinstance(s, (tuple, list)) for s in input_shape
        )
        out = self.call(
            [zeros(s) for s in input_shape] if several else zeros(input_shape)
        )
        shape = tuple(out.shape)
        first = input_shape[0] if several else input_shape
        if first and first[0] is None and shape and shape[0] == 1:
            shape = (None,) + shape[1:]
        return shape

    def _check_input_shape(self, shape: Any) -> None:
        """Raise if inputs of ``shape`` do not fit the layer (Keras' InputSpec)."""

    def _convert_input(self, x: Any) -> Any:
        # a list of arrays is a structure of inputs; a nested list of numbers is data
        plain_list = isinstance(x, (list, tuple)) and not any(
            isinstance(v, (Tensor, Variable, np.ndarray)) for v in x
        )
        if isinstance(x, Tensor):
            t = x
        elif isinstance(x, (Variable, np.ndarray, np.generic)) or plain_list:
            t = convert_to_tensor(x)
        else:
            return x
        if (
            self.autocast
            and array_of(t).dtype.kind == "f"
            and t.dtype != self.input_dtype
        ):
            t = cast(t, self.input_dtype)
        if t is not x and has_masks():
            # as Keras: the converted input keeps its mask
            mask = get_keras_mask(x)
            if mask is not None:
                set_keras_mask(t, mask)
        return t

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_super_called()
        if not args:
            if "inputs" not in kwargs:
                raise TypeError(
                    f"Layer {self.name!r} was called without inputs; call it as "
                    "layer(x)."
                )
            args = (kwargs.pop("inputs"),)
        if _is_symbolic(args[0]):
            return self._symbolic_call(*args, **kwargs)
        spec = call_spec(type(self))
        # masks are looked for only where some tensor has one, or a layer makes one
        masking = has_masks() or self._makes_masks
        previous_mask = None
        if masking:
            previous_mask = kwargs.get("mask")
            if previous_mask is None:
                previous_mask = mask_of(args[0])
            _give_masks(spec, args, kwargs)
        if self._convert_input_args:
            args = (self._convert_input(args[0]),) + args[1:]
        if not call_state.frames:
            # the outermost call starts afresh, as Keras' call context does
            self._clear_losses()
        training = kwargs.pop("training", None)
        if training is None:
            training = context_training()
        if training is None:
            training = call_spec(type(self)).training_default
        with frame(self, training):
            self._check_input_shape(_shape_of(args[0]))
            if not self.built:
                self._build_on_call(args[0])
            if spec.has_training and training is not None:
                kwargs["training"] = training
            outputs = self.call(*args, **kwargs)
        if masking:
            if self.supports_masking:
                self._set_mask_metadata(args[0], outputs, previous_mask)
            elif _any_mask(previous_mask):
                warnings.warn(
                    f"Layer '{self.name}' (of type {type(self).__name__}) was passed "
                    "an input with a mask attached to it. However, this layer does "
                    "not support masking and will therefore destroy the mask "
                    "information. Downstream layers will not see the mask.",
                    UserWarning,
                    stacklevel=2,
                )
        if self._build_output_shape is None:
            self.__dict__["_build_output_shape"] = _shape_of(outputs)
        return outputs

    @property
    def _makes_masks(self) -> bool:
        # a layer whose compute_mask may make a mask from none (Embedding)
        return self._own_compute_mask and self.__dict__.get("_supports_masking", False)

    def _build_on_call(self, x: Any) -> None:
        shape = _shape_of(x)
        self.__dict__["_build_input_shape"] = shape
        self.build(shape)
        self.built = True

    def _symbolic_call(self, *args: Any, **kwargs: Any) -> KerasTensor:
        x = args[0]
        if isinstance(x, KerasTensor):
            inputs, shape = [x], x.shape
        elif isinstance(x, (list, tuple)) and all(
            isinstance(t, KerasTensor) for t in x
        ):
            # a list of inputs (the merge layers): a list of shapes
            inputs, shape = list(x), [t.shape for t in x]
        else:
            raise NotImplementedError(
                f"Layer {self.name!r} was called on {x!r}; tapemagic's functional "
                "models call a layer on a KerasTensor or a list of them, not on a "
                "mix of KerasTensors and other values."
            )
        out_shape = self._build_symbolic(shape)
        producer = (self, args, kwargs)
        if _several_shapes(out_shape):
            # several outputs of one call (an RNN's output and states): each
            # knows them all, so a model runs the call once for all of them
            outputs = tuple(
                KerasTensor(s, dtype=self.compute_dtype, producer=producer)
                for s in out_shape
            )
            for output in outputs:
                output._call_outputs = outputs
            self._add_node(inputs, list(outputs))
            return outputs
        output = KerasTensor(out_shape, dtype=self.compute_dtype, producer=producer)
        self._add_node(inputs, [output])
        return output

    # -- the calls on KerasTensors (Keras 3's inbound nodes) ---------------------------
    def _add_node(self, inputs: list, outputs: list) -> None:
        self.__dict__.setdefault("_inbound_nodes", []).append((inputs, outputs))

    @property
    def input(self) -> Any:
        """The KerasTensor(s) the layer was first called on symbolically.

        Raises:
            AttributeError: if the layer was never called on a KerasTensor.
        """
        return self._first_node_tensors(0, "input")

    @property
    def output(self) -> Any:
        """The KerasTensor(s) the layer's first symbolic call returned.

        ``keras.Model(model.inputs, layer.output)`` builds a feature extractor.

        Raises:
            AttributeError: if the layer was never called on a KerasTensor.
        """
        return self._first_node_tensors(1, "output")

    def _first_node_tensors(self, which: int, what: str) -> Any:
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            raise AttributeError(
                f"The layer {self.name} has never been called and thus has no "
                f"defined {what}. (Calls on data do not count: call it on a "
                "keras.Input tensor, or put it in a model that starts with "
                "keras.Input.)"
            )
        tensors = nodes[0][which]
        return tensors[0] if len(tensors) == 1 else list(tensors)

    def _build_symbolic(self, shape: tuple) -> Any:
        """Build for inputs of ``shape`` (batch axis may be None); the output shape."""
        with frame(self, None), shapes_only():
            if not self.built:
                self.__dict__["_build_input_shape"] = shape
                self.build(shape)
                self.built = True
            self._check_input_shape(shape)
            out_shape = self.compute_output_shape(shape)
        if self._build_output_shape is None:
            # several outputs as Keras' summary lists them
            several = _several_shapes(out_shape)
            self.__dict__["_build_output_shape"] = (
                list(out_shape) if several else out_shape
            )
        return out_shape

    # -- configuration -----------------------------------------------------------------
    def get_config(self) -> dict:
        """The arguments that rebuild the layer: Keras 3's ``name``, ``trainable``
        and ``dtype`` (as its serialized ``DTypePolicy``); subclasses add theirs.

        Example:
            >>> Layer(name="l").get_config()["dtype"]["config"]
            {'name': 'float32'}
        """
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": {
                "module": "keras",
                "class_name": "DTypePolicy",
                "config": {"name": self.dtype},
                "registered_name": None,
            },
        }

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        """A new layer made from ``get_config()``'s dict.

        Example:
            >>> Layer.from_config({"name": "copy", "trainable": False}).trainable
            False
        """
        config = dict(config)
        dtype = config.get("dtype")
        if isinstance(dtype, dict):
            config["dtype"] = dtype.get("config", {}).get("name")
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"
