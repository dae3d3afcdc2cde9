"""``tf.TensorSpec`` and ``tf.function(input_signature=...)``, pinned to TensorFlow.

Every printed string and error type here is what TensorFlow 2.21 gives for the
same code.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tapemagic.tf as tf


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        (
            tf.TensorSpec(shape=(2, 3)),
            "TensorSpec(shape=(2, 3), dtype=tf.float32, name=None)",
        ),
        (
            tf.TensorSpec([None, 3], tf.int32, name="x"),
            "TensorSpec(shape=(None, 3), dtype=tf.int32, name='x')",
        ),
        (
            tf.TensorSpec(None),
            "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)",
        ),
        (tf.TensorSpec([]), "TensorSpec(shape=(), dtype=tf.float32, name=None)"),
        (
            tf.TensorSpec([2], "float64"),
            "TensorSpec(shape=(2,), dtype=tf.float64, name=None)",
        ),
        (
            tf.TensorSpec([2], np.int64),
            "TensorSpec(shape=(2,), dtype=tf.int64, name=None)",
        ),
        (
            tf.TensorSpec(tf.TensorSpec([None, 2]).shape),
            "TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)",
        ),
    ],
)
def test_repr_and_str_as_tensorflow_prints_them(spec, text) -> None:
    assert repr(spec) == text
    assert str(spec) == text


def test_attributes() -> None:
    spec = tf.TensorSpec([2, None], name="a")
    assert (spec.name, spec.dtype) == ("a", tf.float32)
    assert repr(spec.shape) == "TensorShape([2, None])"
    assert spec.shape.as_list() == [2, None]
    assert spec.shape.rank == 2
    assert not spec.shape.is_fully_defined()
    assert isinstance(spec.shape, tf.TensorShape)
    assert tf.TensorSpec([2, 3]).shape.is_fully_defined()
    unknown = tf.TensorSpec(None).shape
    assert repr(unknown) == "TensorShape(None)"
    assert (str(unknown), unknown.rank) == ("<unknown>", None)
    assert tf.TensorSpec([2]).value_type is tf.Tensor


def test_bad_shapes_and_dtypes_raise() -> None:
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        tf.TensorSpec([-1, 2])
    with pytest.raises(TypeError, match="to a shape"):
        tf.TensorSpec("ab")
    with pytest.raises(TypeError, match="dtype"):
        tf.TensorSpec([2], "foo")


def test_equality_and_hash() -> None:
    assert tf.TensorSpec([2]) == tf.TensorSpec([2])
    assert tf.TensorSpec([2], name="a") != tf.TensorSpec([2])
    assert tf.TensorSpec([2]) != tf.TensorSpec([2], tf.int32)
    assert tf.TensorSpec(None) != tf.TensorSpec([])
    assert hash(tf.TensorSpec([2])) == hash(tf.TensorSpec([2]))
    assert len({tf.TensorSpec([None]), tf.TensorSpec([None])}) == 1
    spec = tf.TensorSpec([None, 3], tf.int64, "x")
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_is_compatible_with() -> None:
    S = tf.TensorSpec
    assert S([None, 3]).is_compatible_with(S([2, 3]))
    assert S([2, 3]).is_compatible_with(S([None, 3]))
    assert not S([2]).is_compatible_with(S([2], tf.int32))
    assert not S([2]).is_compatible_with(S([2, 1]))
    assert S([None]).is_compatible_with(tf.constant([1.0, 2.0]))
    assert not S([None]).is_compatible_with(tf.constant([1, 2]))
    assert S(None).is_compatible_with(tf.constant([[1.0]]))
    # Only tensors and specs fit, as in TensorFlow: not arrays, lists or variables.
    assert not S([2], tf.float64).is_compatible_with(np.zeros(2))
    assert not S([2], tf.int32).is_compatible_with([1, 2])
    assert not S([2]).is_compatible_with(tf.Variable([1.0, 2.0]))


def test_from_tensor_from_spec_and_common_supertype() -> None:
    S = tf.TensorSpec
    t = tf.constant([1.0, 2.0])
    assert repr(S.from_tensor(t)) == (
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"
    )
    assert repr(S.from_tensor(t, name="t")) == (
        "TensorSpec(shape=(2,), dtype=tf.float32, name='t')"
    )
    assert S.from_spec(S([2], name="q")) == S([2], name="q")
    assert S.from_spec(S([2], name="q"), name="z") == S([2], name="z")
    assert repr(S([2]).most_specific_common_supertype([S([3])])) == (
        "TensorSpec(shape=(None,), dtype=tf.float32, name=None)"
    )
    assert S([2]).most_specific_common_supertype([S([2], tf.int32)]) is None


def test_function_accepts_an_input_signature_and_runs_eagerly() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def double(x):
        return x * 2

    out = double(tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    nested = tf.function(
        lambda x: x[0], input_signature=[(tf.TensorSpec([]), tf.TensorSpec([]))]
    )
    assert nested((1.0, 2.0)) == 1.0

    class Model:
        @tf.function(input_signature=[tf.TensorSpec([None, 2])])
        def call(self, x):
            return x

    assert Model().call([[1, 2]]).dtype == tf.float32
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        Model().call(3)


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        (
            tf.TensorSpec([2]),
            "input_signature must be either a tuple or a list, got "
            "<class 'tapemagic.engine.tensor_spec.TensorSpec'>.",
        ),
        (
            {"a": tf.TensorSpec([])},
            "input_signature must be either a tuple or a list, got <class 'dict'>.",
        ),
        (
            [1],
            "input_signature must be a possibly nested sequence of TensorSpec objects, "
            "got invalid args [1] with types [<class 'int'>].",
        ),
        ([tf.TensorShape([2])], "got invalid args [TensorShape([2])]"),
    ],
)
def test_function_rejects_a_bad_input_signature(signature, message) -> None:
    with pytest.raises(TypeError) as info:
        tf.function(lambda x: x, input_signature=signature)
    assert message in str(info.value)
    with pytest.raises(TypeError):
        tf.function(input_signature=signature)


def test_function_needs_a_spec_for_every_argument() -> None:
    with pytest.raises(TypeError, match="input_signature missing type constraint"):
        tf.function(lambda x, y: x, input_signature=[tf.TensorSpec([])])
    with pytest.raises(TypeError, match="missing type constraint for y"):
        tf.function(input_signature=[tf.TensorSpec([])])(lambda x, y: x)
    # an argument with a default needs none
    tf.function(lambda x, y=1: x, input_signature=[tf.TensorSpec([])])
