"""Writing DOT: escaping and label pieces."""

from __future__ import annotations

import pytest

from tapemagic.viz.dot_markup import count_phrase, escape_label, escape_plain


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("<img src=x>", "&lt;img src=x&gt;"),
        ("a\\Nb", "a\\\\Nb"),  # dot would expand \N to the node's name
        ("]", "&#93;"),
        ("\x00", "\ufffd"),
        ("", "&#x27;&#x27;"),
    ],
)
def test_labels_are_escaped(text, label):
    assert escape_label(text) == label


def test_plain_strings_escape_entities_and_unprintables():
    assert escape_plain("&lt; \x01") == "&amp;lt; \ufffd"


def test_count_phrase_makes_one_singular():
    assert count_phrase(1, "gradients inside the tape") == "1 gradient inside the tape"
    assert count_phrase(2, "ops") == "2 ops"
