"""Keras' global settings: the default float dtype, the fuzz factor, layer names.

``floatx()`` is the dtype of new weights and of losses and metrics ("float32"
unless changed); ``epsilon()`` is the 1e-7 that the cross entropies clip
probabilities with; ``clear_session()`` restarts automatic names, so the next
``Dense`` is called "dense" again.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine import dtypes

__all__ = [
    "clear_session",
    "epsilon",
    "floatx",
    "set_epsilon",
    "set_floatx",
    "standardize_dtype",
]

_FLOATX = "float32"
_EPSILON = 1e-7
_NAME_COUNTS: dict[str, int] = {}


def floatx() -> str:
    """The default float dtype of weights, losses and metrics, as a string.

    Example:
        >>> floatx()
        'float32'
    """
    return _FLOATX


def set_floatx(value: str) -> None:
    """Set the default float dtype: "float16", "float32" or "float64".

    Raises:
        ValueError: for any other value.
    """
    global _FLOATX
    accepted = ("float16", "float32", "float64")
    name = str(value)
    if name not in accepted:
        raise ValueError(
            f"Unknown `floatx` value: {value!r}. Expected one of {accepted}."
        )
    _FLOATX = name


def epsilon() -> float:
    """The fuzz factor (1e-7): cross entropies clip probabilities to [eps, 1-eps].

    Example:
        >>> epsilon()
        1e-07
    """
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Set the fuzz factor returned by :func:`epsilon`."""
    global _EPSILON
    _EPSILON = float(value)


def clear_session() -> None:
    """Forget automatic layer names, so new layers are named "dense", "dense_1"...

    Example:
        >>> clear_session(); _unique_name("dense"), _unique_name("dense")
        ('dense', 'dense_1')
    """
    _NAME_COUNTS.clear()


def standardize_dtype(dtype: Any) -> str:
    """A dtype (string, NumPy or tf dtype, or None for floatx) as its name.

    Example:
        >>> standardize_dtype(None), standardize_dtype("float64")
        ('float32', 'float64')
    """
    if dtype is None:
        return _FLOATX
    return dtypes.as_dtype(dtype).name


def _to_snake_case(name: str) -> str:
    # Keras' rule: "MaxPooling2D" -> "max_pooling2d", "ReLU" -> "re_lu".
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _unique_name(base: str) -> str:
    """``base`` the first time, then ``base_1``, ``base_2``... (until clear_session)."""
    count = _NAME_COUNTS.get(base, 0)
    _NAME_COUNTS[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def _auto_name(class_name: str) -> str:
    return _unique_name(_to_snake_case(class_name))
