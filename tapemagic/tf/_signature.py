"""What a ``tf.function`` call is traced for: its signature as a hashable key;
and binding a call to an ``input_signature``.

A key describes the call's arguments the way TensorFlow tells its traces apart:
tensors by dtype and shape, Python values by value, other objects by identity,
lists, tuples and dicts by their structure. A *trace key* may leave dimensions
(or a whole shape) unknown, as ``input_signature`` with None dimensions and
``reduce_retracing=True`` do; a *call key* always has concrete shapes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Tensor, TensorShape, TensorSpec, Variable, convert_to_tensor
from ..engine.tensor import array_of, id_of

__all__ = [
    "Mismatch",
    "call_key",
    "check_arguments",
    "check_signature",
    "compatible",
    "describe_spec",
    "generalize",
    "same_value",
    "shape_text",
    "spec_key",
    "spec_parameters",
    "to_structure",
]

_SCALARS = (int, float, bool, str, bytes, complex, type(None))


def call_key(value: Any, tensors: list) -> Any:
    """The key of ``value`` (an argument structure); its tensors, in order,
    are appended to ``tensors``.

    Example:
        >>> found = []
        >>> call_key((Tensor(np.zeros(2, np.float32)), 3), found)
        ('tuple', (('T', dtype('float32'), (2,)), ('P', 3)))
    """
    if type(value) is not bool and isinstance(value, Tensor):
        tensors.append(value)
        array = array_of(value)
        return ("T", array.dtype, array.shape)
    if isinstance(value, _SCALARS):
        return ("P", value)
    if isinstance(value, Variable):
        return ("V", id_of(value))
    if isinstance(value, (list, tuple)):
        kind = type(value).__name__ if hasattr(value, "_fields") else (
            "list" if isinstance(value, list) else "tuple"
        )  # fmt: skip
        return (kind, tuple([call_key(item, tensors) for item in value]))
    if isinstance(value, dict):
        return (
            "dict",
            tuple([(key, call_key(value[key], tensors)) for key in sorted(value)]),
        )
    try:
        hash(value)
    except TypeError:
        return ("O", id(value))
    return ("O", value)


def spec_key(spec: Any) -> Any:
    """The trace key of an ``input_signature`` (or a structure of specs and
    values given to ``get_concrete_function``).

    Example:
        >>> spec_key([TensorSpec([None], "float32")])
        ('list', (('T', dtype('float32'), (None,)),))
    """
    if isinstance(spec, TensorSpec):
        shape = spec.shape
        dims = None if shape.rank is None else tuple(shape.as_list())
        return ("T", np.dtype(spec.dtype.as_numpy_dtype), dims)
    if isinstance(spec, (list, tuple)) and not hasattr(spec, "_fields"):
        kind = "list" if isinstance(spec, list) else "tuple"
        return (kind, tuple([spec_key(item) for item in spec]))
    if isinstance(spec, dict):
        return ("dict", tuple([(k, spec_key(spec[k])) for k in sorted(spec)]))
    return call_key(spec, [])


def compatible(trace: Any, call: Any) -> bool:
    """Whether a call with key ``call`` runs the trace with key ``trace``.

    Example:
        >>> compatible(("T", np.dtype("f4"), (None,)), ("T", np.dtype("f4"), (3,)))
        True
    """
    if trace == call:
        return True
    if type(trace) is not tuple or type(call) is not tuple or len(trace) != len(call):
        return False
    if trace and trace[0] == "T" and len(trace) == 3 and call[0] == "T":
        if trace[1] != call[1]:
            return False
        dims = trace[2]
        if dims is None:
            return True
        return len(dims) == len(call[2]) and all(
            d is None or d == c for d, c in zip(dims, call[2])
        )
    return all(compatible(t, c) for t, c in zip(trace, call))


def generalize(trace: Any, call: Any) -> Any:
    """The most specific key that both ``trace`` and ``call`` fit, where they
    differ only in tensor shapes (``reduce_retracing``); else None.

    Example:
        >>> generalize(("T", np.dtype("f4"), (1,)), ("T", np.dtype("f4"), (2,)))
        ('T', dtype('float32'), (None,))
    """
    if trace == call:
        return trace
    if type(trace) is not tuple or type(call) is not tuple or len(trace) != len(call):
        return None
    if trace and trace[0] == "T" and len(trace) == 3 and call[0] == "T":
        if trace[1] != call[1]:
            return None
        a, b = trace[2], call[2]
        if a is None or b is None or len(a) != len(b):
            return ("T", trace[1], None)
        return ("T", trace[1], tuple([x if x == y else None for x, y in zip(a, b)]))
    parts = [generalize(t, c) for t, c in zip(trace, call)]
    if any(p is None for p, t in zip(parts, trace) if t is not None):
        return None
    return tuple(parts)


def shape_text(dims: tuple | None) -> str | None:
    """A shape as TensorFlow prints a symbolic tensor's (None: unknown rank).

    Example:
        >>> shape_text((None, 3)), shape_text((2,)), shape_text(None)
        ('(None, 3)', '(2,)', None)
    """
    if dims is None:
        return None
    return str(tuple(dims))


# -- binding a call to an input_signature ---------------------------------------


class Mismatch(Exception):
    """An argument that does not fit its part of the input_signature."""


def to_structure(value: Any, spec: Any) -> Any:
    """``value`` converted to the tensors ``spec`` describes, structure and all.

    Raises:
        Mismatch: if the value does not fit the spec (its words go into
            TensorFlow's "Binding inputs to tf.function failed" error).

    Example:
        >>> to_structure([1.0], [TensorSpec([], "float32")])
        [<tf.Tensor: shape=(), dtype=float32, numpy=1.0>]
    """
    if isinstance(spec, TensorSpec):
        return _to_spec(value, spec)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise Mismatch(
                f"{value!r} has different keys than the signature's dict, "
                f"{sorted(spec)}"
            )
        # Rebuilt in sorted key order, as TensorFlow rebuilds it.
        return {key: to_structure(value[key], spec[key]) for key in sorted(spec)}
    kind = tuple if isinstance(spec, tuple) else list
    if not isinstance(value, kind):
        raise Mismatch(f"Can not cast {value!r} to {kind.__name__} type.")
    if len(value) != len(spec):
        raise Mismatch(f"Expected {value!r} to have length of {len(spec)}")
    items = [to_structure(item, part) for item, part in zip(value, spec)]
    if hasattr(value, "_fields"):
        return type(value)(*items)
    return items if kind is list else tuple(items)


def _to_spec(value: Any, spec: TensorSpec) -> Tensor:
    if isinstance(value, (Tensor, Variable)) and value.dtype != spec.dtype:
        raise Mismatch(f"Can not cast {TensorSpec.from_tensor(value)!r} to {spec!r}")
    try:
        tensor = convert_to_tensor(value, dtype=spec.dtype)
    except (TypeError, ValueError) as err:
        raise Mismatch(str(err)) from None
    if not spec.is_compatible_with(tensor):
        raise Mismatch(f"Can not cast {TensorSpec.from_tensor(tensor)!r} to {spec!r}")
    return tensor


def same_value(value: Any, default: Any) -> bool:
    """Whether an argument not in the input_signature is its default.

    Example:
        >>> same_value(2, 2), same_value(2.0, 2)
        (True, False)
    """
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def describe_spec(spec: Any) -> str:
    """A (nested) spec as TensorFlow's binding error shows it.

    Example:
        >>> describe_spec((TensorSpec([2], "int32"),))
        'Tuple[TensorSpec(shape=(2,), dtype=tf.int32, name=None)]'
    """
    if isinstance(spec, TensorSpec):
        return repr(spec)
    if isinstance(spec, dict):
        items = ", ".join(f"[{key!r}, {describe_spec(spec[key])}]" for key in spec)
        return f"Dict[{items}]"
    kind = "Tuple" if isinstance(spec, tuple) else "List"
    return f"{kind}[{', '.join(describe_spec(part) for part in spec)}]"


def spec_parameters(signature: inspect.Signature) -> list[str]:
    """The parameters the specs go to: the positional ones, in order.

    Example:
        >>> spec_parameters(inspect.signature(lambda x, y=1, *, z: 0))
        ['x', 'y']
    """
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def check_signature(input_signature: Any) -> None:
    """Refuse an input_signature that is not a (nested) sequence of specs.

    Raises:
        TypeError: with TensorFlow's words, and what to write instead.

    Example:
        >>> check_signature([TensorSpec([None], "float32")])
    """
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


def check_arguments(func: Callable, input_signature: Any) -> None:
    """Refuse a signature that leaves a positional parameter without a default
    and without a spec.

    Raises:
        TypeError: naming the parameter.

    Example:
        >>> check_arguments(lambda x, n=2: x, [TensorSpec([], "float32")])
    """
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
