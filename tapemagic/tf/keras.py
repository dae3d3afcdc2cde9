"""``tf.keras``: :mod:`tapemagic.keras` under TensorFlow's name.

Importing this module makes it :mod:`tapemagic.keras` itself, and every
module under it importable under this name too (``import
tapemagic.tf.keras.layers``, ``from tapemagic.tf.keras import layers``): the
same modules, loaded once (:mod:`tapemagic._aliases`).
"""

import sys

from .. import keras as _keras
from .._aliases import ModuleAliases, install

__all__: list[str] = []  # the module is replaced by tapemagic.keras below

install(ModuleAliases({__name__: _keras.__name__}))
sys.modules[__name__] = _keras
