"""The ``tf`` namespace modules are written from the op table, and committed.

Where an op lives in ``tf`` is said once, beside the op (``defop(..., tf=...)``,
``@tf_export``); ``tapemagic/tf/_generate.py`` writes the namespace modules, the
TensorFlow recorder's op types and the NumPy twins the fixes use from it.
"""

from __future__ import annotations

import difflib

import pytest

import tapemagic.tf as tf
from tapemagic.engine import exports
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
    for (namespace, name), (module, attribute) in exports.TF_EXPORTS.items():
        if name.startswith("_doctest"):
            continue
        space = tf
        for part in namespace.split(".")[1:]:
            space = getattr(space, part)
        target = __import__(module, fromlist=[attribute])
        assert getattr(space, name) is getattr(target, attribute), (namespace, name)


def test_a_location_is_taken_once_and_lies_in_the_tf_namespace():
    exports.record("tests.fake", "first", ["tf.math:_test_only"])
    try:
        with pytest.raises(ValueError, match="tf.math._test_only is tests.fake.first"):
            exports.record("tests.fake", "second", ["tf.math:_test_only"])
        # the same function declared again (a module reloaded) is no conflict
        exports.record("tests.fake", "first", ["tf.math:_test_only"])
    finally:
        del exports.TF_EXPORTS["tf.math", "_test_only"]
    with pytest.raises(ValueError, match="not in the tf namespace"):
        exports.record("tests.fake", "first", ["math"])
    with pytest.raises(ValueError, match="the op type AddV2"):
        exports.record("tests.fake", "first", [], kernels=["AddV2"])


def test_aliases_and_renames_come_from_the_declarations():
    assert tf.divide is tf.truediv is tf.math.divide
    assert tf.math.floormod is tf.math.mod
    assert tf.random.normal.__name__ == "random_normal"
    assert tf.slice.__name__ == "slice_"
    assert tf.nn.swish is tf.nn.silu
