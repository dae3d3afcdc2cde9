"""``tf.function`` and friends: in tapemagic everything runs eagerly.

TensorFlow traces a ``tf.function`` into a graph; tapemagic has no graphs, so the
decorator hands the function back unchanged. Code written for TensorFlow keeps
working, gives the same values, and its ops stay visible to tapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["executing_eagerly", "function"]


def function(
    func: Callable | None = None,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    **kwargs: Any,
) -> Any:
    """Accept ``@tf.function`` (bare or with arguments) and run the function eagerly.

    Args:
        func: the function or method to decorate.
        input_signature, autograph, jit_compile, reduce_retracing, **kwargs:
            TensorFlow's tracing options; accepted and ignored.

    Returns:
        ``func`` itself, or (when called with options only) a decorator that
        returns its argument.

    Example:
        >>> @function(jit_compile=True)
        ... def double(x):
        ...     return 2 * x
        >>> double(3)
        6
    """
    if func is None:
        return _identity
    return func


def _identity(func: Callable) -> Callable:
    return func


def executing_eagerly() -> bool:
    """Always True: tapemagic runs every op eagerly, as TensorFlow 2 does by default.

    Example:
        >>> executing_eagerly()
        True
    """
    return True
