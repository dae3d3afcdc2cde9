"""Dtypes the programs against TensorFlow found refused differently, each kept as
a plain test.

Every expected string, value, ``None`` and error class here is what
tensorflow-cpu 2.21.0 printed for the same code (run under TensorFlow, then
pinned); these tests need no TensorFlow. docs/RELIABILITY.md lists them.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf

pytestmark = pytest.mark.usefixtures("quiet")

FLOATING = "bfloat16, half, float, double, complex64, complex128"
NN_FLOATING = "half, bfloat16, float, double"
I32 = tf.constant([-1, 2])
B = tf.constant([True, False])


def _refused(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert type(caught.value).__name__ == error.__name__
    assert str(caught.value).startswith(message), str(caught.value)
    return str(caught.value)


def _attr(dtype, allowed, attr="T"):
    return (
        f"Value for attr '{attr}' of {dtype} is not in the list of allowed values: "
        f"{allowed}"
    )


@pytest.mark.parametrize(
    "fn", [tf.sin, tf.exp, tf.sqrt, tf.tanh, tf.sigmoid, tf.math.log, tf.math.rsqrt]
)
def test_floating_point_functions_refuse_integers(fn):
    # formerly a float64 result
    said = _refused(
        lambda: fn(I32), tf.errors.InvalidArgumentError, _attr("int32", FLOATING)
    )
    assert said.endswith("Cast it first: tf.cast(x, tf.float32).")
    _refused(lambda: fn(1), tf.errors.InvalidArgumentError, _attr("int32", FLOATING))
    _refused(lambda: fn(B), tf.errors.InvalidArgumentError, _attr("bool", FLOATING))


def test_reciprocal_of_integers_has_no_kernel():
    _refused(
        lambda: tf.math.reciprocal(I32),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node Reciprocal}} = Reciprocal[T=DT_INT32]",
    )
    _refused(
        lambda: tf.linalg.det(tf.ones((2, 2), tf.float16)),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node MatrixDeterminant}} = "
        "MatrixDeterminant[T=DT_HALF]",
    )


@pytest.mark.parametrize(
    "fn", [tf.nn.softplus, tf.nn.elu, tf.nn.selu, tf.nn.softmax, tf.nn.log_softmax]
)
def test_floating_point_nn_functions_refuse_integers(fn):
    # formerly TypeError
    _refused(
        lambda: fn(I32), tf.errors.InvalidArgumentError, _attr("int32", NN_FLOATING)
    )


def test_gelu_refuses_integers_with_value_error():
    _refused(
        lambda: tf.nn.gelu(I32),
        ValueError,
        "`features.dtype` must be a floating point tensor.Received:"
        "features.dtype=<dtype: 'int32'>",
    )


def test_integer_activations_compute_as_tensorflow():
    assert repr(tf.abs(I32)) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    )
    assert repr(tf.sign(I32)) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([-1,  1], dtype=int32)>"
    )
    assert repr(tf.nn.relu6(tf.constant([-1, 9]))) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([0, 6], dtype=int32)>"
    )
    assert repr(tf.nn.leaky_relu(I32)) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([-0.2,  2. ], "
        "dtype=float32)>"
    )
    assert repr(tf.round(tf.constant([1, 2], tf.int8))) == (
        "<tf.Tensor: shape=(2,), dtype=int8, numpy=array([1, 2], dtype=int8)>"
    )
    # round of an integer tensor is the tensor itself: its own gradient's seed
    with tf.GradientTape() as tape:
        rounded = tf.round(I32)
    assert rounded is I32
    assert repr(tape.gradient(rounded, I32)) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 1], dtype=int32)>"
    )


def test_arithmetic_refuses_bools_but_star_is_their_logical_and():
    add = "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, "
    _refused(lambda: B + B, tf.errors.InvalidArgumentError, _attr("bool", add))
    _refused(lambda: -B, tf.errors.InvalidArgumentError, _attr("bool", "bfloat16"))
    _refused(lambda: B < B, tf.errors.InvalidArgumentError, _attr("bool", "float"))
    _refused(
        lambda: tf.maximum(B, B), tf.errors.InvalidArgumentError, _attr("bool", "")
    )
    _refused(lambda: tf.multiply(B, B), tf.errors.InvalidArgumentError, "Value for")
    _refused(lambda: B / B, TypeError, "Invalid dtype tf.bool in __truediv__.")
    for product in (B * B, True * B, B * True):
        assert repr(product) == (
            "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>"
        )


def test_logical_ops_refuse_numbers():
    _refused(
        lambda: tf.logical_and(I32, I32),
        tf.errors.InvalidArgumentError,
        "cannot compute LogicalAnd as input #0(zero-based) was expected to be a "
        "bool tensor but is a int32 tensor [Op:LogicalAnd]",
    )
    _refused(
        lambda: tf.logical_and([1, 2], [1, 0]),
        TypeError,
        "Cannot convert [1, 2] to EagerTensor of dtype bool",
    )
    # the Python values are converted first, then the tensors
    _refused(
        lambda: tf.logical_and(I32, 0),
        TypeError,
        "Cannot convert 0 to EagerTensor of dtype bool",
    )
    _refused(
        lambda: tf.logical_and(I32, [True, False]),
        ValueError,
        "Tensor conversion requested dtype bool for ",
    )
    # a NumPy value is cast to bool, a tensor is not
    assert repr(tf.logical_not(np.array([1, 0]))) == (
        "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>"
    )
    _refused(
        lambda: tf.logical_and(I32, np.array([0, 1], np.int32)),
        tf.errors.InvalidArgumentError,
        "cannot compute LogicalAnd as input #0(zero-based) was expected to be a "
        "bool tensor but is a int32 tensor",
    )
    _refused(
        lambda: tf.reduce_any([1.0, 0.0]),
        TypeError,
        "Cannot convert [1.0, 0.0] to EagerTensor of dtype bool",
    )
    # an int or no axis: the op refuses the tensor; a list of axes: TensorFlow
    # converts every input to bool first, and cannot
    zero = tf.constant([0])
    _refused(
        lambda: tf.reduce_any(zero, axis=0),
        tf.errors.InvalidArgumentError,
        "cannot compute Any as input #0(zero-based) was expected to be a bool "
        "tensor but is a int32 tensor [Op:Any]",
    )
    _refused(
        lambda: tf.reduce_all(zero, axis=[0]),
        ValueError,
        "Tensor conversion requested dtype bool for ",
    )


def test_reductions_and_scans_refuse_what_tensorflow_refuses():
    number = "float, double, int32, uint8, int16, int8, complex64, int64"
    for fn in (tf.reduce_sum, tf.cumsum):
        _refused(
            lambda fn=fn: fn(B), tf.errors.InvalidArgumentError, _attr("bool", number)
        )
    _refused(
        lambda: tf.reduce_logsumexp(I32),
        tf.errors.InvalidArgumentError,
        _attr("int32", "bfloat16, half, float, double"),
    )
    _refused(
        lambda: tf.math.reduce_variance(I32),
        TypeError,
        "Input must be either real or complex. Received integer type <dtype: 'int32'>.",
    )
    _refused(lambda: tf.sort(B), tf.errors.InvalidArgumentError, _attr("bool", ""))
    _refused(lambda: tf.math.top_k(B), tf.errors.InvalidArgumentError, "Value for")
    _refused(
        lambda: tf.one_hot([1.0], 2),
        tf.errors.InvalidArgumentError,
        _attr("float", "uint8, int8, int32, int64", attr="TI"),
    )


def test_matrix_ops_take_tensorflows_dtypes():
    _refused(
        lambda: tf.linalg.inv(tf.constant([[1, 0], [0, 1]])),
        tf.errors.InvalidArgumentError,
        _attr("int32", "double, float, half, complex64, complex128"),
    )
    i8 = tf.ones((2, 2), tf.int8)
    _refused(lambda: tf.matmul(i8, i8), tf.errors.InvalidArgumentError, "Value for")
    u8 = tf.ones((2, 2), tf.uint8)
    _refused(
        lambda: tf.matmul(u8, u8),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node MatMul}} = MatMul[T=DT_UINT8",
    )
    bools = tf.ones((2, 2), tf.bool)
    _refused(
        lambda: tf.einsum("ij,jk->ik", bools, bools),
        tf.errors.NotFoundError,
        "Could not find device for node: {{node Einsum}} = Einsum[",
    )
    half = tf.linalg.inv(tf.constant([[2.0, 0.0], [0.0, 4.0]], tf.float16))
    assert repr(half) == (
        "<tf.Tensor: shape=(2, 2), dtype=float16, numpy=\n"
        "array([[0.5 , 0.  ],\n       [0.  , 0.25]], dtype=float16)>"
    )


def test_integer_moments_divisions_and_bool_padding():
    assert repr(tf.nn.moments(tf.constant([1, 2, 4]), axes=[0])) == (
        "(<tf.Tensor: shape=(), dtype=int32, numpy=2>, "
        "<tf.Tensor: shape=(), dtype=int32, numpy=1>)"
    )
    _refused(
        lambda: tf.nn.moments(tf.constant([1, 2, 4], tf.int8), axes=[0]),
        tf.errors.InvalidArgumentError,
        _attr("int8", "bfloat16, half, float, double, int32, int64, complex64"),
    )
    eights = tf.math.divide_no_nan(
        tf.constant([3, 1], tf.int8), tf.constant([2, 0], tf.int8)
    )
    assert repr(eights) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 0. ], dtype=float32)>"
    )
    assert repr(tf.pad(B, [[1, 0]])) == (
        "<tf.Tensor: shape=(3,), dtype=bool, numpy=array([False,  True, False])>"
    )
