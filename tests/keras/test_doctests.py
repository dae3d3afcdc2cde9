"""The examples in the docstrings of tapemagic.keras run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

MODULES = [
    "tapemagic.keras.activations",
    "tapemagic.keras.backend",
    "tapemagic.keras.callbacks",
    "tapemagic.keras.initializers",
    "tapemagic.keras.layers.convolutional",
    "tapemagic.keras.layers.core",
    "tapemagic.keras.layers.depthwise",
    "tapemagic.keras.layers.input_layer",
    "tapemagic.keras.layers.keras_tensor",
    "tapemagic.keras.layers.layer",
    "tapemagic.keras.layers.normalization",
    "tapemagic.keras.layers.variable",
    "tapemagic.keras.losses.loss",
    "tapemagic.keras.losses.losses",
    "tapemagic.keras.losses.probabilistic",
    "tapemagic.keras.losses.regression",
    "tapemagic.keras.metrics",
    "tapemagic.keras.metrics.accuracy",
    "tapemagic.keras.metrics.base",
    "tapemagic.keras.metrics.confusion",
    "tapemagic.keras.metrics.confusion_matrix",
    "tapemagic.keras.metrics.probabilistic",
    "tapemagic.keras.metrics.reduction",
    "tapemagic.keras.metrics.regression",
    "tapemagic.keras.models.compile_utils",
    "tapemagic.keras.models.epoch_iterator",
    "tapemagic.keras.models.functional",
    "tapemagic.keras.models.loops",
    "tapemagic.keras.models.model",
    "tapemagic.keras.models.sequential",
    "tapemagic.keras.models.summary",
    "tapemagic.keras.models.trainer",
    "tapemagic.keras.optimizers.adam",
    "tapemagic.keras.optimizers.optimizer",
    "tapemagic.keras.optimizers.rmsprop",
    "tapemagic.keras.optimizers.schedules",
    "tapemagic.keras.optimizers.sgd",
    "tapemagic.keras.utils",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_every_keras_module_with_examples_is_listed():
    # a module split off from another keeps its examples running
    package = importlib.import_module("tapemagic.keras")
    finder = doctest.DocTestFinder()
    with_examples = set()
    for info in pkgutil.walk_packages(package.__path__, "tapemagic.keras."):
        module = importlib.import_module(info.name)
        if any(test.examples for test in finder.find(module)):
            with_examples.add(info.name)
    assert with_examples == set(MODULES)
