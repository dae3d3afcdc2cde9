"""``tf.function`` converts arguments and results as TensorFlow 2.21 does.

tapemagic runs the function eagerly (no graph), but a call binds its
arguments to the ``input_signature`` and converts them to tensors of its
dtypes, turns NumPy arrays into tensors when there is no signature (Python
numbers stay Python values), and returns tensors. Each ``_program_*`` function's
expected output is what it printed under ``import tensorflow as tf``
(tensorflow-cpu 2.21.0). TensorFlow runs the Python function once per trace,
so the programs record what the function saw in sets rather than print it.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf


def _error(e, words):
    said = " ".join(str(e).split()[:words]).rstrip(".:")
    print(f"{type(e).__name__}: {said}".rstrip())


def _program_input_signature():
    seen = set()

    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def double(x):
        seen.add((isinstance(x, tf.Tensor), x.dtype.name))
        return x * 2

    for arg in [
        np.array([1.0, 2.0]),
        np.array([1, 2]),
        [1, 2],
        [1.0, 2.0],
        tf.constant([1.0, 2.0]),
        tf.Variable([3.0, 4.0]),
        (5.0, 6.0),
    ]:
        print(repr(double(arg)))
    print(repr(double(x=[3.0, 4.0])))
    print(sorted(seen))
    cases = [
        (lambda: double(tf.constant([1.0, 2.0], tf.float64)), 23),
        (lambda: double(tf.constant([1, 2])), 23),
        (lambda: double(3.0), 23),
        (lambda: double(np.ones((2, 2), np.float32)), 23),
        (lambda: double(tf.Variable([1, 2])), 7),
        (lambda: double([1.0], [2.0]), 12),
        (lambda: double(y=[1.0]), 10),
        (lambda: double(None), 7),
    ]
    for case, words in cases:
        try:
            case()
        except TypeError as e:
            _error(e, words)

    @tf.function(
        input_signature=[
            tf.TensorSpec(shape=(), dtype=tf.int32),
            tf.TensorSpec(shape=[2, None], dtype=tf.float64),
        ]
    )
    def pair(n, m):
        return n, m

    print(pair(3, [[1.0, 2.0], [3.0, 4.0]]))
    print(pair(np.int64(3), np.zeros((2, 1))))
    print(pair(True, np.zeros((2, 1), np.float32)))
    print(pair(np.float32(3.0), np.zeros((2, 1))))
    for case, words in [
        (lambda: pair(3, np.zeros((3, 1))), 23),
        (lambda: pair(3.5, np.zeros((2, 1))), 14),
        (lambda: pair(3), 14),
    ]:
        try:
            case()
        except TypeError as e:
            _error(e, words)


def _program_nested_signatures_and_defaults():
    specs = (tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))
    add = tf.function(lambda p: p[0] + p[1], input_signature=[specs])
    print(repr(add((1.0, 2.0))))
    as_list = tf.function(lambda p: p, input_signature=[list(specs)])
    print(as_list([1.0, np.float64(2.0)]))
    keyed = tf.function(
        lambda p: p,
        input_signature=[{"a": tf.TensorSpec([]), "b": tf.TensorSpec([2], tf.int32)}],
    )
    print(keyed({"b": [1, 2], "a": 1.0}))
    with_default = tf.function(
        lambda x, y=1: (x, y), input_signature=[tf.TensorSpec([])]
    )
    print(with_default(1.0))
    any_shape = tf.function(lambda x: x, input_signature=[tf.TensorSpec(None)])
    print(any_shape(np.ones((2, 3))).shape)
    cases = [
        (lambda: add([1.0, 2.0]), 11),
        (lambda: add((1.0,)), 11),
        (lambda: as_list((1.0, 2.0)), 11),
        (lambda: keyed({"a": 1.0}), 9),
        (lambda: with_default(1.0, 2), 7),
        (lambda: with_default(1.0, y=3), 7),
    ]
    for case, words in cases:
        try:
            case()
        except TypeError as e:
            _error(e, words)


def _program_without_signature():
    seen = set()

    @tf.function
    def keep(x, y=2):
        inner = x if isinstance(x, (list, tuple)) else [x]
        seen.add(
            (
                tuple(isinstance(e, tf.Tensor) for e in inner),
                tuple(type(e).__name__ for e in inner if not isinstance(e, tf.Tensor)),
                isinstance(y, tf.Tensor),
            )
        )
        return x

    for args in [
        (np.array([1.0, 2.0]),),
        (np.float64(1.0),),
        (1.5,),
        ([1.0, 2.0],),
        ([np.array(1.0), 2.0],),
        ((np.array([1.0]), 2),),
        (np.array([1, 2], np.int64),),
        (np.array([True]),),
        (np.array([1.0], np.float16),),
        (1, np.array(3)),
    ]:
        print(repr(keep(*args)))
    print(repr(keep({"b": 3, "a": np.array([1.0])})))
    print(repr(keep(1, y=np.float32(2))))
    print(repr(keep(tf.Variable(1.0))))
    print(sorted(seen))


def _program_results():
    v = tf.Variable(5.0)

    @tf.function
    def result(kind):
        if kind == 0:
            return None
        if kind == 1:
            return (1, None, 2.5)
        if kind == 2:
            return {"a": 1, "b": [True, np.int64(3)]}
        if kind == 3:
            return v
        if kind == 4:
            return tf.constant(3)
        if kind == 5:
            return [tf.constant(1.0), 2]
        return object()

    for kind in range(6):
        print(repr(result(kind)))
    try:
        result(6)
    except TypeError as e:
        _error(e, 15)


def _program_methods():
    class Scaler(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return self.w * x + 1.0

        @tf.function
        def plain(self, x):
            return x

    m = Scaler()
    print(repr(m(np.array([1.0, 2.0]))))
    print(repr(m([1, 2])))
    print(repr(m.plain(np.zeros(2))))
    print(type(Scaler.__dict__["plain"]).__name__, type(m.plain).__name__)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m([1.0, 2.0]))
    print(tape.gradient(y, m.w))

    def named(x):
        "Doc."
        return x

    f = tf.function(named)
    print(f.__name__, f.__doc__, f.python_function is named, type(f).__name__)


def test_input_signature_converts_the_arguments(capsys):
    _program_input_signature()
    assert capsys.readouterr().out == INPUT_SIGNATURE


def test_nested_signatures_and_defaults(capsys):
    _program_nested_signatures_and_defaults()
    assert capsys.readouterr().out == NESTED


def test_without_a_signature_numpy_arrays_become_tensors(capsys):
    _program_without_signature()
    assert capsys.readouterr().out == WITHOUT_SIGNATURE


def test_results_come_back_as_tensors(capsys):
    _program_results()
    assert capsys.readouterr().out == RESULTS


def test_methods(capsys):
    _program_methods()
    assert capsys.readouterr().out == METHODS


def test_binding_errors_say_what_to_pass():
    double = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([None])])
    with pytest.raises(TypeError, match=r"Pass one argument per tf\.TensorSpec"):
        double(tf.constant([1, 2]))
    with pytest.raises(TypeError, match=r"lose its float32 values"):
        tf.function(lambda n: n, input_signature=[tf.TensorSpec([], tf.int32)])(3.5)
    with pytest.raises(TypeError, match=r"keeps its default, 1"):
        tf.function(lambda x, y=1: x, input_signature=[tf.TensorSpec([])])(1.0, 2)
    with pytest.raises(TypeError, match=r"Return tensors, numbers or None"):
        tf.function(lambda: object())()


def test_a_string_result_stays_a_string():
    # TensorFlow returns a tf.string tensor; tapemagic has no string dtype.
    assert tf.function(lambda: "done")() == "done"


INPUT_SIGNATURE = """\
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([6., 8.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([10., 12.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([6., 8.], dtype=float32)>
[(True, 'float32')]
TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2,), dtype=tf.float64, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (<tf.Tensor: shape=(2,), dtype=float64, numpy=array([1.,
TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2,), dtype=tf.int32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1,
TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(), dtype=tf.float32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (3.0,) and kwargs: {}
TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2, 2), dtype=tf.float32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: (array([[1., 1.], [1.,
TypeError: Binding inputs to tf.function failed due to
TypeError: Binding inputs to tf.function failed due to `too many positional arguments`. Received
TypeError: Binding inputs to tf.function failed due to `missing a required
TypeError: Binding inputs to tf.function failed due to
(<tf.Tensor: shape=(), dtype=int32, numpy=3>, <tf.Tensor: shape=(2, 2), dtype=float64, numpy=
array([[1., 2.],
       [3., 4.]])>)
(<tf.Tensor: shape=(), dtype=int32, numpy=3>, <tf.Tensor: shape=(2, 1), dtype=float64, numpy=
array([[0.],
       [0.]])>)
(<tf.Tensor: shape=(), dtype=int32, numpy=1>, <tf.Tensor: shape=(2, 1), dtype=float64, numpy=
array([[0.],
       [0.]])>)
(<tf.Tensor: shape=(), dtype=int32, numpy=3>, <tf.Tensor: shape=(2, 1), dtype=float64, numpy=
array([[0.],
       [0.]])>)
TypeError: Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(3, 1), dtype=tf.float64, name=None) to TensorSpec(shape=(2, None), dtype=tf.float64, name=None)`. Received args: (3, array([[0.],
TypeError: Binding inputs to tf.function failed due to `Cannot convert 3.5 to EagerTensor of dtype
TypeError: Binding inputs to tf.function failed due to `missing a required argument: 'm'`. Received args
"""  # noqa: E501

NESTED = """\
<tf.Tensor: shape=(), dtype=float32, numpy=3.0>
[<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, <tf.Tensor: shape=(), dtype=float32, numpy=2.0>]
{'a': <tf.Tensor: shape=(), dtype=float32, numpy=1.0>, 'b': <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>}
(<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, <tf.Tensor: shape=(), dtype=int32, numpy=1>)
(2, 3)
TypeError: Binding inputs to tf.function failed due to `Can not cast [1.0,
TypeError: Binding inputs to tf.function failed due to `Expected (1.0,) to have
TypeError: Binding inputs to tf.function failed due to `Can not cast (1.0,
TypeError: Binding inputs to tf.function failed due to `{'a': 1.0}
TypeError: Binding inputs to tf.function failed due to
TypeError: Binding inputs to tf.function failed due to
"""  # noqa: E501

WITHOUT_SIGNATURE = """\
<tf.Tensor: shape=(2,), dtype=float64, numpy=array([1., 2.])>
<tf.Tensor: shape=(), dtype=float64, numpy=1.0>
<tf.Tensor: shape=(), dtype=float32, numpy=1.5>
[<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, <tf.Tensor: shape=(), dtype=float32, numpy=2.0>]
[<tf.Tensor: shape=(), dtype=float64, numpy=1.0>, <tf.Tensor: shape=(), dtype=float32, numpy=2.0>]
(<tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.])>, <tf.Tensor: shape=(), dtype=int32, numpy=2>)
<tf.Tensor: shape=(2,), dtype=int64, numpy=array([1, 2])>
<tf.Tensor: shape=(1,), dtype=bool, numpy=array([ True])>
<tf.Tensor: shape=(1,), dtype=float16, numpy=array([1.], dtype=float16)>
<tf.Tensor: shape=(), dtype=int32, numpy=1>
{'b': <tf.Tensor: shape=(), dtype=int32, numpy=3>, 'a': <tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.])>}
<tf.Tensor: shape=(), dtype=int32, numpy=1>
<tf.Tensor: shape=(), dtype=float32, numpy=1.0>
[((False,), ('ResourceVariable',), False), ((False,), ('dict',), False), ((False,), ('float',), False), ((False,), ('int',), True), ((False, False), ('float', 'float'), False), ((True,), (), False), ((True, False), ('float',), False), ((True, False), ('int',), False)]
"""  # noqa: E501

RESULTS = """\
None
(<tf.Tensor: shape=(), dtype=int32, numpy=1>, None, <tf.Tensor: shape=(), dtype=float32, numpy=2.5>)
{'a': <tf.Tensor: shape=(), dtype=int32, numpy=1>, 'b': [<tf.Tensor: shape=(), dtype=bool, numpy=True>, <tf.Tensor: shape=(), dtype=int64, numpy=3>]}
<tf.Tensor: shape=(), dtype=float32, numpy=5.0>
<tf.Tensor: shape=(), dtype=int32, numpy=3>
[<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, <tf.Tensor: shape=(), dtype=int32, numpy=2>]
TypeError: To be compatible with tf.function, Python functions must return zero or more Tensors or ExtensionTypes
"""  # noqa: E501

METHODS = """\
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 5.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 5.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float64, numpy=array([0., 0.])>
Function Function
tf.Tensor(3.0, shape=(), dtype=float32)
named Doc. True Function
"""  # noqa: E501
