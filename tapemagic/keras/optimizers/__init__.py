"""Keras 3 optimizers on tapemagic Variables: SGD, Adam and RMSprop.

The base class, building slots and applying gradients, is
:class:`~.optimizer.Optimizer`; each optimizer's module holds its update rule,
written as Keras 3 writes it. Learning-rate schedules are in :mod:`.schedules`.
"""

from . import schedules
from .adam import Adam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer", "RMSprop", "schedules"]
