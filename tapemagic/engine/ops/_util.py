"""Argument checks the op modules share (the VJPs' helpers are in namespace.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..tensor import Tensor, Variable, convert_to_tensor

__all__ = [
    "check_axis",
    "float_tensor",
    "normalize_axes",
    "read_tensors",
    "require_float",
    "shape_reads",
    "shape_dims",
    "static_shape",
]


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int, a sequence or an int tensor) as sorted non-negative ints.

    Raises:
        ValueError: if an axis is out of range for ``ndim`` dimensions.
    """
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        axis = axis._value.tolist()
    items = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]
    out = []
    for a in items:
        if not -ndim <= a < ndim:
            raise ValueError(
                f"axis {a} is out of range for a tensor of rank {ndim}; use an axis "
                f"in [{-ndim}, {ndim})."
            )
        out.append(a % ndim)
    return tuple(sorted(set(out)))


def float_tensor(value: Any, op_name: str) -> Tensor:
    """``value`` as a tensor, which must be floating point.

    Raises:
        TypeError: for any other dtype, naming the op and the cast to use.
    """
    x = convert_to_tensor(value)
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name}. Cast it "
            "first: tf.cast(x, tf.float32)."
        )
    return x


def read_tensors(*values: Any) -> tuple[Tensor, ...]:
    """The tensors among ``values`` (variables read as tensors), for ``apply``'s
    ``reads``: parameters such as a shape given as a tensor, which listeners
    hear as inputs without a gradient.

    Example:
        >>> t = convert_to_tensor([2, 3])
        >>> read_tensors([2, 3], t) == (t,)
        True
    """
    return tuple(
        [
            v if isinstance(v, Tensor) else convert_to_tensor(v)
            for v in values
            if isinstance(v, (Tensor, Variable))
        ]
    )


def shape_reads(shape: Any) -> tuple[Tensor, ...]:
    """The tensors a shape argument was given as: the whole shape, or those in
    its list (``[n, -1]``), for ``apply``'s ``reads``.

    Example:
        >>> n = convert_to_tensor(2)
        >>> shape_reads([n, 3]) == (n,)
        True
    """
    if isinstance(shape, (Tensor, Variable)):
        return read_tensors(shape)
    if isinstance(shape, (list, tuple)):
        return read_tensors(*shape)
    return ()


def static_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """A shape (or any list of ints, such as a permutation) as a tuple of ints.

    As TensorFlow takes them: an int, a TensorShape, a list or tuple of ints
    and scalar integer tensors or variables (``[n, -1]`` with ``n =
    tf.shape(x)[0]``), or an integer tensor of rank 0 or 1. Every shape
    argument of the engine passes through here.

    Args:
        shape: the shape.
        what: the op and argument, for error messages.

    Raises:
        TypeError: for a Python value that is not an int (``2.0``, ``True``).
        InvalidArgumentError: for a tensor that is not an integer scalar or vector.

    Example:
        >>> n = convert_to_tensor(2)
        >>> static_shape([n, -1]), static_shape(convert_to_tensor([2, 3]))
        ((2, -1), (2, 3))
    """
    if isinstance(shape, (Tensor, Variable)):
        array = _int_tensor_value(shape, what, "a shape")
        if array.ndim > 1:
            raise InvalidArgumentError(
                f"dims must represent a vector, got shape {_dims_text(array.shape)} "
                f"({what}). Give a list of ints or a 1-D int tensor, e.g. "
                "tf.shape(x).",
                op=what,
            )
        return tuple(array.reshape(-1).tolist())
    if isinstance(shape, np.ndarray):
        if shape.dtype.kind not in "iu":
            raise TypeError(
                f"{what}: a shape must hold integers, got a {shape.dtype} array "
                f"{shape.tolist()!r}. Cast it: tf.cast(shape, tf.int32)."
            )
        return tuple(shape.reshape(-1).tolist())
    if _is_int(shape):
        return (int(shape),)
    try:
        items = list(shape)
    except TypeError:
        raise TypeError(
            f"{what}: cannot use {shape!r} as a shape. Pass a list of ints such as "
            "[2, 3]."
        ) from None
    dims = []
    for d in items:
        if isinstance(d, (Tensor, Variable)):
            array = _int_tensor_value(d, what, "a dimension")
            if array.ndim:
                stacked = (len(items), *array.shape)
                raise InvalidArgumentError(
                    f"dims must represent a vector, got shape {_dims_text(stacked)} "
                    f"({what}: the shape holds a tensor of shape "
                    f"{list(array.shape)}). Each entry must be an int or a scalar "
                    "int tensor.",
                    op=what,
                )
            dims.append(int(array))
        elif _is_int(d):
            dims.append(int(d))
        else:
            raise TypeError(
                f"Cannot convert {shape!r} to EagerTensor of dtype int32: the shape "
                f"given to {what} holds {d!r}, not an int. Every dimension must be "
                "an integer, e.g. [2, 3], or a scalar int tensor."
            )
    return tuple(dims)


def shape_dims(shape: Any, what: str) -> tuple[int, ...]:
    """A shape of a tensor to create: :func:`static_shape`, each dimension >= 0.

    Raises:
        InvalidArgumentError: if a dimension is negative, as TensorFlow raises.
        TypeError: as :func:`static_shape`.
    """
    dims = static_shape(shape, what)
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(
                f"Dimension {d} must be >= 0 ({what}, shape {list(dims)}): every "
                "dimension of a new tensor is a size, 0 or more.",
                op=what,
            )
    return dims


def _dims_text(shape: tuple) -> str:
    # TensorFlow writes a shape in an error as [1,2].
    return "[" + ",".join(map(str, shape)) + "]"


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _int_tensor_value(t: Tensor | Variable, what: str, role: str) -> np.ndarray:
    array = t._value
    if array.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{what}: {role} must be an integer tensor (int32 or int64), got "
            f"{t.dtype.name} {array.tolist()!r}. Cast it first: "
            "tf.cast(n, tf.int32).",
            op=what,
        )
    return array


def check_axis(axis: Any, ndim: int, op_name: str) -> int:
    """``axis`` as a non-negative int.

    Raises:
        InvalidArgumentError: if it is out of range, naming the range.
    """
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{op_name}: axis {axis} is out of range for a tensor of rank {ndim}; use "
            f"an axis in [{-ndim}, {ndim}).",
            op=op_name,
        )
    return axis % ndim


def require_float(x: Tensor, op_name: str) -> None:
    """TensorFlow's refusal of an integer input to reduce_variance and reduce_std
    (a bool one is refused before, by the mean they start with)."""
    if x._value.dtype.kind not in "fc":
        raise TypeError(
            "Input must be either real or complex. Received integer type "
            f"<dtype: '{x.dtype.name}'>. Cast it first: tf.cast(x, tf.float32) "
            f"({op_name})."
        )
