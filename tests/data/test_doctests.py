"""The examples in the docstrings of tapemagic.data run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tapemagic.data.dataset",
    "tapemagic.data.experimental",
    "tapemagic.data.structure",
    "tapemagic.engine.random_seed",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
