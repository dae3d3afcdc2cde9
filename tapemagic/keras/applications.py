"""``keras.applications``: not in tapemagic yet.

The module imports, so a program's import line runs; each name in it (a
pretrained model, a ``preprocess_input`` module) raises NotImplementedError
saying what to do instead.
"""

from ._missing import missing_names

__all__: list[str] = []

__getattr__ = missing_names(
    "keras.applications",
    "pretrained models and their preprocess_input",
    "Run this program on TensorFlow (pip install tensorflow), or build the "
    "model from keras.layers and scale inputs yourself (x / 127.5 - 1 is "
    "MobileNet's preprocess_input).",
)
