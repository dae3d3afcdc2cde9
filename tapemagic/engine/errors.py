"""TensorFlow's exception types, so ``except tf.errors.InvalidArgumentError`` works."""

from __future__ import annotations

__all__ = [
    "DataLossError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "UnimplementedError",
]


class OpError(Exception):
    """An op could not run on the inputs it was given."""

    def __init__(self, message: str, op: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.op = op


class InvalidArgumentError(OpError):
    """Inputs of the wrong shape or dtype, e.g. adding float32 to float64."""


class NotFoundError(OpError):
    """An op registered for a dtype that no kernel runs (reciprocal of int32)."""


class UnimplementedError(OpError):
    """The op exists in TensorFlow but not for these arguments here."""


class DataLossError(OpError):
    """Data that cannot be represented as asked (padding to a smaller size)."""
