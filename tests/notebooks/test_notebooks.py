"""The course notebooks run top to bottom and show what their cells say.

The notebooks in notebooks/ are the source (edited in JupyterLab, stored
without outputs), each paired by jupytext with a Markdown file for review;
everything checked here is read from them. Each notebook runs once, in a fresh
kernel of this virtual environment, the way "Run All" runs it (nbclient, errors
allowed so every cell is checked). Cells tagged ``raises-exception`` must raise
and no other cell may; cells tagged ``expect-none`` must flag a ``None``
gradient and no other cell may; a cell's ``expect`` metadata lists the texts
it must show (tests/notebooks/expectations.py). Then the TensorFlow version of
each notebook (notebooks/source/to_tensorflow.py) runs on TensorFlow and must print what
tapemagic prints.

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

from .course import (
    NOTEBOOK_DIR,
    SOURCE_DIR,
    check_notebook,
    course_notebooks,
    load_converter,
    pairing_problems,
)
from .runner import run_notebook

NAMES = [path.stem for path in course_notebooks()]


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


# -- the stored notebooks ----------------------------------------------------


def test_the_course_has_notebooks_directly_in_notebooks_folder():
    assert NAMES, f"no course notebook (*.ipynb) in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_and_its_markdown_pair_are_in_sync(name):
    problems = pairing_problems(NOTEBOOK_DIR / f"{name}.ipynb")
    assert not problems, "\n".join(problems)


def test_the_course_folder_shows_each_notebook_once():
    # What JupyterLab's file browser lists in notebooks/: the course notebooks
    # and two folders, the exercises and the sources (the Markdown pairs, the
    # authors' README, the TensorFlow converter). jupytext's options for the
    # pairs live in each notebook's metadata, so no config file sits there.
    shown = sorted(p.name for p in NOTEBOOK_DIR.iterdir() if not p.name.startswith("."))
    assert shown == sorted(
        [*(f"{name}.ipynb" for name in NAMES), "exercises", "source"]
    )


def test_every_paired_markdown_file_has_its_notebook():
    for text in [*NOTEBOOK_DIR.glob("*.md"), *SOURCE_DIR.glob("*.md")]:
        if "\n  jupytext:\n" in text.read_text().split("\n---\n")[0]:
            assert (NOTEBOOK_DIR / f"{text.stem}.ipynb").exists(), (
                f"{text.name} is a jupytext pair without its notebook: run "
                f"`jupytext --sync {text.relative_to(NOTEBOOK_DIR.parent)}` "
                "(or delete it)"
            )


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_stored_without_outputs(name):
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    with_outputs = [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count)
    ]
    assert code and not with_outputs, (
        f"{name}.ipynb is stored with outputs (cells {with_outputs}): in JupyterLab "
        "Edit > Clear Outputs of All Cells, then save"
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_notebook_uses_the_tf_api_and_tape_cells(name):
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    code = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    assert "%load_ext tapemagic" in code[0]
    assert "import tapemagic.tf as tf" in code[0]
    assert any(source.startswith("%%tape") for source in code)
    # Course code is TensorFlow code: nothing reaches into tapemagic's internals.
    body = "\n".join(code[1:])
    assert "tapemagic." not in body and "import tapemagic" not in body


@pytest.mark.parametrize("name", NAMES)
def test_every_notebook_says_what_its_cells_show(name):
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    assert any(cell.metadata.get("expect") for cell in nb.cells), (
        f"{name}.ipynb: no cell has 'expect' metadata, so nothing checks what it "
        "prints; add the texts a cell must show (see notebooks/source/README.md)"
    )


def test_tape_cells_convert_to_plain_tensorflow():
    convert = load_converter().tape_cell_as_tensorflow
    cell = "%%tape --persistent --no-watch-accessed --watch x --target y --sources x,b"
    assert convert(f"{cell}\ny = x * b\nz = y**2") == (
        "with tf.GradientTape(persistent=True, watch_accessed_variables=False)"
        " as tape:\n"
        "    tape.watch([x])\n"
        "    y = x * b\n"
        "    z = y**2\n"
        "grads = tape.gradient(y, [x, b])"
    )
    cell = "%%tape --name outer --target f --sources p --out g --unconnected zero"
    assert convert(f"{cell}\nf = p * 2") == (
        "with tf.GradientTape() as outer:\n"
        "    f = p * 2\n"
        "g = outer.gradient(f, p, unconnected_gradients=tf.UnconnectedGradients.ZERO)"
    )
    with pytest.raises(ValueError, match="--frobnicate.*tapemagic-only"):
        convert("%%tape --frobnicate --target y --sources x\ny = x")


@pytest.mark.parametrize("name", NAMES)
def test_tensorflow_version_of_a_notebook_has_no_tapemagic(name):
    converter = load_converter()
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    converted = converter.as_tensorflow(nb)
    code = [c for c in converted.cells if c.cell_type == "code"]
    assert len(code) == len([c for c in nb.cells if c.cell_type == "code"])
    assert code[0].source.splitlines()[0] == "import tensorflow as tf"
    for cell in code:
        if converter.ONLY_TAG in cell.metadata.get("tags", []):
            # Kept as comments: nothing of it runs.
            assert all(line.startswith("#") for line in cell.source.splitlines())
        else:
            assert "%%tape" not in cell.source and "tapemagic" not in cell.source
    assert [c.source for c in nb.cells if c.cell_type == "markdown"] == [
        c.source for c in converted.cells if c.cell_type == "markdown"
    ]


def test_no_file_beside_the_notebooks_shadows_an_installed_module():
    # A kernel started in notebooks/ imports from there first: a tensorflow.py
    # there would be what `import tensorflow as tf` gets.
    shadowing = [
        path.name
        for path in NOTEBOOK_DIR.glob("*.py")
        if importlib.util.find_spec(path.stem) is not None
    ]
    assert not shadowing, f"rename {shadowing}: a notebook's import would get it"


def test_tensorflow_command_writes_every_notebook(tmp_path):
    assert load_converter().main([str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.ipynb")) == NAMES
    nb = nbformat.read(tmp_path / f"{NAMES[0]}.ipynb", as_version=4)
    nbformat.validate(nb)
    assert "jupytext" not in nb.metadata  # a copy to run, not a pair


# -- running them -------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_and_shows_what_its_cells_say(executed, name, record_property):
    report = executed(name)
    assert report["prefix"] == sys.prefix, "the kernel ran another Python"
    record_property("seconds", round(report["seconds"], 2))
    for expectation, numbers in check_notebook(name, report).items():
        record_property(expectation, numbers)


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
    """The TensorFlow build of the course (notebooks/source/to_tensorflow.py), run on
    TensorFlow (the test extra
    installs it: its absence fails here, never skips)."""
    import tensorflow  # noqa: F401

    folder = tmp_path_factory.mktemp("tensorflow-course")
    assert load_converter().main([str(folder)]) == 0
    reports: dict[str, dict] = {}

    def run(name: str) -> dict:
        if name not in reports:
            reports[name] = run_notebook(folder / f"{name}.ipynb", timeout=300)
        return reports[name]

    return run


@pytest.mark.parametrize("name", NAMES)
def test_tensorflow_build_prints_what_tapemagic_prints(executed, on_tensorflow, name):
    """Each cell prints the same lines on TensorFlow 2.21 as on tapemagic, up to
    the numbers training produces, except the cells tagged ``tapemagic-only``
    (such as ``tape.explain()``), which the TensorFlow build keeps as comments.
    Where TensorFlow's error message is a prefix of tapemagic's line,
    tapemagic's goes on to say what to do."""
    ours, theirs = executed(name), on_tensorflow(name)
    only = load_converter().ONLY_TAG
    assert len(theirs["cells"]) == len(ours["cells"])
    for mine, tf_cell in zip(ours["cells"], theirs["cells"]):
        if only in mine["tags"]:
            assert not tf_cell["stdout"] and not tf_cell["errors"]
            continue
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


_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)


@pytest.mark.parametrize("name", NAMES)
def test_no_node_label_reaches_past_its_node(executed, name):
    """Every %%tape drawing of the course, as its static HTML holds it: each
    node text, measured in the fonts a browser here draws, inside its node."""
    from tests.viz.svg_boxes import overflows

    svgs = [
        svg for cell in executed(name)["cells"] for svg in _SVG.findall(cell["html"])
    ]
    assert svgs, "a course notebook draws its tapes"
    found = [problem for svg in svgs for problem in overflows(svg)]
    assert found == []
