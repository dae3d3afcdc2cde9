# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""``tf.random``: random tensors and the global seed.

The numbers come from NumPy and differ from TensorFlow's; TensorFlow's seeding
rules hold (see :func:`tapemagic.engine.ops.creation.set_seed`).
"""

from ..engine.ops.creation import random_normal as normal
from ..engine.ops.creation import random_shuffle as shuffle
from ..engine.ops.creation import random_uniform as uniform
from ..engine.ops.creation import (
    set_seed,
    truncated_normal,
)

__all__ = [
    "normal",
    "set_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
]
