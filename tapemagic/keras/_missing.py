"""Keras modules tapemagic does not have yet: importable, and explicit.

A program that imports ``keras.regularizers`` gets the module; what it uses
from it raises NotImplementedError naming the feature and what to use
instead, never a stand-in that silently does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["missing_names"]


def missing_names(module: str, feature: str, instead: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that refuses every public name of ``module``.

    Args:
        module: the module's name as programs write it (``keras.regularizers``).
        feature: what is missing, in a few words.
        instead: what to use instead, as a sentence.

    Example:
        >>> getattr_ = missing_names("keras.x", "the x feature", "Use y.")
        >>> getattr_("f")
        Traceback (most recent call last):
        ...
        NotImplementedError: keras.x.f is not in tapemagic yet (the x feature). Use y.
    """

    def __getattr__(name: str) -> NoReturn:
        if name.startswith("_"):  # probes for __wrapped__, _repr_html_, ...
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        raise NotImplementedError(
            f"{module}.{name} is not in tapemagic yet ({feature}). {instead}"
        )

    return __getattr__
