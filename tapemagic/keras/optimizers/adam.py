"""Keras 3's Adam, with its AMSGrad variant."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Variable, array_of
from .optimizer import Optimizer, _cast, _plain

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam, with Keras 3's update rule.

    With slots ``m`` and ``v`` and ``t = iterations + 1``::

        alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m += (g - m) * (1 - beta_1)
        v += (g**2 - v) * (1 - beta_2)
        w -= alpha * m / (sqrt(v) + epsilon)

    With ``amsgrad``, ``v`` in the last line is the running maximum of ``v``.

    Args:
        learning_rate: float, schedule or callable (default 0.001).
        beta_1: decay of the first-moment estimate.
        beta_2: decay of the second-moment estimate.
        epsilon: added to ``sqrt(v)`` (Keras' "epsilon hat").
        amsgrad: use the AMSGrad variant.
        name: default "adam".
        **kwargs: see :class:`Optimizer`.

    Example:
        >>> w = Variable([1.0])
        >>> _ = Adam(learning_rate=0.1).apply_gradients([([2.0], w)])
        >>> w.numpy().round(4)  # the first step is lr * sign(g)
        array([0.9], dtype=float32)
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str = "adam",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list: list[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def update_step(
        self, gradient: np.ndarray, variable: Variable, learning_rate: Any
    ) -> None:
        dtype = array_of(variable).dtype
        lr = _cast(learning_rate, dtype)
        g = _cast(gradient, dtype)
        local_step = _cast(array_of(self._iterations) + 1, dtype)
        beta_1, beta_2 = _plain(self.beta_1), _plain(self.beta_2)
        beta_1_power = np.power(_cast(beta_1, dtype), local_step)
        beta_2_power = np.power(_cast(beta_2, dtype), local_step)
        index = self._get_variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        alpha = lr * np.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((g - array_of(m)) * (1 - beta_1))
        v.assign_add((np.square(g) - array_of(v)) * (1 - beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[index]
            v_hat.assign(np.maximum(array_of(v_hat), array_of(v)))
            v = v_hat
        variable.assign_sub(
            (array_of(m) * alpha) / (np.sqrt(array_of(v)) + self.epsilon)
        )

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }
