"""The course notebooks run top to bottom and show what their text says.

Each notebook runs once, in a fresh kernel of this virtual environment, the way
"Run All" runs it (nbclient, errors allowed so every cell is checked). Cells
tagged ``raises-exception`` must raise and no other cell may; cells tagged
``expect-none`` must flag a ``None`` gradient and no other cell may. Then the
facts each notebook teaches are checked in its printed output: values the text
computes by hand, the training notebook's held-out accuracy, and so on.

With ``ARTIFACTS_DIR`` set (scripts/test.sh sets it), the executed notebooks are
saved to ``$ARTIFACTS_DIR/notebooks/`` to read.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest

from .runner import ERROR_TAG, NONE_TAG, run_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
NAMES = sorted(p.stem for p in NOTEBOOK_DIR.glob("*.ipynb"))
COURSE = [
    "01-gradient-tape-basics",
    "02-persistent-jacobians",
    "03-higher-order",
    "04-training-step",
    "05-why-is-my-gradient-none",
    "06-gradient-ascent",
    "07-keras-fit-customized",
]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _load_build():
    spec = importlib.util.spec_from_file_location(
        "course_build", NOTEBOOK_DIR / "build.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Run a notebook (once per module) and return the runner's report."""
    jupyter = tmp_path_factory.mktemp("jupyter")
    env = {
        # Fresh Jupyter and IPython dirs: no user kernelspec or profile leaks in.
        "JUPYTER_CONFIG_DIR": str(jupyter / "config"),
        "JUPYTER_DATA_DIR": str(jupyter / "data"),
        "JUPYTER_RUNTIME_DIR": str(jupyter / "runtime"),
        "IPYTHONDIR": str(jupyter / "ipython"),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }
    artifacts = os.environ.get("ARTIFACTS_DIR")
    save = Path(artifacts) / "notebooks" if artifacts else None
    reports: dict[str, dict] = {}

    def run(name: str) -> dict:
        if name not in reports:
            with pytest.MonkeyPatch.context() as mp:
                for key, value in env.items():
                    mp.setenv(key, value)
                reports[name] = run_notebook(
                    NOTEBOOK_DIR / f"{name}.ipynb", timeout=180, save=save
                )
            if save is not None:
                timings = save / "timings.json"
                known = json.loads(timings.read_text()) if timings.exists() else {}
                known[name] = round(reports[name]["seconds"], 2)
                timings.write_text(json.dumps(known, indent=1, sort_keys=True))
        return reports[name]

    return run


def _stdout(report: dict) -> str:
    return "".join(cell["stdout"] for cell in report["cells"])


def _number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match is not None, f"no line matching {pattern!r} in:\n{text}"
    return float(match.group(1))


def _is_tape_cell(cell: dict) -> bool:
    return cell["source"].lstrip().startswith("%%tape")


# -- the stored notebooks ----------------------------------------------------


def test_the_course_has_its_seven_notebooks():
    assert NAMES == COURSE


@pytest.mark.parametrize("name", COURSE)
def test_stored_notebook_is_what_build_py_writes_without_outputs(name):
    build = _load_build()
    path = NOTEBOOK_DIR / f"{name}.ipynb"
    assert path.read_text() == nbformat.writes(build.build(name)) + "\n", (
        f"{path.name} differs from notebooks/build.py: run "
        ".venv/bin/python notebooks/build.py"
    )
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


@pytest.mark.parametrize("name", COURSE)
def test_every_notebook_uses_the_tf_api_and_tape_cells(name):
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    code = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    assert "%load_ext tapemagic" in code[0]
    assert "import tapemagic.tf as tf" in code[0]
    assert any(source.startswith("%%tape") for source in code)
    # Course code is TensorFlow code: nothing reaches into tapemagic's internals.
    body = "\n".join(code[1:])
    assert "tapemagic." not in body and "import tapemagic" not in body


def test_tape_cells_convert_to_plain_tensorflow():
    build = _load_build()
    cell = "%%tape --persistent --no-watch-accessed --watch x --target y --sources x,b"
    assert build.tape_cell_as_tensorflow(f"{cell}\ny = x * b\nz = y**2") == (
        "with tf.GradientTape(persistent=True, watch_accessed_variables=False)"
        " as tape:\n"
        "    tape.watch([x])\n"
        "    y = x * b\n"
        "    z = y**2\n"
        "grads = tape.gradient(y, [x, b])"
    )
    cell = "%%tape --name outer --target f --sources p --out g --unconnected zero"
    assert build.tape_cell_as_tensorflow(f"{cell}\nf = p * 2") == (
        "with tf.GradientTape() as outer:\n"
        "    f = p * 2\n"
        "g = outer.gradient(f, p, unconnected_gradients=tf.UnconnectedGradients.ZERO)"
    )


@pytest.mark.parametrize("name", COURSE)
def test_tensorflow_version_of_a_notebook_has_no_tapemagic(name):
    build = _load_build()
    nb = build.build(name)
    converted = build.as_tensorflow(nb)
    code = [c.source for c in converted.cells if c.cell_type == "code"]
    assert len(code) == len([c for c in nb.cells if c.cell_type == "code"])
    assert code[0] == "import tensorflow as tf"
    assert not any("%%tape" in source or "tapemagic" in source for source in code)
    assert nb.cells[0].source == converted.cells[0].source  # markdown untouched


# -- running them -------------------------------------------------------------


def check_cells(name: str, report: dict) -> None:
    """Errors, stderr and None flags exactly where the tags say; tapes shown."""
    for cell in report["cells"]:
        where = f"{name} cell {cell['index']}:\n{cell['source']}\n---\n{cell['text']}"
        if ERROR_TAG in cell["tags"]:
            assert cell["errors"], f"expected an exception in {where}"
        else:
            assert not cell["errors"], f"unexpected error in {where}"
            if NONE_TAG not in cell["tags"]:
                assert not cell["stderr"], f"unexpected stderr in {where}"
        if NONE_TAG in cell["tags"]:
            assert cell["nones"], f"expected a None gradient to be flagged in {where}"
        else:
            assert not cell["nones"], (
                f"unexpected None gradient {cell['nones']} flagged in {where}"
            )
        if _is_tape_cell(cell):
            # The widget, with the static HTML (its drawing and tables) beside it
            # for viewers without a kernel; the flag shows in both.
            assert WIDGET_MIME in cell["mimes"], f"no widget under {where}"
            assert "<svg" in cell["html"], f"no drawing under {where}"
            flagged = "None gradient" in cell["html"]
            assert flagged == (NONE_TAG in cell["tags"]), (
                f"the view {'flags' if flagged else 'does not flag'} a None in {where}"
            )


@pytest.mark.parametrize("name", COURSE)
def test_notebook_runs_top_to_bottom_with_flags_where_expected(executed, name):
    report = executed(name)
    assert report["prefix"] == sys.prefix, "the kernel ran another Python"
    check_cells(name, report)


# -- what each notebook teaches --------------------------------------------------


def check_01(report: dict) -> None:
    out = _stdout(report)
    assert "dy/dx = 8.0" in out  # 2x + 2 at x = 3
    assert "dy/dc = 6.0" in out  # 2c at c = 3, once c is watched
    assert "d y / d frozen: None" in out
    assert "d y / d a: 2.0   d y / d b: None" in out
    assert "d loss / d w matches x^T y: True" in out
    # loss 17 at w = b = 0; gradients -20 and -6; after one step of 0.05: 2.49
    assert "gradients: dw = -20.0, db = -6.0" in out
    assert "loss before the step: 17.00" in out
    assert "loss after the step:  2.49" in out
    assert _number(r"w = (-?[\d.]+), b", out) == pytest.approx(2.0, abs=1e-3)
    assert _number(r"b = (-?[\d.]+), loss", out) == pytest.approx(-1.0, abs=1e-3)


def check_02(report: dict) -> None:
    out = _stdout(report)
    assert "RuntimeError: A non-persistent GradientTape" in out
    assert "dz/dx = 12.0" in out and "d(y + z)/dx = 16.0" in out
    assert "gradient(y, x)      = [2. 4. 6.]" in out
    assert "d y[0] / d x = [2. 0. 0.]" in out
    assert "jacobian(y, x): shape (2, 3) \n [[1. 2. 3.]\n [4. 5. 6.]]" in out
    assert "jacobian(y, W) shape: (2, 2, 3)" in out
    assert "jacobian:       (4, 2, 4, 3)" in out
    assert "batch_jacobian: (4, 2, 3)" in out
    assert out.count(": True") == 3 and ": False" not in out


def check_03(report: dict) -> None:
    out = _stdout(report)
    assert "d2y/dx2 = 6.0" in out
    assert "first, second, third derivative: 32.0 48.0 48.0" in out  # x**4 at 2
    tapes = out.split("Hessian from the tapes:\n")[1].split("Hessian by hand")[0]
    by_hand = out.split("Hessian by hand:\n")[1].split("step 0")[0]
    assert tapes.strip() == by_hand.strip() == "[[1330.  480.]\n [ 480.  200.]]"
    assert "Newton's method ends at [1. 1.]" in out


def check_04(report: dict) -> None:
    out = _stdout(report)
    assert _number(r"Held-out accuracy: ([\d.]+)", out) >= 0.90
    # The step under %%tape: one gradient per trainable weight, same shapes.
    shapes = re.findall(r"weight (\(.*?\))  gradient (\(.*?\))", out)
    assert len(shapes) == 4 and all(w == g for w, g in shapes)
    assert re.search(r"Trained 15 epochs \(\d+ steps\) in [\d.]+ s", out)


def check_05(report: dict) -> None:
    cells = report["cells"]
    flagged = [i for i, cell in enumerate(cells) if NONE_TAG in cell["tags"]]
    assert len(flagged) >= 10
    for i in flagged:
        assert _is_tape_cell(cells[i])
        # Each None is explained under its cell: the cause, then the fix.
        assert re.search(r"None because .*\n\s*-> \S", cells[i]["text"])
        # The corrected cell follows (after a plain cell where the fix needs one).
        fixed = next(c for c in cells[i + 1 :] if _is_tape_cell(c))
        assert not fixed["nones"] and not fixed["errors"]
    raised = [cell for cell in cells if ERROR_TAG in cell["tags"]]
    assert [cell["errors"] for cell in raised] == [["RuntimeError"]]
    out = _stdout(report)
    assert "asked again: 24.6" in out
    # tape.explain() gives the first bug's explanation as text.
    assert out.startswith("x: None because x is a plain tensor")


def check_06(report: dict) -> None:
    out = _stdout(report)
    assert _number(r"Held-out accuracy: ([\d.]+)", out) >= 0.90
    assert "gradient shape: (1, 8, 8, 1)" in out
    # Only the image was watched, not the model's weights.
    assert "variables this tape watched: [(1, 8, 8, 1)]" in out
    start = _number(r"P\(digit 3\): ([\d.]+) at the start", out)
    end = _number(r"at the start, ([\d.]+) after", out)
    assert end > 0.9 and end > start
    assert "weights unchanged: True" in out
    assert _number(r"over the ten digits: ([\d.]+)", out) > 0.9


def check_07(report: dict) -> None:
    out = _stdout(report)
    # What TensorFlow 2.21 prints for the same cells (the --tensorflow build).
    spec = (
        "(TensorSpec(shape=(None, 8, 8, 1), dtype=tf.float32, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int32, name=None))"
    )
    assert spec in out
    assert "batches per epoch: 22" in out
    assert "(64, 8, 8, 1) <dtype: 'float32'> (64,) <dtype: 'int32'>" in out
    assert "metrics: ['loss', 'compile_metrics']" in out
    assert (
        "trainable: ['conv/kernel', 'conv/bias', 'bn/gamma', 'bn/beta', "
        "'logits/kernel', 'logits/bias']" in out
    )
    assert "non-trainable: ['bn/moving_mean', 'bn/moving_variance']" in out
    assert "bn/gamma       gradient (16,)" in out
    assert "logits/kernel  gradient (576, 10)" in out
    # BatchNormalization cancels a constant shift: the bias before it learns nothing.
    assert _number(r"size of the conv/bias gradient: ([\d.e+-]+)", out) < 1e-4
    assert "['accuracy', 'loss', 'val_accuracy', 'val_loss']" in out
    assert out.count("22/22 - ") == 5  # fit's verbose=2 line, once per epoch
    assert _number(r"Held-out accuracy: ([\d.]+)", out) >= 0.9
    # The moving averages moved away from their initial zeros.
    moving = re.search(r"first 4 channels: \[([^\]]*)\]", out)
    assert moving is not None and any(float(v) != 0 for v in moving.group(1).split())
    assert "modes differ: True" in out
    assert "(1, 6, 6, 16)" in out


FACTS = dict(
    zip(COURSE, [check_01, check_02, check_03, check_04, check_05, check_06, check_07])
)


@pytest.mark.parametrize("name", COURSE)
def test_notebook_output_shows_what_its_text_says(executed, name, record_property):
    report = executed(name)
    record_property("seconds", round(report["seconds"], 2))
    if name == "04-training-step":
        out = _stdout(report)
        record_property("accuracy", _number(r"Held-out accuracy: ([\d.]+)", out))
        record_property("training_seconds", _number(r"steps\) in ([\d.]+) s", out))
    FACTS[name](report)


# -- the same course on TensorFlow ----------------------------------------------

# What a run prints that depends on training or on the machine: the numbers a
# float format writes, fit's timings, and a count of right answers.
_RUN_DEPENDENT = re.compile(
    r"\s*-?\d+(?:\.\d*)?e[-+]?\d+|\s*-?\d+\.\d*|\d+m?s(?:/step)?|\(\d+ of \d+\)"
)


def _comparable(stdout: str) -> list[str]:
    """A cell's printed lines as they can be compared between the engines."""
    lines = []
    for line in stdout.splitlines():
        if line.startswith("WARNING:tensorflow:"):
            continue  # TensorFlow's own log (tf.function retracing notices)
        lines.append(_RUN_DEPENDENT.sub("#", line))
    return lines


@pytest.fixture(scope="module")
def on_tensorflow(tmp_path_factory):
    """The --tensorflow build of the course, run on TensorFlow (the test extra
    installs it: its absence fails here, never skips)."""
    import tensorflow  # noqa: F401

    folder = tmp_path_factory.mktemp("tensorflow-course")
    assert _load_build().main(["--tensorflow", str(folder)]) == 0
    reports: dict[str, dict] = {}

    def run(name: str) -> dict:
        if name not in reports:
            reports[name] = run_notebook(folder / f"{name}.ipynb", timeout=300)
        return reports[name]

    return run


# Notebook 5 prints tape.explain(), which is tapemagic's own.
ON_TENSORFLOW = [name for name in COURSE if name != "05-why-is-my-gradient-none"]


@pytest.mark.parametrize("name", ON_TENSORFLOW)
def test_tensorflow_build_prints_what_tapemagic_prints(executed, on_tensorflow, name):
    """Each cell prints the same lines on TensorFlow 2.21 as on tapemagic, up to
    the numbers training produces. Where TensorFlow's error message is a prefix
    of tapemagic's line, tapemagic's goes on to say what to do."""
    ours, theirs = executed(name), on_tensorflow(name)
    assert len(theirs["cells"]) == len(ours["cells"])
    for mine, tf_cell in zip(ours["cells"], theirs["cells"]):
        assert bool(mine["errors"]) == bool(tf_cell["errors"]), (
            f"{name} cell {mine['index']}: errors differ:\n{mine['source']}\n"
            f"tapemagic: {mine['errors']}\nTensorFlow: {tf_cell['errors']}"
        )
        a, b = _comparable(mine["stdout"]), _comparable(tf_cell["stdout"])
        assert len(a) == len(b) and all(
            x == y or x.startswith(y) for x, y in zip(a, b)
        ), (
            f"{name} cell {mine['index']} prints differently:\n{mine['source']}\n"
            "--- tapemagic\n" + "\n".join(a) + "\n--- TensorFlow\n" + "\n".join(b)
        )
