"""An instructor's edit, saved by JupyterLab, passes the course checks with no
change to any Python file.

A JupyterLab from this virtual environment, with jupytext's server extension,
serves a copy of notebooks/ on a free 127.0.0.1 port (private Jupyter and
IPython dirs). The test edits notebook 1 the way JupyterLab's editor saves it,
through the contents API (GET the notebook, change it, PUT it back): a sentence
in a markdown cell, the value a code cell computes with, and the texts that
cell's ``expect`` metadata says it prints. Saving writes the Markdown pair too;
the pair is in sync, and the edited notebook runs and passes the same checks as
the course in test_notebooks.py. The same run checked against the cell's old
``expect`` fails, so the check reads the notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.browser.server import (
    EVERY_CELL_IN_PAGE,
    NO_NEWS,
    Server,
    api,
    jupyter_server,
)

from .course import NOTEBOOK_DIR, SOURCE_DIR, check_notebook, pair_of, pairing_problems
from .runner import run_notebook

NAME = "01-gradient-tape-basics"


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab with jupytext serving a copy of notebooks/."""
    pairs = [(path, "source") for path in SOURCE_DIR.glob("*.md")]
    files = [*NOTEBOOK_DIR.glob("*.ipynb"), *pairs]
    with jupyter_server(
        "jupyterlab",
        tmp_path,
        files=files,
        settings=NO_NEWS | EVERY_CELL_IN_PAGE,  # every cell, for a browser that edits
        # jupytext's server extension (pip enables it on install; said again
        # here, so that the test does not depend on how jupytext was installed).
        server_config={
            "ServerApp": {"jpserver_extensions": {"jupyterlab_jupytext": True}}
        },
        name="server-instructor-edit",
    ) as server:
        yield server
    log = server.log.read_text()
    assert "jupytext" in log.lower(), f"jupytext did not load:\n{log}"


def _edit(nb: dict) -> None:
    """What the instructor changes, as JupyterLab's editor saves it: x = 4
    instead of 3 (so y = 24 and dy/dx = 10), the comment and the markdown that
    say so, and the texts the two printing cells expect."""
    cells = nb["cells"]
    heading = next(c for c in cells if c["source"].startswith("## Recording"))
    heading["source"] += "\n\nWith x = 4, the derivative 2x + 2 is 10."
    first = next(c for c in cells if c["source"].startswith("x = tf.Variable(3.0)"))
    first["source"] = (
        first["source"]
        .replace("tf.Variable(3.0)", "tf.Variable(4.0)")
        .replace("# 2x + 2 = 8 at x = 3", "# 2x + 2 = 10 at x = 4")
    )
    first["metadata"]["expect"] = ["y     = 24.0", "dy/dx = 10.0"]
    again = next(c for c in cells if c["metadata"].get("expect") == ["dy/dx = 8.0"])
    again["metadata"]["expect"] = ["dy/dx = 10.0"]


def check_the_saved_edit(path: Path, before: nbformat.NotebookNode, monkeypatch):
    """The pair written and in sync, only the edited cells changed, and the
    edited notebook passes the course checks, which fail with the old
    ``expect``."""
    after = nbformat.read(path, as_version=4)
    pair = pair_of(path).read_text()
    assert "x = tf.Variable(4.0)" in pair
    assert "With x = 4, the derivative 2x + 2 is 10." in pair
    assert 'expect=["y     = 24.0", "dy/dx = 10.0"]' in pair
    assert pairing_problems(path) == []
    # Only what was edited changed: same cells, same ids, still no outputs.
    assert [c.id for c in after.cells] == [c.id for c in before.cells]
    changed = [i for i, (a, b) in enumerate(zip(after.cells, before.cells)) if a != b]
    assert len(changed) == 3, changed
    assert not any(c.get("outputs") for c in after.cells)
    # A kernel that started before the save filled in language_info (the
    # Python version and such); nothing else of the notebook's metadata moves.
    assert after.metadata.language_info.name == "python"
    del after.metadata["language_info"], before.metadata["language_info"]
    assert after.metadata == before.metadata

    # The edited notebook runs and passes the course checks.
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        monkeypatch.setenv(var, str(path.parent.parent / var.lower()))
    report = run_notebook(path, timeout=180)
    numbers = check_notebook(path.stem, report)
    assert "dy/dx = 10.0\n" in "".join(cell["stdout"] for cell in report["cells"])
    assert numbers  # the notebook's numeric rules (w, b, loss) still hold

    # The same run against the expectations from before the edit fails: the
    # checks come from the notebook, not from Python.
    old = {
        i: cell.metadata.get("expect", [])
        for i, cell in enumerate(before.cells)
        if cell.cell_type == "code"
    }
    for cell in report["cells"]:
        cell["expect"] = old[cell["index"]]
    with pytest.raises(AssertionError, match=r"expected 'y     = 15\.0'"):
        check_notebook(path.stem, report)


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_an_edit_saved_through_the_contents_api_passes_the_course_checks(
    lab: Server, monkeypatch
):
    path = lab.root / f"{NAME}.ipynb"
    before = nbformat.read(path, as_version=4)
    status, model = api(f"{lab.url}/api/contents/{NAME}.ipynb?content=1", lab.token)
    assert status == 200 and model["type"] == "notebook"
    nb = model["content"]
    _edit(nb)
    status, saved = api(
        f"{lab.url}/api/contents/{NAME}.ipynb",
        lab.token,
        method="PUT",
        body={"type": "notebook", "format": "json", "content": nb},
    )
    assert status == 200 and saved["path"] == f"{NAME}.ipynb"
    check_the_saved_edit(path, before, monkeypatch)
