"""``tf.function`` and friends: in tapemagic everything runs eagerly.

TensorFlow traces a ``tf.function`` into a graph; tapemagic has no graphs, so the
decorator hands the function back unchanged. Code written for TensorFlow keeps
working, gives the same values, and its ops stay visible to tapes. An
``input_signature`` is checked when the function is decorated, as TensorFlow
checks it, but calls are not matched against it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..engine import TensorShape, TensorSpec

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
        input_signature: None, or a list or tuple of (nested) ``tf.TensorSpec``,
            one per argument of ``func``; checked, then ignored.
        autograph, jit_compile, reduce_retracing, **kwargs: TensorFlow's tracing
            options; accepted and ignored.

    Returns:
        ``func`` itself, or (when called with options only) a decorator that
        returns its argument.

    Raises:
        TypeError: if ``input_signature`` is not a list or tuple of specs, or
            leaves an argument of ``func`` without one.

    Example:
        >>> @function(jit_compile=True)
        ... def double(x):
        ...     return 2 * x
        >>> double(3)
        6
    """
    if input_signature is not None:
        _check_signature(input_signature)
    if func is None:
        if input_signature is None:
            return _identity
        return lambda f: _check_arguments(f, input_signature)
    if input_signature is not None:
        _check_arguments(func, input_signature)
    return func


def _identity(func: Callable) -> Callable:
    return func


def _check_signature(input_signature: Any) -> None:
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(
            "input_signature must be either a tuple or a list, got "
            f"{type(input_signature)}."
        )
    invalid = [leaf for leaf in _leaves(input_signature) if not _is_spec(leaf)]
    if invalid:
        raise TypeError(
            "input_signature must be a possibly nested sequence of TensorSpec "
            f"objects, got invalid args {invalid} with types "
            f"{[type(leaf) for leaf in invalid]}. Describe each argument with "
            "tf.TensorSpec(shape, dtype)."
        )


def _is_spec(value: Any) -> bool:
    return isinstance(value, TensorSpec)


def _leaves(signature: Any) -> list:
    # A TensorShape is a tuple, but a leaf here: a shape where a spec belongs.
    if isinstance(signature, (list, tuple)) and not isinstance(signature, TensorShape):
        return [leaf for item in signature for leaf in _leaves(item)]
    if isinstance(signature, dict):
        return [leaf for key in sorted(signature) for leaf in _leaves(signature[key])]
    return [signature]


def _check_arguments(func: Callable, input_signature: Any) -> Callable:
    # Every positional parameter without a default needs a spec.
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return func  # a builtin or C function: nothing to check
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"
    ]
    for parameter in positional[len(input_signature) :]:
        if parameter.default is parameter.empty:
            raise TypeError(
                f"input_signature missing type constraint for {parameter.name}. "
                "Give one tf.TensorSpec per argument."
            )
    return func


def executing_eagerly() -> bool:
    """Always True: tapemagic runs every op eagerly, as TensorFlow 2 does by default.

    Example:
        >>> executing_eagerly()
        True
    """
    return True
