"""Case rows for the neural-network ops in tapemagic/engine/ops/nn.py.

Activations sample away from their kinks; rows with a kink in the value skip
the second-order check. Convolution and pooling rows draw a configuration
(strides, dilations, padding) through ``extra`` that fits the drawn shapes: for
the gradient ops, whose inputs are the convolution's output gradient, ``extra``
draws an input size that the configuration maps to the drawn output size.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapemagic.engine import Tensor
from tapemagic.engine.op import apply
from tapemagic.engine.ops import _image as I
from tapemagic.engine.ops import math as M
from tapemagic.engine.ops import nn as N
from tapemagic.engine.ops import pooling as P
from tapemagic.engine.ops import softmax as S

from .gradcheck import Case, broadcast_shapes, shapes, unary_shapes


def _away_from(*kinks: float, low: float = -3.0, high: float = 3.0):
    """Uniform on [low, high] but at least 0.2 from each kink."""

    def sample(rng, shape):
        x = rng.uniform(low, high, size=shape)
        for k in kinks:
            x = np.where(np.abs(x - k) < 0.2, k + np.where(x >= k, 0.2, -0.2), x)
        return x

    return sample


def _distinct(rng, shape):
    # a shuffled grid 0.5 apart with a little jitter: no ties in any window
    n = int(np.prod(shape))
    grid = rng.permutation(n) * 0.5 - n * 0.25
    return grid.reshape(shape) + rng.uniform(0, 0.1, size=shape)


UNARY = unary_shapes()
RANKED = unary_shapes(1, 3)


def _axis(data, shapes) -> tuple:
    ndim = len(shapes[0])
    return (data.draw(st.integers(-ndim, ndim - 1), label="axis"),)


def _labels_for(data, shapes) -> tuple:
    logits = shapes[0]
    labels = data.draw(
        hnp.arrays(np.int32, logits[:-1], elements=st.integers(0, logits[-1] - 1)),
        label="labels",
    )
    return (labels,)


def _sparse_xent(logits, labels):
    return N.sparse_softmax_cross_entropy_with_logits(labels, logits)


def _softmax_xent(raw_labels, logits, axis):
    # labels that are a distribution along axis (each row sums to 1)
    labels = N.softmax(raw_labels, axis=axis)
    return N.softmax_cross_entropy_with_logits(labels, logits, axis=axis)


def _xent_labels_and_axis(data, shapes) -> tuple:
    # labels as data, not a watched input: the backprop's VJP for its labels is
    # zeros, as TensorFlow's, not -1
    # (tests/differential/test_regressions_second_order.py)
    labels = data.draw(
        hnp.arrays(np.float64, shapes[0], elements=st.floats(0.1, 1.0)),
        label="labels",
    )
    return (labels, *_axis(data, shapes))


def _softmax_xent_fixed_labels(logits, raw_labels, axis):
    labels = raw_labels / np.sum(raw_labels, axis=axis, keepdims=True)
    return N.softmax_cross_entropy_with_logits(labels, logits, axis=axis)


def _xent_backprop(logits, labels, axis):
    return S.softmax_xent_backprop(
        labels, logits, axis=axis % logits.ndim - logits.ndim
    )


@st.composite
def _pairs(draw) -> tuple:
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    return (shape, shape)


@st.composite
def _bias_shapes(draw) -> tuple:
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=4, max_side=3))
    return (shape, (shape[-1],))


def _moments(x, axes):
    mean, variance = N.moments(x, axes)
    return [mean, variance]


def _moments_axes(data, shapes) -> tuple:
    ndim = len(shapes[0])
    axes = data.draw(
        st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True),
        label="axes",
    )
    return (axes,)


# -- convolution and pooling configurations --------------------------------------------

_small = st.integers(1, 2)


@st.composite
def _conv_shapes(draw) -> tuple:
    n, c, o = draw(_small), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    h, w = draw(st.integers(kh, 6)), draw(st.integers(kw, 6))
    return ((n, h, w, c), (kh, kw, c, o))


def _config(data, k_hw: tuple, in_hw: tuple | None) -> tuple:
    """(padding, strides, dilations), fitting ``in_hw`` for VALID if it is given."""
    padding = data.draw(st.sampled_from(["SAME", "VALID"]), label="padding")
    strides = tuple(data.draw(st.integers(1, 3), label="stride") for _ in range(2))
    dilations = []
    for i, k in enumerate(k_hw):
        fits = [
            d
            for d in (1, 2)
            if (d == 1 or strides[i] == 1)
            and (in_hw is None or padding == "SAME" or (k - 1) * d + 1 <= in_hw[i])
        ]
        dilations.append(data.draw(st.sampled_from(fits), label="dilation"))
    return padding, list(strides), dilations


def _conv(x, w, padding, strides, dilations):
    return N.conv2d(x, w, strides, padding, dilations=dilations)


def _conv_nchw(x, w, padding, strides, dilations):
    return N.conv2d(x, w, strides, padding, data_format="NCHW", dilations=dilations)


def _conv_extra(data, shapes) -> tuple:
    x, w = shapes
    return _config(data, w[:2], x[1:3])


def _input_size_for(data, out: int, k: int, s: int, d: int, padding: str) -> int:
    """An input size that a convolution (k, s, d, padding) maps to size ``out``."""
    if padding == "SAME":
        low, high = (out - 1) * s + 1, out * s
    else:
        effective = (k - 1) * d + 1
        low, high = effective + (out - 1) * s, effective + out * s - 1
    return data.draw(st.integers(low, high), label="input size")


@st.composite
def _grad_shapes(draw) -> tuple:
    # (out_backprop, filters): out_backprop's size drives the drawn input size
    n, c, o = draw(_small), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ho, wo = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return ((n, ho, wo, o), (kh, kw, c, o))


def _backprop_input_extra(data, shapes) -> tuple:
    g, w = shapes
    padding, strides, dilations = _config(data, w[:2], None)
    h = _input_size_for(data, g[1], w[0], strides[0], dilations[0], padding)
    wd = _input_size_for(data, g[2], w[1], strides[1], dilations[1], padding)
    return [g[0], h, wd, w[2]], padding, strides, dilations


def _backprop_input(g, w, sizes, padding, strides, dilations):
    return N.conv2d_backprop_input(sizes, w, g, strides, padding, dilations=dilations)


def _conv_out(size: int, k: int, s: int, d: int, padding: str) -> int:
    """TensorFlow's output size, or 0 where VALID does not fit."""
    if padding == "SAME":
        return -(-size // s)
    return max((size - (k - 1) * d - 1) // s + 1, 0)


@st.composite
def _filter_grad_shapes(draw) -> tuple:
    # (input, out_backprop) of a convolution drawn here; extra finds a fitting one
    n, c, o = draw(_small), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    sizes = []
    for _ in range(2):
        k, s = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        size = draw(st.integers(k, 6))
        sizes.append((size, _conv_out(size, k, s, 1, padding)))
    (h, ho), (w, wo) = sizes
    return ((n, h, w, c), (n, ho, wo, o))


def _backprop_filter_extra(data, shapes) -> tuple:
    x, g = shapes
    # every (padding, kernel size, stride, dilation) that maps x's size to g's
    choices = []
    for padding in ("SAME", "VALID"):
        per_axis = [
            [
                (k, s, d)
                for k in (1, 2, 3)
                for s in (1, 2, 3)
                for d in (1, 2)
                if (d == 1 or s == 1) and _conv_out(size, k, s, d, padding) == out
            ]
            for size, out in ((x[1], g[1]), (x[2], g[2]))
        ]
        if all(per_axis):
            choices.append((padding, per_axis))
    padding, (rows, cols) = data.draw(st.sampled_from(choices), label="padding")
    kh, sh, dh = data.draw(st.sampled_from(rows), label="rows")
    kw, sw, dw = data.draw(st.sampled_from(cols), label="cols")
    return [kh, kw, x[3], g[3]], padding, [sh, sw], [dh, dw]


def _backprop_filter(x, g, sizes, padding, strides, dilations):
    return N.conv2d_backprop_filter(x, sizes, g, strides, padding, dilations=dilations)


@st.composite
def _depthwise_shapes(draw) -> tuple:
    # (input, depthwise filter): a channel multiplier of 1 to 3
    (x, w) = draw(_conv_shapes())
    return (x, (*w[:3], draw(st.integers(1, 3))))


def _depthwise(x, w, padding, strides, dilations):
    return N.depthwise_conv2d(x, w, [1, *strides, 1], padding, dilations=dilations)


def _depthwise_nchw(x, w, padding, strides, dilations):
    return N.depthwise_conv2d(
        x, w, [1, 1, *strides], padding, data_format="NCHW", dilations=dilations
    )


@st.composite
def _separable_shapes(draw) -> tuple:
    # (input, depthwise filter, pointwise filter)
    x, w = draw(_depthwise_shapes())
    return (x, w, (1, 1, w[2] * w[3], draw(st.integers(1, 3))))


def _separable(x, dw, pw, padding, strides, dilations):
    return N.separable_conv2d(x, dw, pw, [1, *strides, 1], padding, dilations=dilations)


@st.composite
def _image_shapes(draw) -> tuple:
    n, c = draw(_small), draw(st.integers(1, 3))
    return ((n, draw(st.integers(1, 5)), draw(st.integers(1, 5)), c),)


def _pool_config(data, in_hw: tuple | None) -> tuple:
    padding = data.draw(st.sampled_from(["SAME", "VALID"]), label="padding")
    ksize = [
        data.draw(
            st.integers(1, 3 if in_hw is None or padding == "SAME" else min(3, n)),
            label="ksize",
        )
        for n in (in_hw or (3, 3))
    ]
    strides = [data.draw(st.integers(1, 3), label="stride") for _ in range(2)]
    return ksize, strides, padding


def _pool_extra(data, shapes) -> tuple:
    return _pool_config(data, shapes[0][1:3])


def _pool_params(in_hw, ksize, strides, padding) -> dict:
    ksize, strides = tuple(ksize), tuple(strides)
    pads = I._padding_amounts(padding, in_hw, ksize, strides, (1, 1), "NHWC")
    return {"ksize": ksize, "strides": strides, "pads": pads}


def _pooled_input_extra(data, shapes) -> tuple:
    # shapes[0] is the pooled shape; draw a config and an input it pools to that
    g = shapes[0]
    ksize, strides, padding = _pool_config(data, None)
    in_hw = tuple(
        _input_size_for(data, g[1 + i], ksize[i], strides[i], 1, padding)
        for i in range(2)
    )
    x = data.draw(
        st.integers(0, 2**32 - 1).map(
            lambda seed: _distinct(np.random.default_rng(seed), (g[0], *in_hw, g[3]))
        ),
        label="x",
    )
    return x, ksize, strides, padding


def _max_pool_grad(g, x, ksize, strides, padding):
    params = _pool_params(x.shape[1:3], ksize, strides, padding)
    return apply(P._max_pool_grad.op, (Tensor(x), g), params)


def _max_pool_grad_grad_extra(data, shapes) -> tuple:
    c = shapes[0]
    ksize, strides, padding = _pool_config(data, c[1:3])
    seed = data.draw(st.integers(0, 2**32 - 1), label="x seed")
    return _distinct(np.random.default_rng(seed), c), ksize, strides, padding


def _max_pool_grad_grad(c, x, ksize, strides, padding):
    params = _pool_params(x.shape[1:3], ksize, strides, padding)
    return apply(P._max_pool_grad_grad.op, (Tensor(x), c), params)


def _avg_pool_grad(g, x, ksize, strides, padding):
    params = _pool_params(x.shape[1:3], ksize, strides, padding)
    params["in_hw"] = x.shape[1:3]
    return apply(P._avg_pool_grad.op, (g,), params)


@st.composite
def _pooled_shapes(draw) -> tuple:
    n, c = draw(_small), draw(st.integers(1, 3))
    return ((n, draw(st.integers(1, 3)), draw(st.integers(1, 3)), c),)


CASES = [
    Case("relu", N.relu, UNARY, domain=_away_from(0), smooth=False),
    Case("relu_grad", N.relu_grad, broadcast_shapes(2), domain=_away_from(0)),
    Case(
        "relu6", N.relu6, UNARY, domain=_away_from(0, 6, low=-2, high=8), smooth=False
    ),
    Case(
        "relu6_grad",
        N.relu6_grad,
        broadcast_shapes(2),
        domain=_away_from(0, 6, low=-2, high=8),
    ),
    Case("leaky_relu", N.leaky_relu, UNARY, domain=_away_from(0), smooth=False),
    Case(
        "leaky_relu_grad",
        lambda x, g: N.leaky_relu_grad(x, g, alpha=0.3),
        broadcast_shapes(2),
        domain=_away_from(0),
    ),
    Case(
        "leaky_relu",
        lambda x: N.leaky_relu(x, alpha=0.01),
        UNARY,
        domain=_away_from(0),
        smooth=False,
        name="leaky_relu[alpha=0.01]",
    ),
    Case("elu", N.elu, UNARY, domain=_away_from(0), tol=1e-5),
    Case("selu", N.selu, UNARY, domain=_away_from(0), tol=1e-5),
    Case("elu_grad", N.elu_grad, broadcast_shapes(2), domain=_away_from(0)),
    Case("selu_grad", N.selu_grad, broadcast_shapes(2), domain=_away_from(0)),
    Case("softplus", N.softplus, UNARY, domain=(-5.0, 5.0)),
    Case("abs", N.softsign, UNARY, domain=_away_from(0), tol=1e-5, name="softsign"),
    Case("silu", N.silu, UNARY, tol=1e-5),
    Case("silu", lambda x: N.silu(x, beta=1.7), UNARY, tol=1e-5, name="silu_beta"),
    Case("erf", N.erf, UNARY, domain=(-3.0, 3.0), tol=1e-5),
    Case("erf", N.gelu, UNARY, domain=(-4.0, 4.0), tol=1e-5, name="gelu"),
    Case(
        "tanh",
        lambda x: N.gelu(x, approximate=True),
        UNARY,
        tol=1e-5,
        name="gelu[approximate]",
    ),
    Case(
        "softmax",
        lambda x, axis: N.softmax(x, axis=axis),
        RANKED,
        extra=_axis,
        tol=1e-5,
    ),
    Case(
        "log_softmax",
        lambda x, axis: N.log_softmax(x, axis=axis),
        RANKED,
        extra=_axis,
        tol=1e-5,
    ),
    # first order only: the second derivative treats the labels as a constant,
    # as TensorFlow's does; the next row checks it with constant labels
    Case(
        "softmax_cross_entropy_with_logits",
        _softmax_xent,
        _pairs(),
        extra=_axis,
        tol=1e-5,
        smooth=False,
    ),
    Case(
        "softmax_cross_entropy_with_logits",
        _softmax_xent_fixed_labels,
        RANKED,
        extra=_xent_labels_and_axis,
        tol=1e-5,
        name="softmax_cross_entropy_with_logits[constant labels]",
    ),
    Case(
        "softmax_xent_backprop",
        _xent_backprop,
        RANKED,
        extra=_xent_labels_and_axis,
        tol=1e-5,
    ),
    Case(
        "sparse_softmax_cross_entropy_with_logits",
        _sparse_xent,
        RANKED,
        extra=_labels_for,
        tol=1e-5,
    ),
    Case(
        "log1p",
        lambda z, x: N.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        _pairs(),
        tol=1e-5,
        name="sigmoid_cross_entropy_with_logits",
    ),
    Case("square", N.l2_loss, UNARY, name="l2_loss"),
    Case("add", N.bias_add, _bias_shapes(), name="bias_add"),
    Case(
        "add",
        lambda x, b: N.bias_add(x, b, data_format="NCHW"),
        _bias_shapes().map(lambda s: (s[0], (s[0][1],))),
        name="bias_add[NCHW]",
    ),
    # TensorFlow's variance stops the gradient through the mean, so its second
    # derivative is not the true one: first order only.
    Case(
        "reduce_mean",
        _moments,
        unary_shapes(1, 3),
        extra=_moments_axes,
        smooth=False,
        name="moments",
    ),
    Case("multiply", lambda x: N.dropout(x, 0.5, seed=7), UNARY, name="dropout"),
    Case(
        "conv2d",
        _conv,
        _conv_shapes(),
        extra=_conv_extra,
        tol=1e-5,
    ),
    Case(
        "conv2d",
        _conv_nchw,
        _conv_shapes().map(lambda s: ((s[0][0], s[0][3], *s[0][1:3]), s[1])),
        extra=lambda data, s: _config(data, s[1][:2], s[0][2:4]),
        tol=1e-5,
        name="conv2d[NCHW]",
    ),
    Case(
        "conv2d",
        lambda x, w: N.conv2d(x, w, [1, 2], "SAME"),
        shapes((2, 1, 3, 4, 2), (2, 3, 2, 3)),
        tol=1e-5,
        name="conv2d[leading batch axes]",
    ),
    Case(
        "conv2d",
        _depthwise,
        _depthwise_shapes(),
        extra=_conv_extra,
        tol=1e-5,
        name="depthwise_conv2d",
    ),
    Case(
        "conv2d",
        _depthwise_nchw,
        _depthwise_shapes().map(lambda s: ((s[0][0], s[0][3], *s[0][1:3]), s[1])),
        extra=lambda data, s: _config(data, s[1][:2], s[0][2:4]),
        tol=1e-5,
        name="depthwise_conv2d[NCHW]",
    ),
    Case(
        "conv2d",
        lambda x, w: N.depthwise_conv2d(x, w, [1, 2, 1, 1], "SAME"),
        shapes((2, 1, 3, 4, 2), (2, 3, 2, 2)),
        tol=1e-5,
        name="depthwise_conv2d[leading batch axes]",
    ),
    Case(
        "conv2d",
        _separable,
        _separable_shapes(),
        extra=lambda data, s: _conv_extra(data, s[:2]),
        tol=1e-5,
        name="separable_conv2d",
    ),
    Case(
        "conv2d_backprop_input",
        _backprop_input,
        _grad_shapes(),
        extra=_backprop_input_extra,
        tol=1e-5,
    ),
    Case(
        "conv2d_backprop_filter",
        _backprop_filter,
        _filter_grad_shapes(),
        extra=_backprop_filter_extra,
        tol=1e-5,
    ),
    Case(
        "max_pool2d",
        N.max_pool2d,
        _image_shapes(),
        domain=_distinct,
        extra=_pool_extra,
        smooth=False,
    ),
    Case("max_pool_grad", _max_pool_grad, _pooled_shapes(), extra=_pooled_input_extra),
    Case(
        "max_pool_grad_grad",
        _max_pool_grad_grad,
        _image_shapes(),
        extra=_max_pool_grad_grad_extra,
    ),
    Case(
        "avg_pool2d",
        N.avg_pool2d,
        _image_shapes(),
        extra=_pool_extra,
    ),
    Case("avg_pool_grad", _avg_pool_grad, _pooled_shapes(), extra=_pooled_input_extra),
]


# -- log_sigmoid, l2_normalize, batch normalization, weighted loss, embeddings --------


def _positive(rng, shape):
    return rng.uniform(0.5, 2.0, size=shape)


def _normalize_axis(data, shapes) -> tuple:
    ndim = len(shapes[0])
    one = st.integers(-ndim, ndim - 1)
    many = st.lists(one, min_size=1, max_size=ndim, unique_by=lambda a: a % ndim)
    return (data.draw(st.one_of(st.none(), one, many), label="axis"),)


@st.composite
def _batch_norm_shapes(draw) -> tuple:
    # x, then mean, variance, offset and scale, each broadcasting into x
    x = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    stats = []
    for _ in range(4):
        keep = draw(st.integers(0, len(x)))
        stats.append(tuple(d if draw(st.booleans()) else 1 for d in x[len(x) - keep :]))
    return (x, *stats)


def _batch_norm(x, mean, variance, offset, scale):
    return N.batch_normalization(x, mean, variance, offset, scale, 1e-3)


def _weighted_xent(labels, logits, pos_weight):
    # labels squashed into (0, 1); logits kept off relu's and abs's kink at 0
    return N.weighted_cross_entropy_with_logits(M.sigmoid(labels), logits, pos_weight)


@st.composite
def _xent_shapes(draw) -> tuple:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))
    return (shape, shape, ())


def _ids(data, shapes) -> tuple:
    rows = shapes[0][0]
    ids = data.draw(
        hnp.arrays(
            np.int64,
            hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
            elements=st.integers(0, rows - 1),
        ),
        label="ids",
    )
    return (ids,)


CASES += [
    Case("softplus", N.log_sigmoid, UNARY, domain=(-5.0, 5.0), name="log_sigmoid"),
    Case(
        "rsqrt",
        lambda x, axis: N.l2_normalize(x, axis),
        RANKED,
        domain=_away_from(0),
        extra=_normalize_axis,
        tol=1e-5,
        name="l2_normalize",
    ),
    Case(
        "rsqrt",
        _batch_norm,
        _batch_norm_shapes(),
        domain=_positive,
        tol=1e-5,
        name="batch_normalization",
    ),
    Case(
        "log1p",
        _weighted_xent,
        _xent_shapes(),
        domain=_away_from(0),
        tol=1e-5,
        name="weighted_cross_entropy_with_logits",
    ),
    Case("gather", N.embedding_lookup, RANKED, extra=_ids, name="embedding_lookup"),
    Case(
        "gather",
        lambda params, ids: N.embedding_lookup(params, ids, max_norm=0.8),
        RANKED,
        domain=_away_from(0),
        extra=_ids,
        tol=1e-5,
        name="embedding_lookup[max_norm]",
    ),
]
