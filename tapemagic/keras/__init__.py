"""Keras on tapemagic's engine: what ``tf.keras`` course code needs.

Layers (:mod:`~tapemagic.keras.layers`), models (``Sequential``, ``Model``
subclassing and functional models, with ``compile``/``fit``/``evaluate``/
``predict``), losses, metrics, activations, initializers and optimizers (SGD,
Adam, RMSprop), with Keras 3's semantics. ``tapemagic.tf.keras`` is this
package.
"""

from . import (
    activations,
    backend,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    utils,
)
from .callbacks import Callback, History
from .layers import Input, KerasTensor, Layer
from .layers.variable import KerasVariable as Variable
from .losses import Loss
from .metrics import Metric
from .models import Model, Sequential

__all__ = [
    "Callback",
    "History",
    "Input",
    "KerasTensor",
    "Layer",
    "Loss",
    "Metric",
    "Model",
    "Sequential",
    "Variable",
    "activations",
    "backend",
    "callbacks",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "utils",
]
