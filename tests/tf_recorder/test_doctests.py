"""The examples in the docstrings of the TensorFlow recorder and of what it
plugs into run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tapemagic",
    "tapemagic.graph.recorders",
    "tapemagic.magic",
    "tapemagic.tf_recorder",
    "tapemagic.tf_recorder.opnames",
    "tapemagic.tf_recorder.ops",
    "tapemagic.tf_recorder.tape",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
