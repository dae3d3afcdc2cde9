"""Reading the user's code back: gradient calls, assigned names, option text."""

from __future__ import annotations

import pytest

from tapemagic.graph.source import (
    assigned_name,
    gradient_call,
    in_place_update,
    option_call,
    split_commas,
)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("w, b", ["w", "b"]),
        ("f(a, b), [c, d]", ["f(a, b)", "[c, d]"]),
        ("'a,b', c", ["'a,b'", "c"]),
        ('"w, b"', ["w", "b"]),
        ("", []),
        (" , x ,", ["x"]),
    ],
)
def test_split_commas(text, parts):
    assert split_commas(text) == parts


def test_a_gradient_call_is_read_with_its_list_elements():
    call = gradient_call("grads = tape.gradient(loss, [w, b])")
    assert (call.target, call.sources) == ("loss", "[w, b]")
    assert call.targets == ("loss",)
    assert call.source_list == ("w", "b")


def test_keyword_arguments_and_the_method_kind():
    call = gradient_call("j = tape.jacobian(target=y, sources=x)", "jacobian")
    assert (call.target, call.sources) == ("y", "x")
    assert gradient_call("j = tape.jacobian(y, x)", "gradient") is None
    assert gradient_call("g = t.gradient(y, source=x)").sources == "x"


def test_two_calls_of_one_kind_on_a_line_are_ambiguous():
    assert gradient_call("a, b = t.gradient(y, x), t.gradient(z, x)") is None
    # One of each kind is not.
    call = gradient_call("a = t.gradient(y, x) + t.jacobian(z, x)", "jacobian")
    assert call.target == "z"


@pytest.mark.parametrize(
    "code", [None, "", "tape.gradient(", "tape.gradient(y)", "y = f(x)"]
)
def test_no_call_read(code):
    assert gradient_call(code) is None


def test_the_magic_options_read_back():
    call = option_call("--target loss --sources w,f(a, b)")
    assert call.targets == ("loss",)
    assert call.source_list == ("w", "f(a, b)")


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("y = x * x", "y"),
        ("y += 1", "y"),
        ("y: float = 2.0", "y"),
        ("a, b = f()", None),
        ("a.b = 1", None),
        ("f(x)", None),
        ("y = (", None),
        (None, None),
    ],
)
def test_assigned_name(code, name):
    assert assigned_name(code) == name


@pytest.mark.parametrize(
    ("code", "update"),
    [
        ("w = w - lr * g", "w.assign_sub(lr * g)"),
        ("w = w + step", "w.assign_add(step)"),
        ("w -= 0.1 * dw", "w.assign_sub(0.1 * dw)"),
        ("w = tf.zeros(3)", "w.assign(tf.zeros(3))"),
        ("v = v - g", "w.assign_sub(lr * g)"),
        (None, "w.assign_sub(lr * g)"),
    ],
)
def test_in_place_update(code, update):
    assert in_place_update(code, "w") == update
