"""``TensorShape``: a tuple of ints that prints as a TensorFlow shape does."""

from __future__ import annotations

import numpy as np

__all__ = ["TensorShape"]


class TensorShape(tuple):
    """A tensor's shape: a tuple of ints that prints the way TensorFlow's does.

    Example:
        >>> s = TensorShape((2, 3))
        >>> s, s.as_list(), s.rank, s == (2, 3)
        (TensorShape([2, 3]), [2, 3], 2, True)
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def ndims(self) -> int:
        return len(self)

    def as_list(self) -> list[int]:
        return list(self)

    def num_elements(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def is_fully_defined(self) -> bool:
        return True

    def __getitem__(self, key):  # type: ignore[override]
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return tuple.__repr__(tuple(self))
