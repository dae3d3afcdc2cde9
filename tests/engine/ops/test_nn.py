"""Neural-network ops: TensorFlow's kinks, stability at extreme logits, convolution
and pooling against slow loop references, and the errors users hit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops import nn as N
from tapemagic.engine.ops.reduce import reduce_sum


def grads(fn, *values, dtype=np.float32):
    xs = [Variable(np.asarray(v, dtype=dtype)) for v in values]
    with GradientTape() as tape:
        y = fn(*xs)
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


# -- activations and their kinks -------------------------------------------------------


def test_relu_family_conventions_at_the_kinks():
    x = [-1.0, 0.0, 2.0]
    assert N.relu(x).numpy().tolist() == [0.0, 0.0, 2.0]
    assert grads(N.relu, x)[0].tolist() == [0.0, 0.0, 1.0]
    assert grads(N.relu6, [0.0, 3.0, 6.0, 7.0])[0].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert N.relu6([7.0, -1.0]).numpy().tolist() == [6.0, 0.0]
    # leaky_relu'(0) = alpha (default 0.2)
    assert grads(N.leaky_relu, x)[0].tolist() == pytest.approx([0.2, 0.2, 1.0])
    g = grads(lambda t: N.leaky_relu(t, alpha=0.01), x)[0]
    assert g.tolist() == pytest.approx([0.01, 0.01, 1.0])
    assert N.leaky_relu(x).numpy().tolist() == pytest.approx([-0.2, 0.0, 2.0])
    # elu'(0) = 1; elu'(x) = exp(x) below 0
    g = grads(N.elu, x)[0]
    assert g.tolist() == pytest.approx([math.exp(-1.0), 1.0, 1.0])
    assert N.elu([-1.0]).numpy()[0] == pytest.approx(math.exp(-1.0) - 1)


def test_leaky_relu_casts_integers_to_float32():
    out = N.leaky_relu([-5, 5])
    assert out.dtype.name == "float32" and out.numpy().tolist() == [-1.0, 5.0]


def test_selu_uses_tensorflows_constants():
    scale, alpha = 1.0507009873554804, 1.6732632423543772
    out = N.selu(np.array([-1.0, 2.0])).numpy()
    np.testing.assert_allclose(out, [scale * alpha * (math.exp(-1) - 1), 2 * scale])
    g = grads(N.selu, [-1.0, 0.0, 1.0], dtype=np.float64)[0]
    # float64 inputs keep the constants' full precision
    np.testing.assert_allclose(
        g, [scale * alpha * math.exp(-1), scale, scale], rtol=1e-15
    )


def test_softplus_is_stable_at_extremes():
    out = N.softplus(np.array([-100.0, 0.0, 100.0])).numpy()
    np.testing.assert_allclose(out, [math.exp(-100), math.log(2), 100.0], rtol=1e-14)
    g = grads(N.softplus, [-100.0, 0.0, 100.0], dtype=np.float64)[0]
    np.testing.assert_allclose(g, [math.exp(-100), 0.5, 1.0], rtol=1e-14)
    g32 = grads(N.softplus, [-100.0, 100.0])[0]
    assert np.isfinite(g32).all() and g32[1] == 1.0
    assert N.softplus(np.float32(1000.0)).numpy() == 1000.0


def test_softsign_and_silu():
    assert N.softsign([-3.0, 1.0]).numpy().tolist() == [-0.75, 0.5]
    assert grads(N.softsign, [0.0, 1.0])[0].tolist() == [1.0, 0.25]
    x = 1.5
    s = 1 / (1 + math.exp(-x))
    assert N.silu(np.float64(x)).numpy() == pytest.approx(x * s)
    g = grads(N.silu, x, dtype=np.float64)[0]
    assert g == pytest.approx(s + x * s * (1 - s))
    assert N.swish is N.silu
    assert N.silu(np.float64(x), beta=2.0).numpy() == pytest.approx(
        x / (1 + math.exp(-2 * x))
    )


def test_erf_matches_the_standard_library():
    x = np.concatenate([np.linspace(-7, 7, 1401), [1e-300, -1e-8, 5.99, 6.01]])
    want = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(N.erf(x).numpy(), want, rtol=1e-14, atol=1e-300)
    special = N.erf(np.array([np.inf, -np.inf, np.nan])).numpy()
    assert special[0] == 1.0 and special[1] == -1.0 and np.isnan(special[2])
    assert N.erf(np.float32(0.5)).dtype.name == "float32"
    g = grads(N.erf, [0.0, 1.0], dtype=np.float64)[0]
    np.testing.assert_allclose(g, 2 / math.sqrt(math.pi) * np.exp([0.0, -1.0]))


def test_gelu_exact_and_approximate():
    x = np.array([-2.0, -0.5, 0.0, 1.0, 3.0])
    exact = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]
    np.testing.assert_allclose(N.gelu(x).numpy(), exact, rtol=1e-14, atol=1e-16)
    approx = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(N.gelu(x, approximate=True).numpy(), approx)
    # gelu'(x) = Phi(x) + x phi(x): 0.5 at 0
    g = grads(N.gelu, [0.0, 1.0], dtype=np.float64)[0]
    phi = math.exp(-0.5) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(g, [0.5, 0.5 * (1 + math.erf(1 / math.sqrt(2))) + phi])


def test_activations_need_floats():
    # what tensorflow-cpu 2.21.0 raises, then what to do
    with pytest.raises(InvalidArgumentError, match=r"of int32 .*\[Op:Elu\]. Cast"):
        N.elu([1, 2])
    with pytest.raises(InvalidArgumentError, match=r"\[Op:Softmax\]. Cast"):
        N.softmax([1, 2])


# -- softmax and the cross entropies ---------------------------------------------------


def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_and_log_softmax_values():
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(N.softmax(x).numpy(), _np_softmax(x))
    np.testing.assert_allclose(N.softmax(x, axis=0).numpy(), _np_softmax(x, 0))
    np.testing.assert_allclose(N.log_softmax(x).numpy(), np.log(_np_softmax(x)))
    with pytest.raises(InvalidArgumentError, match="out of range"):
        N.softmax(x, axis=2)


def test_softmax_and_log_softmax_of_an_empty_axis_are_empty():
    # Regression (issue 8, found by tests/fuzz): an empty axis raised NumPy's
    # "zero-size array to reduction operation maximum"; TensorFlow returns the
    # empty tensor, and so does its gradient.
    x = Tensor(np.zeros((2, 0)))
    for fn, axis in [(N.softmax, -1), (N.log_softmax, -1), (N.softmax, 0)]:
        with GradientTape() as tape:
            tape.watch(x)
            y = fn(x, axis=axis)
        assert y.shape == (2, 0)
        assert tape.gradient(y, x).shape == (2, 0)


def test_softmax_is_stable_at_extreme_logits():
    x = [1000.0, -1000.0, 0.0]
    assert N.softmax(x).numpy().tolist() == [1.0, 0.0, 0.0]
    assert N.log_softmax(x).numpy().tolist() == [0.0, -2000.0, -1000.0]
    (g,) = grads(lambda t: N.softmax(t) * [1.0, 2.0, 3.0], x)
    assert np.isfinite(g).all()
    # d sum(log_softmax) / dx = 1 - n * softmax
    (g,) = grads(N.log_softmax, x)
    assert g.tolist() == [-2.0, 1.0, 1.0]


def test_softmax_gradient_by_hand():
    # d softmax_0 / dx = s_0 (e_0 - s)
    x = np.array([0.5, -1.0, 2.0])
    s = _np_softmax(x)
    (g,) = grads(lambda t: N.softmax(t)[0], x, dtype=np.float64)
    np.testing.assert_allclose(g, s[0] * (np.eye(3)[0] - s))


def test_softmax_cross_entropy_values_and_extremes():
    labels = np.array([[0.2, 0.8], [1.0, 0.0]])
    logits = np.array([[1.0, -1.0], [0.5, 0.5]])
    want = -(labels * np.log(_np_softmax(logits))).sum(-1)
    out = N.softmax_cross_entropy_with_logits(labels, logits)
    np.testing.assert_allclose(out.numpy(), want)
    # axis=0: the classes run down the columns
    out0 = N.softmax_cross_entropy_with_logits(labels.T, logits.T, axis=0)
    np.testing.assert_allclose(out0.numpy(), want)
    extreme = N.softmax_cross_entropy_with_logits([0.0, 1.0], [1000.0, -1000.0])
    assert extreme.numpy() == 2000.0
    g_labels, g_logits = grads(
        N.softmax_cross_entropy_with_logits, [0.0, 1.0], [1000.0, -1000.0]
    )
    assert g_logits.tolist() == [1.0, -1.0]  # softmax - labels
    assert g_labels.tolist() == [0.0, 2000.0]  # -log_softmax


def test_softmax_cross_entropy_logits_gradient_is_softmax_minus_labels():
    # TensorFlow returns softmax - labels even when labels do not sum to 1 (the
    # true derivative would be sum(labels) * softmax - labels)
    _, g = grads(N.softmax_cross_entropy_with_logits, [1.0, 1.0], [0.0, 0.0])
    assert g.tolist() == [-0.5, -0.5]


def test_softmax_cross_entropy_shape_mismatch():
    with pytest.raises(InvalidArgumentError, match="broadcastable"):
        N.softmax_cross_entropy_with_logits([[1.0, 0.0]], [[1.0, 2.0, 3.0]])


def test_sparse_softmax_cross_entropy():
    logits = np.array([[2.0, 1.0, 0.1], [1000.0, -1000.0, 0.0]])
    out = N.sparse_softmax_cross_entropy_with_logits([0, 1], logits).numpy()
    np.testing.assert_allclose(out[0], -np.log(_np_softmax(logits[0])[0]))
    assert out[1] == 2000.0
    x = Variable(logits)
    labels = Tensor(np.array([0, 1], np.int32))
    with GradientTape() as tape:
        with pytest.warns(UserWarning, match="must be floating"):
            tape.watch(labels)
        loss = N.sparse_softmax_cross_entropy_with_logits(labels, x)
    with pytest.warns(UserWarning, match="must be floating"):
        g_labels, g_logits = tape.gradient(loss, [labels, x])
    assert g_labels is None  # integer labels are not differentiable
    want = _np_softmax(logits) - np.eye(3)[[0, 1]]
    np.testing.assert_allclose(g_logits.numpy(), want)
    assert np.isfinite(g_logits.numpy()).all()


def test_sparse_softmax_cross_entropy_errors():
    logits = np.zeros((2, 3))
    with pytest.raises(InvalidArgumentError, match="label value of 3"):
        N.sparse_softmax_cross_entropy_with_logits([0, 3], logits)
    with pytest.raises(InvalidArgumentError, match="valid range of \\[0, 3\\)"):
        N.sparse_softmax_cross_entropy_with_logits([-1, 0], logits)
    with pytest.raises(TypeError, match="integer class indices"):
        N.sparse_softmax_cross_entropy_with_logits([0.0, 1.0], logits)
    with pytest.raises(ValueError, match="Rank mismatch"):
        N.sparse_softmax_cross_entropy_with_logits([[0, 1]], logits)
    with pytest.raises(ValueError, match="Shape mismatch"):
        N.sparse_softmax_cross_entropy_with_logits([0, 1, 2], logits)


def test_sparse_cross_entropy_gradient_is_the_same_with_or_without_its_exps():
    # The gradient's softmax comes from the exponentials of the last forward
    # when the node's logits are that forward's, and is computed afresh
    # otherwise (a second loss in between): the same bits either way.
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((64, 10)).astype(np.float32)
    labels = Tensor(rng.integers(0, 10, 64).astype(np.int32))

    def gradient(other_loss_between: bool) -> np.ndarray:
        x = Variable(logits)
        with GradientTape() as tape:
            loss = reduce_sum(N.sparse_softmax_cross_entropy_with_logits(labels, x))
        if other_loss_between:
            N.sparse_softmax_cross_entropy_with_logits(labels, logits[::-1].copy())
        return tape.gradient(loss, x).numpy()

    kept, afresh = gradient(False), gradient(True)
    np.testing.assert_array_equal(kept, afresh)
    want = _np_softmax(logits.astype(np.float64)) - np.eye(10)[labels.numpy()]
    np.testing.assert_allclose(kept, want, atol=1e-6)


def test_sparse_cross_entropy_checks_labels_again_for_fewer_classes():
    # The same labels tensor passes for ten classes; for three it is out of range.
    labels = Tensor(np.array([0, 7], np.int32))
    N.sparse_softmax_cross_entropy_with_logits(labels, np.zeros((2, 10)))
    N.sparse_softmax_cross_entropy_with_logits(labels, np.zeros((2, 10)))
    with pytest.raises(InvalidArgumentError, match="label value of 7"):
        N.sparse_softmax_cross_entropy_with_logits(labels, np.zeros((2, 3)))


def test_sigmoid_cross_entropy_matches_the_textbook_formula():
    z = np.array([0.0, 1.0, 0.3, 1.0])
    x = np.array([-2.0, 0.5, 1.5, -0.7])
    p = 1 / (1 + np.exp(-x))
    want = -z * np.log(p) - (1 - z) * np.log(1 - p)
    out = N.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    np.testing.assert_allclose(out.numpy(), want)
    g_z, g_x = grads(
        lambda a, b: N.sigmoid_cross_entropy_with_logits(labels=a, logits=b),
        z,
        x,
        dtype=np.float64,
    )
    np.testing.assert_allclose(g_x, p - z)
    np.testing.assert_allclose(g_z, -x)


def test_sigmoid_cross_entropy_at_zero_and_extremes():
    z, x = [0.0, 1.0, 1.0, 0.0], [0.0, 0.0, -1000.0, 1000.0]
    out = N.sigmoid_cross_entropy_with_logits(labels=z, logits=x).numpy()
    np.testing.assert_allclose(out, [math.log(2), math.log(2), 1000.0, 1000.0])
    _, g_x = grads(
        lambda a, b: N.sigmoid_cross_entropy_with_logits(labels=a, logits=b), z, x
    )
    assert g_x.tolist() == [0.5, -0.5, -1.0, 1.0]  # sigmoid(x) - z
    with pytest.raises(ValueError, match="same shape"):
        N.sigmoid_cross_entropy_with_logits(labels=[1.0], logits=[1.0, 2.0])


# -- small helpers ---------------------------------------------------------------------


def test_l2_loss_and_bias_add():
    assert N.l2_loss([1.0, 2.0, 3.0]).numpy() == 7.0
    assert grads(N.l2_loss, [1.0, -2.0])[0].tolist() == [1.0, -2.0]
    x = np.zeros((2, 3, 2))
    assert N.bias_add(x, [1.0, 2.0]).numpy()[1, 2].tolist() == [1.0, 2.0]
    nchw = N.bias_add(np.zeros((1, 2, 2, 2)), [1.0, 2.0], data_format="NCHW")
    assert nchw.numpy()[0, :, 1, 1].tolist() == [1.0, 2.0]
    _, g_bias = grads(N.bias_add, np.ones((2, 3, 2)), [0.0, 0.0])
    assert g_bias.tolist() == [6.0, 6.0]
    with pytest.raises(InvalidArgumentError, match="as many biases"):
        N.bias_add(np.zeros((2, 3)), [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="Biases must be 1D"):
        N.bias_add(np.zeros((2, 3)), [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="data_format"):
        N.bias_add(np.zeros((2, 3)), [1.0, 2.0, 3.0], data_format="HWCN")


def test_moments_values_and_tensorflows_second_derivative():
    x = np.array([[1.0, 2.0], [3.0, 6.0]])
    mean, variance = N.moments(x, axes=[0])
    assert mean.numpy().tolist() == [2.0, 4.0]
    assert variance.numpy().tolist() == [1.0, 4.0]
    mean, variance = N.moments(x, axes=[0, 1], keepdims=True)
    assert mean.shape == (1, 1) and variance.numpy()[0, 0] == pytest.approx(3.5)
    # first derivative of the variance: 2 (x - mean) / n
    (g,) = grads(lambda t: N.moments(t, axes=[0])[1], x, dtype=np.float64)
    assert g.tolist() == [[-1.0, -2.0], [1.0, 2.0]]
    # TensorFlow stops the gradient through the mean inside the variance, so the
    # Hessian-vector product is 2/n * v instead of 2/n * (v - mean(v))
    v = Variable(np.array([1.0, 2.0, 4.0]))
    with GradientTape() as outer:
        with GradientTape() as inner:
            _, var = N.moments(v, axes=[0])
        g = inner.gradient(var, v)
        directional = g[0] * 1.0
    hessian_row = outer.gradient(directional, v).numpy()
    np.testing.assert_allclose(hessian_row, [2 / 3, 0.0, 0.0])


def test_dropout():
    x = Tensor(np.ones((4, 50), np.float32))
    assert N.dropout(x, 0.0) is x
    y = N.dropout(x, rate=0.75, seed=3).numpy()
    assert set(np.unique(y).tolist()) == {0.0, 4.0}
    np.testing.assert_array_equal(N.dropout(x, 0.75, seed=3).numpy(), y)
    columns = N.dropout(x, rate=0.5, noise_shape=[1, 50], seed=1).numpy()
    assert (columns == columns[0]).all()  # whole columns kept or dropped
    v = Variable(np.ones(8, np.float32))
    with GradientTape() as tape:
        out = N.dropout(v, rate=0.5, seed=5)
    g = tape.gradient(out, v).numpy()
    np.testing.assert_array_equal(g, out.numpy())  # scale where kept, 0 where not
    x64 = N.dropout(np.ones(20), rate=0.3, seed=2).numpy()
    assert set(np.unique(x64).tolist()) == {0.0, 1 / 0.7}  # exact in float64
    with pytest.raises(ValueError, match="range \\[0, 1\\)"):
        N.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="floating point"):
        N.dropout([1, 2], rate=0.5)


# -- convolution -----------------------------------------------------------------------


def _loop_conv(x, w, strides, dilations, pads):
    """Slow, obviously correct NHWC cross-correlation with explicit zero padding."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    xp = np.zeros((n, h + pads[0] + pads[1], wd + pads[2] + pads[3], c))
    xp[:, pads[0] : pads[0] + h, pads[2] : pads[2] + wd] = x
    ho = (xp.shape[1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    wo = (xp.shape[2] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    out = np.zeros((n, ho, wo, o))
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                for di in range(kh):
                    for dj in range(kw):
                        r = i * strides[0] + di * dilations[0]
                        s = j * strides[1] + dj * dilations[1]
                        out[b, i, j] += xp[b, r, s] @ w[di, dj]
    return out


def _tf_same_pads(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


CONFIGS = [
    # (input H, W), (kh, kw), strides, dilations, padding
    ((5, 6), (3, 2), (1, 1), (1, 1), "SAME"),
    ((5, 6), (3, 2), (2, 2), (1, 1), "SAME"),
    ((6, 7), (3, 3), (2, 3), (1, 1), "SAME"),
    ((6, 6), (2, 2), (3, 1), (1, 1), "VALID"),
    ((7, 6), (3, 2), (1, 1), (2, 2), "SAME"),
    ((7, 6), (3, 2), (1, 1), (2, 1), "VALID"),
    ((4, 5), (3, 3), (1, 2), (1, 1), [[0, 0], [2, 0], [1, 3], [0, 0]]),
]


@pytest.mark.parametrize("in_hw, k_hw, strides, dilations, padding", CONFIGS)
def test_conv2d_matches_a_loop_reference(in_hw, k_hw, strides, dilations, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, *in_hw, 3))
    w = rng.standard_normal((*k_hw, 3, 4))
    if padding == "SAME":
        pads = sum(
            (_tf_same_pads(*a) for a in zip(in_hw, k_hw, strides, dilations)), ()
        )
    elif padding == "VALID":
        pads = (0, 0, 0, 0)
    else:
        pads = (*padding[1], *padding[2])
    want = _loop_conv(x, w, strides, dilations, pads)
    out = N.conv2d(x, w, list(strides), padding, dilations=list(dilations))
    np.testing.assert_allclose(out.numpy(), want, atol=1e-12)
    if padding == "SAME":
        assert out.shape[1:3] == tuple(-(-n // s) for n, s in zip(in_hw, strides))

    # gradients: <u, conv(x, w)> is bilinear, so d/dx . v = <u, conv(v, w)> etc.
    u = rng.standard_normal(want.shape)
    xv, wv = Variable(x), Variable(w)
    with GradientTape() as tape:
        y = N.conv2d(xv, wv, list(strides), padding, dilations=list(dilations))
    gx, gw = tape.gradient(y, [xv, wv], output_gradients=Tensor(u))
    v, vw = rng.standard_normal(x.shape), rng.standard_normal(w.shape)
    assert np.sum(gx.numpy() * v) == pytest.approx(
        np.sum(u * _loop_conv(v, w, strides, dilations, pads))
    )
    assert np.sum(gw.numpy() * vw) == pytest.approx(
        np.sum(u * _loop_conv(x, vw, strides, dilations, pads))
    )


def test_same_padding_puts_the_odd_pixel_at_the_end_as_tensorflow_does():
    # width 6, kernel 3, stride 2: TF pads 0 on the left and 1 on the right
    x = np.arange(6.0).reshape(1, 1, 6, 1)
    out = N.conv2d(x, np.ones((1, 3, 1, 1)), 2, "SAME")
    assert out.numpy().ravel().tolist() == [3.0, 9.0, 9.0]  # 0+1+2, 2+3+4, 4+5+0
    # width 5, kernel 4, stride 1: 1 on the left, 2 on the right
    x = np.arange(1.0, 6.0).reshape(1, 1, 5, 1)
    out = N.conv2d(x, np.ones((1, 4, 1, 1)), 1, "SAME")
    assert out.numpy().ravel().tolist() == [6.0, 10.0, 14.0, 12.0, 9.0]


def test_conv2d_public_backprops_equal_the_tape_gradients():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 5, 5, 2)), rng.standard_normal((3, 3, 2, 3))
    u = rng.standard_normal((2, 3, 3, 3))
    xv, wv = Variable(x), Variable(w)
    with GradientTape() as tape:
        y = N.conv2d(xv, wv, 2, "SAME")
    gx, gw = tape.gradient(y, [xv, wv], output_gradients=Tensor(u))
    bx = N.conv2d_backprop_input([2, 5, 5, 2], w, u, 2, "SAME")
    bw = N.conv2d_backprop_filter(x, [3, 3, 2, 3], u, 2, "SAME")
    np.testing.assert_allclose(bx.numpy(), gx.numpy())
    np.testing.assert_allclose(bw.numpy(), gw.numpy())
    t = N.conv2d_transpose(u, w, [2, 5, 5, 2], 2)
    np.testing.assert_allclose(t.numpy(), gx.numpy())
    with pytest.raises(ValueError, match="check input_sizes"):
        N.conv2d_backprop_input([2, 6, 6, 2], w, u, 1, "SAME")
    with pytest.raises(ValueError, match="check filter_sizes"):
        N.conv2d_backprop_filter(x, [3, 3, 2, 4], u, 2, "SAME")


def test_conv2d_second_derivative_through_nested_tapes():
    # f(x, w) = sum(conv(x, w)^2); check d/dw <grad_x f, v> against a loop reference
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((1, 4, 4, 1)), rng.standard_normal((2, 2, 1, 1))
    v = rng.standard_normal(x.shape)
    xv, wv = Variable(x), Variable(w)
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = N.conv2d(xv, wv, 1, "VALID")
            f = reduce_sum(y * y)
        gx = inner.gradient(f, xv)
        h = reduce_sum(gx * Tensor(v))
    second = outer.gradient(h, wv).numpy()

    def h_at(weights):
        pads = (0, 0, 0, 0)
        conv = _loop_conv(x, weights, (1, 1), (1, 1), pads)
        # grad_x f = 2 conv^T(conv(x, w)); <that, v> = 2 <conv(x, w), conv(v, w)>
        return 2 * np.sum(conv * _loop_conv(v, weights, (1, 1), (1, 1), pads))

    eps = 1e-6
    numeric = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        step = np.zeros_like(w)
        step[idx] = eps
        numeric[idx] = (h_at(w + step) - h_at(w - step)) / (2 * eps)
    np.testing.assert_allclose(second, numeric, rtol=1e-6, atol=1e-8)


def test_conv2d_folds_leading_axes_and_supports_nchw():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 3, 4, 4, 2)), rng.standard_normal((3, 3, 2, 2))
    out = N.conv2d(x, w, 1, "SAME")
    flat = N.conv2d(x.reshape(6, 4, 4, 2), w, 1, "SAME")
    np.testing.assert_allclose(out.numpy(), flat.numpy().reshape(2, 3, 4, 4, 2))
    nchw = N.conv2d(np.moveaxis(x[0], -1, 1), w, [1, 1, 2, 2], "VALID", "NCHW")
    nhwc = N.conv2d(x[0], w, 2, "VALID")
    np.testing.assert_allclose(nchw.numpy(), np.moveaxis(nhwc.numpy(), -1, 1))


def test_conv2d_errors_name_the_argument():
    x, w = np.zeros((1, 4, 4, 3)), np.zeros((2, 2, 2, 1))
    with pytest.raises(ValueError, match="3 channels but filters expect 2"):
        N.conv2d(x, w, 1, "SAME")
    w = np.zeros((2, 2, 3, 1))
    with pytest.raises(ValueError, match="padding='same'"):
        N.conv2d(x, w, 1, "same")
    with pytest.raises(ValueError, match="padding"):
        N.conv2d(x, w, 1, [[0, 0], [1, 1]])
    with pytest.raises(ValueError, match="data_format='NWHC'"):
        N.conv2d(x, w, 1, "SAME", data_format="NWHC")
    with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4"):
        N.conv2d(x, w, [1, 1, 1], "SAME")
    with pytest.raises(InvalidArgumentError, match="batch and depth"):
        N.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="rank >= 4"):
        N.conv2d(np.zeros((4, 4, 3)), w, 1, "SAME")
    with pytest.raises(ValueError, match="filters must have rank 4"):
        N.conv2d(x, np.zeros((2, 3, 1)), 1, "SAME")
    with pytest.raises(InvalidArgumentError, match="output size would be negative"):
        N.conv2d(np.zeros((1, 2, 2, 3)), np.zeros((4, 4, 3, 1)), 1, "VALID")


def _block_diagonal(w):
    """A depthwise filter (kh, kw, C, M) as the conv2d filter it stands for."""
    kh, kw, c, m = w.shape
    full = np.zeros((kh, kw, c, c * m))
    for ch in range(c):
        full[:, :, ch, ch * m : (ch + 1) * m] = w[:, :, ch, :]
    return full


@pytest.mark.parametrize("in_hw, k_hw, strides, dilations, padding", CONFIGS)
def test_depthwise_conv2d_is_conv2d_with_a_block_diagonal_filter(
    in_hw, k_hw, strides, dilations, padding
):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, *in_hw, 3))
    w = rng.standard_normal((*k_hw, 3, 2))
    args = ([1, *strides, 1], padding)
    out = N.depthwise_conv2d(x, w, *args, dilations=list(dilations))
    want = N.conv2d(x, _block_diagonal(w), *args, dilations=list(dilations))
    np.testing.assert_allclose(out.numpy(), want.numpy(), atol=1e-12)

    u = rng.standard_normal(want.shape)
    xv, wv = Variable(x), Variable(w)
    with GradientTape() as tape:
        y = N.depthwise_conv2d(xv, wv, *args, dilations=list(dilations))
    gx, gw = tape.gradient(y, [xv, wv], output_gradients=Tensor(u))
    fx, fw = Variable(x), Variable(_block_diagonal(w))
    with GradientTape() as tape:
        y = N.conv2d(fx, fw, *args, dilations=list(dilations))
    hx, hw = tape.gradient(y, [fx, fw], output_gradients=Tensor(u))
    np.testing.assert_allclose(gx.numpy(), hx.numpy(), atol=1e-12)
    # the filter's gradient is the block diagonal of the full filter's
    kh, kw, c, m = w.shape
    diagonal = hw.numpy().reshape(kh, kw, c, c, m)[:, :, range(c), range(c), :]
    np.testing.assert_allclose(gw.numpy(), diagonal, atol=1e-12)


# What tensorflow-cpu 2.21.0 computed (its float32 values, shortest repr) for
# tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME") and
# tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID", dilations=[2, 2]).
TF_DEPTHWISE_SAME_STRIDE_2 = [
    [[0.25, 0.15, 0.1, -0.55], [-0.29999998, -0.75, 0.15, 0.15],
     [0.05, 0.35, -0.55, 0.10000002]],
    [[0.10000001, 0.25000003, -0.3, -0.7], [-0.49999997, 0.0, 0.15, 0.75],
     [0.14999999, 0.25, 0.050000004, -0.55]],
    [[0.15, 0.35, -0.05, 0.1], [0.050000004, -0.75, 0.049999997, 0.45000002],
     [0.05, 0.15, 3.7252903e-09, -0.55]],
]  # fmt: skip
TF_SEPARABLE_DILATED = [-0.5833334, -0.38333333, 0.75]


def _depthwise_example():
    x = (np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2) % 7 - 3) / 4
    dw = (np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) % 5 - 2) / 5
    pw = (np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3) % 4 - 1.5) / 3
    return x, dw, pw


def test_depthwise_and_separable_conv2d_match_tensorflow():
    x, dw, pw = _depthwise_example()
    out = N.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME")
    assert out.dtype == np.float32 and out.shape == (1, 3, 3, 4)
    np.testing.assert_array_equal(
        out.numpy()[0], np.array(TF_DEPTHWISE_SAME_STRIDE_2, np.float32)
    )
    out = N.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID", dilations=[2, 2])
    # one summation order apart: within a float32 rounding of TensorFlow's
    np.testing.assert_allclose(out.numpy().ravel(), TF_SEPARABLE_DILATED, rtol=1e-6)
    # NCHW gives the same numbers, channels first
    nchw = N.separable_conv2d(
        np.moveaxis(x, -1, 1), dw, pw, [1, 1, 1, 1], "SAME", data_format="NCHW"
    )
    nhwc = N.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
    np.testing.assert_allclose(np.moveaxis(nchw.numpy(), 1, -1), nhwc.numpy())


def test_depthwise_and_separable_conv2d_errors():
    x, dw, pw = _depthwise_example()
    with pytest.raises(ValueError, match="input has 2 channels but filter expects 3"):
        N.depthwise_conv2d(x, np.zeros((3, 3, 3, 1)), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="filters must have rank 4"):
        N.depthwise_conv2d(x, np.zeros((3, 3, 2)), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"\[1, 1, 4, out_channels\]"):
        N.separable_conv2d(x, dw, pw[:, :, :2], [1, 1, 1, 1], "SAME")


# -- pooling ---------------------------------------------------------------------------


def _loop_pool(x, k, s, pads, reduce):
    n, h, w, c = x.shape
    xp = np.full((n, h + pads[0] + pads[1], w + pads[2] + pads[3], c), np.nan)
    xp[:, pads[0] : pads[0] + h, pads[2] : pads[2] + w] = x
    ho = (xp.shape[1] - k[0]) // s[0] + 1
    wo = (xp.shape[2] - k[1]) // s[1] + 1
    out = np.zeros((n, ho, wo, c))
    for i in range(ho):
        for j in range(wo):
            window = xp[:, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]]
            out[:, i, j] = reduce(window, axis=(1, 2))  # NaN padding is ignored
    return out


@pytest.mark.parametrize(
    "k, s, padding", [((2, 2), (2, 2), "VALID"), ((3, 2), (2, 1), "SAME"),
                      ((3, 3), (1, 1), "SAME"), ((2, 3), (3, 2), "VALID")]
)  # fmt: skip
def test_pools_match_loop_references(k, s, padding):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 5, 6, 3))
    if padding == "SAME":
        pads = sum((_tf_same_pads(n, kk, ss, 1) for n, kk, ss in zip((5, 6), k, s)), ())
    else:
        pads = (0, 0, 0, 0)
    np.testing.assert_allclose(
        N.max_pool2d(x, list(k), list(s), padding).numpy(),
        _loop_pool(x, k, s, pads, np.nanmax),
    )
    np.testing.assert_allclose(
        N.avg_pool2d(x, list(k), list(s), padding).numpy(),
        _loop_pool(x, k, s, pads, np.nanmean),
    )


def test_max_pool_gradient_goes_to_the_first_maximum():
    # a tie in the first window: the first maximum (row-major) gets the gradient
    x = np.array([[3.0, 3.0, 1.0, 2.0], [0.0, 3.0, 5.0, 0.0]]).reshape(1, 2, 4, 1)
    (g,) = grads(lambda t: N.max_pool2d(t, 2, 2, "VALID"), x)
    assert g[0, :, :, 0].tolist() == [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
    # overlapping windows that share their maximum both send it gradient
    x = np.array([1.0, 5.0, 2.0]).reshape(1, 1, 3, 1)
    (g,) = grads(lambda t: N.max_pool2d(t, [1, 2], 1, "VALID"), x)
    assert g.ravel().tolist() == [0.0, 2.0, 0.0]
    # SAME padding never wins, even over negative values
    x = -np.arange(1.0, 5.0).reshape(1, 2, 2, 1)
    out = N.max_pool2d(x, 3, 1, "SAME")
    assert out.numpy().ravel().tolist() == [-1.0, -1.0, -1.0, -1.0]


def test_max_pool_second_derivative_is_routed_through_the_argmax():
    # f = sum(max_pool(x)^2): grad = 2 * max at the argmax; d/dx <grad, v> = 2 v there
    x = np.array([[1.0, 4.0], [2.0, 3.0]]).reshape(1, 2, 2, 1)
    v = np.array([[1.0, 10.0], [100.0, 1000.0]]).reshape(1, 2, 2, 1)
    xv = Variable(x)
    with GradientTape() as outer:
        with GradientTape() as inner:
            pooled = N.max_pool2d(xv, 2, 2, "VALID")
            f = reduce_sum(pooled * pooled)
        g = inner.gradient(f, xv)
        h = reduce_sum(g * Tensor(v))
    assert g.numpy().ravel().tolist() == [0.0, 8.0, 0.0, 0.0]
    assert outer.gradient(h, xv).numpy().ravel().tolist() == [0.0, 20.0, 0.0, 0.0]


def test_avg_pool_excludes_padding_and_spreads_the_gradient():
    x = np.arange(9.0).reshape(1, 3, 3, 1)
    out = N.avg_pool2d(x, 2, 2, "SAME")
    # windows: {0,1,3,4}, {2,5}, {6,7}, {8}
    assert out.numpy().ravel().tolist() == [2.0, 3.5, 6.5, 8.0]
    (g,) = grads(lambda t: N.avg_pool2d(t, 2, 2, "SAME"), x)
    assert g[0, :, :, 0].tolist() == [[0.25, 0.25, 0.5], [0.25, 0.25, 0.5],
                                      [0.5, 0.5, 1.0]]  # fmt: skip
    with pytest.raises(InvalidArgumentError, match=r"of int32 .*\[Op:AvgPool\]"):
        N.avg_pool2d(np.ones((1, 2, 2, 1), np.int32), 2, 2, "VALID")


def test_pool_errors():
    x = np.zeros((1, 4, 4, 1))
    with pytest.raises(ValueError, match="padding='valid'"):
        N.max_pool2d(x, 2, 2, "valid")
    with pytest.raises(ValueError, match="padding"):
        N.avg_pool2d(x, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])
    with pytest.raises(ValueError, match="rank 4"):
        N.max_pool2d(np.zeros((4, 4, 1)), 2, 2, "VALID")
    with pytest.raises(ValueError, match="ksize should be of length"):
        N.max_pool2d(x, [2, 2, 2], 2, "VALID")


# -- log_sigmoid, l2_normalize, batch normalization, weighted loss, embeddings --------


def test_log_sigmoid_values_stability_and_gradient():
    x = np.array([-3.0, 0.0, 2.0])
    want = np.log(1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(N.log_sigmoid(x).numpy(), want, rtol=1e-12)
    extreme = N.log_sigmoid([-1000.0, 1000.0]).numpy()
    assert extreme.tolist() == [-1000.0, 0.0]
    (g,) = grads(N.log_sigmoid, [-1000.0, 0.0, 1000.0])
    assert g.tolist() == [1.0, 0.5, 0.0]  # sigmoid(-x)


def test_l2_normalize_follows_tensorflows_examples():
    assert N.l2_normalize([3.0, 4.0]).numpy().tolist() == pytest.approx([0.6, 0.8])
    column = N.l2_normalize([[3.0], [4.0]], 0).numpy()
    np.testing.assert_allclose(column, [[0.6], [0.8]], rtol=1e-6)
    assert N.l2_normalize([[3.0], [4.0]], 1).numpy().tolist() == [[1.0], [1.0]]
    by_dim = N.l2_normalize([[3.0], [4.0]], dim=0).numpy()  # the deprecated name
    np.testing.assert_array_equal(by_dim, column)


def test_l2_normalize_gradient_and_the_zero_vector():
    # d (x / |x|) along w = (w - x (x.w) / |x|^2) / |x|
    (g,) = grads(lambda x: N.l2_normalize(x) * [1.0, 0.0], [3.0, 4.0], dtype=np.float64)
    np.testing.assert_allclose(g, [16 / 125, -12 / 125], rtol=1e-12)
    zero = N.l2_normalize([0.0, 0.0])
    assert zero.numpy().tolist() == [0.0, 0.0]
    (g,) = grads(N.l2_normalize, [0.0, 0.0], dtype=np.float64)
    np.testing.assert_allclose(g, [1e6, 1e6], rtol=1e-12)  # 1 / sqrt(epsilon)


def test_batch_normalization_values_and_gradients():
    x = np.array([[1.0, 2.0], [3.0, 6.0]])
    mean, var = np.array([2.0, 4.0]), np.array([1.0, 4.0])
    offset, scale = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    eps = 0.0
    got = N.batch_normalization(x, mean, var, offset, scale, eps).numpy()
    want = scale * (x - mean) / np.sqrt(var + eps) + offset
    np.testing.assert_allclose(got, want, rtol=1e-12)
    gx, gm, gv, go, gs = grads(
        lambda *a: N.batch_normalization(*a, 0.0), x, mean, var, offset, scale,
        dtype=np.float64,
    )  # fmt: skip
    inv = scale / np.sqrt(var)
    np.testing.assert_allclose(gx, np.broadcast_to(inv, x.shape), rtol=1e-12)
    np.testing.assert_allclose(gm, -2 * inv, rtol=1e-12)  # two rows
    dv = -0.5 * scale * np.sum(x - mean, axis=0) / var**1.5
    np.testing.assert_allclose(gv, dv, rtol=1e-12)
    np.testing.assert_allclose(go, [2.0, 2.0], rtol=1e-12)
    np.testing.assert_allclose(gs, np.sum(x - mean, axis=0) / np.sqrt(var))
    # no offset and no scale: plain standardization
    plain = N.batch_normalization(x, mean, var, None, None, 0.0).numpy()
    np.testing.assert_allclose(plain, (x - mean) / np.sqrt(var), rtol=1e-12)


def test_weighted_cross_entropy_matches_the_textbook_formula():
    z = np.array([0.0, 1.0, 0.25, 1.0])
    x = np.array([-2.0, 0.5, 3.0, -1.0])
    q = 3.0
    sig = 1 / (1 + np.exp(-x))
    want = -q * z * np.log(sig) - (1 - z) * np.log(1 - sig)
    got = N.weighted_cross_entropy_with_logits(z, x, q).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # pos_weight 1 is the plain sigmoid cross entropy
    plain = N.weighted_cross_entropy_with_logits(z, x, 1.0).numpy()
    ref = N.sigmoid_cross_entropy_with_logits(labels=z, logits=x).numpy()
    np.testing.assert_allclose(plain, ref, rtol=1e-12)


def test_weighted_cross_entropy_gradients_and_extremes():
    z = np.array([1.0, 0.0, 0.5])
    x = np.array([0.5, -2.0, 1.5])
    gz, gx, gq = grads(
        lambda a, b, c: N.weighted_cross_entropy_with_logits(a, b, c), z, x, 2.0,
        dtype=np.float64,
    )  # fmt: skip
    weight = 1 + (2.0 - 1) * z
    sig = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(gx, (1 - z) - weight * (1 - sig), rtol=1e-12)
    softplus_neg = np.log1p(np.exp(-x))
    np.testing.assert_allclose(gz, -x + softplus_neg, rtol=1e-12)
    assert gq == pytest.approx(np.sum(z * softplus_neg), rel=1e-12)
    big = N.weighted_cross_entropy_with_logits([1.0, 0.0], [-1000.0, 1000.0], 2.0)
    assert big.numpy().tolist() == [2000.0, 1000.0]
    with pytest.raises(ValueError, match="same shape"):
        N.weighted_cross_entropy_with_logits([1.0], [1.0, 2.0], 2.0)


def test_embedding_lookup_values_and_dense_accumulating_gradient():
    table = Variable(np.arange(6.0).reshape(3, 2))
    with GradientTape() as tape:
        rows = N.embedding_lookup(table, [[2, 0], [2, 2]])
        loss = reduce_sum(rows)
    assert rows.numpy().tolist() == [[[4, 5], [0, 1]], [[4, 5], [4, 5]]]
    g = tape.gradient(loss, table)
    assert g.numpy().tolist() == [[1, 1], [0, 0], [3, 3]]  # row 2 looked up 3 times
    with pytest.raises(InvalidArgumentError, match="not in"):
        N.embedding_lookup(table, [3])


def test_embedding_lookup_shards_and_max_norm():
    shards = [np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[4.0, 5.0]])]
    got = N.embedding_lookup(shards, [2, 1, 0]).numpy()
    assert got.tolist() == [[4.0, 5.0], [2.0, 3.0], [0.0, 1.0]]
    clipped = N.embedding_lookup([[3.0, 4.0], [0.3, 0.4]], [0, 1], max_norm=1.0)
    np.testing.assert_allclose(clipped.numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    with pytest.raises(ValueError, match="empty list"):
        N.embedding_lookup([], [0])


def test_new_nn_names_are_exported_where_tensorflow_has_them():
    import tapemagic.tf as tf

    assert tf.math.log_sigmoid is N.log_sigmoid
    assert tf.math.l2_normalize is tf.nn.l2_normalize is tf.linalg.l2_normalize
    for name in (
        "batch_normalization",
        "embedding_lookup",
        "weighted_cross_entropy_with_logits",
    ):
        assert getattr(tf.nn, name) is getattr(N, name), name
