"""Shape arguments may hold scalar integer tensors, as in TensorFlow 2.21.

``tf.zeros([n])``, ``tf.reshape(x, [batch, -1])`` and the rest take a shape as
a list of ints and scalar int tensors (or variables), or as a 1-D int tensor;
every shape passes through one function, ``static_shape`` in
tapemagic/engine/ops/_util.py. The expected output is what ``_program_shapes``
printed under ``import tensorflow as tf`` (tensorflow-cpu 2.21.0); where
TensorFlow raises, it prints the exception type and TensorFlow's first words,
which tapemagic keeps before saying what to do.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapemagic.tf as tf


def _error(e, words):
    text = str(e)
    if text.startswith("{{function_node"):
        text = text.split("}} ", 1)[1]
    said = " ".join(text.split()[:words]).rstrip(".:")
    print(f"{type(e).__name__}: {said}".rstrip())


def _program_shapes():
    n = tf.constant(2)
    m = tf.constant(3, tf.int64)
    print(repr(tf.fill([n], 3.0)))
    print(repr(tf.fill(tf.constant([2, 3]), 1.0)))
    print(repr(tf.zeros([n])))
    print(repr(tf.zeros(n)))
    print(repr(tf.zeros(tf.constant([2, 1]))))
    print(repr(tf.ones((n, 3))))
    print(repr(tf.ones((m, 2), dtype=tf.int32)))
    print(repr(tf.ones(tf.shape(tf.zeros([2, 3])))))
    print(repr(tf.zeros([tf.Variable(2)])))
    print(repr(tf.zeros([np.int64(2), n])))
    print(repr(tf.reshape(tf.range(6.0), [n, -1])))
    print(repr(tf.reshape(tf.range(6.0), tf.constant([3, 2]))))
    print(repr(tf.reshape(tf.range(6.0), (tf.constant(3), tf.constant(2)))))
    x = tf.zeros([4, 3])
    batch = tf.shape(x)[0]
    print(tf.reshape(x, [batch, -1, 1]).shape, tf.zeros([batch, tf.size(x)]).shape)
    print(tf.random.normal([n]).shape, tf.random.uniform((n, 3)).shape)
    print(tf.random.uniform(tf.constant([2, 2])).shape)
    print(tf.random.truncated_normal([n, 3]).shape, tf.random.normal([m, 2]).shape)
    print(repr(tf.broadcast_to(1.0, [n, 2])))
    print(repr(tf.tile([[1.0, 2.0]], [n, 1])))
    print(repr(tf.eye(n)))
    print(repr(tf.constant(0.5, shape=[n, 2])))
    print(repr(tf.transpose(tf.zeros([1, 2, 3]), perm=[n, 0, tf.constant(1)]).shape))
    cases = [
        (lambda: tf.zeros(tf.constant([2.0])), 0),
        (lambda: tf.ones(tf.constant([True])), 0),
        (lambda: tf.random.normal([tf.constant(2.0)]), 0),
        (lambda: tf.zeros([tf.constant([2])]), 8),
        (lambda: tf.zeros(tf.constant([[2, 1]])), 8),
        (lambda: tf.fill([tf.constant(-1)], 1.0), 6),
        (lambda: tf.zeros([2, -3]), 6),
        (lambda: tf.zeros([2.0]), 8),
    ]
    for case, words in cases:
        try:
            case()
        except (TypeError, ValueError, tf.errors.InvalidArgumentError) as e:
            _error(e, words)


def test_shapes_take_scalar_int_tensors(capsys):
    _program_shapes()
    assert capsys.readouterr().out == SHAPES


def test_a_non_integer_tensor_in_a_shape_says_to_cast_it():
    # TensorFlow refuses a float shape tensor; inside a list some of its ops
    # truncate a float scalar silently, tapemagic refuses it as well (docs).
    for make in (
        lambda: tf.zeros([tf.constant(2.0)]),
        lambda: tf.reshape(tf.range(6.0), [tf.constant(2.5), -1]),
        lambda: tf.zeros(tf.constant([2.0])),
    ):
        with pytest.raises(
            tf.errors.InvalidArgumentError, match=r"tf\.cast\(n, tf\.int32\)"
        ):
            make()
    with pytest.raises(tf.errors.InvalidArgumentError, match="got bool"):
        tf.ones([tf.constant(True), 2])
    with pytest.raises(TypeError, match="Every dimension must be an integer"):
        tf.ones([2, None])


SHAPES = """\
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 3.], dtype=float32)>
<tf.Tensor: shape=(2, 3), dtype=float32, numpy=
array([[1., 1., 1.],
       [1., 1., 1.]], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>
<tf.Tensor: shape=(2, 1), dtype=float32, numpy=
array([[0.],
       [0.]], dtype=float32)>
<tf.Tensor: shape=(2, 3), dtype=float32, numpy=
array([[1., 1., 1.],
       [1., 1., 1.]], dtype=float32)>
<tf.Tensor: shape=(3, 2), dtype=int32, numpy=
array([[1, 1],
       [1, 1],
       [1, 1]], dtype=int32)>
<tf.Tensor: shape=(2, 3), dtype=float32, numpy=
array([[1., 1., 1.],
       [1., 1., 1.]], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 0.], dtype=float32)>
<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[0., 0.],
       [0., 0.]], dtype=float32)>
<tf.Tensor: shape=(2, 3), dtype=float32, numpy=
array([[0., 1., 2.],
       [3., 4., 5.]], dtype=float32)>
<tf.Tensor: shape=(3, 2), dtype=float32, numpy=
array([[0., 1.],
       [2., 3.],
       [4., 5.]], dtype=float32)>
<tf.Tensor: shape=(3, 2), dtype=float32, numpy=
array([[0., 1.],
       [2., 3.],
       [4., 5.]], dtype=float32)>
(4, 3, 1) (4, 12)
(2,) (2, 3)
(2, 2)
(2, 3) (3, 2)
<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[1., 1.],
       [1., 1.]], dtype=float32)>
<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[1., 2.],
       [1., 2.]], dtype=float32)>
<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[1., 0.],
       [0., 1.]], dtype=float32)>
<tf.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[0.5, 0.5],
       [0.5, 0.5]], dtype=float32)>
TensorShape([3, 1, 2])
InvalidArgumentError:
InvalidArgumentError:
InvalidArgumentError:
InvalidArgumentError: dims must represent a vector, got shape [1,1]
InvalidArgumentError: dims must represent a vector, got shape [1,2]
InvalidArgumentError: Dimension -1 must be >= 0
InvalidArgumentError: Dimension -3 must be >= 0
TypeError: Cannot convert [2.0] to EagerTensor of dtype int32
"""  # noqa: E501
