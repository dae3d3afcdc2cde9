"""``tf.function`` and friends: in tapemagic everything runs eagerly.

TensorFlow traces a ``tf.function`` into a graph; tapemagic has no graphs, so
the function runs eagerly, and its ops stay visible to tapes. What a traced
function does to its arguments and results still holds: with an
``input_signature`` the arguments are bound to it and converted to tensors of
its dtypes (a tensor of another dtype or shape is refused); without one, NumPy
arrays anywhere in the arguments become tensors while Python numbers stay as
they are; and the results come back as tensors.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Tensor, TensorShape, TensorSpec, Variable, convert_to_tensor, nest

__all__ = ["Function", "executing_eagerly", "function"]


def function(
    func: Callable | None = None,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    **kwargs: Any,
) -> Any:
    """Decorate a function (bare ``@tf.function`` or with arguments) to run as
    TensorFlow runs a ``tf.function``, eagerly.

    Args:
        func: the function or method to decorate.
        input_signature: None, or a list or tuple of (nested) ``tf.TensorSpec``,
            one per argument of ``func``: each call converts its arguments to
            them.
        autograph, jit_compile, reduce_retracing, **kwargs: TensorFlow's tracing
            options; accepted and ignored.

    Returns:
        A :class:`Function` wrapping ``func``, or (when called with options
        only) a decorator that makes one.

    Raises:
        TypeError: if ``input_signature`` is not a list or tuple of specs, or
            leaves an argument of ``func`` without one.

    Example:
        >>> @function(jit_compile=True)
        ... def double(x):
        ...     return 2 * x
        >>> double(3)
        <tf.Tensor: shape=(), dtype=int32, numpy=6>
    """
    if input_signature is not None:
        _check_signature(input_signature)
    if func is None:
        return lambda f: _make(f, input_signature)
    return _make(func, input_signature)


class Function:
    """What ``tf.function`` returns: the Python function, run eagerly.

    A call converts the arguments as a traced function's call does (see the
    module docstring), runs the Python function, and returns its results with
    every number, NumPy value and variable turned into a tensor (None stays
    None), as TensorFlow returns them. As a method it binds to its instance.

    Example:
        >>> import numpy as np
        >>> f = Function(lambda x, n: (x, n), None)
        >>> f(np.array([1.0]), 2)
        (<tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.])>, \
<tf.Tensor: shape=(), dtype=int32, numpy=2>)
    """

    def __init__(
        self,
        python_function: Callable,
        input_signature: Any,
        signature: inspect.Signature | None = None,
    ) -> None:
        self._python_function = python_function
        self._input_signature = input_signature
        self._signature = signature
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable:
        """The function that was decorated."""
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return self._input_signature

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        signature = self._call_signature()
        parameters = list(signature.parameters.values())[1:]  # without `self`
        return Function(
            types.MethodType(self._python_function, instance),
            self._input_signature,
            signature.replace(parameters=parameters),
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._input_signature is None:
            if _holds_numpy(args):
                args = nest.map_structure(_numpy_to_tensor, args)
            if kwargs and _holds_numpy(kwargs):
                kwargs = nest.map_structure(_numpy_to_tensor, kwargs)
        else:
            args, kwargs = self._bind(args, kwargs)
        result = self._python_function(*args, **kwargs)
        if isinstance(result, Tensor) or result is None:
            return result
        return nest.map_structure(self._output, result)

    # -- with an input_signature ------------------------------------------------
    def _call_signature(self) -> inspect.Signature:
        if self._signature is None:
            self._signature = inspect.signature(self._python_function)
        return self._signature

    def _bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        signature = self._call_signature()
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise self._binding_error(str(err), args, kwargs) from None
        specs = dict(zip(_spec_parameters(signature), self._input_signature))
        for name, value in bound.arguments.items():
            if name in specs:
                try:
                    bound.arguments[name] = _to_structure(value, specs[name])
                except _Mismatch as err:
                    raise self._binding_error(str(err), args, kwargs) from None
            elif not _same(value, signature.parameters[name].default):
                reason = (
                    f"{name}={value!r} is not in the input_signature, so it keeps "
                    f"its default, {signature.parameters[name].default!r}"
                )
                raise self._binding_error(reason, args, kwargs)
        return bound.args, bound.kwargs

    def _binding_error(self, reason: str, args: tuple, kwargs: dict) -> TypeError:
        signature = self._call_signature()
        names = _spec_parameters(signature)
        described = [
            f"{name}: {_describe_spec(spec)}"
            for name, spec in zip(names, self._input_signature)
        ]
        return TypeError(
            f"Binding inputs to tf.function failed due to `{reason}`. Received "
            f"args: {args!r} and kwargs: {kwargs!r} for signature: "
            f"({', '.join(described)}). Pass one argument per tf.TensorSpec, of "
            "its dtype and shape: convert or cast it first, e.g. tf.cast(x, "
            "tf.float32)."
        )

    def _output(self, leaf: Any) -> Any:
        if leaf is None or isinstance(leaf, (Tensor, str)):
            return leaf  # tapemagic has no string tensors: a str stays a str
        if isinstance(
            leaf, (Variable, bool, int, float, complex, np.ndarray, np.generic)
        ):
            return convert_to_tensor(leaf)
        raise TypeError(
            "To be compatible with tf.function, Python functions must return zero "
            "or more Tensors or ExtensionTypes or None values; in compilation of "
            f"{self._python_function!r}, found return value of type "
            f"{type(leaf).__name__}, which is not a Tensor or ExtensionType. Return "
            "tensors, numbers or None (or nested lists, tuples and dicts of them)."
        )


class _Mismatch(Exception):
    """An argument that does not fit its part of the input_signature."""


def _make(func: Callable, input_signature: Any) -> Function:
    if input_signature is not None:
        _check_arguments(func, input_signature)
    return Function(func, input_signature)


def _holds_numpy(structure: Any) -> bool:
    return any(
        isinstance(leaf, (np.ndarray, np.generic)) for leaf in nest.flatten(structure)
    )


def _numpy_to_tensor(leaf: Any) -> Any:
    # A traced function takes NumPy values as tensors and Python numbers as they are.
    if isinstance(leaf, (np.ndarray, np.generic)):
        return convert_to_tensor(leaf)
    return leaf


def _to_structure(value: Any, spec: Any) -> Any:
    """``value`` converted to the tensors ``spec`` describes, structure and all."""
    if isinstance(spec, TensorSpec):
        return _to_spec(value, spec)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise _Mismatch(
                f"{value!r} has different keys than the signature's dict, "
                f"{sorted(spec)}"
            )
        # Rebuilt in sorted key order, as TensorFlow rebuilds it.
        return {key: _to_structure(value[key], spec[key]) for key in sorted(spec)}
    kind = tuple if isinstance(spec, tuple) else list
    if not isinstance(value, kind):
        raise _Mismatch(f"Can not cast {value!r} to {kind.__name__} type.")
    if len(value) != len(spec):
        raise _Mismatch(f"Expected {value!r} to have length of {len(spec)}")
    items = [_to_structure(item, part) for item, part in zip(value, spec)]
    if hasattr(value, "_fields"):
        return type(value)(*items)
    return items if kind is list else tuple(items)


def _to_spec(value: Any, spec: TensorSpec) -> Tensor:
    if isinstance(value, (Tensor, Variable)) and value.dtype != spec.dtype:
        raise _Mismatch(f"Can not cast {TensorSpec.from_tensor(value)!r} to {spec!r}")
    try:
        tensor = convert_to_tensor(value, dtype=spec.dtype)
    except (TypeError, ValueError) as err:
        raise _Mismatch(str(err)) from None
    if not spec.is_compatible_with(tensor):
        raise _Mismatch(f"Can not cast {TensorSpec.from_tensor(tensor)!r} to {spec!r}")
    return tensor


def _same(value: Any, default: Any) -> bool:
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def _describe_spec(spec: Any) -> str:
    if isinstance(spec, TensorSpec):
        return repr(spec)
    if isinstance(spec, dict):
        items = ", ".join(f"[{key!r}, {_describe_spec(spec[key])}]" for key in spec)
        return f"Dict[{items}]"
    kind = "Tuple" if isinstance(spec, tuple) else "List"
    return f"{kind}[{', '.join(_describe_spec(part) for part in spec)}]"


def _spec_parameters(signature: inspect.Signature) -> list[str]:
    # The specs go to the positional parameters, in order.
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def _check_signature(input_signature: Any) -> None:
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(
            "input_signature must be either a tuple or a list, got "
            f"{type(input_signature)}."
        )
    invalid = [leaf for leaf in _leaves(input_signature) if not _is_spec(leaf)]
    if invalid:
        raise TypeError(
            "input_signature must be a possibly nested sequence of TensorSpec "
            f"objects, got invalid args {invalid} with types "
            f"{[type(leaf) for leaf in invalid]}. Describe each argument with "
            "tf.TensorSpec(shape, dtype)."
        )


def _is_spec(value: Any) -> bool:
    return isinstance(value, TensorSpec)


def _leaves(signature: Any) -> list:
    # A TensorShape is a tuple, but a leaf here: a shape where a spec belongs.
    if isinstance(signature, (list, tuple)) and not isinstance(signature, TensorShape):
        return [leaf for item in signature for leaf in _leaves(item)]
    if isinstance(signature, dict):
        return [leaf for key in sorted(signature) for leaf in _leaves(signature[key])]
    return [signature]


def _check_arguments(func: Callable, input_signature: Any) -> None:
    # Every positional parameter without a default needs a spec.
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return  # a builtin or C function: nothing to check
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]
    for parameter in positional[len(input_signature) :]:
        if parameter.default is parameter.empty:
            raise TypeError(
                f"input_signature missing type constraint for {parameter.name}. "
                "Give one tf.TensorSpec per argument."
            )


def executing_eagerly() -> bool:
    """Always True: tapemagic runs every op eagerly, as TensorFlow 2 does by default.

    Example:
        >>> executing_eagerly()
        True
    """
    return True
