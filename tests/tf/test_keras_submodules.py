"""Every Keras module imports as a module under ``tapemagic.tf.keras`` (the same
objects as under ``tapemagic.keras``), and the ones tapemagic does not have yet
import too, refusing what a program uses from them with what to use instead."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_submodules_import_as_modules_under_tf_keras():
    out = _python(
        textwrap.dedent(
            """
                import tapemagic.tf.keras.layers
                import tapemagic.keras as keras
                from tapemagic.tf.keras import (
                    applications, callbacks, initializers, layers, losses, metrics,
                    models, optimizers, regularizers, utils,
                )
                import tapemagic.tf.keras.optimizers.schedules as schedules
                assert tapemagic.tf.keras is keras
                assert tapemagic.tf.keras.layers is layers is keras.layers
                assert schedules is keras.optimizers.schedules
                assert schedules.__spec__.name == "tapemagic.keras.optimizers.schedules"
                assert layers.Dense.__module__ == "tapemagic.keras.layers.core"
                for name in ("regularizers", "applications"):
                    assert getattr(keras, name) is eval(name)
                print("ok")
                """
        )
    )
    assert out.strip() == "ok"


@pytest.mark.parametrize(
    ("call", "feature"),
    [
        ("regularizers.l2(0.01)", "keras.regularizers.l2 is not in tapemagic yet"),
        ("applications.MobileNetV2()", "keras.applications.MobileNetV2 is not in"),
    ],
)
def test_a_missing_keras_module_names_the_feature_and_what_to_use(call, feature):
    from tapemagic.keras import applications, regularizers  # noqa: F401

    with pytest.raises(NotImplementedError, match=feature) as caught:
        eval(call)
    assert "tf." in str(caught.value) or "TensorFlow" in str(caught.value)
    assert not hasattr(regularizers, "__wrapped__")  # probes get AttributeError
