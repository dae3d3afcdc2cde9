"""``keras.utils``: seeding everything at once, one-hot labels, and packing a
batch as ``fit`` hands it to ``train_step``."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..engine.ops.creation import set_seed
from ..engine.tensor import Tensor, Variable, array_of
from .models.epoch_iterator import pack_x_y_sample_weight, unpack_x_y_sample_weight

__all__ = [
    "pack_x_y_sample_weight",
    "set_random_seed",
    "to_categorical",
    "unpack_x_y_sample_weight",
]


def set_random_seed(seed: int) -> None:
    """Seed Python's ``random``, NumPy's global generator and ``tf.random``.

    After it, weight initializers, dropout masks and ``fit``'s shuffling repeat
    from run to run.

    Args:
        seed: a non-negative int.

    Raises:
        ValueError: if ``seed`` is not an int.

    Example:
        >>> from tapemagic.keras.layers import Dense
        >>> set_random_seed(7); a = Dense(2)(np.ones((1, 3), np.float32)).numpy()
        >>> set_random_seed(7); b = Dense(2)(np.ones((1, 3), np.float32)).numpy()
        >>> bool((a == b).all())
        True
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise ValueError(
            "Expected `seed` argument to be an integer. Received: "
            f"seed={seed!r} (of type {type(seed)})"
        )
    random.seed(int(seed))
    np.random.seed(int(seed))
    set_seed(int(seed))


def to_categorical(x: Any, num_classes: int | None = None) -> Any:
    """One-hot encode integer class labels.

    A trailing axis of size 1 is dropped first, so ``(N, 1)`` labels give
    ``(N, num_classes)``. NumPy input gives a float64 NumPy array, as in Keras; a
    tensor gives a float32 tensor.

    Args:
        x: class indices in ``[0, num_classes)``.
        num_classes: default ``max(x) + 1``.

    Returns:
        The one-hot array, with a new last axis of size ``num_classes``.

    Raises:
        ValueError: if a label is negative or not below ``num_classes``.

    Example:
        >>> to_categorical([0, 2], num_classes=3)
        array([[1., 0., 0.],
               [0., 0., 1.]])
    """
    is_tensor = isinstance(x, (Tensor, Variable))
    labels = np.array(array_of(x) if is_tensor else x, dtype="int64")
    shape = labels.shape
    if len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    labels = labels.reshape(-1)
    if not num_classes:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    bad = (labels < 0) | (labels >= num_classes)
    if bad.any():
        raise ValueError(
            f"to_categorical: label {int(labels[bad][0])} is outside [0, "
            f"{num_classes}). Labels must be class indices below num_classes."
        )
    categorical = np.zeros((labels.shape[0], num_classes))
    categorical[np.arange(labels.shape[0]), labels] = 1
    categorical = categorical.reshape(shape + (num_classes,))
    if is_tensor:
        return Tensor(categorical.astype(np.float32))
    return categorical
