"""What a traced function does to its arguments and results, as in TensorFlow.

With an ``input_signature`` the arguments are bound to it and converted to
tensors of its dtypes (a tensor of another dtype or shape is refused); without
one, NumPy arrays anywhere in the arguments become tensors while Python numbers
stay as they are; and the results come back as tensors.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Tensor, Variable, convert_to_tensor, nest
from ._signature import (
    Mismatch,
    describe_spec,
    same_value,
    spec_parameters,
    to_structure,
)

__all__ = ["as_result", "bind", "holds_numpy", "numpy_to_tensor", "pack_result"]


def bind(signature: inspect.Signature, input_signature: Any, args: tuple,
         kwargs: dict) -> tuple[tuple, dict]:  # fmt: skip
    """The arguments of a call, bound to ``signature`` and converted to the specs
    of ``input_signature``."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as err:
        raise _binding_error(
            signature, input_signature, str(err), args, kwargs
        ) from None
    specs = dict(zip(spec_parameters(signature), input_signature))
    for name, value in bound.arguments.items():
        if name in specs:
            try:
                bound.arguments[name] = to_structure(value, specs[name])
            except Mismatch as err:
                raise _binding_error(
                    signature, input_signature, str(err), args, kwargs
                ) from None
        elif not same_value(value, signature.parameters[name].default):
            reason = (
                f"{name}={value!r} is not in the input_signature, so it keeps "
                f"its default, {signature.parameters[name].default!r}"
            )
            raise _binding_error(signature, input_signature, reason, args, kwargs)
    return bound.args, bound.kwargs


def _binding_error(signature: inspect.Signature, input_signature: Any, reason: str,
                   args: tuple, kwargs: dict) -> TypeError:  # fmt: skip
    names = spec_parameters(signature)
    described = [
        f"{name}: {describe_spec(spec)}" for name, spec in zip(names, input_signature)
    ]
    return TypeError(
        f"Binding inputs to tf.function failed due to `{reason}`. Received "
        f"args: {args!r} and kwargs: {kwargs!r} for signature: "
        f"({', '.join(described)}). Pass one argument per tf.TensorSpec, of "
        "its dtype and shape: convert or cast it first, e.g. tf.cast(x, "
        "tf.float32)."
    )


def holds_numpy(structure: Any) -> bool:
    return any(
        isinstance(leaf, (np.ndarray, np.generic)) for leaf in nest.flatten(structure)
    )


def numpy_to_tensor(leaf: Any) -> Any:
    # A traced function takes NumPy values as tensors and Python numbers as they are.
    if isinstance(leaf, (np.ndarray, np.generic)):
        return convert_to_tensor(leaf)
    return leaf


def as_result(leaf: Any, function: Callable) -> Any:
    """A leaf of what ``function`` returned, as a traced function returns it."""
    if leaf is None or isinstance(leaf, (Tensor, str)):
        return leaf  # tapemagic has no string tensors: a str stays a str
    if isinstance(leaf, (Variable, bool, int, float, complex, np.ndarray, np.generic)):
        return convert_to_tensor(leaf)
    raise TypeError(
        "To be compatible with tf.function, Python functions must return zero "
        "or more Tensors or ExtensionTypes or None values; in compilation of "
        f"{function!r}, found return value of type "
        f"{type(leaf).__name__}, which is not a Tensor or ExtensionType. Return "
        "tensors, numbers or None (or nested lists, tuples and dicts of them)."
    )


def pack_result(result: Any, flat: list) -> Any:
    if isinstance(result, Tensor) or result is None:
        return result
    return nest.pack_sequence_as(result, flat)
