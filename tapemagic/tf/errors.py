"""``tf.errors``: TensorFlow's exception types, raised by tapemagic's ops."""

from ..engine.errors import (
    DataLossError,
    InvalidArgumentError,
    NotFoundError,
    OpError,
    UnimplementedError,
)

__all__ = [
    "DataLossError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "UnimplementedError",
]
