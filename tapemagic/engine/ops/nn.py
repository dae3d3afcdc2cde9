"""Neural-network ops, as ``tf.nn`` names them.

The primitives live by kind (activations, softmax and cross entropies,
convolution, pooling) and are re-exported here; the ops composed of other ops
are defined here: the activations softsign, gelu and log_sigmoid, the
sigmoid cross entropies and ``l2_loss``, ``bias_add``, ``moments``, ``dropout``,
``l2_normalize``, ``batch_normalization``, ``embedding_lookup`` and
``separable_conv2d``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..accepts import NN_FLOATING, Accepts
from ..eager_tensor import tensor_of
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..tensor import Tensor, Variable, convert_inputs, convert_to_tensor
from . import softmax as _softmax
from ._util import float_tensor
from .activations import elu as elu
from .activations import elu_grad as elu_grad
from .activations import erf as erf
from .activations import leaky_relu as leaky_relu
from .activations import leaky_relu_grad as leaky_relu_grad
from .activations import relu as relu
from .activations import relu6 as relu6
from .activations import relu6_grad as relu6_grad
from .activations import relu_grad as relu_grad
from .activations import selu as selu
from .activations import selu_grad as selu_grad
from .activations import silu as silu
from .activations import softplus as softplus
from .composed_math import SQUARED_DIFFERENCE
from .conv import conv2d as conv2d
from .conv import conv2d_backprop_filter as conv2d_backprop_filter
from .conv import conv2d_backprop_input as conv2d_backprop_input
from .conv import (
    conv2d_transpose,
    depthwise_conv2d,
)
from .math import abs as _abs
from .math import (
    add,
    cast,
    exp,
    greater_equal,
    log1p,
    maximum,
    multiply,
    negative,
    rsqrt,
    square,
    stop_gradient,
    subtract,
    tanh,
    where,
)
from .norms import clip_by_norm
from .pooling import avg_pool2d as avg_pool2d
from .pooling import max_pool2d as max_pool2d
from .reduce import reduce_mean, reduce_sum
from .shape import concat, gather, reshape, squeeze
from .softmax import log_softmax as log_softmax
from .softmax import softmax as softmax
from .softmax import (
    softmax_cross_entropy_with_logits as softmax_cross_entropy_with_logits,
)

# The ops imported ``as`` themselves are re-exported: their old import path
# through this module keeps working; __all__ lists what this module defines.
__all__ = [
    "batch_normalization",
    "bias_add",
    "conv2d_transpose",
    "depthwise_conv2d",
    "dropout",
    "embedding_lookup",
    "gelu",
    "l2_loss",
    "l2_normalize",
    "log_sigmoid",
    "moments",
    "separable_conv2d",
    "sigmoid_cross_entropy_with_logits",
    "softsign",
    "swish",
    "weighted_cross_entropy_with_logits",
]

# tf.nn's sparse cross entropy, as this module re-exports the rest (a name too
# long to import under itself)
sparse_softmax_cross_entropy_with_logits = (
    _softmax.sparse_softmax_cross_entropy_with_logits
)


@tf_export("tf.nn")
def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """Add a 1-D ``bias`` along the channel axis of ``value``.

    Args:
        value: a tensor of rank >= 2.
        bias: a 1-D tensor, one entry per channel.
        data_format: None or ``'N...C'`` (channels last), or ``'NC...'``
            (channels second).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``value + bias`` broadcast along the channel axis.

    Raises:
        InvalidArgumentError: if the ranks or sizes do not fit.
        ValueError: for an unknown ``data_format``.

    Example:
        >>> bias_add([[1.0, 2.0]], [10.0, 20.0]).numpy()
        array([[11., 22.]], dtype=float32)
    """
    x, b = convert_inputs((value, bias))
    channels_last = data_format is None or data_format.endswith("C")
    if not channels_last and not data_format.startswith("NC"):
        raise ValueError(
            f"data_format must be None, 'N...C' (e.g. 'NHWC') or 'NC...' (e.g. "
            f"'NCHW'), got data_format={data_format!r}."
        )
    channels_first = not channels_last
    if x.ndim < 2:
        raise InvalidArgumentError(
            f"Input tensor must be at least 2D: {list(x._value.shape)}.", op="bias_add"
        )
    if b.ndim != 1:
        raise InvalidArgumentError(
            f"Biases must be 1D: {list(b._value.shape)}.", op="bias_add"
        )
    axis = 1 if channels_first else -1
    channels = x._value.shape[axis]
    if b._value.shape[0] != channels:
        raise InvalidArgumentError(
            f"Must provide as many biases as the channel dimension of the input "
            f"tensor: {list(b._value.shape)} vs. {list(x._value.shape)}.",
            op="bias_add",
        )
    if channels_first:
        b = reshape(b, (channels,) + (1,) * (x.ndim - 2))
    return add(x, b)


@tf_export("tf.nn")
def moments(
    x: Any,
    axes: Any,
    shift: Any = None,
    keepdims: bool = False,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """Mean and (population) variance of ``x`` over ``axes``.

    Composed as TensorFlow composes it: the variance is the mean of
    ``squared_difference(x, stop_gradient(mean))``. First derivatives are the
    usual ones; second derivatives of the variance miss the term through the mean,
    exactly as in TensorFlow.

    An int32 or int64 ``x`` gives integer moments (the means truncated), as in
    TensorFlow; other integers and bool raise its InvalidArgumentError.

    Args:
        x: a numeric tensor.
        axes: the axes to reduce (an int or a list).
        shift: ignored, as in TensorFlow 2.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``(mean, variance)``.

    Example:
        >>> mean, variance = moments([1.0, 2.0, 3.0, 6.0], axes=[0])
        >>> float(mean), float(variance)
        (3.0, 3.5)
    """
    x = convert_to_tensor(x)
    mean = reduce_mean(x, axes, keepdims=True)
    SQUARED_DIFFERENCE.check(x)
    variance = reduce_mean(
        square(subtract(x, stop_gradient(mean))), axes, keepdims=True
    )
    if not keepdims:
        mean = squeeze(mean, axes)
        variance = squeeze(variance, axes)
    return mean, variance


_DROPOUT_RNG = np.random.default_rng()


@tf_export("tf.nn")
def dropout(
    x: Any,
    rate: Any,
    noise_shape: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Zero each element with probability ``rate``; scale the rest by ``1/(1-rate)``.

    Composed as ``x * scale * keep_mask``, so the gradient is ``scale`` where kept
    and 0 where dropped. ``rate=0`` returns ``x`` itself. The random draws are
    NumPy's (a ``seed`` makes them repeatable), so masks differ from TensorFlow's.

    Args:
        x: a floating-point tensor.
        rate: the drop probability, in [0, 1).
        noise_shape: the shape of the keep/drop mask, broadcastable to ``x``
            (e.g. ``[N, 1, 1, C]`` keeps or drops whole channels).
        seed: makes the mask repeatable.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        ValueError: if ``rate`` is not in [0, 1) or ``x`` is not floating point.

    Example:
        >>> y = dropout([1.0, 1.0, 1.0, 1.0], rate=0.5, seed=0)
        >>> sorted(set(y.numpy().tolist()) - {0.0})
        [2.0]
    """
    t = convert_to_tensor(x)
    if t._value.dtype.kind != "f":
        raise ValueError(
            f"x has to be a floating point tensor since it's going to be scaled. Got "
            f"a {t.dtype.name} tensor instead; cast it with tf.cast(x, tf.float32)."
        )
    if isinstance(rate, Tensor):
        rate = float(rate._value)
    if not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
        raise ValueError(
            f"rate must be a scalar tensor or a float in the range [0, 1), got "
            f"rate={rate!r}."
        )
    if rate == 0:
        return t
    shape = (
        t._value.shape if noise_shape is None else tuple(int(d) for d in noise_shape)
    )
    rng = _DROPOUT_RNG if seed is None else np.random.default_rng(seed)
    keep = rng.random(shape) >= rate
    scaled = multiply(t, np.asarray(1.0 / (1.0 - rate), t._value.dtype))
    return multiply(scaled, tensor_of(keep.astype(t._value.dtype)))


@tf_export("tf.linalg", "tf.math", "tf.nn")
def l2_normalize(
    x: Any,
    axis: Any = None,
    epsilon: float = 1e-12,
    name: str | None = None,
    dim: Any = None,
) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``: unit L2 norm along ``axis``.

    Composed as TensorFlow composes it (``x * rsqrt(maximum(square_sum,
    epsilon))``), so a zero slice stays zero with a finite gradient
    (``1 / sqrt(epsilon)``).

    Args:
        x: a floating-point tensor.
        axis: the axis or axes to normalize over (default all).
        epsilon: the lower bound for the sum of squares.
        name: ignored; accepted for TensorFlow compatibility.
        dim: the deprecated name of ``axis``.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: for bool (TensorFlow's square refuses it).
        TypeError: for integers (epsilon cannot take their dtype).

    Example:
        >>> l2_normalize([3.0, 4.0]).numpy()
        array([0.6, 0.8], dtype=float32)
        >>> l2_normalize([[3.0], [4.0]], 1).numpy()
        array([[1.],
               [1.]], dtype=float32)
    """
    t = convert_to_tensor(x)
    square.op.accepts.check(t)  # TensorFlow squares first: bool is refused
    if t._value.dtype.kind != "f":
        # then converts epsilon to x's dtype
        raise TypeError(
            f"Cannot convert {epsilon!r} to EagerTensor of dtype {t.dtype.name}. "
            "Cast it first: tf.cast(x, tf.float32)."
        )
    if axis is None:
        axis = dim
    square_sum = reduce_sum(square(t), axis, keepdims=True)
    return multiply(t, rsqrt(maximum(square_sum, epsilon)))


@tf_export("tf.nn")
def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: float,
    name: str | None = None,
) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``.

    Composed as TensorFlow composes it: ``inv = rsqrt(variance + eps) * scale``,
    then ``x * inv + (offset - mean * inv)``; all of ``x``, ``mean``,
    ``variance``, ``offset`` and ``scale`` get gradients. Statistics broadcast
    against ``x`` (e.g. the output of :func:`moments` with ``keepdims``).

    Args:
        x: a floating-point tensor.
        mean: the mean to subtract.
        variance: the variance to divide by (its square root).
        offset: the shift (beta), or None.
        scale: the scale (gamma), or None.
        variance_epsilon: a small float added to the variance.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The normalized tensor, of ``x``'s dtype.

    Raises:
        InvalidArgumentError: if ``x`` is not floating point, as in TensorFlow.

    Example:
        >>> batch_normalization([1.0, 3.0], 2.0, 1.0, 10.0, 2.0, 0.0).numpy()
        array([ 8., 12.], dtype=float32)
    """
    t = convert_to_tensor(x)
    add.op.accepts.check(t)
    if t._value.dtype.kind != "f":
        # TensorFlow adds the float variance_epsilon to x's dtype: a mismatch
        raise InvalidArgumentError(
            "cannot compute AddV2 as input #1(zero-based) was expected to be a "
            f"{t.dtype.name} tensor but is a float tensor [Op:AddV2]. Cast it "
            "first: tf.cast(x, tf.float32).",
            op="AddV2",
        )
    inv = rsqrt(add(variance, variance_epsilon))
    if scale is not None:
        inv = multiply(inv, scale)
    shift = negative(mean * inv) if offset is None else subtract(offset, mean * inv)
    return add(t * cast(inv, t.dtype), cast(shift, t.dtype))


@tf_export("tf.nn")
def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """A depthwise convolution, then a 1x1 convolution that mixes the channels.

    Composed as TensorFlow composes it: ``depthwise_conv2d`` with ``strides``,
    ``padding`` and ``dilations``, then ``conv2d`` with ``pointwise_filter``,
    stride 1 and ``'VALID'`` padding.

    Args:
        input: ``[batch, H, W, C]`` (NHWC) or ``[batch, C, H, W]`` (NCHW).
        depthwise_filter: ``[kh, kw, C, channel_multiplier]``.
        pointwise_filter: ``[1, 1, C * channel_multiplier, out_channels]``.
        strides: as in ``depthwise_conv2d`` (``[1, sh, sw, 1]``).
        padding: ``'SAME'`` or ``'VALID'`` (or explicit pairs).
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        dilations: an int or a pair (default 1).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The output, with ``out_channels`` channels.

    Raises:
        ValueError: if ``pointwise_filter`` is not ``[1, 1, C * multiplier,
            out_channels]``, or for the errors of ``depthwise_conv2d``.

    Example:
        >>> x = np.ones((1, 3, 3, 2))
        >>> separable_conv2d(x, np.ones((3, 3, 2, 1)), np.ones((1, 1, 2, 4)),
        ...                  [1, 1, 1, 1], "VALID").numpy().ravel()
        array([18., 18., 18., 18.])
    """
    fmt = "NHWC" if data_format is None else data_format
    depthwise = depthwise_conv2d(
        input, depthwise_filter, strides, padding, fmt, dilations
    )
    pointwise = convert_to_tensor(pointwise_filter)
    channels = depthwise.shape[-1 if fmt == "NHWC" else -3]
    if pointwise.ndim != 4 or tuple(pointwise.shape[:3]) != (1, 1, channels):
        raise ValueError(
            "separable_conv2d: pointwise_filter must have shape [1, 1, "
            f"in_channels * channel_multiplier, out_channels] = [1, 1, {channels}, "
            f"out_channels], got {list(pointwise.shape)}."
        )
    return conv2d(depthwise, pointwise, 1, "VALID", data_format=fmt)


@tf_export("tf.nn")
def embedding_lookup(
    params: Any, ids: Any, max_norm: Any = None, name: str | None = None
) -> Tensor:
    """The rows of ``params`` at ``ids``: ``gather(params, ids)``.

    The gradient is dense (TensorFlow returns ``IndexedSlices`` with the same
    values): each row gets the sum of the gradients of its lookups. A list of
    shards is looked up as their concatenation along axis 0, which is
    TensorFlow 2's "div" partitioning for shards of the sizes it produces.

    Args:
        params: the embedding matrix (a tensor, Variable, array or nested list),
            or a list of shards (tensors, Variables or arrays).
        ids: int32 or int64 row indices of any shape.
        max_norm: if given, each looked-up embedding is clipped to this L2 norm
            (``clip_by_norm`` over its axes, as in TensorFlow).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
        ValueError: if ``params`` is an empty list.
        InvalidArgumentError: if an id is out of range.
        TypeError: if ``ids`` are not integers.

    Example:
        >>> embedding_lookup([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[2], [0]]).numpy()
        array([[[4., 5.]],
        <BLANKLINE>
               [[0., 1.]]], dtype=float32)
    """
    table = params
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError(
                "embedding_lookup: params is an empty list; give the embedding "
                "matrix, or a list of its shards."
            )
        # a list of tensors or arrays is a list of shards; nested numbers are one
        # matrix
        if all(isinstance(p, (Tensor, Variable, np.ndarray)) for p in params):
            table = params[0] if len(params) == 1 else concat(list(params), axis=0)
    rows = gather(table, ids)
    if max_norm is None:
        return rows
    ids_rank = convert_to_tensor(ids).ndim
    return clip_by_norm(rows, max_norm, axes=list(range(ids_rank, rows.ndim)))


# -- composed activations and losses ---------------------------------------------


@tf_export("tf.math", "tf.nn")
def softsign(features: Any, name: str | None = None) -> Tensor:
    """``features / (abs(features) + 1)``; the gradient is ``1 / (1 + |x|)^2``.

    Args:
        features: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> softsign([-3.0, 1.0]).numpy()
        array([-0.75,  0.5 ], dtype=float32)
    """
    x = convert_to_tensor(features)
    _SOFTSIGN.check(x)
    return x / (_abs(x) + 1)


# TensorFlow's gelu checks in Python
_SOFTSIGN = NN_FLOATING.for_op("Softsign")
_L2_LOSS = NN_FLOATING.for_op("L2Loss")
_GELU = Accepts(
    "half, float, double",
    error=ValueError,
    message="`features.dtype` must be a floating point tensor.Received:"
    "features.dtype=<dtype: '{dtype}'>",
)


swish = silu


@tf_export("tf.nn")
def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """Gaussian error linear unit, composed as ``tf.nn.gelu`` composes it.

    Exact: ``0.5 * x * (1 + erf(x / sqrt(2)))``. With ``approximate=True``:
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))``.

    Args:
        features: a floating-point tensor.
        approximate: use the tanh approximation.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of the input's shape and dtype.

    Example:
        >>> gelu([-1.0, 0.0, 1.0]).numpy()
        array([-0.15865526,  0.        ,  0.8413447 ], dtype=float32)
    """
    x = convert_to_tensor(features)
    _GELU.check(x)
    half = np.float64(0.5)
    if approximate:
        cube = np.float64(0.044715) * x * x * x
        return half * x * (1.0 + tanh(np.float64(0.7978845608028654) * (x + cube)))
    return half * x * (1.0 + erf(x * np.float64(0.7071067811865476)))


@tf_export("tf.math")
def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """``log(sigmoid(x))``, computed as ``-softplus(-x)`` (as in TensorFlow).

    Stable at both ends: ``log_sigmoid(-1000.)`` is -1000 with gradient 1, and
    ``log_sigmoid(1000.)`` is 0 with gradient 0. The gradient is
    ``sigmoid(-x)``.

    Args:
        x: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: if ``x`` is not floating point, as in TensorFlow.

    Example:
        >>> log_sigmoid([-1000.0, 0.0]).numpy()
        array([-1.000000e+03, -6.931472e-01], dtype=float32)
    """
    # negative refuses bool, then softplus integers, as in TensorFlow
    return negative(softplus(negative(x)))


@tf_export("tf.nn")
def sigmoid_cross_entropy_with_logits(
    labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """Elementwise logistic loss, TensorFlow's stable form.

    ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits ``x`` and labels ``z``,
    composed exactly as TensorFlow composes it, so values and gradients (including
    ``sigmoid(0) - z`` at ``x = 0``) match and stay finite at +-1000.

    Args:
        labels: targets in [0, 1], same shape as ``logits``.
        logits: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The loss per element.

    Raises:
        ValueError: if the shapes differ.

    Example:
        >>> sigmoid_cross_entropy_with_logits(labels=[1.0], logits=[0.0]).numpy()
        array([0.6931472], dtype=float32)
    """
    z, x = convert_inputs((labels, logits))
    if z._value.shape != x._value.shape:
        raise ValueError(
            f"logits and labels must have the same shape ({x._value.shape} vs "
            f"{z._value.shape})."
        )
    greater_equal.op.accepts.check(x)  # TensorFlow compares first: bool refused
    positive = x >= 0
    relu_logits = where(positive, x, 0)
    neg_abs_logits = where(positive, -x, x)
    return add(relu_logits - x * z, log1p(exp(neg_abs_logits)))


@tf_export("tf.nn")
def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """``sum(t ** 2) / 2``; the gradient is ``t``.

    Args:
        t: a floating-point tensor.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A scalar of ``t``'s dtype.

    Example:
        >>> l2_loss([1.0, 2.0]).numpy()
        np.float32(2.5)
    """
    x = convert_to_tensor(t)
    _L2_LOSS.check(x)
    return reduce_sum(square(x)) * 0.5


@tf_export("tf.nn")
def weighted_cross_entropy_with_logits(
    labels: Any, logits: Any, pos_weight: Any, name: str | None = None
) -> Tensor:
    """Logistic loss with the positive term weighted by ``pos_weight``.

    ``labels * -log(sigmoid(logits)) * pos_weight + (1 - labels) *
    -log(1 - sigmoid(logits))``, in TensorFlow's stable form: with ``l = 1 +
    (pos_weight - 1) * labels``, ``(1 - labels) * logits + l * (log1p(exp(-|logits|))
    + relu(-logits))``. Finite at +-1000; ``pos_weight`` gets a gradient too.

    Args:
        labels: targets in [0, 1], the shape and dtype of ``logits``.
        logits: a floating-point tensor.
        pos_weight: the weight of the positive examples (a scalar or a tensor
            that broadcasts).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The loss per element.

    Raises:
        ValueError: if ``labels`` and ``logits`` have different shapes.

    Example:
        >>> weighted_cross_entropy_with_logits([1.0, 0.0], [0.0, 0.0], 3.0).numpy()
        array([2.0794415, 0.6931472], dtype=float32)
    """
    z, x = convert_inputs((labels, logits))
    if z._value.shape != x._value.shape:
        raise ValueError(
            f"logits and labels must have the same shape ({list(x._value.shape)} vs "
            f"{list(z._value.shape)})."
        )
    float_tensor(x, "weighted_cross_entropy_with_logits")
    log_weight = 1 + (pos_weight - 1) * z
    softplus_part = log1p(exp(negative(_abs(x)))) + relu(negative(x))
    return add((1 - z) * x, log_weight * softplus_part)
