"""What crossed the engine's edge: one record of an explanation log, one writer.

Values leave the engine (``.numpy()``, ``float()``, a copy) and Python or NumPy
objects come in (an op's input, ``tf.constant``). :class:`Escapes` remembers
enough of both to link them: an object that comes back is the escape it left
by, the same object converted twice is one object, and the tensor
``tf.constant`` returns is the conversion it made. It keeps a bounded number of
each (the oldest forgotten first), and only its own methods write it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Escapes"]

# How many objects of each kind the record keeps to recognise them.
_KEPT = 256


class Escapes:
    """Objects that left or entered the engine, by ``id``, held to compare."""

    def __init__(self) -> None:
        # id of an escaped result -> (the result, the escape's seq)
        self._escaped: dict[int, tuple[Any, int]] = {}
        # Python and NumPy objects converted: id -> (the object, its number).
        self._converted: dict[int, tuple[Any, int]] = {}
        # What tf.constant / convert_to_tensor made, as (array, tensor id,
        # convert seq), by id of the array and by tensor id: tf.constant returns
        # a new tensor holding that array, or a copy of it made right after.
        self._made_arrays: dict[int, tuple[Any, int, int]] = {}
        self._made_tensors: dict[int, tuple[Any, int, int]] = {}

    def left(self, result: Any, seq: int) -> None:
        """``result`` left the engine by the escape at ``seq``."""
        # Python ints are shared objects (small ones are cached), so only arrays,
        # NumPy scalars and floats can be recognised when they come back.
        if result is not None and not isinstance(result, int):
            _remember(self._escaped, id(result), (result, seq))

    def escape_of(self, obj: Any) -> int | None:
        """The seq of the escape that handed out ``obj`` itself, if known."""
        kept = self._escaped.get(id(obj))
        return kept[1] if kept is not None and kept[0] is obj else None

    def number(self, value: Any) -> int:
        """A number per converted object: the same object gets the same one."""
        kept = self._converted.get(id(value))
        if kept is None or kept[0] is not value:
            kept = (value, len(self._converted) + 1)
            _remember(self._converted, id(value), kept)
        return kept[1]

    def made_constant(self, array: Any, tensor_id: int, seq: int) -> None:
        """``tf.constant`` converted ``array`` into tensor ``tensor_id`` at ``seq``."""
        made = (array, tensor_id, seq)
        _remember(self._made_arrays, id(array), made)
        _remember(self._made_tensors, tensor_id, made)

    def constant_of(self, key: int, value: Any) -> tuple[int, int] | None:
        """``(tensor id, convert seq)`` of the conversion whose tensor ``key``
        (holding ``value``) was returned: the same array, or an equal copy
        made right after."""
        made = self._made_arrays.get(id(value))
        if made is None or made[0] is not value:
            made = self._made_tensors.get(key - 1)
            if made is None or not (
                made[0].shape == value.shape
                and made[0].dtype == value.dtype
                and np.array_equal(made[0], value, equal_nan=value.dtype.kind in "fc")
            ):
                return None
        return made[1], made[2]


def _remember(kept: dict, key: int, entry: tuple) -> None:
    """Keep ``entry`` under ``key``, forgetting the oldest beyond a bound."""
    if len(kept) >= _KEPT and key not in kept:
        del kept[next(iter(kept))]
    kept[key] = entry
