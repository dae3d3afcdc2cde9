"""``import tensorflow`` on tapemagic, opt-in: tapemagic.alias and
``python -m tapemagic run``. Each case runs in a fresh process, because the
alias changes what a process's imports load."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = "tapemagic: `import tensorflow` and `import keras` load tapemagic's"


def _python(code: str, *args: str, env: dict | None = None, cwd: Path | None = None):
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    if env is None:
        environment.pop("TAPEMAGIC_AS_TENSORFLOW", None)
    command = [sys.executable, *args] if not code else [sys.executable, "-c", code]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=environment,
        cwd=cwd or ROOT,
        timeout=240,
    )


def _ok(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_off_by_default_import_tensorflow_is_tensorflow():
    out = _ok(
        _python(
            textwrap.dedent(
                """
                import tapemagic.tf.keras.layers  # tapemagic's own alias finder
                import tapemagic.alias as alias
                assert not alias.alias_from_environment()  # variable unset
                import tensorflow, keras
                import tapemagic.tf, tapemagic.keras
                assert tensorflow is not tapemagic.tf and keras is not tapemagic.keras
                assert tensorflow.GradientTape.__module__.startswith("tensorflow.")
                assert keras.layers.Dense.__module__.startswith("keras.")
                print("real", tensorflow.__version__)
                """
            )
        )
    )
    assert out.startswith("real 2.21")


def test_on_import_tensorflow_and_keras_load_tapemagic_and_it_says_so_once():
    result = _python(
        textwrap.dedent(
            """
            from tapemagic.alias import alias_tensorflow, is_aliased
            alias_tensorflow()
            alias_tensorflow()  # says nothing more
            import tensorflow as tf
            from tensorflow.keras import layers
            import keras
            import tapemagic.tf, tapemagic.keras
            assert tf is tapemagic.tf and keras is tapemagic.keras
            assert layers is tapemagic.keras.layers and tf.keras is keras
            import tensorflow.keras.losses, tensorflow.math
            assert tensorflow.keras.losses is keras.losses
            assert tensorflow.math is tapemagic.tf.math
            x = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = x * x
            print(is_aliased(), float(tape.gradient(y, x)))
            try:
                import tensorflow.python.framework
            except ModuleNotFoundError as err:
                print("missing:", err)
            """
        )
    )
    out = _ok(result)
    assert out.splitlines()[0] == "True 6.0"
    assert "missing: No module named 'tensorflow.python': `import tensorflow`" in out
    assert "which has no tapemagic.tf.python" in out
    assert result.stderr.count(MESSAGE) == 1


def test_the_environment_variable_turns_it_on_only_when_1():
    code = "import tapemagic.alias as a; print(a.alias_from_environment())"
    on = _python(code, env={"TAPEMAGIC_AS_TENSORFLOW": "1"})
    off = _python(code, env={"TAPEMAGIC_AS_TENSORFLOW": "0"})
    assert _ok(on).strip() == "True" and MESSAGE in on.stderr
    assert _ok(off).strip() == "False" and MESSAGE not in off.stderr


def test_it_refuses_once_real_tensorflow_is_imported():
    result = _python(
        "import tensorflow\nfrom tapemagic.alias import alias_tensorflow\n"
        "alias_tensorflow()"
    )
    assert result.returncode == 1
    assert "RuntimeError: tensorflow is imported already" in result.stderr
    assert "Restart the kernel" in result.stderr


def test_tape_cells_with_the_alias_and_with_engine_tensorflow():
    out = _ok(
        _python(
            textwrap.dedent(
                """
                from IPython.testing import globalipapp
                from tapemagic.alias import alias_tensorflow, unalias_tensorflow
                globalipapp.start_ipython()
                ip = globalipapp.get_ipython()
                ip.extension_manager.load_extension("tapemagic")
                alias_tensorflow()
                ip.run_cell("import tensorflow as tf\\nx = tf.Variable(2.0)")
                ip.run_cell("%%tape\\ny = x * x")
                g = ip.run_cell("tape.gradient(y, x)").result
                kind = type(ip.user_ns["tape"]).__module__
                print("tapemagic engine:", kind, float(g))
                r = ip.run_cell("%%tape --engine tensorflow\\nz = x * x")
                print("refused:", type(r.error_in_exec).__name__, r.error_in_exec)
                unalias_tensorflow()
                ip.run_cell("import tensorflow as tf\\nv = tf.Variable(2.0)")
                ip.run_cell("%%tape --engine tensorflow\\nw = v * v")
                print("tensorflow engine:", type(ip.user_ns["tape"]).__name__)
                """
            )
        )
    )
    lines = out.splitlines()
    assert "tapemagic engine: tapemagic.engine.tape 4.0" in lines
    assert "tensorflow engine: RecordingTape" in lines
    assert "refused: UsageError %%tape --engine tensorflow needs real TensorFlow" in out


def test_python_m_tapemagic_runs_a_tensorflow_script_unchanged(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys

            import tensorflow as tf
            from tensorflow.keras import layers

            from helper import SCALE

            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), layers.Dense(1)])
            x = tf.constant([[1.0, 2.0]])
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x)) * SCALE
            grads = tape.gradient(loss, model.trainable_variables)
            print(tf.__name__, [tuple(g.shape) for g in grads], sys.argv[1:])
            """
        )
    )
    (tmp_path / "helper.py").write_text("SCALE = 2.0\n")
    result = _python("", "-m", "tapemagic", "run", str(script), "--epochs", "1")
    assert _ok(result).strip() == "tapemagic.tf [(2, 1), (1,)] ['--epochs', '1']"
    assert result.stderr.count(MESSAGE) == 1
    usage = _python("", "-m", "tapemagic")
    assert usage.returncode == 2 and "usage: python -m tapemagic run" in usage.stderr
    missing = _python("", "-m", "tapemagic", "run", str(tmp_path / "none.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
