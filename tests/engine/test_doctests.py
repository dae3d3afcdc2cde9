"""The examples in the docstrings of the tensor, variable and shape modules run
and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tapemagic.engine.dtypes",
    "tapemagic.engine.eager_tensor",
    "tapemagic.engine.tensor",
    "tapemagic.engine.tensor_shape",
    "tapemagic.engine.variable",
    "tapemagic.engine.ops.indexing",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
