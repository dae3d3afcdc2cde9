"""Tensors, variables and dtypes print as TensorFlow 2.21 prints them.

Each ``_program_*`` function runs here on ``tapemagic.tf``; its expected output
is what the same function printed under ``import tensorflow as tf``
(tensorflow-cpu 2.21.0, NumPy 2.4). Where TensorFlow raises, the program prints
the exception type and TensorFlow's first words, which tapemagic keeps before
saying what to do.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import Tensor, Variable
from tapemagic.engine.eager_tensor import EagerTensor, tensor_of
from tapemagic.engine.variable import ResourceVariable
from tapemagic.keras.layers.variable import KerasVariable


def _error(e, words):
    text = str(e)
    if text.startswith("{{function_node"):
        text = text.split("}} ", 1)[1]
    said = " ".join(text.split()[:words]).rstrip(".:")
    print(f"{type(e).__name__}: {said}".rstrip())


def _program_reprs():
    values = [
        1.5,
        0.1,
        1 / 3,
        [1.0, 2.0],
        [[1.0, 2.0], [3.0, 4.0]],
        3,
        [[1, 2], [3, 4]],
        [True, False],
        True,
        np.float64(0.1),
        np.array([1, 2]),
        np.arange(8.0).reshape(2, 2, 2),
        np.zeros([0], np.float32),
        np.zeros([2, 0], np.float32),
        float("nan"),
        -0.0,
        123456789.0,
        1e-8,
        np.float16(0.1),
        np.array([1, 2], np.uint8),
        np.array([[1 + 2j]], np.complex64),
    ]
    for value in values:
        t = tf.constant(value)
        v = tf.Variable(value)
        print(repr(t))
        print(t)
        print("{}".format(t))  # noqa: UP032 - str.format is what is tested
        print(f"{t}")
        print(repr(v))
        print(v)
        print("{}".format(v))  # noqa: UP032
        print(f"{v!r}")
        print(t.dtype, repr(t.dtype), v.dtype)


def _program_format_specs():
    for t in [tf.constant(2 / 3), tf.constant(7), tf.constant(True), tf.constant(0.1)]:
        print(f"[{t:.3f}] [{t:>8}] [{t:.2e}] [{t!s}] [{t!r}]")
    print(f"{tf.constant(7):d} {tf.constant(-3):+05d}")
    cases = [
        (tf.constant([1.0, 2.0]), ".2f"),
        (tf.constant([[1, 2]]), "d"),
        (tf.Variable(1.5), ".2f"),
        (tf.Variable([1.0]), ">10"),
    ]
    for obj, spec in cases:
        try:
            print(format(obj, spec))
        except TypeError as e:
            _error(e, 6)
    for t, spec in [(tf.constant(1.5), "d"), (tf.constant(3), "s")]:
        try:
            print(format(t, spec))
        except ValueError as e:
            _error(e, 10)


def _program_dtypes_and_types():
    for d in [
        tf.float16,
        tf.float32,
        tf.float64,
        tf.int8,
        tf.int16,
        tf.int32,
        tf.int64,
        tf.uint8,
        tf.bool,
        tf.complex64,
        tf.complex128,
    ]:
        print(d, repr(d), "{}".format(d), f"{d!s}", d.name, [d], (d,), {"d": d})  # noqa: UP032
    print(tf.constant(1.0).dtype)
    print("%s %r" % (tf.int32, tf.int32))  # noqa: UP031
    t = tf.constant([1.0, 2.0])
    v = tf.Variable([1.0, 2.0])
    print(type(t).__name__, type(v).__name__, type(v[0]).__name__)
    print(type(v.read_value()).__name__, type(t + v).__name__, type(v * 2).__name__)
    print(isinstance(t, tf.Tensor), isinstance(v, tf.Tensor))
    print(isinstance(v, tf.Variable), isinstance(t, tf.Variable))
    print(issubclass(type(t), tf.Tensor), issubclass(type(v), tf.Variable))
    print(tf.is_tensor(t), tf.is_tensor(v), tf.is_tensor(np.ones(2)))
    print(tf.TensorSpec([2]).value_type.__name__)


def test_reprs_strs_and_formats_of_tensors_and_variables(capsys):
    _program_reprs()
    assert capsys.readouterr().out == REPRS


def test_format_specs(capsys):
    _program_format_specs()
    assert capsys.readouterr().out == FORMAT_SPECS


def test_dtypes_and_type_names(capsys):
    _program_dtypes_and_types()
    assert capsys.readouterr().out == DTYPES_AND_TYPES


def test_format_errors_say_what_to_format_instead():
    with pytest.raises(TypeError, match=r"holds no single number.*array2string"):
        f"{tf.constant([1.0, 2.0]):.2f}"
    with pytest.raises(TypeError, match=r"Format the variable's value: .*v.numpy\(\)"):
        f"{tf.Variable(1.5):.2f}"


def test_every_tensor_is_an_eager_tensor_and_tensor_builds_one():
    made = [
        Tensor(np.float32(1.0)),
        tensor_of(np.zeros(2)),
        tf.constant(1.0),
        tf.constant(1.0) + 1.0,
        tf.Variable(1.0).read_value(),
        tf.zeros([2]),
        tf.random.normal([2]),
    ]
    assert {type(t) for t in made} == {EagerTensor}
    assert all(isinstance(t, tf.Tensor) for t in made)
    assert issubclass(EagerTensor, Tensor) and tf.Tensor is Tensor
    t = tf.constant([1.0, 2.0])
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    again = pickle.loads(pickle.dumps(t))
    assert type(again) is EagerTensor
    np.testing.assert_array_equal(again.numpy(), [1.0, 2.0])


def test_every_variable_is_a_resource_variable_and_subclasses_keep_their_class():
    v = tf.Variable([1.0, 2.0], name="w")
    assert type(v) is ResourceVariable and tf.Variable is Variable
    assert isinstance(v, tf.Variable) and not isinstance(v, tf.Tensor)
    again = pickle.loads(pickle.dumps(v))
    assert type(again) is ResourceVariable and again.name == "w:0"
    np.testing.assert_array_equal(copy.deepcopy(v).numpy(), [1.0, 2.0])
    k = KerasVariable(np.zeros(2, np.float32), name="bias")
    assert type(k) is KerasVariable and isinstance(k, tf.Variable)
    assert type(pickle.loads(pickle.dumps(k))) is KerasVariable
    # Ops on a subclass's variables still read them (the slow path, by isinstance).
    np.testing.assert_array_equal((k + 1.0).numpy(), [1.0, 1.0])
    assert type(k + 1.0) is EagerTensor


REPRS = """\
<tf.Tensor: shape=(), dtype=float32, numpy=1.5>
tf.Tensor(1.5, shape=(), dtype=float32)
1.5
1.5
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.5>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.5>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.5>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.5>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>
tf.Tensor(0.1, shape=(), dtype=float32)
0.10000000149011612
0.10000000149011612
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.10000000149011612>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.10000000149011612>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.10000000149011612>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.10000000149011612>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float32, numpy=0.3333333432674408>
tf.Tensor(0.33333334, shape=(), dtype=float32)
0.3333333432674408
0.3333333432674408
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.3333333432674408>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.3333333432674408>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.3333333432674408>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.3333333432674408>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
tf.Tensor([1. 2.], shape=(2,), dtype=float32)
[1. 2.]
[1. 2.]
<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[1., 2.],
       [3., 4.]], dtype=float32)>
tf.Tensor(
[[1. 2.]
 [3. 4.]], shape=(2, 2), dtype=float32)
[[1. 2.]
 [3. 4.]]
[[1. 2.]
 [3. 4.]]
<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [3., 4.]], dtype=float32)>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=int32, numpy=3>
tf.Tensor(3, shape=(), dtype=int32)
3
3
<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=3>
<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=3>
<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=3>
<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=3>
<dtype: 'int32'> tf.int32 <dtype: 'int32'>
<tf.Tensor: shape=(2, 2), dtype=int32, numpy=
array([[1, 2],
       [3, 4]], dtype=int32)>
tf.Tensor(
[[1 2]
 [3 4]], shape=(2, 2), dtype=int32)
[[1 2]
 [3 4]]
[[1 2]
 [3 4]]
<tf.Variable 'Variable:0' shape=(2, 2) dtype=int32, numpy=
array([[1, 2],
       [3, 4]], dtype=int32)>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=int32, numpy=
array([[1, 2],
       [3, 4]], dtype=int32)>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=int32, numpy=
array([[1, 2],
       [3, 4]], dtype=int32)>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=int32, numpy=
array([[1, 2],
       [3, 4]], dtype=int32)>
<dtype: 'int32'> tf.int32 <dtype: 'int32'>
<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
tf.Tensor([ True False], shape=(2,), dtype=bool)
[ True False]
[ True False]
<tf.Variable 'Variable:0' shape=(2,) dtype=bool, numpy=array([ True, False])>
<tf.Variable 'Variable:0' shape=(2,) dtype=bool, numpy=array([ True, False])>
<tf.Variable 'Variable:0' shape=(2,) dtype=bool, numpy=array([ True, False])>
<tf.Variable 'Variable:0' shape=(2,) dtype=bool, numpy=array([ True, False])>
<dtype: 'bool'> tf.bool <dtype: 'bool'>
<tf.Tensor: shape=(), dtype=bool, numpy=True>
tf.Tensor(True, shape=(), dtype=bool)
True
True
<tf.Variable 'Variable:0' shape=() dtype=bool, numpy=True>
<tf.Variable 'Variable:0' shape=() dtype=bool, numpy=True>
<tf.Variable 'Variable:0' shape=() dtype=bool, numpy=True>
<tf.Variable 'Variable:0' shape=() dtype=bool, numpy=True>
<dtype: 'bool'> tf.bool <dtype: 'bool'>
<tf.Tensor: shape=(), dtype=float64, numpy=0.1>
tf.Tensor(0.1, shape=(), dtype=float64)
0.1
0.1
<tf.Variable 'Variable:0' shape=() dtype=float64, numpy=0.1>
<tf.Variable 'Variable:0' shape=() dtype=float64, numpy=0.1>
<tf.Variable 'Variable:0' shape=() dtype=float64, numpy=0.1>
<tf.Variable 'Variable:0' shape=() dtype=float64, numpy=0.1>
<dtype: 'float64'> tf.float64 <dtype: 'float64'>
<tf.Tensor: shape=(2,), dtype=int64, numpy=array([1, 2])>
tf.Tensor([1 2], shape=(2,), dtype=int64)
[1 2]
[1 2]
<tf.Variable 'Variable:0' shape=(2,) dtype=int64, numpy=array([1, 2])>
<tf.Variable 'Variable:0' shape=(2,) dtype=int64, numpy=array([1, 2])>
<tf.Variable 'Variable:0' shape=(2,) dtype=int64, numpy=array([1, 2])>
<tf.Variable 'Variable:0' shape=(2,) dtype=int64, numpy=array([1, 2])>
<dtype: 'int64'> tf.int64 <dtype: 'int64'>
<tf.Tensor: shape=(2, 2, 2), dtype=float64, numpy=
array([[[0., 1.],
        [2., 3.]],

       [[4., 5.],
        [6., 7.]]])>
tf.Tensor(
[[[0. 1.]
  [2. 3.]]

 [[4. 5.]
  [6. 7.]]], shape=(2, 2, 2), dtype=float64)
[[[0. 1.]
  [2. 3.]]

 [[4. 5.]
  [6. 7.]]]
[[[0. 1.]
  [2. 3.]]

 [[4. 5.]
  [6. 7.]]]
<tf.Variable 'Variable:0' shape=(2, 2, 2) dtype=float64, numpy=
array([[[0., 1.],
        [2., 3.]],

       [[4., 5.],
        [6., 7.]]])>
<tf.Variable 'Variable:0' shape=(2, 2, 2) dtype=float64, numpy=
array([[[0., 1.],
        [2., 3.]],

       [[4., 5.],
        [6., 7.]]])>
<tf.Variable 'Variable:0' shape=(2, 2, 2) dtype=float64, numpy=
array([[[0., 1.],
        [2., 3.]],

       [[4., 5.],
        [6., 7.]]])>
<tf.Variable 'Variable:0' shape=(2, 2, 2) dtype=float64, numpy=
array([[[0., 1.],
        [2., 3.]],

       [[4., 5.],
        [6., 7.]]])>
<dtype: 'float64'> tf.float64 <dtype: 'float64'>
<tf.Tensor: shape=(0,), dtype=float32, numpy=array([], dtype=float32)>
tf.Tensor([], shape=(0,), dtype=float32)
[]
[]
<tf.Variable 'Variable:0' shape=(0,) dtype=float32, numpy=array([], dtype=float32)>
<tf.Variable 'Variable:0' shape=(0,) dtype=float32, numpy=array([], dtype=float32)>
<tf.Variable 'Variable:0' shape=(0,) dtype=float32, numpy=array([], dtype=float32)>
<tf.Variable 'Variable:0' shape=(0,) dtype=float32, numpy=array([], dtype=float32)>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(2, 0), dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>
tf.Tensor([], shape=(2, 0), dtype=float32)
[]
[]
<tf.Variable 'Variable:0' shape=(2, 0) dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>
<tf.Variable 'Variable:0' shape=(2, 0) dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>
<tf.Variable 'Variable:0' shape=(2, 0) dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>
<tf.Variable 'Variable:0' shape=(2, 0) dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float32, numpy=nan>
tf.Tensor(nan, shape=(), dtype=float32)
nan
nan
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=nan>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=nan>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=nan>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=nan>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float32, numpy=-0.0>
tf.Tensor(-0.0, shape=(), dtype=float32)
-0.0
-0.0
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=-0.0>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=-0.0>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=-0.0>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=-0.0>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float32, numpy=123456792.0>
tf.Tensor(1.2345679e+08, shape=(), dtype=float32)
123456792.0
123456792.0
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=123456792.0>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=123456792.0>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=123456792.0>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=123456792.0>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float32, numpy=9.99999993922529e-09>
tf.Tensor(1e-08, shape=(), dtype=float32)
9.99999993922529e-09
9.99999993922529e-09
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=9.99999993922529e-09>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=9.99999993922529e-09>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=9.99999993922529e-09>
<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=9.99999993922529e-09>
<dtype: 'float32'> tf.float32 <dtype: 'float32'>
<tf.Tensor: shape=(), dtype=float16, numpy=0.0999755859375>
tf.Tensor(0.1, shape=(), dtype=float16)
0.0999755859375
0.0999755859375
<tf.Variable 'Variable:0' shape=() dtype=float16, numpy=0.0999755859375>
<tf.Variable 'Variable:0' shape=() dtype=float16, numpy=0.0999755859375>
<tf.Variable 'Variable:0' shape=() dtype=float16, numpy=0.0999755859375>
<tf.Variable 'Variable:0' shape=() dtype=float16, numpy=0.0999755859375>
<dtype: 'float16'> tf.float16 <dtype: 'float16'>
<tf.Tensor: shape=(2,), dtype=uint8, numpy=array([1, 2], dtype=uint8)>
tf.Tensor([1 2], shape=(2,), dtype=uint8)
[1 2]
[1 2]
<tf.Variable 'Variable:0' shape=(2,) dtype=uint8, numpy=array([1, 2], dtype=uint8)>
<tf.Variable 'Variable:0' shape=(2,) dtype=uint8, numpy=array([1, 2], dtype=uint8)>
<tf.Variable 'Variable:0' shape=(2,) dtype=uint8, numpy=array([1, 2], dtype=uint8)>
<tf.Variable 'Variable:0' shape=(2,) dtype=uint8, numpy=array([1, 2], dtype=uint8)>
<dtype: 'uint8'> tf.uint8 <dtype: 'uint8'>
<tf.Tensor: shape=(1, 1), dtype=complex64, numpy=array([[1.+2.j]], dtype=complex64)>
tf.Tensor([[1.+2.j]], shape=(1, 1), dtype=complex64)
[[1.+2.j]]
[[1.+2.j]]
<tf.Variable 'Variable:0' shape=(1, 1) dtype=complex64, numpy=array([[1.+2.j]], dtype=complex64)>
<tf.Variable 'Variable:0' shape=(1, 1) dtype=complex64, numpy=array([[1.+2.j]], dtype=complex64)>
<tf.Variable 'Variable:0' shape=(1, 1) dtype=complex64, numpy=array([[1.+2.j]], dtype=complex64)>
<tf.Variable 'Variable:0' shape=(1, 1) dtype=complex64, numpy=array([[1.+2.j]], dtype=complex64)>
<dtype: 'complex64'> tf.complex64 <dtype: 'complex64'>
"""  # noqa: E501

FORMAT_SPECS = """\
[0.667] [0.6666666865348816] [6.67e-01] [tf.Tensor(0.6666667, shape=(), dtype=float32)] [<tf.Tensor: shape=(), dtype=float32, numpy=0.6666666865348816>]
[7.000] [       7] [7.00e+00] [tf.Tensor(7, shape=(), dtype=int32)] [<tf.Tensor: shape=(), dtype=int32, numpy=7>]
[1.000] [       1] [1.00e+00] [tf.Tensor(True, shape=(), dtype=bool)] [<tf.Tensor: shape=(), dtype=bool, numpy=True>]
[0.100] [0.10000000149011612] [1.00e-01] [tf.Tensor(0.1, shape=(), dtype=float32)] [<tf.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>]
7 -0003
TypeError: unsupported format string passed to numpy.ndarray.__format__
TypeError: unsupported format string passed to numpy.ndarray.__format__
TypeError: unsupported format string passed to ResourceVariable.__format__
TypeError: unsupported format string passed to ResourceVariable.__format__
ValueError: Unknown format code 'd' for object of type 'float'
ValueError: Unknown format code 's' for object of type 'int'
"""  # noqa: E501

DTYPES_AND_TYPES = """\
<dtype: 'float16'> tf.float16 <dtype: 'float16'> <dtype: 'float16'> float16 [tf.float16] (tf.float16,) {'d': tf.float16}
<dtype: 'float32'> tf.float32 <dtype: 'float32'> <dtype: 'float32'> float32 [tf.float32] (tf.float32,) {'d': tf.float32}
<dtype: 'float64'> tf.float64 <dtype: 'float64'> <dtype: 'float64'> float64 [tf.float64] (tf.float64,) {'d': tf.float64}
<dtype: 'int8'> tf.int8 <dtype: 'int8'> <dtype: 'int8'> int8 [tf.int8] (tf.int8,) {'d': tf.int8}
<dtype: 'int16'> tf.int16 <dtype: 'int16'> <dtype: 'int16'> int16 [tf.int16] (tf.int16,) {'d': tf.int16}
<dtype: 'int32'> tf.int32 <dtype: 'int32'> <dtype: 'int32'> int32 [tf.int32] (tf.int32,) {'d': tf.int32}
<dtype: 'int64'> tf.int64 <dtype: 'int64'> <dtype: 'int64'> int64 [tf.int64] (tf.int64,) {'d': tf.int64}
<dtype: 'uint8'> tf.uint8 <dtype: 'uint8'> <dtype: 'uint8'> uint8 [tf.uint8] (tf.uint8,) {'d': tf.uint8}
<dtype: 'bool'> tf.bool <dtype: 'bool'> <dtype: 'bool'> bool [tf.bool] (tf.bool,) {'d': tf.bool}
<dtype: 'complex64'> tf.complex64 <dtype: 'complex64'> <dtype: 'complex64'> complex64 [tf.complex64] (tf.complex64,) {'d': tf.complex64}
<dtype: 'complex128'> tf.complex128 <dtype: 'complex128'> <dtype: 'complex128'> complex128 [tf.complex128] (tf.complex128,) {'d': tf.complex128}
<dtype: 'float32'>
<dtype: 'int32'> tf.int32
EagerTensor ResourceVariable EagerTensor
EagerTensor EagerTensor EagerTensor
True False
True False
True True
True True False
Tensor
"""  # noqa: E501
