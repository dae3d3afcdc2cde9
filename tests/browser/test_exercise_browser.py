"""One graded exercise worked in a real JupyterLab, as a student would.

The committed student version of ``notebooks/exercises`` opens in JupyterLab
(the server of ``tests/browser/server.py``, the Chromium of ``jupyter.py``) and runs all
its cells. The first exercise's check (otter-grader's ``grader.check``) fails
with the hint tapemagic's diagnosis gives: the cause, the line and the fix.
Then the exercise cell is fixed the way the hint says, run again with its
check, and the check passes. Screenshots of both go to $ARTIFACTS_DIR.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

# Imported first: it checks for Playwright and Chromium (skip, or fail when the
# run requires the browser tests) before anything else.
from tests.browser.jupyter import (
    chromium_page,
    expect,
    run_all_cells,
    wait_kernel_idle,
)
from tests.browser.server import ARTIFACTS, Timer, jupyter_server

ROOT = Path(__file__).resolve().parents[2]
NAME = "gradient-tape-exercises.ipynb"
STUDENT = ROOT / "notebooks" / "exercises" / NAME
QUESTION = "none_gradient"
HINT = "w: None because w was converted to a NumPy array by .numpy() at line 4"
FIX = "Keep w a tensor: y = w * x."

# page.evaluate has no timeout of its own: every promise is raced against one.
_BOUNDED = """(promise, what) => Promise.race([promise, new Promise((_, no) =>
    setTimeout(() => no(new Error(what + ' did not settle in 120 s')), 120000))])"""


def _cells() -> tuple[int, str]:
    """The index of the exercise's check cell, and its exercise cell's source."""
    nb = nbformat.read(STUDENT, as_version=4)
    sources = [cell.source for cell in nb.cells]
    check = sources.index(f'grader.check("{QUESTION}")')
    return check, sources[check - 1]


def _run_cells(page, first: int, count: int) -> None:
    """Run ``count`` cells from ``first`` with JupyterLab's own command."""
    ok = page.evaluate(
        f"""([first, count]) => {{
            const bounded = {_BOUNDED};
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = first;
            let chain = Promise.resolve(true);
            for (let i = 0; i < count; i++) {{
                chain = chain.then(() => window.jupyterapp.commands.execute(
                    'notebook:run-cell-and-select-next'));
            }}
            return bounded(chain, 'running cells ' + first);
        }}""",
        [first, count],
    )
    assert ok is True


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with jupyter_server("jupyterlab", tmp_path_factory.mktemp("lab")) as server:
        yield server


@pytest.mark.browser
def test_an_exercise_fails_with_its_hint_then_passes_when_fixed(lab, tmp_path):
    timer = Timer("exercise")
    check, exercise = _cells()
    fixed = exercise.replace("y = w.numpy() * x", "y = w * x")
    assert fixed != exercise
    shutil.copy(STUDENT, lab.root / NAME)
    with chromium_page(tmp_path / "chromium-profile", "console-exercise.log") as page:
        page.goto(f"{lab.url}/lab/workspaces/exercise/tree/{NAME}?token={lab.token}")
        cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        cells.first.wait_for()
        wait_kernel_idle(page, NAME)
        timer.lap("kernel_idle")

        # Run All: every exercise runs, unsolved; the check says why.
        run_all_cells(page)
        output = cells.nth(check).locator(".jp-OutputArea-output")
        expect(output).to_contain_text(f"{QUESTION} results:", timeout=120_000)
        expect(output).to_contain_text(HINT)
        expect(output).to_contain_text(FIX)
        # The exercise cell's tape flags w in its graph too.
        widget = cells.nth(check - 1).locator(".tapemagic-widget")
        expect(widget.locator(".tapemagic-header")).to_contain_text("1 None gradient")
        cells.nth(check).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "lab-exercise-hint.png"))
        timer.lap("hint_shown")

        # The student's fix, then the exercise cell and its check again.
        page.evaluate(
            """([index, source]) => {
                const panel = window.jupyterapp.shell.currentWidget;
                panel.content.widgets[index].model.sharedModel.setSource(source);
            }""",
            [check - 1, fixed],
        )
        _run_cells(page, check - 1, 2)
        expect(output).to_contain_text(f"{QUESTION} passed!", timeout=120_000)
        expect(output).not_to_contain_text(HINT)
        expect(widget.locator(".tapemagic-header")).not_to_contain_text("None gradient")
        cells.nth(check).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "lab-exercise-passed.png"))
        timer.lap("fix_passes")
    timer.dump()
