"""Keras activations, by function or by name (``activations.get("relu")``).

Every activation is composed of engine ops, so tapes record it. As in Keras 3,
``softmax`` and ``sigmoid`` remember the logits they were given: a cross-entropy
loss with ``from_logits=False`` that receives their output computes the loss
from those logits instead (exact and finite even where a probability rounds to
0 or 1), and only probabilities from elsewhere are clipped to ``[eps, 1-eps]``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from ..engine.ops import math as _math
from ..engine.ops import nn as _nn
from ..engine.ops.shape import reshape
from ..engine.tensor import Tensor, convert_to_tensor

__all__ = [
    "elu",
    "exponential",
    "gelu",
    "get",
    "leaky_relu",
    "linear",
    "log_softmax",
    "relu",
    "relu6",
    "selu",
    "serialize",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "softsign",
    "swish",
    "tanh",
]

# What Keras keeps as ``output._keras_logits``: tapemagic's tensors have fixed
# slots, so the link lives here, keyed by the output's identity, and goes away
# with the output.
_LOGITS: dict[int, tuple[weakref.ref, Tensor]] = {}


def _remember_logits(output: Tensor, logits: Tensor) -> None:
    key = id(output)
    _LOGITS[key] = (weakref.ref(output, lambda _: _LOGITS.pop(key, None)), logits)


def _cached_logits(output: Any) -> Tensor | None:
    """The logits ``output`` was computed from by softmax or sigmoid, if any."""
    entry = _LOGITS.get(id(output))
    if entry is not None and entry[0]() is output:
        return entry[1]
    return None


def relu(
    x: Any,
    negative_slope: float = 0.0,
    max_value: float | None = None,
    threshold: float = 0.0,
) -> Tensor:
    """Rectified linear unit, optionally leaky, capped or shifted (Keras' ``relu``).

    With the defaults it is ``max(x, 0)``. ``negative_slope`` scales the part below
    ``threshold``; ``max_value`` caps the output; values at or below ``threshold``
    become 0 (or ``negative_slope * (x - threshold)``).

    Args:
        x: a floating-point tensor.
        negative_slope: slope below the threshold.
        max_value: the largest value returned (None: no cap).
        threshold: where the function starts to be the identity.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Example:
        >>> relu([-10.0, -5.0, 0.0, 5.0, 10.0], max_value=5.0).numpy()
        array([0., 0., 0., 5., 5.], dtype=float32)
    """
    x = convert_to_tensor(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return _nn.leaky_relu(x, alpha=negative_slope)
        shifted = -x + threshold if threshold != 0 else -x
        negative_part = _nn.relu(shifted)
    clip_max = max_value is not None
    if threshold != 0:
        # x where x > threshold, else 0
        x = x * _math.cast(_math.greater(x, threshold), x.dtype)
    elif max_value == 6:
        x = _nn.relu6(x)
        clip_max = False
    else:
        x = _nn.relu(x)
    if clip_max:
        x = _math.clip_by_value(x, 0.0, max_value)
    if negative_slope != 0.0:
        x = x - negative_slope * negative_part
    return x


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Tensor:
    """``x`` where positive, else ``negative_slope * x``.

    Example:
        >>> leaky_relu([-1.0, 2.0]).numpy()
        array([-0.2,  2. ], dtype=float32)
    """
    return _nn.leaky_relu(x, alpha=negative_slope)


def relu6(x: Any) -> Tensor:
    """``min(max(x, 0), 6)``.

    Example:
        >>> relu6([-1.0, 7.0]).numpy()
        array([0., 6.], dtype=float32)
    """
    return _nn.relu6(x)


def softmax(x: Any, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``, remembering ``x`` as the logits.

    Args:
        x: a floating-point tensor.
        axis: the axis to normalize over (None: all of them).

    Returns:
        Probabilities of ``x``'s shape.

    Example:
        >>> softmax([[1000.0, 1000.0]]).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """
    logits = convert_to_tensor(x)
    if axis is None:
        flat = _nn.softmax(reshape(logits, (-1,)))
        output = reshape(flat, logits.shape)
    else:
        output = _nn.softmax(logits, axis=axis)
    _remember_logits(output, logits)
    return output


def log_softmax(x: Any, axis: int = -1) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``axis``, stable for any ``x``.

    Example:
        >>> log_softmax([[0.0, -1000.0]]).numpy()
        array([[    0., -1000.]], dtype=float32)
    """
    return _nn.log_softmax(x, axis=axis)


def sigmoid(x: Any) -> Tensor:
    """``1 / (1 + exp(-x))``, remembering ``x`` as the logits.

    Example:
        >>> sigmoid([0.0]).numpy()
        array([0.5], dtype=float32)
    """
    logits = convert_to_tensor(x)
    output = _math.sigmoid(logits)
    _remember_logits(output, logits)
    return output


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent.

    Example:
        >>> tanh([0.0]).numpy()
        array([0.], dtype=float32)
    """
    return _math.tanh(x)


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """``x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``.

    Example:
        >>> elu([1.0]).numpy()
        array([1.], dtype=float32)
    """
    res = _nn.elu(x)
    if alpha == 1:
        return res
    return _math.where(_math.greater(x, 0), res, alpha * res)


def selu(x: Any) -> Tensor:
    """Scaled exponential linear unit.

    Example:
        >>> selu([0.0]).numpy()
        array([0.], dtype=float32)
    """
    return _nn.selu(x)


def softplus(x: Any) -> Tensor:
    """``log(exp(x) + 1)``, stable for large ``|x|``.

    Example:
        >>> softplus([100.0]).numpy()
        array([100.], dtype=float32)
    """
    return _nn.softplus(x)


def softsign(x: Any) -> Tensor:
    """``x / (abs(x) + 1)``.

    Example:
        >>> softsign([1.0]).numpy()
        array([0.5], dtype=float32)
    """
    return _nn.softsign(x)


def silu(x: Any) -> Tensor:
    """Swish / SiLU: ``x * sigmoid(x)``.

    Example:
        >>> silu([0.0]).numpy()
        array([0.], dtype=float32)
    """
    return _nn.silu(x)


swish = silu


def gelu(x: Any, approximate: bool = False) -> Tensor:
    """Gaussian error linear unit (exact by default, as Keras 3's activation).

    Example:
        >>> gelu([0.0]).numpy()
        array([0.], dtype=float32)
    """
    return _nn.gelu(x, approximate=approximate)


def exponential(x: Any) -> Tensor:
    """``exp(x)``.

    Example:
        >>> exponential([0.0]).numpy()
        array([1.], dtype=float32)
    """
    return _math.exp(x)


def linear(x: Any) -> Any:
    """The identity: returns ``x`` unchanged.

    Example:
        >>> linear(3.0)
        3.0
    """
    return x


_BY_NAME: dict[str, Callable] = {
    "relu": relu,
    "leaky_relu": leaky_relu,
    "relu6": relu6,
    "softmax": softmax,
    "log_softmax": log_softmax,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "elu": elu,
    "selu": selu,
    "softplus": softplus,
    "softsign": softsign,
    "silu": silu,
    "swish": swish,
    "gelu": gelu,
    "exponential": exponential,
    "linear": linear,
}


def get(identifier: Any) -> Callable:
    """The activation function for a name, a function, or None (``linear``).

    Args:
        identifier: None, a name such as "relu", or a callable.

    Returns:
        A function of one tensor.

    Raises:
        ValueError: for an unknown name or a value that is not callable.

    Example:
        >>> get("relu") is relu, get(None) is linear
        (True, True)
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        fn = _BY_NAME.get(identifier)
        if fn is None:
            known = ", ".join(sorted(_BY_NAME))
            raise ValueError(
                f"Could not interpret activation function identifier: {identifier!r}. "
                f"Known names: {known}."
            )
        return fn
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret activation function identifier: {identifier!r}. "
        "Pass a name such as 'relu', a function, or None."
    )


def serialize(activation: Callable) -> str:
    """The name of an activation function (its ``__name__``).

    Example:
        >>> serialize(relu)
        'relu'
    """
    return getattr(activation, "__name__", repr(activation))
