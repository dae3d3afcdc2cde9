"""Python's operators on tensors and variables, bound to the op library.

tensor.py defines Tensor and Variable, and the ops are built on them, so the
operators cannot be written there without a cycle; the op library binds them
onto the classes instead, once, when it loads (see :func:`bind_operators`).
Where the operands come in the op's own order (``x + y`` is ``add(x, y)``) the
operator is the op's function itself: one Python call less on the hottest path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..op import op_function
from . import linalg, math, shape

__all__ = ["bind_operators"]


def _radd(self: Any, other: Any) -> Any:
    return math.add(other, self)


def _rsub(self: Any, other: Any) -> Any:
    return math.subtract(other, self)


def _bool_mul(x: Any, y: Any) -> Any:
    if x._value.dtype == np.bool_:
        return math.logical_and(x, y)
    return math.multiply(x, y)  # raises multiply's refusal


# NOTE: `*` of bools is their logical and, as in TensorFlow, whose tf.multiply
# refuses them: the op's function, answering its refusal of bools
_mul = op_function(math.multiply.op, _bool_mul)


def _rmul(self: Any, other: Any) -> Any:
    return _mul(other, self)


def _rtruediv(self: Any, other: Any) -> Any:
    return math.truediv(other, self)


def _rfloordiv(self: Any, other: Any) -> Any:
    return math.floordiv(other, self)


def _rmod(self: Any, other: Any) -> Any:
    return math.mod(other, self)


def _rpow(self: Any, other: Any) -> Any:
    return math.pow(other, self)


def _rmatmul(self: Any, other: Any) -> Any:
    return linalg.matmul(other, self)


def _eq(self: Any, other: Any) -> Any:
    # TensorFlow 2 compares elementwise; values that are not tensors at all
    # (None, strings) are simply unequal.
    try:
        return math.equal(self, other)
    except (TypeError, ValueError):
        return False


def _ne(self: Any, other: Any) -> Any:
    try:
        return math.not_equal(self, other)
    except (TypeError, ValueError):
        return True


def _rand(self: Any, other: Any) -> Any:
    return math.logical_and(other, self)


def _ror(self: Any, other: Any) -> Any:
    return math.logical_or(other, self)


def _rxor(self: Any, other: Any) -> Any:
    return math.logical_xor(other, self)


def bind_operators(cls: type, variable: type) -> None:
    """Give ``cls`` (Tensor's and Variable's base) its operators, each an op.

    A variable's ``[]`` also remembers where a slice came from, so that
    ``variable[key].assign(value)`` can write into it.
    """
    operators = {
        "__add__": math.add,
        "__radd__": _radd,
        "__sub__": math.subtract,
        "__rsub__": _rsub,
        "__mul__": _mul,
        "__rmul__": _rmul,
        "__truediv__": math.truediv,
        "__rtruediv__": _rtruediv,
        "__floordiv__": math.floordiv,
        "__rfloordiv__": _rfloordiv,
        "__mod__": math.mod,
        "__rmod__": _rmod,
        "__pow__": math.pow,
        "__rpow__": _rpow,
        "__matmul__": linalg.matmul,
        "__rmatmul__": _rmatmul,
        "__neg__": math.negative,
        "__abs__": math.abs,
        "__lt__": math.less,
        "__le__": math.less_equal,
        "__gt__": math.greater,
        "__ge__": math.greater_equal,
        "__eq__": _eq,
        "__ne__": _ne,
        "__and__": math.logical_and,
        "__rand__": _rand,
        "__or__": math.logical_or,
        "__ror__": _ror,
        "__xor__": math.logical_xor,
        "__rxor__": _rxor,
        "__invert__": math.logical_not,
        "__getitem__": shape.getitem,
    }
    for name, function in operators.items():
        setattr(cls, name, function)
    # Called on the class, not on an instance: plain functions, not methods.
    cls._stack = staticmethod(shape.stack)
    cls._unstack = staticmethod(shape.unstack)
    variable.__getitem__ = shape.getitem_variable
