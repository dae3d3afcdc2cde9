"""The dtypes each op accepts (engine/accepts.py) and how a refusal reads.

The messages and classes are what tensorflow-cpu 2.21.0 raises for the same
calls (its first line), followed by what to do.
"""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import OP_TABLE, Tensor  # the whole op table
from tapemagic.engine.accepts import FLOATING, Accepts, tf_name
from tapemagic.engine.errors import InvalidArgumentError, NotFoundError
from tapemagic.engine.namespace import TENSORS
from tapemagic.engine.op import defop, op_function
from tapemagic.engine.ops import linalg as L
from tapemagic.engine.ops import nn as N
from tapemagic.engine.ops import reduce as R
from tapemagic.engine.ops import reductions as RS
from tapemagic.engine.ops import sorting as S

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64"]
DTYPES += ["float16", "float32", "float64"]


def _tensor(dtype: str) -> Tensor:
    return Tensor(np.array([0.5, 1.0, 2.0]).astype(dtype))


def test_a_dtype_outside_the_list_is_an_invalid_argument():
    floats = Accepts("bfloat16, half, float, double", op="Floor")
    error = floats.error(np.dtype(np.int32))
    assert isinstance(error, InvalidArgumentError) and error.op == "Floor"
    assert str(error) == (
        "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, "
        "half, float, double [Op:Floor]. Cast it first: tf.cast(x, tf.float32)."
    )
    assert floats.numpy == {np.dtype(t) for t in ("float16", "float32", "float64")}


def test_a_listed_dtype_without_a_kernel_is_not_found():
    ints = Accepts("float, int32", cpu="float", op="Reciprocal")
    error = ints.error(np.dtype(np.int32))
    assert isinstance(error, NotFoundError)
    assert str(error).startswith(
        "Could not find device for node: {{node Reciprocal}} = "
        "Reciprocal[T=DT_INT32] [Op:Reciprocal]. Reciprocal has no CPU kernel for "
        "int32. Cast it first"
    )
    assert isinstance(ints.error(np.dtype(np.bool_)), InvalidArgumentError)


def test_an_op_of_one_dtype_says_what_it_expected():
    bools = Accepts("bool", attr=None, op="LogicalAnd")
    assert str(bools.error(np.dtype(np.float16))) == (
        "cannot compute LogicalAnd as input #0(zero-based) was expected to be a bool "
        "tensor but is a half tensor [Op:LogicalAnd]. Compare first (x > 0) or "
        "cast: tf.cast(x, tf.bool)."
    )


def test_a_python_refusal_has_its_own_class_and_message():
    accepts = Accepts("float", error=TypeError, message="Invalid dtype tf.{dtype}.")
    error = accepts.error(np.dtype(np.bool_))
    assert type(error) is TypeError
    assert str(error) == "Invalid dtype tf.bool. Cast it first: tf.cast(x, tf.float32)."


def test_names_tensorflow_prints_and_names_tapemagic_lacks():
    assert [tf_name(np.dtype(t)) for t in ("float16", "float32", "float64")] == [
        "half",
        "float",
        "double",
    ]
    everything = Accepts(None, cpu="int32, qint8, bfloat16")
    assert everything.numpy == {np.dtype(np.int32)}
    assert np.dtype(np.bool_) in everything.listed
    assert FLOATING.for_op("Sin").numpy == FLOATING.numpy
    assert FLOATING.for_op("Sin").op == "Sin"


def test_defop_checks_every_call_and_names_the_op():
    double = defop("_test_double_float", lambda x: 2 * x, accepts=FLOATING)
    pair = defop("_test_pair_float", lambda x, y: x + y, accepts=FLOATING)
    triple = defop("_test_triple_float", lambda x, y, z: x + y + z, accepts=FLOATING)
    try:
        assert double.op.accepts.op == "TestDoubleFloat"
        np.testing.assert_array_equal(double([1.0]).numpy(), [2.0])
        with pytest.raises(InvalidArgumentError, match=r"of int32 .*\[Op:TestDou"):
            double([1])  # a Python list converts to int32 first
        with pytest.raises(InvalidArgumentError, match="of int64"):
            pair(Tensor(np.array([1])), Tensor(np.array([2])))
        with pytest.raises(InvalidArgumentError, match="of bool"):
            triple(True, False, True)
    finally:
        for name in ("_test_double_float", "_test_pair_float", "_test_triple_float"):
            del OP_TABLE[name]


def test_an_op_of_one_dtype_converts_python_values_to_it():
    both = defop(
        "_test_both", np.logical_and, accepts=Accepts("bool", attr=None, op="Both")
    )
    try:
        np.testing.assert_array_equal(both([True, True], [True, False]), [True, False])
        with pytest.raises(TypeError, match=r"Cannot convert \[1, 2\] to EagerTensor"):
            both([1, 2], [True, True])
        ints = Tensor(np.array([1, 2], np.int32))
        with pytest.raises(InvalidArgumentError, match="but is a int32 tensor"):
            both(ints, ints)
        with pytest.raises(ValueError, match="dtype"):  # TensorFlow: ValueError
            both(ints, [True, True])
        with pytest.raises(TypeError, match="Cannot convert 0"):  # values first
            both(ints, 0)
    finally:
        del OP_TABLE["_test_both"]


def test_op_function_answers_a_refusal_its_own_way():
    add = defop("_test_add", np.add, accepts=Accepts("float", op="Add"))
    try:
        either = op_function(add.op, lambda x, y: "refused")
        assert either(Tensor(np.array(True)), Tensor(np.array(False))) == "refused"
        assert either(1.0, 2.0).numpy() == np.float32(3.0)
        with pytest.raises(InvalidArgumentError):
            add(Tensor(np.array(True)), Tensor(np.array(False)))
        with pytest.raises(ValueError, match="not a binary op"):
            op_function(OP_TABLE["sin"], lambda x, y: None)
    finally:
        del OP_TABLE["_test_add"]


UNARY = [
    "sqrt", "rsqrt", "reciprocal", "exp", "expm1", "log", "log1p", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "sigmoid", "round", "floor", "ceil", "negative", "abs", "sign",
    "square", "is_nan", "is_inf", "is_finite", "logical_not", "relu", "relu6",
    "elu", "selu", "softplus", "erf",
]  # fmt: skip


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_each_unary_op_computes_exactly_the_dtypes_it_declares(name, dtype):
    op = OP_TABLE[name]
    fn = getattr(TENSORS, name)
    x = _tensor(dtype)
    if np.dtype(dtype) in op.accepts.numpy:
        assert fn(x).shape == (3,)
    else:
        with pytest.raises((InvalidArgumentError, NotFoundError)) as caught:
            fn(x)
        assert f"[Op:{op.accepts.op}]" in str(caught.value)
        assert "tf.cast(x, tf." in str(caught.value)


@pytest.mark.parametrize(
    "name", ["add", "subtract", "multiply", "maximum", "minimum", "pow", "less"]
)
def test_binary_ops_refuse_bools(name):
    fn = getattr(TENSORS, name)
    with pytest.raises(InvalidArgumentError, match="of bool is not in the list"):
        fn(_tensor("bool"), _tensor("bool"))
    assert fn(_tensor("int32"), _tensor("int32")).dtype.name in ("int32", "bool")


# (call, dtype, class, where TensorFlow's composition refuses it)
COMPOSED = [
    (N.silu, "int32", InvalidArgumentError, "[Op:Sigmoid]"),
    (N.softsign, "int32", InvalidArgumentError, "[Op:Softsign]"),
    (N.log_sigmoid, "bool", InvalidArgumentError, "[Op:Neg]"),
    (N.log_sigmoid, "int32", InvalidArgumentError, "[Op:Softplus]"),
    (N.l2_loss, "int32", InvalidArgumentError, "[Op:L2Loss]"),
    (N.l2_normalize, "bool", InvalidArgumentError, "[Op:Square]"),
    (N.l2_normalize, "int32", TypeError, "Cannot convert 1e-12"),
    (N.gelu, "int32", ValueError, "must be a floating point tensor"),
    (lambda x: N.moments(x, [0]), "int8", InvalidArgumentError, "[Op:Squared"),
    (lambda x: N.moments(x, [0]), "bool", InvalidArgumentError, "[Op:Mean]"),
    (L.norm, "bool", TypeError, "Expected numeric or variant tensor"),
    (L.norm, "int32", InvalidArgumentError, "[Op:Sqrt]"),
    (lambda x: L.global_norm([x]), "int32", InvalidArgumentError, "[Op:L2Loss]"),
    (R.reduce_logsumexp, "bool", InvalidArgumentError, "[Op:Max]"),
    (RS.reduce_variance, "bool", InvalidArgumentError, "[Op:Mean]"),
    (RS.reduce_std, "int32", TypeError, "Input must be either real or complex"),
    (S.sort, "bool", InvalidArgumentError, "[Op:Neg]"),
    (S.argsort, "bool", InvalidArgumentError, "[Op:Neg]"),
    (S.top_k, "bool", InvalidArgumentError, "[Op:TopKV2]"),
]


@pytest.mark.parametrize(("call", "dtype", "error", "where"), COMPOSED)
def test_composed_ops_refuse_where_tensorflows_composition_does(
    call, dtype, error, where
):
    with pytest.raises(error) as caught:
        call(_tensor(dtype))
    assert type(caught.value) is error
    assert where in str(caught.value)
    assert "tf.cast(x, tf." in str(caught.value) or error is ValueError


def test_composed_ops_compute_what_tensorflow_computes():
    mean, variance = N.moments(Tensor(np.array([1, 2, 4], np.int32)), [0])
    assert (mean.numpy(), variance.numpy()) == (2, 1)
    assert mean.dtype.name == "int32"
    np.testing.assert_array_equal(S.sort(Tensor(np.array([3, 1], np.uint8))), [1, 3])
