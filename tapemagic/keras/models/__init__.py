"""Keras 3 models: ``Model`` subclassing, ``Sequential``, functional models, and
``compile``/``fit``/``evaluate``/``predict`` on a GradientTape.

A model is a layer that holds layers (:mod:`.model`); :mod:`.sequential` and
:mod:`.functional` build one from a list of layers or from ``keras.Input``
tensors. Training comes from :mod:`.trainer` and the ``summary()`` table from
:mod:`.summary`.
"""

from .functional import Functional
from .model import Model
from .sequential import Sequential

__all__ = ["Functional", "Model", "Sequential"]
