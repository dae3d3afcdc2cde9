"""``tf.errors``: TensorFlow's exception types, raised by tapemagic's ops."""

from ..engine.errors import InvalidArgumentError, OpError, UnimplementedError

__all__ = ["InvalidArgumentError", "OpError", "UnimplementedError"]
