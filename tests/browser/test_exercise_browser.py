"""One graded exercise worked in a real JupyterLab, as a student would.

The committed student version of ``notebooks/exercises`` opens in JupyterLab
(the server and the headless Chromium of ``test_lab_browser.py``) and runs all
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

from tests.browser import test_lab_browser
from tests.browser.test_lab_browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    Timer,
    _wait_kernel_idle,
    expect,
    sync_playwright,
)

# The JupyterLab server fixture, shared with the tape widget's browser tests.
lab = test_lab_browser.lab

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


@pytest.mark.browser
def test_an_exercise_fails_with_its_hint_then_passes_when_fixed(lab, tmp_path):
    timer = Timer("exercise")
    check, exercise = _cells()
    fixed = exercise.replace("y = w.numpy() * x", "y = w * x")
    assert fixed != exercise
    shutil.copy(STUDENT, lab.root / NAME)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    console = []
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1000},
        )
        try:
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.set_default_timeout(60_000)
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"PAGEERROR: {e}"))
            page.goto(
                f"{lab.url}/lab/workspaces/exercise/tree/{NAME}?token={lab.token}"
            )
            cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
            cells.first.wait_for()
            _wait_kernel_idle(page, NAME, "command")
            timer.lap("kernel_idle")

            # Run All: every exercise runs, unsolved; the check says why.
            ok = page.evaluate(
                f"""() => ({_BOUNDED})(window.jupyterapp.commands.execute(
                        'notebook:run-all-cells'), 'run-all-cells')"""
            )
            assert ok is True
            output = cells.nth(check).locator(".jp-OutputArea-output")
            expect(output).to_contain_text(f"{QUESTION} results:", timeout=120_000)
            expect(output).to_contain_text(HINT)
            expect(output).to_contain_text(FIX)
            # The exercise cell's tape flags w in its graph too.
            widget = cells.nth(check - 1).locator(".tapemagic-widget")
            expect(widget.locator(".tapemagic-header")).to_contain_text(
                "1 None gradient"
            )
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
            expect(widget.locator(".tapemagic-header")).not_to_contain_text(
                "None gradient"
            )
            cells.nth(check).scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "lab-exercise-passed.png"))
            timer.lap("fix_passes")
        finally:
            (ARTIFACTS / "console-exercise.log").write_text("\n".join(console))
            ctx.close()
    timer.dump()
    assert not [c for c in console if c.startswith("PAGEERROR")], console
