"""Python and NumPy values become tensors by TensorFlow 2.21's rules.

A NumPy value converts to whatever dtype is asked for, cast as NumPy casts it
(TensorFlow hands it to NumPy); a Python value only converts without loss.
The expected output is what ``_program_numpy_casts`` printed under ``import
tensorflow as tf`` (tensorflow-cpu 2.21.0).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapemagic.tf as tf


def _program_numpy_casts():
    print(repr(tf.convert_to_tensor(np.float32(3.5), tf.int32)))
    print(repr(tf.constant(np.array([1.5, -2.7]), tf.int32)))
    print(repr(tf.convert_to_tensor(np.array([1.5]), dtype=tf.int32)))
    print(repr(tf.Variable(1) + np.float64(2.5)))
    print(repr(tf.constant(1) * np.array([2.5, 3.7])))
    print(repr(np.float64(2.5) * tf.constant(3)))
    print(repr(tf.convert_to_tensor(np.int64(300), tf.uint8)))
    print(repr(tf.convert_to_tensor(np.array([1, 0]), tf.bool)))
    print(repr(tf.convert_to_tensor(np.array([1.5, 0.0]), tf.bool)))
    print(repr(tf.constant([1.0]) * np.array([True])))
    for value in [1.5, [1.5, 2.0], True]:
        try:
            tf.convert_to_tensor(value, tf.int32)
        except TypeError as e:
            print(type(e).__name__ + ":", " ".join(str(e).split()[:7]))


def test_numpy_values_cast_to_the_requested_dtype(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of these casts warns
        _program_numpy_casts()
    assert capsys.readouterr().out == NUMPY_CASTS


def test_python_values_still_refuse_a_lossy_conversion():
    with pytest.raises(TypeError, match="would lose its float32 values"):
        tf.Variable(1) + 2.5
    with pytest.raises(TypeError, match="out of its range"):
        tf.constant(np.int8(1)) + 300


NUMPY_CASTS = """\
<tf.Tensor: shape=(), dtype=int32, numpy=3>
<tf.Tensor: shape=(2,), dtype=int32, numpy=array([ 1, -2], dtype=int32)>
<tf.Tensor: shape=(1,), dtype=int32, numpy=array([1], dtype=int32)>
<tf.Tensor: shape=(), dtype=int32, numpy=3>
<tf.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>
<tf.Tensor: shape=(), dtype=int32, numpy=6>
<tf.Tensor: shape=(), dtype=uint8, numpy=44>
<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>
<tf.Tensor: shape=(1,), dtype=float32, numpy=array([1.], dtype=float32)>
TypeError: Cannot convert 1.5 to EagerTensor of dtype
TypeError: Cannot convert [1.5, 2.0] to EagerTensor of
"""  # noqa: E501
