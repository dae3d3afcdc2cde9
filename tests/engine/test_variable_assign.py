"""Assigning to variables and to slices of them, as TensorFlow 2.21 does.

``v[0, 0].assign(3.0)`` and the other strided-slice assignments write into the
variable; ``assign`` (whole or sliced) returns a variable that reads the value
when used and prints as ``<tf.Variable 'UnreadVariable' ...>``; inside a tape an
assignment is not differentiable, watches the variable, and later reads see the
new value. Each ``_program_*`` function's expected output is what the same
function printed under ``import tensorflow as tf`` (tensorflow-cpu 2.21.0).
Where TensorFlow raises, the program prints the exception type and TensorFlow's
first words, which tapemagic keeps before saying what to do.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine import recorder
from tapemagic.engine.eager_tensor import EagerTensor


def _error(e, words):
    text = str(e)
    if text.startswith("{{function_node"):
        text = text.split("}} ", 1)[1]
    said = " ".join(text.split()[:words]).rstrip(".:")
    print(f"{type(e).__name__}: {said}".rstrip())


def _program_sliced_assign():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    r = v[0, 0].assign(3.0)
    print(repr(r))
    print(r)
    print(f"{r}")
    print(type(r).__name__, type(v[0, 0]).__name__)
    print(repr(r.numpy()))
    print(r + 1)
    print(r.name, r.trainable, r.shape, r.dtype)
    print(repr(v))
    print(repr(v[0].assign([5.0, 6.0])))
    print(repr(v[:, 1].assign([7.0, 8.0])))
    print(repr(v[0].assign(1.0)))
    print(repr(v[1].assign([[9.0, 10.0]])))
    print(repr(v[0, 0].assign([[3.5]])))
    print(repr(v[-1].assign([-1.0, -1.0])))
    print(repr(v[::-1, 0].assign([10.0, 30.0])))
    print(repr(v[0].assign(np.array([1.0, 2.0]))))
    print(repr(v[0].assign([1, 2])))
    print(repr(v[1].assign(True)))
    print(repr(v[2:].assign([1.0, 2.0, 3.0])))
    print(repr(v[1:1].assign(5.0)))
    print(repr(v[...].assign(tf.zeros([2, 2]))))
    w = tf.Variable(tf.reshape(tf.range(24.0), [2, 3, 4]))
    print(repr(w[..., 1].assign(tf.zeros([2, 3]))))
    print(repr(w[:, tf.newaxis, 0, ::2].assign(-tf.ones([2, 1, 2]))))
    print(repr(w[::-1, 1, 1:3].assign([[100.0, 101.0], [102.0, 103.0]])))
    print(repr(w[tf.constant(1), 0, 0].assign(55.0)))
    iv = tf.Variable([1, 2, 3])
    print(repr(iv[0].assign(7)))
    print(repr(iv[1:].assign(np.array([1, 2]))))
    print(repr(iv[1:].assign(np.int64(4))))
    s = tf.Variable(1.0)
    print(repr(s.assign(2.0)))
    print(repr(s.assign_add(1.0)))
    print(repr(s.assign_sub(0.5)))
    print(s.assign(4.0, read_value=False), s.assign_add(1.0, read_value=False))
    print(s.assign_sub(1.0, read_value=False), s.numpy())
    print(hasattr(v[0], "assign"), hasattr(tf.constant(1.0), "assign"))
    print(hasattr(v[0], "assign_add"), hasattr(v.read_value()[0], "assign"))
    print(hasattr(v[v > 2.0], "assign"))


def _program_errors():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    iv = tf.Variable([1, 2, 3])
    cases = [
        (lambda: v[0].assign([1.0, 2.0, 3.0]), 9),
        (lambda: v[0].assign([[1.0], [2.0]]), 9),
        (lambda: v[0, 0].assign([3.0, 4.0]), 9),
        (lambda: v[:, 0].assign([[1.0], [2.0]]), 9),
        (lambda: v[0].assign(tf.constant([1, 2])), 6),
        (lambda: v[0].assign(tf.constant([1.0, 2.0], tf.float64)), 6),
        (lambda: v[0, 0].assign("a"), 2),
        (lambda: iv[0].assign(7.5), 8),
        (lambda: v.assign([1.0, 2.0]), 1),
    ]
    for case, words in cases:
        try:
            case()
        except (ValueError, TypeError, tf.errors.InvalidArgumentError) as e:
            _error(e, words)
    for case, attribute in [
        (lambda: v[1:].assign_add([[1.0, 1.0]]), "assign_add"),
        (lambda: v[1:].assign_sub([[1.0, 1.0]]), "assign_sub"),
        (lambda: tf.constant(1.0).assign(2.0), "assign"),
        (lambda: v.read_value()[0].assign(2.0), "assign"),
    ]:
        try:
            case()
        except AttributeError as e:
            print(type(e).__name__, f"object has no attribute '{attribute}'" in str(e))
    print(v.numpy().tolist(), iv.numpy().tolist())


def _program_what_assign_returns():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    u = v.assign([[0.0, 0.0], [0.0, 0.0]])
    v.assign([[9.0, 9.0], [9.0, 9.0]])
    print("lazy:", u.numpy().tolist(), u is v, isinstance(u, tf.Variable))
    u2 = u.assign([[1.0, 1.0], [1.0, 1.0]])
    print(v.numpy().tolist(), repr(u2))
    print(u * 2)
    print(u[0], type(u[0]).__name__)
    u[0].assign([3.0, 3.0])
    print(v.numpy().tolist())
    print(u == v)
    print(tf.reduce_sum(u), tf.convert_to_tensor(u).numpy().tolist(), list(u)[1])
    c = copy.copy(u)
    print(type(c).__name__, repr(c))
    for f in [lambda: copy.deepcopy(u), lambda: pickle.dumps(u)]:
        try:
            f()
        except ValueError as e:
            print(type(e).__name__)
    for f in [lambda: copy.deepcopy(v), lambda: pickle.loads(pickle.dumps(v))]:
        print(type(f()).__name__, repr(f()))


def _program_tapes():
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(x * x)
        x[0].assign(10.0)
        z = tf.reduce_sum(x * x)
        a = x.assign([1.0, 1.0, 1.0])
        w = tf.reduce_sum(a * 3.0)
    print(tape.gradient(y, x), tape.gradient(z, x), tape.gradient(w, x))
    print([var.name for var in tape.watched_variables()])
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        a = x[1:].assign([5.0, 5.0])
        w = tf.reduce_sum(a * 3.0)
    print("sliced, read through the result:", tape.gradient(w, x))
    x = tf.Variable([1.0, 2.0, 3.0])
    u = x.assign([1.0, 1.0, 1.0])
    with tf.GradientTape() as tape:
        w = tf.reduce_sum(u * 3.0)
    print("result made outside:", tape.gradient(w, x), tape.watched_variables())
    for label, assign in [
        ("read_value=False", lambda: x.assign([1.0, 1.0, 1.0], read_value=False)),
        ("sliced", lambda: x[0].assign(3.0)),
        ("assign_add", lambda: x.assign_add([1.0, 1.0, 1.0])),
        ("assign_sub", lambda: x.assign_sub([1.0, 1.0, 1.0])),
    ]:
        with tf.GradientTape() as tape:
            assign()
        print(label, [var.name for var in tape.watched_variables()])
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        x.assign_add([1.0, 1.0, 1.0])
    print("not watching accesses:", [var.name for var in tape.watched_variables()])
    frozen = tf.Variable([1.0, 2.0], trainable=False)
    with tf.GradientTape() as tape:
        frozen[0].assign(5.0)
    print("not trainable:", [var.name for var in tape.watched_variables()])
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        a = x * x
        x[1:].assign([5.0, 6.0])
        b = x * 2.0
        y = tf.reduce_sum(a) + tf.reduce_sum(b)
    print("before and after:", tape.gradient(y, x))
    m = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        row = m[0]
        row.assign([0.0, 0.0])
        y = tf.reduce_sum(row * m)
    print("a slice keeps its value:", tape.gradient(y, m), row)
    src = tf.Variable(2.0)
    dst = tf.Variable([0.0, 0.0])
    with tf.GradientTape(persistent=True) as tape:
        dst[1].assign(src * 3.0)
        y = tf.reduce_sum(dst * dst)
    print("not differentiable:", tape.gradient(y, src), tape.gradient(y, dst))
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        s = x[1:]
        y = tf.reduce_sum(s * s)
    print("through a slice:", tape.gradient(y, x))


def test_sliced_assignment(capsys):
    _program_sliced_assign()
    assert capsys.readouterr().out == SLICED_ASSIGN


def test_assignment_errors(capsys):
    _program_errors()
    assert capsys.readouterr().out == ERRORS


def test_what_assign_returns(capsys):
    _program_what_assign_returns()
    assert capsys.readouterr().out == WHAT_ASSIGN_RETURNS


def test_assignments_inside_tapes(capsys):
    _program_tapes()
    assert capsys.readouterr().out == TAPES


def test_error_messages_say_what_to_do():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"needs the slice's shape"
    ):
        v[0].assign([1.0, 2.0, 3.0])
    with pytest.raises(
        AttributeError, match=r"write v\[1:\]\.assign\(v\[1:\] \+ delta\)"
    ):
        v[1:].assign_add([[1.0, 1.0]])
    with pytest.raises(AttributeError, match=r"use v\.assign_sub\(delta\) on a tf"):
        tf.constant(1.0).assign_sub(1.0)
    with pytest.raises(AttributeError, match=r"A tensor is immutable: assign to a"):
        tf.constant(1.0).assign(2.0)
    with pytest.raises(ValueError, match=r"Copy or pickle the variable itself"):
        copy.deepcopy(v.assign(v))
    with pytest.raises(TypeError, match=r"lose its float32 values"):
        tf.Variable([1, 2])[0].assign(7.5)


def test_a_slice_is_an_ordinary_tensor_otherwise():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    row = v[0]
    assert type(row) is EagerTensor and isinstance(row, tf.Tensor)
    assert repr(row) == (
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    )
    np.testing.assert_array_equal((row * 2.0 + v[1]).numpy(), [5.0, 8.0])
    assert type(row * 2.0) is EagerTensor and not hasattr(row * 2.0, "assign")
    # A slice made by integer arrays or a mask picks copies: it cannot be assigned.
    assert not hasattr(v[[0, 1]], "assign") and not hasattr(v[v > 1.0], "assign")


def test_a_variable_update_in_place_is_not_seen_by_an_earlier_slice():
    # assign_sub may update the variable's array in place when nothing else
    # holds it; a slice of the variable holds it, so the slice keeps its value.
    v = tf.Variable([1.0, 2.0, 3.0])
    first = v[0]
    v.assign_sub([1.0, 1.0, 1.0])
    assert first.numpy() == 1.0
    assert v.numpy().tolist() == [0.0, 1.0, 2.0]


SLICED_ASSIGN = """\
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[3., 2.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[3., 2.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[3., 2.],
       [3., 4.]], dtype=float32)>
_UnreadVariable EagerTensor
array([[3., 2.],
       [3., 4.]], dtype=float32)
tf.Tensor(
[[4. 3.]
 [4. 5.]], shape=(2, 2), dtype=float32)
UnreadVariable True (2, 2) <dtype: 'float32'>
<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[3., 2.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[5., 6.],
       [3., 4.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[5., 7.],
       [3., 8.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[1., 1.],
       [3., 8.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[ 1.,  1.],
       [ 9., 10.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[ 3.5,  1. ],
       [ 9. , 10. ]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[ 3.5,  1. ],
       [-1. , -1. ]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[30.,  1.],
       [10., -1.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[ 1.,  2.],
       [10., -1.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[ 1.,  2.],
       [10., -1.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [1., 1.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [1., 1.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [1., 1.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[0., 0.],
       [0., 0.]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 3, 4) dtype=float32, numpy=
array([[[ 0.,  0.,  2.,  3.],
        [ 4.,  0.,  6.,  7.],
        [ 8.,  0., 10., 11.]],

       [[12.,  0., 14., 15.],
        [16.,  0., 18., 19.],
        [20.,  0., 22., 23.]]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 3, 4) dtype=float32, numpy=
array([[[-1.,  0., -1.,  3.],
        [ 4.,  0.,  6.,  7.],
        [ 8.,  0., 10., 11.]],

       [[-1.,  0., -1., 15.],
        [16.,  0., 18., 19.],
        [20.,  0., 22., 23.]]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 3, 4) dtype=float32, numpy=
array([[[ -1.,   0.,  -1.,   3.],
        [  4., 102., 103.,   7.],
        [  8.,   0.,  10.,  11.]],

       [[ -1.,   0.,  -1.,  15.],
        [ 16., 100., 101.,  19.],
        [ 20.,   0.,  22.,  23.]]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(2, 3, 4) dtype=float32, numpy=
array([[[ -1.,   0.,  -1.,   3.],
        [  4., 102., 103.,   7.],
        [  8.,   0.,  10.,  11.]],

       [[ 55.,   0.,  -1.,  15.],
        [ 16., 100., 101.,  19.],
        [ 20.,   0.,  22.,  23.]]], dtype=float32)>
<tf.Variable 'UnreadVariable' shape=(3,) dtype=int32, numpy=array([7, 2, 3], dtype=int32)>
<tf.Variable 'UnreadVariable' shape=(3,) dtype=int32, numpy=array([7, 1, 2], dtype=int32)>
<tf.Variable 'UnreadVariable' shape=(3,) dtype=int32, numpy=array([7, 4, 4], dtype=int32)>
<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=2.0>
<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=3.0>
<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=2.5>
None None
None 4.0
True False
False False
False
"""  # noqa: E501

ERRORS = """\
InvalidArgumentError: Cannot broadcast input shape [3] into final shape [2]
InvalidArgumentError: Cannot broadcast input shape [2,1] into final shape [2]
InvalidArgumentError: Cannot broadcast input shape [2] into final shape []
InvalidArgumentError: Cannot broadcast input shape [2,1] into final shape [2]
ValueError: Tensor conversion requested dtype float32 for
ValueError: Tensor conversion requested dtype float32 for
TypeError: Cannot convert
TypeError: Cannot convert 7.5 to EagerTensor of dtype int32
ValueError: Cannot
AttributeError True
AttributeError True
AttributeError True
AttributeError True
[[1.0, 2.0], [3.0, 4.0]] [1, 2, 3]
"""  # noqa: E501

WHAT_ASSIGN_RETURNS = """\
lazy: [[9.0, 9.0], [9.0, 9.0]] False True
[[1.0, 1.0], [1.0, 1.0]] <tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[1., 1.],
       [1., 1.]], dtype=float32)>
tf.Tensor(
[[2. 2.]
 [2. 2.]], shape=(2, 2), dtype=float32)
tf.Tensor([1. 1.], shape=(2,), dtype=float32) EagerTensor
[[3.0, 3.0], [1.0, 1.0]]
tf.Tensor(
[[ True  True]
 [ True  True]], shape=(2, 2), dtype=bool)
tf.Tensor(8.0, shape=(), dtype=float32) [[3.0, 3.0], [1.0, 1.0]] tf.Tensor([1. 1.], shape=(2,), dtype=float32)
_UnreadVariable <tf.Variable 'UnreadVariable' shape=(2, 2) dtype=float32, numpy=
array([[3., 3.],
       [1., 1.]], dtype=float32)>
ValueError
ValueError
ResourceVariable <tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[3., 3.],
       [1., 1.]], dtype=float32)>
ResourceVariable <tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[3., 3.],
       [1., 1.]], dtype=float32)>
"""  # noqa: E501

TAPES = """\
tf.Tensor([2. 4. 6.], shape=(3,), dtype=float32) tf.Tensor([20.  4.  6.], shape=(3,), dtype=float32) tf.Tensor([3. 3. 3.], shape=(3,), dtype=float32)
['Variable:0']
sliced, read through the result: tf.Tensor([3. 3. 3.], shape=(3,), dtype=float32)
result made outside: None ()
read_value=False []
sliced ['Variable:0']
assign_add ['Variable:0']
assign_sub ['Variable:0']
not watching accesses: []
not trainable: []
before and after: tf.Tensor([4. 6. 8.], shape=(3,), dtype=float32)
a slice keeps its value: tf.Tensor(
[[4. 6.]
 [1. 2.]], shape=(2, 2), dtype=float32) tf.Tensor([1. 2.], shape=(2,), dtype=float32)
not differentiable: None tf.Tensor([ 0. 12.], shape=(2,), dtype=float32)
through a slice: tf.Tensor([0. 4. 6.], shape=(3,), dtype=float32)
"""  # noqa: E501


def test_what_assign_returns_is_described_as_its_variable():
    v = tf.Variable([1.0, 2.0], name="w")
    unread = v[0].assign(3.0)
    ref = recorder.describe(unread)
    assert ref.variable is v and ref.id == recorder.describe(v).id
    with tf.GradientTape() as tape:
        tape.watch(unread)
    assert tape.watched_variables() == (v,)
