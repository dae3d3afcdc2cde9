"""The examples in the docstrings of tapemagic.data run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tapemagic.data.batching",
    "tapemagic.data.combining",
    "tapemagic.data.dataset",
    "tapemagic.data.elementwise",
    "tapemagic.data.experimental",
    "tapemagic.data.iterator",
    "tapemagic.data.shuffling",
    "tapemagic.data.slicing",
    "tapemagic.data.sources",
    "tapemagic.data.step",
    "tapemagic.data.structure",
    "tapemagic.data.windows",
    "tapemagic.engine.random_seed",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
