"""Keras 3's RMSprop, plain, with momentum, or centered."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Variable, array_of
from .optimizer import Optimizer, _cast, _plain

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, with Keras 3's update rule.

    With a velocity slot ``v`` (and ``a``, the mean gradient, when centered)::

        v = rho * v + (1 - rho) * g**2
        a = rho * a + (1 - rho) * g                       # centered only
        step = lr * g / sqrt(v + epsilon)                 # v - a**2 + eps if centered
        w -= step    # or, with momentum: mom = momentum * mom + step; w -= mom

    Note that epsilon is added inside the square root, as Keras does.

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        rho: decay of the squared-gradient average.
        momentum: momentum of the update (0 for none).
        epsilon: added to the denominator inside the square root.
        centered: normalise by the estimated variance instead.
        name: default "rmsprop".
        **kwargs: see :class:`Optimizer`.

    Example:
        >>> w = Variable([1.0])
        >>> _ = RMSprop(learning_rate=0.1).apply_gradients([([2.0], w)])
        >>> w.numpy().round(4)
        array([0.6838], dtype=float32)
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        name: str = "rmsprop",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list: list[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = []
        if self.momentum > 0:
            self._momentums = self.add_optimizer_variables(var_list, "momentum")
        self._average_gradients = []
        if self.centered:
            self._average_gradients = self.add_optimizer_variables(
                var_list, "average_gradient"
            )

    def update_step(
        self, gradient: np.ndarray, variable: Variable, learning_rate: Any
    ) -> None:
        dtype = array_of(variable).dtype
        lr = _cast(learning_rate, dtype)
        g = _cast(gradient, dtype)
        index = self._get_variable_index(variable)
        velocity = self._velocities[index]
        rho = _plain(self.rho)
        velocity.assign(rho * array_of(velocity) + (1 - rho) * np.square(g))
        if self.centered:
            average = self._average_gradients[index]
            average.assign(rho * array_of(average) + (1 - rho) * g)
            denominator = (
                array_of(velocity) - np.square(array_of(average)) + self.epsilon
            )
        else:
            denominator = array_of(velocity) + self.epsilon
        increment = (lr * g) / np.sqrt(denominator)
        if self.momentum > 0:
            momentum = self._momentums[index]
            momentum.assign(self.momentum * array_of(momentum) + increment)
            variable.assign_sub(array_of(momentum))
        else:
            variable.assign_sub(increment)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }
