"""``Lambda``: a Python function of tensors as a layer, as Keras 3 defines it."""

from __future__ import annotations

import codecs
import inspect
import marshal
import types
from typing import Any

from .layer import Layer

__all__ = ["Lambda"]


def _dump_function(fn: Any) -> dict:
    """A lambda as Keras 3's ``Lambda.get_config`` writes it: its code object,
    marshalled and base64-encoded (loadable by the same Python version only)."""
    if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
        code = codecs.encode(marshal.dumps(fn.__code__), "base64").decode("ascii")
        closure = (
            None if fn.__closure__ is None
            else tuple(cell.cell_contents for cell in fn.__closure__)
        )  # fmt: skip
        return {
            "class_name": "__lambda__",
            "config": {"code": code, "defaults": fn.__defaults__, "closure": closure},
        }
    if callable(fn):
        return {
            "module": fn.__module__,
            "class_name": "function",
            "config": fn.__name__,
            "registered_name": "function",
        }
    raise ValueError(
        f"Invalid input type for serialization. Received: {fn} of type {type(fn)}."
    )


def _load_function(config: Any, safe_mode: bool) -> Any:
    if not (isinstance(config, dict) and config.get("class_name") == "__lambda__"):
        return config
    if safe_mode:
        raise ValueError(
            "Requested the deserialization of a `Lambda` layer whose `function` is "
            "a Python lambda. This carries a potential risk of arbitrary code "
            "execution and thus it is disallowed by default. If you trust the "
            "source of the config, pass `safe_mode=False` to from_config."
        )
    inner = config["config"]
    code = marshal.loads(codecs.decode(inner["code"].encode("ascii"), "base64"))
    closure = inner["closure"]
    if closure is not None:
        closure = tuple(types.CellType(value) for value in closure)
    defaults = None if inner["defaults"] is None else tuple(inner["defaults"])
    return types.FunctionType(code, globals(), code.co_name, defaults, closure)


class Lambda(Layer):
    """Wrap ``function(inputs, **arguments)`` as a layer.

    Use it for a stateless computation in a Sequential or functional model;
    a computation with weights belongs in a ``Layer`` subclass (a Lambda's
    weights are not tracked, as in Keras).

    Args:
        function: a function of the input tensor. If it takes ``mask`` or
            ``training`` arguments, it receives them.
        output_shape: the output shape without the batch axis, or a function
            of the input shape; default: found by running ``function``.
        mask: a mask, or a function ``(inputs, mask)`` returning one.
        arguments: keyword arguments passed to ``function``.
        **kwargs: base layer arguments.

    Example:
        >>> import numpy as np
        >>> Lambda(lambda x: x ** 2)(np.array([[1.0, -3.0]], np.float32)).numpy()
        array([[1., 9.]], dtype=float32)
        >>> Lambda(lambda x: x[:, :2]).compute_output_shape((None, 5))
        (None, 2)
    """

    def __init__(
        self,
        function: Any,
        output_shape: Any = None,
        mask: Any = None,
        arguments: dict | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(
                f"Lambda's `function` must be callable, got {function!r}. Pass a "
                "function of the input tensor, e.g. Lambda(lambda x: x * 2)."
            )
        self.arguments = arguments or {}
        self.function = function
        self.supports_masking = mask is not None
        self.mask = mask
        self._output_shape = output_shape
        names = inspect.getfullargspec(function).args
        self._fn_expects_training_arg = "training" in names
        self._fn_expects_mask_arg = "mask" in names

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The ``mask`` argument, or what it returns when it is a function."""
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        return (input_shape[0],) + tuple(self._output_shape)

    def get_config(self) -> dict:
        config = {"function": _dump_function(self.function)}
        if self._output_shape is not None:
            shape = self._output_shape
            config["output_shape"] = _dump_function(shape) if callable(shape) else shape
        if self.mask is not None:
            config["mask"] = (
                _dump_function(self.mask) if callable(self.mask) else (self.mask)
            )
        config["arguments"] = self.arguments
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config: dict, safe_mode: bool = True) -> Lambda:
        """Rebuild a Lambda; a Python lambda loads only with ``safe_mode=False``.

        Raises:
            ValueError: for a lambda's code while ``safe_mode`` is True.
        """
        config = dict(config)
        config["function"] = _load_function(config["function"], safe_mode)
        if "output_shape" in config:
            shape = _load_function(config["output_shape"], safe_mode)
            if isinstance(shape, list):
                shape = tuple(shape)
            config["output_shape"] = shape
        return super().from_config(config)
