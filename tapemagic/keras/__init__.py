"""Keras on tapemagic's engine: what ``tf.keras`` course code needs.

Layers (:mod:`~tapemagic.keras.layers`), models (``Sequential``, ``Model``
subclassing and functional models, with ``compile``/``fit``/``evaluate``/
``predict``), losses, metrics, activations, initializers and optimizers (SGD,
Adam, RMSprop), with Keras 3's semantics. ``tapemagic.tf.keras`` is this
package, and its modules import under that name too (``import
tapemagic.tf.keras.layers``). ``regularizers`` and ``applications`` are not
here yet: they import, and what a program uses from them raises
NotImplementedError saying what to use instead.
"""

from . import (
    activations,
    applications,
    backend,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
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
    "applications",
    "backend",
    "callbacks",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "regularizers",
    "utils",
]
