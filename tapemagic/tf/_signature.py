"""What a ``tf.function`` call is traced for: its signature as a hashable key.

A key describes the call's arguments the way TensorFlow tells its traces apart:
tensors by dtype and shape, Python values by value, other objects by identity,
lists, tuples and dicts by their structure. A *trace key* may leave dimensions
(or a whole shape) unknown, as ``input_signature`` with None dimensions and
``reduce_retracing=True`` do; a *call key* always has concrete shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import Tensor, TensorSpec, Variable
from ..engine.tensor import array_of, id_of

__all__ = ["call_key", "compatible", "generalize", "shape_text", "spec_key"]

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
