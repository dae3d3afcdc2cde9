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
from .depthwise import DepthwiseConv2D, SeparableConv2D, SeparableConvolution2D
from .input_layer import Input, InputLayer
from .keras_tensor import KerasTensor
from .layer import Layer
from .normalization import BatchNormalization
from .variable import KerasVariable

__all__ = [
    "Activation",
    "AveragePooling2D",
    "AvgPool2D",
    "BatchNormalization",
    "Conv2D",
    "Convolution2D",
    "Dense",
    "DepthwiseConv2D",
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
    "SeparableConv2D",
    "SeparableConvolution2D",
    "Softmax",
]
