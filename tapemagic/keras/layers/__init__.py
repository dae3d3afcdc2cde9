"""``keras.layers``: the Layer base class and the layers course notebooks use."""

from .advanced_activations import ELU, LeakyReLU, PReLU
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
from .lambda_layer import Lambda
from .layer import Layer
from .normalization import BatchNormalization
from .reshaping import (
    Cropping1D,
    Cropping2D,
    Permute,
    RepeatVector,
    Reshape,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from .variable import KerasVariable

__all__ = [
    "Activation",
    "AveragePooling2D",
    "AvgPool2D",
    "BatchNormalization",
    "Conv2D",
    "Convolution2D",
    "Cropping1D",
    "Cropping2D",
    "Dense",
    "DepthwiseConv2D",
    "Dropout",
    "ELU",
    "Flatten",
    "Input",
    "InputLayer",
    "KerasTensor",
    "KerasVariable",
    "Lambda",
    "Layer",
    "LeakyReLU",
    "MaxPool2D",
    "MaxPooling2D",
    "PReLU",
    "Permute",
    "ReLU",
    "RepeatVector",
    "Reshape",
    "SeparableConv2D",
    "SeparableConvolution2D",
    "Softmax",
    "UpSampling1D",
    "UpSampling2D",
    "ZeroPadding1D",
    "ZeroPadding2D",
]
