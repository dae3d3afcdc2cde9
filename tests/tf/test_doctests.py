"""The examples in the docstrings behind ``tf.TensorSpec``, ``tf.Module`` and
``tf.function`` run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tapemagic.engine.module",
    "tapemagic.engine.tensor_spec",
    "tapemagic.tf._function",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
