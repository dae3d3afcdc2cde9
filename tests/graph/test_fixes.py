"""Fixes that fit the code: the user's line rewritten, or nothing when unsure."""

from __future__ import annotations

import ast

import pytest

from tapemagic.graph.fixes import (
    NUMPY_TO_TF,
    add_epsilon,
    float_literals,
    in_place_assign,
    numpy_functions,
    numpy_to_tf,
    safe_norm,
    unwrap_call,
)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("loss = np.mean((y_hat - y) ** 2)", "loss = tf.reduce_mean((y_hat - y) ** 2)"),
        ("    p = np.exp(z) / np.sum(np.exp(z))",
         "    p = tf.exp(z) / tf.reduce_sum(tf.exp(z))"),
        ("d = numpy.sqrt(numpy.square(a))", "d = tf.sqrt(tf.square(a))"),
        ("m = np.max(h, axis=1, keepdims=True)",
         "m = tf.reduce_max(h, axis=1, keepdims=True)"),
        ("y = np.fft.fft(x)", None),  # no TensorFlow twin in the table
        ("y = tf.exp(x)", None),  # no NumPy call
        ("y = np.exp(x", None),  # does not parse
    ],
)  # fmt: skip
def test_numpy_calls_become_their_tensorflow_twins(line, expected):
    assert numpy_to_tf(line) == expected


def test_every_twin_in_the_table_is_a_tapemagic_function():
    import tapemagic.tf as tf

    for name, twin in NUMPY_TO_TF.items():
        target = tf
        for part in twin.split(".")[1:]:
            target = getattr(target, part)
        assert callable(target), (name, twin)


def test_numpy_functions_lists_the_calls_in_order():
    assert numpy_functions("z = np.dot(np.linalg.inv(a), b)") == ["dot", "linalg.inv"]
    assert numpy_functions(None) == []


def test_unwrap_keeps_the_rest_of_the_line_as_written():
    line = "h  =  tf.Variable( x@w )  # hidden"
    assert unwrap_call(line, ("tf.Variable",)) == "h  =  x@w  # hidden"
    assert unwrap_call("y = w * 2", ("tf.Variable",)) is None
    assert unwrap_call("c = tf.constant(w)", ("tf.constant",)) == "c = w"


def test_float_literals_only_in_the_named_call():
    assert (
        float_literals("w = tf.Variable(3, name='w') * 2", ("tf.Variable",))
        == "w = tf.Variable(3.0, name='w') * 2"
    )
    assert float_literals("w = tf.Variable(3.5)", ("tf.Variable",)) is None
    assert float_literals("w = tf.Variable(True)", ("tf.Variable",)) is None


def test_safe_norm_and_epsilon():
    assert safe_norm("n = tf.norm(v, ord=1)") is None
    assert safe_norm("n = tf.norm(v, axis=-1, keepdims=True)") == (
        "n = tf.sqrt(tf.reduce_sum(tf.square(v), axis=-1, keepdims=True) + 1e-12)"
    )
    assert add_epsilon("l = tf.math.log(p)", ("tf.math.log",), "1e-12") == (
        "l = tf.math.log(p + 1e-12)"
    )


def test_in_place_assign_of_a_rebinding_line():
    assert in_place_assign("w = tf.Variable([1.0, 2.0])", "w") == "w.assign([1.0, 2.0])"
    assert in_place_assign("w = b = 3.0", "w") is None


@pytest.mark.parametrize(
    "rewrite",
    [
        lambda: numpy_to_tf("s = np.sum(np.clip(x, 0, 1), axis=0)"),
        lambda: unwrap_call("v = tf.Variable(h)", ("tf.Variable",)),
        lambda: safe_norm("n = tf.norm(a - b)"),
    ],
)
def test_every_rewrite_parses(rewrite):
    ast.parse(rewrite().strip())
