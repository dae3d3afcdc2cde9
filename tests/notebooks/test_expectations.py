"""The texts a course cell's ``expect`` metadata says it shows."""

from __future__ import annotations

import pytest

from .expectations import ExpectationError, check_expectations

SHOWN = """\
y     = 15.0
dy/dx = 8.0
after 300 more steps: w = 2.000, b = -1.000, loss = 9.82e-09
moving mean: [ 0.17  0.07 -0.01]
{'w': 1}
Epoch 1/2
22/22 - 0s
Epoch 2/2
22/22 - 0s
"""


def test_a_text_is_matched_literally():
    assert check_expectations(["dy/dx = 8.0"], SHOWN) == []
    with pytest.raises(AssertionError, match=r"expected 'dy/dx = 8\.00'"):
        check_expectations(["dy/dx = 8.00"], SHOWN)
    with pytest.raises(AssertionError, match="the cell showed:\ny     = 15.0"):
        check_expectations(["dy/dx = 9.0"], SHOWN)


def test_one_string_is_one_text():
    assert check_expectations("y     = 15.0\ndy/dx = 8.0", SHOWN) == []


def test_texts_are_found_in_order():
    assert check_expectations(["y     = 15.0", "dy/dx = 8.0"], SHOWN) == []
    with pytest.raises(AssertionError, match="after the texts before it"):
        check_expectations(["dy/dx = 8.0", "y     = 15.0"], SHOWN)
    # A text listed twice must be shown twice.
    assert check_expectations(["22/22 - ", "22/22 - "], SHOWN) == []
    with pytest.raises(AssertionError):
        check_expectations(["22/22 - "] * 3, SHOWN)


def test_holes_hold_numbers_that_meet_their_rule():
    line = "w = {2.0 +- 0.001}, b = {-1.0 +- 0.001}, loss = {< 1e-6}"
    assert check_expectations([line], SHOWN) == [2.0, -1.0, 9.82e-09]
    assert check_expectations(["dy/dx = {}"], SHOWN) == [8.0]
    assert check_expectations(["dy/dx = {>= 8}"], SHOWN) == [8.0]
    assert check_expectations(["y     = {> 15}"], "y     = 15.5") == [15.5]
    assert check_expectations(["y = {<= 15}"], "y = 15") == [15.0]
    # NumPy pads numbers with spaces; a hole takes them.
    assert check_expectations(["moving mean: [{!= 0}"], SHOWN) == [0.17]


def test_a_number_that_breaks_its_rule_is_reported_as_shown():
    with pytest.raises(AssertionError, match=r"shown as \['dy/dx = 8\.0'\]"):
        check_expectations(["dy/dx = {> 8}"], SHOWN)
    with pytest.raises(AssertionError, match="number breaks its rule"):
        check_expectations(["w = {3.0 +- 0.5}"], SHOWN)


def test_the_first_occurrence_that_meets_the_rule_counts():
    shown = "loss: 0.9\nloss: 0.1\n"
    assert check_expectations(["loss: {< 0.5}"], shown) == [0.1]


def test_doubled_braces_are_literal():
    assert check_expectations(["{{'w': {}}}"], SHOWN) == [1.0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a {about 3}", r"\{about 3\} is no number rule"),
        ("a {>= x}", r"'x' is not a number"),
        ("a {1 +- y}", r"'y' is not a number"),
    ],
)
def test_a_hole_without_a_rule_says_how_to_write_one(text, message):
    with pytest.raises(ExpectationError, match=message):
        check_expectations([text], SHOWN)


def test_an_entry_that_is_not_text_is_refused():
    with pytest.raises(ExpectationError, match="must be a string, not int"):
        check_expectations([8], SHOWN)
