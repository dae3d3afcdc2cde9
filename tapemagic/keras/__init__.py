"""Keras on tapemagic's engine: what ``tf.keras`` course code needs.

So far: :mod:`tapemagic.keras.optimizers` (SGD, Adam, RMSprop with Keras 3's update
rules). ``tapemagic.tf.keras`` is this package.
"""

from . import optimizers

__all__ = ["optimizers"]
