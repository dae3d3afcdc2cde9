"""``tf.TensorSpec``: the shape and dtype a tensor is expected to have.

A spec describes tensors without holding one: ``tf.data`` gives one per component
of a dataset's elements (``element_spec``), and ``tf.function(input_signature=...)``
takes a list of them. A dimension may be ``None`` (any size), and the whole shape
may be ``None`` (any rank), as in TensorFlow.
"""

from __future__ import annotations

import numbers
from typing import Any

from . import dtypes
from .dtypes import DType
from .tensor import Tensor, TensorShape, Variable

__all__ = ["TensorSpec"]


class _SpecShape(TensorShape):
    """A TensorShape whose dimensions may be None, or whose rank may be unknown."""

    __slots__ = ()

    # The one shape of unknown rank; set below.
    UNKNOWN: _SpecShape

    @property
    def rank(self) -> int | None:  # type: ignore[override]
        return None if self is _SpecShape.UNKNOWN else len(self)

    @property
    def ndims(self) -> int | None:  # type: ignore[override]
        return self.rank

    def as_list(self) -> list:
        if self is _SpecShape.UNKNOWN:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self)

    def is_fully_defined(self) -> bool:
        return self is not _SpecShape.UNKNOWN and None not in self

    def num_elements(self) -> int | None:
        return super().num_elements() if self.is_fully_defined() else None

    def is_compatible_with(self, other: Any) -> bool:
        """Whether some tensor could have both shapes (None matches any size)."""
        other = _as_shape(other)
        if self is _SpecShape.UNKNOWN or other is _SpecShape.UNKNOWN:
            return True
        if len(self) != len(other):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        if self is _SpecShape.UNKNOWN:
            return "TensorShape(None)"
        return super().__repr__()

    def __str__(self) -> str:
        if self is _SpecShape.UNKNOWN:
            return "<unknown>"
        return super().__str__()


_SpecShape.UNKNOWN = _SpecShape(())


def _as_shape(shape: Any) -> _SpecShape:
    """``shape`` (None, an int, or a sequence of ints and Nones) as a _SpecShape."""
    if isinstance(shape, _SpecShape):
        return shape
    if shape is None:
        return _SpecShape.UNKNOWN
    if isinstance(shape, numbers.Integral):
        shape = [shape]
    try:
        items = list(shape)
    except TypeError:
        raise TypeError(
            f"Failed to convert {shape!r} to a shape. A shape should either be a "
            "single dimension (e.g. 10), or an iterable of dimensions (e.g. "
            "[1, 10, None])."
        ) from None
    dims = []
    for item in items:
        if item is None:
            dims.append(None)
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if item < 0:
                raise ValueError(f"Dimension {int(item)} must be >= 0")
            dims.append(int(item))
        else:
            raise TypeError(
                f"Failed to convert {shape!r} to a shape: {item!r} could not be "
                "converted to a dimension. A shape should either be a single "
                "dimension (e.g. 10), or an iterable of dimensions (e.g. "
                "[1, 10, None])."
            )
    return _SpecShape(dims)


class TensorSpec:
    """The shape, dtype and optional name of a tensor, without a value.

    Args:
        shape: a sequence of ints and ``None`` (any size), or ``None`` (any rank).
        dtype: the dtype, ``tf.float32`` unless given.
        name: an optional name.

    Raises:
        TypeError: if ``shape`` or ``dtype`` cannot be read as one.
        ValueError: if a dimension is negative.

    Example:
        >>> spec = TensorSpec(shape=[None, 3], dtype=dtypes.int32)
        >>> spec
        TensorSpec(shape=(None, 3), dtype=tf.int32, name=None)
        >>> spec.shape, spec.shape.as_list()
        (TensorShape([None, 3]), [None, 3])
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(
        self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None
    ) -> None:
        self._shape = _as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def value_type(self) -> type:
        return Tensor

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The spec of a tensor or variable: its shape and dtype.

        Example:
            >>> from tapemagic.engine import convert_to_tensor
            >>> TensorSpec.from_tensor(convert_to_tensor([1.0, 2.0]))
            TensorSpec(shape=(2,), dtype=tf.float32, name=None)
        """
        if not isinstance(tensor, (Tensor, Variable)):
            raise ValueError(
                f"`tensor` should be a tf.Tensor, but got type {type(tensor)}."
            )
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec: TensorSpec, name: str | None = None) -> TensorSpec:
        """A copy of ``spec``, renamed when ``name`` is given.

        Example:
            >>> TensorSpec.from_spec(TensorSpec([2], name="q"))
            TensorSpec(shape=(2,), dtype=tf.float32, name='q')
        """
        return cls(spec.shape, spec.dtype, spec.name if name is None else name)

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        """Whether a tensor (or every tensor of a spec) fits this spec.

        Dtypes must be equal; ``None`` dimensions match any size. Only tensors and
        specs can fit: NumPy arrays, lists and variables do not, as in TensorFlow.

        Example:
            >>> from tapemagic.engine import convert_to_tensor
            >>> spec = TensorSpec([None])
            >>> spec.is_compatible_with(convert_to_tensor([1.0, 2.0]))
            True
            >>> spec.is_compatible_with(convert_to_tensor([1, 2]))
            False
        """
        if not isinstance(spec_or_tensor, (TensorSpec, Tensor)):
            return False
        return self._dtype == spec_or_tensor.dtype and self._shape.is_compatible_with(
            spec_or_tensor.shape
        )

    def most_specific_common_supertype(self, others: list) -> TensorSpec | None:
        """The narrowest spec that all of ``self`` and ``others`` fit, or None.

        Dimensions that differ become None; a rank that differs makes the rank
        unknown. Dtypes must agree.

        Example:
            >>> TensorSpec([2]).most_specific_common_supertype([TensorSpec([3])])
            TensorSpec(shape=(None,), dtype=tf.float32, name=None)
        """
        shape = self._shape
        for other in others:
            if not isinstance(other, TensorSpec) or other.dtype != self._dtype:
                return None
            shape = _common_shape(shape, other._shape)
        names = {self._name, *(other.name for other in others)}
        return TensorSpec(shape, self._dtype, self._name if len(names) == 1 else None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorSpec):
            return NotImplemented
        return (
            self._dtype == other._dtype
            and self._name == other._name
            and self._shape.rank == other._shape.rank
            and tuple(self._shape) == tuple(other._shape)
        )

    def __hash__(self) -> int:
        return hash((tuple(self._shape), self._shape.rank, self._dtype.name))

    def __repr__(self) -> str:
        return (
            f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, "
            f"name={self._name!r})"
        )

    def __reduce__(self) -> tuple:
        shape = None if self._shape.rank is None else tuple(self._shape)
        return TensorSpec, (shape, self._dtype.name, self._name)


def _common_shape(a: _SpecShape, b: _SpecShape) -> _SpecShape:
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return _SpecShape.UNKNOWN
    return _SpecShape([x if x == y else None for x, y in zip(a, b)])
