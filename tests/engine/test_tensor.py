"""Tensor and Variable: dtypes, conversion, operators, printing, immutability."""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import (
    GradientTape,
    Tensor,
    TensorShape,
    Variable,
    convert_to_tensor,
    dtypes,
)
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops import math as M


def constant(value, dtype=None):
    return convert_to_tensor(value, dtype=dtype)


# -- default dtypes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (1.5, "float32"),
        (2, "int32"),
        (2**40, "int64"),
        (True, "bool"),
        ([1.0, 2.0], "float32"),
        ([1, 2], "int32"),
        ([[1, 2.5]], "float32"),
        (np.float64(1.0), "float64"),
        (np.array([1.0, 2.0]), "float64"),
        (np.int64(3), "int64"),
        (np.array([1, 2]), "int64"),
        (np.float32(1.0), "float32"),
        (np.array([True]), "bool"),
    ],
)
def test_conversion_default_dtypes_follow_tensorflow(value, dtype):
    assert convert_to_tensor(value).dtype.name == dtype


def test_python_numbers_take_the_tensor_dtype_in_ops():
    x = constant(np.float64(2.0))
    assert (x * 3).dtype == dtypes.float64
    assert (3.0 * x).dtype == dtypes.float64


def test_mixing_float32_and_float64_tensors_raises():
    a, b = constant(1.0), constant(np.float64(1.0))
    with pytest.raises(InvalidArgumentError, match="float64.*float32|Cast one of them"):
        _ = a + b


def test_int_tensor_times_a_float_raises_type_error():
    with pytest.raises(
        TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"
    ):
        _ = constant(3) * 1.5


def test_int_division_gives_float64_and_floordiv_stays_int():
    q = constant(7) / constant(2)
    assert q.dtype.name == "float64" and q.numpy() == 3.5
    f = constant(7) // 2
    assert f.dtype.name == "int32" and f.numpy() == 3


def test_mod_takes_the_sign_of_the_divisor():
    np.testing.assert_array_equal((constant([-7, 7]) % 3).numpy(), [2, 1])
    np.testing.assert_array_equal((constant([7.0]) % -3.0).numpy(), [-2.0])


def test_round_is_half_to_even_and_casts_truncate_toward_zero():
    np.testing.assert_array_equal(
        M.round(constant([0.5, 1.5, 2.5, -0.5])).numpy(), [0.0, 2.0, 2.0, -0.0]
    )
    np.testing.assert_array_equal(
        M.cast(constant([1.9, -1.9]), dtypes.int32).numpy(), [1, -1]
    )


def test_numpy_values_stay_on_the_tape_whichever_side_they_are_on():
    x = Variable(2.0)
    with GradientTape(persistent=True) as tape:
        a = np.float64(3.0) * x
        b = x * np.array(4.0)
        c = np.array([1.0, 2.0]) + x
        d = [5.0, 6.0] * x
    assert a.dtype.name == "float32"
    assert [tape.gradient(t, x).numpy() for t in (a, b, c, d)] == [3.0, 4.0, 2.0, 11.0]


def test_float32_float64_casts_are_differentiable_and_gradients_keep_source_dtype():
    x = Variable(np.float64(2.0))
    with GradientTape() as tape:
        y = M.cast(x, dtypes.float32) ** 2
    g = tape.gradient(y, x)
    assert g.dtype.name == "float64" and g.numpy() == 4.0


def test_cast_to_int_breaks_the_gradient():
    x = Variable(2.7)
    with GradientTape() as tape:
        y = M.cast(M.cast(x, dtypes.int32), dtypes.float32) * x
    assert tape.gradient(y, x).numpy() == 2.0  # only the direct factor


def test_unknown_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="Cannot convert 'float31' to a dtype"):
        dtypes.as_dtype("float31")


def test_non_numeric_values_are_rejected():
    with pytest.raises(TypeError, match="Cannot convert 'abc'"):
        convert_to_tensor("abc")
    with pytest.raises(ValueError, match="ragged"):
        convert_to_tensor([[1.0], [1.0, 2.0]])


def test_convert_to_tensor_of_a_tensor_is_that_tensor():
    t = constant([1.0])
    assert convert_to_tensor(t) is t
    with pytest.raises(ValueError, match="requested dtype float64"):
        convert_to_tensor(t, dtype=dtypes.float64)


def test_lists_of_tensors_are_stacked_on_the_tape():
    x = Variable(2.0)
    with GradientTape() as tape:
        v = convert_to_tensor([x, x * x, 1.0])
        y = M.multiply(v, [1.0, 1.0, 1.0])
    assert v.shape == (3,)
    assert tape.gradient(y, x).numpy() == 5.0


# -- printing --------------------------------------------------------------------------


def test_str_and_repr_match_tensorflow():
    assert str(constant(6.0)) == "tf.Tensor(6.0, shape=(), dtype=float32)"
    assert str(constant([3.0, 4.0])) == "tf.Tensor([3. 4.], shape=(2,), dtype=float32)"
    assert str(constant([[1, 2], [3, 4]])) == (
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    )
    assert repr(constant(6.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"
    assert repr(constant([3.0, 4.0])) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 4.], dtype=float32)>"
    )
    v = Variable([0.7, -2.4], name="w")
    assert repr(v) == (
        "<tf.Variable 'w:0' shape=(2,) dtype=float32, "
        "numpy=array([ 0.7, -2.4], dtype=float32)>"
    )
    assert v.name == "w:0" and Variable(1.0).name == "Variable:0"


def test_shape_behaves_like_tensorflow_shape():
    s = constant(np.zeros((2, 3))).shape
    assert isinstance(s, TensorShape)
    assert s == (2, 3) and s == [2, 3] and s != [3, 2]
    assert s.as_list() == [2, 3] and s.rank == 2 and s[1] == 3
    assert repr(s) == "TensorShape([2, 3])" and str(s) == "(2, 3)"


# -- python protocol -------------------------------------------------------------------


def test_scalar_conversions_and_truth():
    assert float(constant(2.5)) == 2.5 and int(constant(3)) == 3
    assert bool(constant(True)) and not bool(constant(0.0))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(constant([1.0, 2.0]))
    assert [1, 2, 3][constant(1)] == 2


def test_tensors_compare_elementwise_and_are_unhashable():
    t = constant([1.0, 2.0])
    np.testing.assert_array_equal((t == [1.0, 3.0]).numpy(), [True, False])
    assert (t == None) is False  # noqa: E711 - TensorFlow returns False here
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    assert {t.ref(): 1}[t.ref()] == 1


def test_len_and_iteration():
    t = constant([[1.0, 2.0], [3.0, 4.0]])
    assert len(t) == 2
    rows = list(t)
    assert len(rows) == 2 and rows[1].numpy().tolist() == [3.0, 4.0]
    with pytest.raises(TypeError, match="len"):
        len(constant(1.0))


def test_numpy_returns_a_copy_so_tensors_stay_immutable():
    t = constant([1.0, 2.0])
    a = t.numpy()
    a[0] = 99.0
    np.asarray(t)[1] = 99.0
    assert t.numpy().tolist() == [1.0, 2.0]


def test_variable_assign_checks_shape_and_dtype():
    v = Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="requested dtype float32"):
        v.assign(constant(np.array([1.0, 2.0])))
    assert v.assign_add([1.0, 1.0]).numpy().tolist() == [2.0, 3.0]
    assert v.numpy().tolist() == [2.0, 3.0]


def test_variable_reads_are_tensors_with_the_value_at_read_time():
    v = Variable(1.0)
    before = v.read_value()
    v.assign(2.0)
    assert before.numpy() == 1.0 and v.read_value().numpy() == 2.0
    assert isinstance(before, Tensor)


@pytest.mark.parametrize("update", ["assign_sub", "assign_add"])
def test_variable_updates_never_change_what_was_read_before(update):
    # assign_add/assign_sub update the variable's array in place when nothing
    # else holds it; every kind of holder must keep the value it saw.
    v = Variable([[1.0, 2.0], [3.0, 4.0]])
    read = v.read_value()
    view = M.multiply(v, 1.0)  # a result computed from the old value
    with GradientTape(persistent=True) as tape:
        y = M.multiply(v, v)
    holders = {
        "read": read,
        "product": view,
        "reshape": v.read_value()._value.reshape(4),  # a NumPy view of the array
        "slice": v[0],
    }
    before = {k: np.array(h).copy() for k, h in holders.items()}
    getattr(v, update)(np.ones((2, 2), np.float32))
    for key, held in holders.items():
        np.testing.assert_array_equal(np.array(held), before[key], err_msg=key)
    # the recorded tape still differentiates at the old value: d(v*v)/dv = 2v
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[2, 4], [6, 8]])
    sign = 1.0 if update == "assign_add" else -1.0
    want = np.array([[1.0, 2.0], [3.0, 4.0]]) + sign
    np.testing.assert_array_equal(v.numpy(), want)
    # with nothing holding the value any more, repeated updates stay right
    del read, view, tape, y, holders
    getattr(v, update)(np.ones((2, 2), np.float32))
    array = id(v._snapshot._value)
    getattr(v, update)([[0.5, 0.5], [0.5, 0.5]])
    assert id(v._snapshot._value) == array  # updated in place: no new array
    np.testing.assert_array_equal(v.numpy(), want + 1.5 * sign)


def test_variable_update_with_a_broadcast_delta_and_a_wrong_shape():
    v = Variable([1.0, 2.0, 3.0])
    v.assign_sub(1.0)  # a scalar delta broadcasts, as in TensorFlow
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        v.assign_add(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0, 2.0])
    s = Variable(2.0)
    assert s.assign_sub(0.5).numpy() == 1.5


def test_variable_needs_an_initial_value():
    with pytest.raises(ValueError, match="initial value"):
        Variable()


def test_operators_cover_the_arithmetic_set():
    a, b = constant([6.0, -7.0]), constant([4.0, 2.0])
    np.testing.assert_array_equal((a + b).numpy(), [10.0, -5.0])
    np.testing.assert_array_equal((a - b).numpy(), [2.0, -9.0])
    np.testing.assert_array_equal((a * b).numpy(), [24.0, -14.0])
    np.testing.assert_array_equal((a / b).numpy(), [1.5, -3.5])
    np.testing.assert_array_equal((a // b).numpy(), [1.0, -4.0])
    np.testing.assert_array_equal((a % b).numpy(), [2.0, 1.0])
    np.testing.assert_array_equal((b**2).numpy(), [16.0, 4.0])
    np.testing.assert_array_equal((-a).numpy(), [-6.0, 7.0])
    np.testing.assert_array_equal(abs(a).numpy(), [6.0, 7.0])
    np.testing.assert_array_equal((a < b).numpy(), [False, True])
    np.testing.assert_array_equal((~(a > b)).numpy(), [False, True])
    m = constant([[1.0, 2.0]])
    np.testing.assert_array_equal((m @ constant([[3.0], [4.0]])).numpy(), [[11.0]])


def test_python_floats_convert_straight_to_a_float64_dtype():
    x = constant(np.float64(1.0))
    assert (x * 0.1).numpy() == 0.1
    assert convert_to_tensor([0.1, 0.2], dtype="float64").numpy().tolist() == [0.1, 0.2]


def test_format_spec_formats_the_value():
    # As in TensorFlow, format() gives the NumPy value's format, not str(t).
    assert f"{constant(2.0 / 3.0):.3f}" == "0.667"
    assert f"{constant(7)}" == "7"
    assert format(Variable(1.5).read_value(), "6.2f") == "  1.50"


def test_variable_format_spec_is_refused_as_in_tensorflow():
    assert f"{Variable(2.5)}" == repr(Variable(2.5))
    with pytest.raises(
        TypeError, match=r"ResourceVariable.__format__. .*v.numpy\(\):.1f"
    ):
        f"{Variable(2.5):.1f}"


@pytest.mark.parametrize(
    ("value", "dtype"), [(2**31, "int32"), (-(2**31) - 1, "int32"), (2**63, "int64")]
)
def test_python_int_out_of_the_tensors_range_raises_type_error(value, dtype):
    # Regression (issue 8, found by tests/fuzz): NumPy's OverflowError escaped
    # from `x + 2**31` on an int32 tensor; TensorFlow raises TypeError.
    x = constant(np.zeros(2, dtype))
    with pytest.raises(
        TypeError, match=f"Cannot convert {value} to EagerTensor of dtype {dtype}"
    ):
        M.add(x, value)
    with pytest.raises(TypeError, match="out of its range"):
        constant(value, dtype=dtype)
    with pytest.raises(TypeError, match="Cannot convert"):
        constant([1, value], dtype=dtype)
