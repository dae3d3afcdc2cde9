"""Keras masks: the boolean ``(batch, steps)`` tensor that rides along with a tensor.

Keras 3 attaches a mask to a tensor (``Embedding(mask_zero=True)`` makes one);
a layer whose ``call`` takes ``mask`` receives the mask of its input, and a
layer that supports masking attaches ``compute_mask(inputs, mask)`` to its
output. TensorFlow keeps the mask in an attribute of the tensor; an engine
tensor has fixed slots, so the masks are kept here, by the tensor's identity,
for as long as the tensor lives.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from .keras_tensor import KerasTensor

__all__ = ["get_keras_mask", "has_masks", "mask_of", "set_keras_mask"]

# id(tensor) -> (a weak reference to the tensor, its mask)
_masks: dict[int, tuple[weakref.ref, Any]] = {}


def has_masks() -> bool:
    """Whether any living tensor has a mask (a cheap test for the hot path)."""
    return bool(_masks)


def get_keras_mask(x: Any) -> Any:
    """The mask attached to ``x``, or None.

    Example:
        >>> import numpy as np
        >>> from tapemagic.engine.tensor import convert_to_tensor
        >>> t = convert_to_tensor(np.zeros((1, 2)))
        >>> set_keras_mask(t, np.array([[True, False]]))
        >>> get_keras_mask(t)
        array([[ True, False]])
    """
    if isinstance(x, KerasTensor):
        return getattr(x, "_keras_mask", None)
    entry = _masks.get(id(x))
    if entry is None or entry[0]() is not x:
        return None
    return entry[1]


def set_keras_mask(x: Any, mask: Any) -> None:
    """Attach ``mask`` to ``x`` (a Tensor or a KerasTensor); None removes it."""
    if isinstance(x, KerasTensor):
        x._keras_mask = mask
        return
    key = id(x)
    if mask is None:
        _masks.pop(key, None)
        return

    def forget(ref: weakref.ref, key: int = key) -> None:
        entry = _masks.get(key)
        if entry is not None and entry[0] is ref:
            del _masks[key]

    # a value that cannot be referenced weakly (a NumPy array) keeps no mask
    with contextlib.suppress(TypeError):
        _masks[key] = (weakref.ref(x, forget), mask)


def mask_of(x: Any) -> Any:
    """The masks of ``x`` in its structure: one mask, or a list of them."""
    if isinstance(x, (list, tuple)):
        return [get_keras_mask(v) for v in x]
    return get_keras_mask(x)
