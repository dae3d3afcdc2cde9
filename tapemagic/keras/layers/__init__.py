"""``keras.layers``: the Layer base class and the layers course notebooks use."""

from .convolutional import (
    AveragePooling2D,
    AvgPool2D,
    Conv2D,
    Convolution2D,
    MaxPool2D,
    MaxPooling2D,
)
from .core import Activation, Dense, Dropout, Flatten, ReLU, Softmax
from .input_layer import Input, InputLayer
from .keras_tensor import KerasTensor
from .layer import Layer
from .variable import KerasVariable

__all__ = [
    "Activation",
    "AveragePooling2D",
    "AvgPool2D",
    "Conv2D",
    "Convolution2D",
    "Dense",
    "Dropout",
    "Flatten",
    "Input",
    "InputLayer",
    "KerasTensor",
    "KerasVariable",
    "Layer",
    "MaxPool2D",
    "MaxPooling2D",
    "ReLU",
    "Softmax",
]
