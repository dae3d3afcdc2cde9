"""Each course notebook runs in a real JupyterLab, in headless Chromium.

A JupyterLab from this virtual environment serves a copy of notebooks/ on a free
127.0.0.1 port (private Jupyter and IPython dirs, everything that would reach
the network switched off). Playwright drives Debian's /usr/bin/chromium: for
each notebook it opens the page, waits for the kernel, runs all cells, and
checks what a student sees: one tape widget with its graphviz drawing under
every ``%%tape`` cell, no "Error displaying widget", and a traceback only under
the cells tagged ``raises-exception``. A screenshot of one graph per notebook
goes to ``$ARTIFACTS_DIR/course/`` (default ``artifacts/course/``).

The server and the page are those of tests/browser/server.py and
tests/browser/jupyter.py: the kernel's real idle state is read from the status
bar, ``page.evaluate`` is bounded in JavaScript, and the server is shut down
through its REST API, with any kernel left over killed by PID.
"""

from __future__ import annotations

import json
import re
import time

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
from tests.browser.server import (
    ARTIFACTS,
    EVERY_CELL_IN_PAGE,
    NO_NEWS,
    Server,
    jupyter_server,
)

from .course import NOTEBOOK_DIR, course_notebooks
from .runner import ERROR_TAG

COURSE = [path.stem for path in course_notebooks()]

SHOTS = ARTIFACTS / "course"
WIDGET = ".jp-OutputArea-output .tapemagic-widget"
# Which %%tape cell's graph each notebook's screenshot shows (0 = the first).
SHOT = {
    "01-gradient-tape-basics": 0,
    "02-persistent-jacobians": 1,
    "03-higher-order": 0,
    "04-training-step": 0,
    "05-why-is-my-gradient-none": 0,
    "06-gradient-ascent": 0,
    "07-keras-fit-customized": 0,
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab serving a copy of the notebooks, every cell kept in the page
    (so that every widget can be counted)."""
    with jupyter_server(
        "jupyterlab",
        tmp_path_factory.mktemp("lab"),
        files=[NOTEBOOK_DIR / f"{name}.ipynb" for name in COURSE],
        settings=NO_NEWS | EVERY_CELL_IN_PAGE,
        name="server-course",
    ) as server:
        yield server


def _expected(name: str) -> tuple[int, int, int]:
    """How many code cells, %%tape cells that show a view, and cells that raise."""
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    tapes = [
        c
        for c in code
        if c.source.startswith("%%tape")
        and not re.search(r"--quiet|--show[ =](none|text)", c.source.splitlines()[0])
    ]
    raising = [c for c in code if ERROR_TAG in c.metadata.get("tags", [])]
    return len(code), len(tapes), len(raising)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(400)
@pytest.mark.parametrize("name", COURSE)
def test_notebook_runs_in_jupyterlab(lab: Server, name, tmp_path):
    cells, tapes, raising = _expected(name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    console = f"course/{name}-console.log"
    with chromium_page(tmp_path / "chromium-profile", console) as page:
        # One workspace per notebook: no tabs left over from another test.
        page.goto(
            f"{lab.url}/lab/workspaces/{name}/tree/{name}.ipynb?token={lab.token}"
        )
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
        wait_kernel_idle(page, f"{name}.ipynb")

        started = time.monotonic()
        # The raises-exception tag lets the cells after a raising one run.
        run_all_cells(page, seconds=300, cells_may_raise=bool(raising))
        wait_kernel_idle(page, f"{name}.ipynb")
        seconds = time.monotonic() - started
        prompts = page.locator(".jp-CodeCell .jp-InputPrompt")
        expect(prompts).to_have_count(cells)
        expect(prompts.filter(has_text=re.compile(r"\[\d+\]"))).to_have_count(cells)

        widgets = page.locator(WIDGET)
        expect(widgets).to_have_count(tapes, timeout=60_000)
        for i in range(tapes):
            expect(widgets.nth(i).locator("svg g.node").first).to_be_attached()
        expect(page.get_by_text("Error displaying widget")).to_have_count(0)
        tracebacks = page.locator(".jp-OutputArea-output").filter(
            has_text=re.compile(r"Traceback \(most recent call last\)")
        )
        expect(tracebacks).to_have_count(raising)

        shot = widgets.nth(SHOT.get(name, 0))
        svg = shot.locator("svg").first
        svg_box = svg.bounding_box()
        assert svg_box and svg_box["width"] > 100 and svg_box["height"] > 50
        # A window tall enough for the whole widget, so that the screenshot
        # is not cut at the bottom or covered by the notebook's toolbar.
        height = shot.bounding_box()["height"]
        page.set_viewport_size({"width": 1280, "height": int(height) + 400})
        shot.scroll_into_view_if_needed()
        expect(svg).to_be_visible()
        shot.screenshot(path=str(SHOTS / f"{name}.png"))
        (SHOTS / f"{name}.json").write_text(
            json.dumps({"run_all_seconds": round(seconds, 1), "widgets": tapes})
        )
