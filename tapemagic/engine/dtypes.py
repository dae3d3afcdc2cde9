"""TensorFlow's dtypes over NumPy's: names, kinds and the conversion rules.

A :class:`DType` wraps one NumPy dtype. Tensors store plain NumPy arrays, so the
engine only ever meets NumPy dtypes on its hot path; ``DType`` objects appear at
the API boundary (``tensor.dtype``, ``tf.cast(x, tf.float32)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "DType",
    "as_dtype",
    "bool",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_floating",
    "uint8",
]


class DType:
    """A tensor element type with TensorFlow's name and NumPy's storage.

    Example:
        >>> float32.name, float32.is_floating, int32.is_integer
        ('float32', True, True)
        >>> print(float32, [float32])
        <dtype: 'float32'> [tf.float32]
    """

    __slots__ = ("_np", "name")

    def __init__(self, name: str, np_dtype: Any) -> None:
        self.name = name
        self._np = np.dtype(np_dtype)

    @property
    def as_numpy_dtype(self) -> type:
        """The NumPy scalar type, e.g. ``numpy.float32``."""
        return self._np.type

    @property
    def is_floating(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_complex(self) -> bool:
        return self._np.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self._np.kind == "b"

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def min(self) -> Any:
        info = np.finfo(self._np) if self.is_floating else np.iinfo(self._np)
        return info.min

    @property
    def max(self) -> Any:
        info = np.finfo(self._np) if self.is_floating else np.iinfo(self._np)
        return info.max

    @property
    def size(self) -> int:
        return self._np.itemsize

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        # print(t.dtype) shows <dtype: 'float32'>, as in TensorFlow.
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self._np == other._np
        try:
            return self._np == as_dtype(other)._np
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self._np)

    def __reduce__(self) -> tuple:
        return as_dtype, (self.name,)


float16 = half = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = double = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool = DType("bool", np.bool_)  # noqa: A001 - TensorFlow's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)

_ALL = (
    float16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64,
    complex128,
)  # fmt: skip
_BY_NP: dict[np.dtype, DType] = {d._np: d for d in _ALL}
_BY_NAME: dict[str, DType] = {d.name: d for d in _ALL}
_BY_NAME.update(half=float16, double=float64)


def as_dtype(value: Any) -> DType:
    """Turn a DType, a name (``"float32"``) or a NumPy dtype into a :class:`DType`.

    Args:
        value: what to convert.

    Returns:
        The matching DType.

    Raises:
        TypeError: if ``value`` names no dtype that tapemagic supports.

    Example:
        >>> as_dtype("float64"), as_dtype(np.int32)
        (tf.float64, tf.int32)
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is None:
        raise TypeError(
            "dtype None is not a dtype here; pass tf.float32, tf.float64, tf.int32, "
            "tf.int64 or tf.bool."
        )
    try:
        return _BY_NP[np.dtype(value)]
    except (TypeError, KeyError):
        pass
    known = ", ".join(sorted(_BY_NAME))
    raise TypeError(f"Cannot convert {value!r} to a dtype. Supported dtypes: {known}.")


def from_numpy(np_dtype: np.dtype) -> DType:
    """The DType of a NumPy dtype that is already known to be supported."""
    return _BY_NP[np_dtype]


def is_floating(np_dtype: np.dtype) -> bool:
    """Whether a NumPy dtype can carry gradients (floating or complex)."""
    return np_dtype.kind in "fc"
