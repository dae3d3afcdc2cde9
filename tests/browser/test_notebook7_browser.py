"""A %%tape cell run in Notebook 7, seen in a real headless Chromium.

Notebook 7 (the ``notebook`` package) is the classic one-document interface
rebuilt on JupyterLab's components; its widget manager is the same, its page,
shell and keyboard handling are its own. A Notebook 7 server from this venv
(tests/browser/server.py) serves the notebook of tests/browser/notebook.py;
Chromium opens it at /notebooks/, runs all cells, and checks what
test_lab_browser.py checks in JupyterLab: the tape widget and its graphviz
``<svg>`` with b's gradient flagged None, the step slider's round trip through
the kernel, and the Sources tab. Screenshots go to $ARTIFACTS_DIR (default
./artifacts) as notebook7-*.png.
"""

from __future__ import annotations

import sys

import pytest

# Imported first: it checks for Playwright and Chromium (skip, or fail when the
# run requires the browser tests) before anything else.
from tests.browser.jupyter import (
    WIDGET_SELECTOR,
    check_sources_tab,
    check_step_slider,
    check_tape_graph,
    chromium_page,
    expect,
    run_all_cells,
    wait_kernel_ready,
)
from tests.browser.notebook import NOTEBOOK_CELLS
from tests.browser.server import ARTIFACTS, Timer, jupyter_server, make_notebook

# Notebook 7.6's keyboard-shortcuts plugin raises this on every page, with no
# notebook open as well: a race in its settings registry (jupyter/notebook#7862).
NOTEBOOK7_OWN_ERRORS = ("Cannot read properties of undefined (reading 'schema')",)


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory):
    with jupyter_server("notebook", tmp_path_factory.mktemp("nb7")) as server:
        yield server


@pytest.mark.browser
def test_tape_widget_renders_in_notebook7(notebook7, tmp_path):
    timer = Timer("notebook7-widget")
    make_notebook(notebook7.root / "tape.ipynb", NOTEBOOK_CELLS)
    with chromium_page(
        tmp_path / "chromium-profile", "console-notebook7.log", NOTEBOOK7_OWN_ERRORS
    ) as page:
        timer.lap("browser_launch")
        page.goto(f"{notebook7.url}/notebooks/tape.ipynb?token={notebook7.token}")
        # Notebook 7's own page: one document, no JupyterLab shell around it.
        expect(page.locator("#main-panel .jp-NotebookPanel")).to_have_count(1)
        expect(page.locator(".jp-LabShell")).to_have_count(0)
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
        timer.lap("notebook_loaded")
        wait_kernel_ready(page)
        timer.lap("kernel_idle")

        run_all_cells(page)
        widget = page.locator(WIDGET_SELECTOR)
        widget.locator("svg").first.wait_for(state="visible", timeout=120_000)
        timer.lap("run_all_to_svg")

        svg = check_tape_graph(page, widget, "tapemagic")
        # The first cell printed the venv prefix: the kernel is ours.
        expect(page.locator(".jp-OutputArea-output").first).to_contain_text(sys.prefix)
        widget.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "notebook7-tape.png"))
        widget.screenshot(path=str(ARTIFACTS / "notebook7-widget-graph.png"))
        timer.lap("graph_checked")

        check_step_slider(page, widget, svg)
        widget.screenshot(path=str(ARTIFACTS / "notebook7-widget-step.png"))
        timer.lap("slider_round_trip")

        check_sources_tab(widget)
        widget.screenshot(path=str(ARTIFACTS / "notebook7-widget-sources.png"))
        timer.lap("sources_tab")
    timer.lap("browser_close")
    timer.dump()
