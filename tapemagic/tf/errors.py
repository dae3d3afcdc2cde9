"""``tf.errors``: TensorFlow's exception types, raised by tapemagic's ops."""

from ..data.dataset import DataLossError
from ..engine.errors import InvalidArgumentError, OpError, UnimplementedError

__all__ = ["DataLossError", "InvalidArgumentError", "OpError", "UnimplementedError"]
