"""The ``tf`` namespace modules are written from the op table, and committed.

Where an op lives in ``tf`` is said once, beside the op (``defop(..., tf=...)``,
``@tf_export``); ``tapemagic/tf/_generate.py`` writes the namespace modules, the
TensorFlow recorder's op types and the NumPy twins the fixes use from it.
"""

from __future__ import annotations

import difflib
import sys
import types

import pytest

import tapemagic.tf as tf
from tapemagic.engine import exports
from tapemagic.engine.ops import load_all
from tapemagic.tf import _generate


def test_the_generator_finds_no_difference_with_the_committed_files():
    differences = []
    for path, text in _generate.generate().items():
        committed = path.read_text() if path.exists() else ""
        if committed != text:
            diff = difflib.unified_diff(
                committed.splitlines(), text.splitlines(), str(path), "generated"
            )
            differences.append("\n".join(list(diff)[:40]))
    assert not differences, (
        "Run python -m tapemagic.tf._generate and commit the result:\n"
        + "\n".join(differences)
    )


def test_every_generated_file_says_so_and_covers_the_table():
    files = _generate.generate()
    assert all(text.startswith(_generate.HEADER) for text in files.values())
    names = {path.name for path in files}
    assert {"__init__.py", "math.py", "nn.py", "linalg.py", "random.py"} <= names
    assert {"_kernels.py", "numpy_twins.py"} <= names
    # every location of the table resolves to the declared object
    load_all()
    for (namespace, name), (module, attribute) in exports.tables().tf.items():
        space = tf
        for part in namespace.split(".")[1:]:
            space = getattr(space, part)
        target = __import__(module, fromlist=[attribute])
        assert getattr(space, name) is getattr(target, attribute), (namespace, name)


def _declaring(*functions) -> types.ModuleType:
    """A loaded op module whose functions carry these declarations."""
    module = types.ModuleType("tapemagic.engine.ops._declaring_for_test")
    for name, locations, kernels in functions:
        fn = exports.tf_export(*locations)(lambda x: x)
        fn.tf_exports = exports.Exports(module.__name__, name, locations, (), kernels)
        setattr(module, name, fn)
    return module


@pytest.mark.parametrize(
    ("functions", "error"),
    [
        (
            [("first", ("tf.math:_t",), ()), ("second", ("tf.math:_t",), ())],
            "tf.math:_t is declared by .*first.* already; .*second.* cannot",
        ),
        ([("first", ("math",), ())], "not in the tf namespace"),
        (
            [("first", (), ("AddV2",))],
            "the op type AddV2 is declared by 'first' already; 'add'",
        ),
    ],
)
def test_a_location_is_taken_once_and_lies_in_the_tf_namespace(functions, error):
    module = _declaring(*functions)
    sys.modules[module.__name__] = module
    try:
        load_all()
        with pytest.raises(ValueError, match=error):
            exports.tables()
    finally:
        del sys.modules[module.__name__]


def test_a_declaration_marks_the_function_and_builds_no_table():
    @exports.tf_export("tf.math")
    def twice(x):
        return 2 * x

    assert twice.tf_exports == exports.Exports(__name__, "twice", ("tf.math",))
    assert ("tf.math", "twice") not in exports.tables().tf  # not an op module


def test_aliases_and_renames_come_from_the_declarations():
    assert tf.divide is tf.truediv is tf.math.divide
    assert tf.math.floormod is tf.math.mod
    assert tf.random.normal.__name__ == "random_normal"
    assert tf.slice.__name__ == "slice_"
    assert tf.nn.swish is tf.nn.silu
