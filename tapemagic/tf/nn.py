# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""``tf.nn``: activations, losses and the building blocks of layers."""

from ..engine.ops.activations import (
    elu,
    leaky_relu,
    relu,
    relu6,
    selu,
    silu,
    softplus,
)
from ..engine.ops.activations import silu as swish
from ..engine.ops.conv import (
    conv2d,
    conv2d_transpose,
    depthwise_conv2d,
)
from ..engine.ops.elementary import (
    sigmoid,
    tanh,
)
from ..engine.ops.nn import (
    batch_normalization,
    bias_add,
    dropout,
    embedding_lookup,
    gelu,
    l2_loss,
    l2_normalize,
    moments,
    separable_conv2d,
    sigmoid_cross_entropy_with_logits,
    softsign,
    weighted_cross_entropy_with_logits,
)
from ..engine.ops.pooling import (
    avg_pool2d,
    max_pool2d,
)
from ..engine.ops.softmax import (
    log_softmax,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from ..engine.ops.sorting import top_k

__all__ = [
    "avg_pool2d",
    "batch_normalization",
    "bias_add",
    "conv2d",
    "conv2d_transpose",
    "depthwise_conv2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "gelu",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_softmax",
    "max_pool2d",
    "moments",
    "relu",
    "relu6",
    "selu",
    "separable_conv2d",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "swish",
    "tanh",
    "top_k",
    "weighted_cross_entropy_with_logits",
]
