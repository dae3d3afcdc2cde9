"""Every docstring example in the package runs and gives what it shows.

The modules are found on disk, not listed: a new module's examples run as soon as
the module exists. Each module runs at least as many examples as its source has
``>>>`` prompts, so an example doctest cannot reach (in a nested function, or on
an object another module owns) fails instead of silently never running; and the
last test imports every module of the package and checks that each one with
examples is collected here.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import tapemagic

PACKAGE = Path(tapemagic.__file__).resolve().parent
PROMPT = re.compile(r"^\s*>>>( |$)", re.MULTILINE)


def module_name(path: Path) -> str:
    """``tapemagic/engine/ops/math.py`` -> ``tapemagic.engine.ops.math``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_with_prompts() -> dict[str, int]:
    """Each module of the package whose source holds ``>>>`` prompts: their count."""
    counts = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = len(PROMPT.findall(path.read_text(encoding="utf-8")))
        if found:
            counts[module_name(path)] = found
    return counts


MODULES = modules_with_prompts()


def run_examples(name: str) -> doctest.TestResults:
    module = importlib.import_module(name)
    return doctest.testmod(module, optionflags=doctest.ELLIPSIS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_docstring_examples(name: str) -> None:
    result = run_examples(name)
    assert result.failed == 0
    # more is fine: a patched tf.GradientTape method keeps TensorFlow's docstring
    assert result.attempted >= MODULES[name], "an example in the source never ran"


def test_modules_are_found_in_every_layer() -> None:
    # the walk reaches the package's root, its subpackages and their subpackages
    for name in (
        "tapemagic",
        "tapemagic.magic",
        "tapemagic.engine.tape",
        "tapemagic.engine.ops.math",
        "tapemagic.data.dataset",
        "tapemagic.graph.diagnosis",
        "tapemagic.viz.widget",
        "tapemagic.keras.layers.core",
        "tapemagic.tf._function",
        "tapemagic.tf_recorder.tape",
    ):
        assert name in MODULES, name


def test_every_module_with_examples_is_collected() -> None:
    finder = doctest.DocTestFinder()
    names = ["tapemagic"] + [
        info.name for info in pkgutil.walk_packages(tapemagic.__path__, "tapemagic.")
    ]
    with_examples = set()
    for name in names:
        module = importlib.import_module(name)
        if any(test.examples for test in finder.find(module)):
            with_examples.add(name)
    assert len(with_examples) > 100
    assert with_examples - set(MODULES) == set()
