"""``tf.errors``: TensorFlow's exception types, raised by tapemagic's ops."""

from ..engine.errors import (
    DataLossError,
    InvalidArgumentError,
    OpError,
    UnimplementedError,
)

__all__ = ["DataLossError", "InvalidArgumentError", "OpError", "UnimplementedError"]
