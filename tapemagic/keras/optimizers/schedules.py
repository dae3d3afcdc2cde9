"""Learning-rate schedules: a learning rate that changes with the step count.

An optimizer built with a schedule calls it with its ``iterations`` counter before
every update.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Tensor, Variable, array_of

__all__ = ["ExponentialDecay", "LearningRateSchedule"]


class LearningRateSchedule:
    """Base class: subclass it and define ``__call__(step)`` and ``get_config()``.

    Example:
        >>> class Halving(LearningRateSchedule):
        ...     def __call__(self, step):
        ...         return 1.0 / 2 ** int(step)
        >>> Halving()(3)
        0.125
    """

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} must define __call__(self, step) returning the "
            "learning rate at that step."
        )

    def get_config(self) -> dict:
        raise NotImplementedError(
            f"{type(self).__name__} must define get_config() to be serialized."
        )

    @classmethod
    def from_config(cls, config: dict) -> LearningRateSchedule:
        return cls(**config)


def _number(value: Any) -> Any:
    if isinstance(value, (Tensor, Variable)):
        return array_of(value)
    return np.asarray(value)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``, as Keras.

    With ``staircase=True`` the exponent is floored, so the rate drops in steps.
    The result is a float32 scalar tensor for a Python float initial rate.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: steps over which the rate is multiplied by ``decay_rate``.
        decay_rate: the factor per ``decay_steps`` steps.
        staircase: decay in whole steps of ``decay_steps``.
        name: kept for ``get_config``.

    Raises:
        ValueError: if ``decay_steps`` is not positive.

    Example:
        >>> schedule = ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
        >>> float(schedule(20))
        0.02500000037252903
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        if decay_steps <= 0:
            raise ValueError(
                "Argument `decay_steps` must be > 0. Received: "
                f"decay_steps={decay_steps}"
            )
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Tensor:
        initial = _number(self.initial_learning_rate)
        if isinstance(self.initial_learning_rate, float):
            initial = initial.astype(np.float32)  # a Python float is float32 in TF
        dtype = initial.dtype
        p = _number(step).astype(dtype) / np.asarray(self.decay_steps, dtype)
        if self.staircase:
            p = np.floor(p)
        rate = np.power(np.asarray(self.decay_rate, dtype), p)
        return Tensor(np.asarray(initial * rate, dtype))

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }
