"""TensorFlow is part of the test extra: its absence fails these tests, never
skips them. Each test leaves TensorFlow as it found it: no listener, no
replaced method."""

from __future__ import annotations

import pytest
import tensorflow as tf  # noqa: F401  (the test environment must have it)
from tensorflow.python.eager import backprop
from tensorflow.python.framework import constant_op, ops
from tensorflow.python.ops.resource_variable_ops import BaseResourceVariable

from tapemagic.tf_recorder import load

RECORDER = load()


# Everything the recorder replaces while it listens.
REPLACED = {
    backprop.GradientTape: ("_push_tape", "_pop_tape", "watch", "stop_recording",
                            "reset", "gradient", "jacobian", "batch_jacobian"),
    ops._EagerTensorBase: ("numpy", "__array__", "__float__", "__int__"),
    BaseResourceVariable: ("numpy", "__array__", "__float__", "__int__", "_trainable"),
    constant_op: ("_constant_eager_impl",),
}  # fmt: skip


def _methods() -> dict:
    return {
        (owner, name): vars(owner).get(name)
        for owner, names in REPLACED.items()
        for name in names
    }


@pytest.fixture(autouse=True)
def tensorflow_untouched():
    before = _methods()
    yield
    assert RECORDER.recorder.listening() == ()
    after = _methods()
    changed = sorted(
        f"{owner.__name__}.{name}"
        for key in set(before) | set(after)
        if before.get(key) is not after.get(key)
        for owner, name in [key]
    )
    assert changed == [], f"left replaced: {changed}"
