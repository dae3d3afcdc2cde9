"""Keras 3's SGD: gradient descent, with (Nesterov) momentum or without."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Variable, array_of
from .optimizer import Optimizer, _cast

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent, optionally with (Nesterov) momentum.

    With ``momentum == 0``: ``w -= learning_rate * g``. Otherwise, with a velocity
    slot ``m``: ``m = momentum * m - learning_rate * g`` then ``w += m``, or for
    Nesterov ``w += momentum * m - learning_rate * g``.

    Args:
        learning_rate: float, schedule or callable (default 0.01).
        momentum: a float in [0, 1].
        nesterov: use Nesterov momentum.
        name: default "SGD".
        **kwargs: see :class:`Optimizer`.

    Raises:
        ValueError: if ``momentum`` is not a float in [0, 1].

    Example:
        >>> w = Variable([1.0, 2.0])
        >>> _ = SGD(learning_rate=0.5).apply_gradients([([1.0, -1.0], w)])
        >>> w.numpy()
        array([0.5, 2.5], dtype=float32)
    """

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        name: str = "SGD",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError(
                f"`momentum` must be a float between [0, 1], got {momentum!r}; e.g. "
                "momentum=0.9."
            )
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, var_list: list[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self.momentums = []
        if self.momentum != 0:
            self.momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(
        self, gradient: np.ndarray, variable: Variable, learning_rate: Any
    ) -> None:
        dtype = array_of(variable).dtype
        lr = _cast(learning_rate, dtype)
        g = _cast(gradient, dtype)
        if self.momentum != 0:
            m = self.momentums[self._get_variable_index(variable)]
            momentum = _cast(self.momentum, dtype)
            m.assign(array_of(m) * momentum - g * lr)
            if self.nesterov:
                variable.assign_add(array_of(m) * momentum - g * lr)
            else:
                variable.assign_add(array_of(m))
        else:
            variable.assign_sub(g * lr)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "momentum": self.momentum,
            "nesterov": self.nesterov,
        }
