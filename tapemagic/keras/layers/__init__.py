"""``keras.layers``: the Layer base class and the layers course notebooks use."""

from .advanced_activations import ELU, LeakyReLU, PReLU
from .conv1d import Conv1D, Convolution1D
from .conv2d_transpose import Conv2DTranspose, Convolution2DTranspose
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
from .layer_normalization import GroupNormalization, LayerNormalization
from .normalization import BatchNormalization
from .pooling import (
    AveragePooling1D,
    AvgPool1D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool1D,
    MaxPooling1D,
)
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
    "AveragePooling1D",
    "AveragePooling2D",
    "AvgPool1D",
    "AvgPool2D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Dense",
    "DepthwiseConv2D",
    "Dropout",
    "ELU",
    "Flatten",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GroupNormalization",
    "Input",
    "InputLayer",
    "KerasTensor",
    "KerasVariable",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPooling1D",
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
