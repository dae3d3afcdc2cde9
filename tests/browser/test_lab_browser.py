"""A %%tape cell run in a real JupyterLab, seen in a real headless Chromium.

A JupyterLab server from this venv (tests/browser/server.py) serves a notebook
with a ``%%tape`` cell; Chromium opens it, runs all cells, and waits for the
tapemagic widget and the graphviz ``<svg>`` drawn inside it by the browser's
widget manager. It checks the number of nodes, the source whose gradient is
None (in the graph and in the Sources tab), and that the step slider replays
the backward sweep through the kernel. The same notebook runs on tapemagic's
engine and on real TensorFlow (``import tensorflow as tf``: the TensorFlow
recorder feeds the same widget). Screenshots go to $ARTIFACTS_DIR (default
./artifacts).

Environment knobs:
  CHROMIUM_PATH        browser binary (default /usr/bin/chromium)
  E2E_REQUIRE_BROWSER  "1": fail instead of skip when Playwright or the browser
                       is missing (tests/browser/requirement.py)
  ARTIFACTS_DIR        where screenshots and logs go (default ./artifacts)
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
    wait_kernel_idle,
)
from tests.browser.notebook import CELLS
from tests.browser.server import ARTIFACTS, Timer, jupyter_server, make_notebook


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with jupyter_server("jupyterlab", tmp_path_factory.mktemp("lab")) as server:
        yield server


# Screenshot names per engine (the engine's keep their names).
SHOTS = {"tapemagic": "tape", "tensorflow": "tape-tensorflow"}


@pytest.mark.browser
@pytest.mark.parametrize("engine", sorted(CELLS))
def test_tape_widget_renders_in_jupyterlab(lab, tmp_path, engine):
    shot = SHOTS[engine]
    timer = Timer(f"{shot}-widget")
    nb_name = f"{shot}.ipynb"
    make_notebook(lab.root / nb_name, CELLS[engine])
    with chromium_page(tmp_path / "chromium-profile", f"console-{shot}.log") as page:
        timer.lap("browser_launch")
        page.goto(f"{lab.url}/lab/workspaces/{shot}/tree/{nb_name}?token={lab.token}")
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
        timer.lap("lab_loaded")
        wait_kernel_idle(page, nb_name)
        timer.lap("kernel_idle")

        run_all_cells(page)
        widget = page.locator(WIDGET_SELECTOR)
        widget.locator("svg").first.wait_for(state="visible", timeout=120_000)
        timer.lap("run_all_to_svg")

        svg = check_tape_graph(page, widget, engine)
        # The first cell printed the venv prefix: the kernel is ours.
        expect(page.locator(".jp-OutputArea-output").first).to_contain_text(sys.prefix)
        widget.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"lab-{shot}.png"))
        widget.screenshot(path=str(ARTIFACTS / f"widget-{shot}-graph.png"))
        timer.lap("graph_checked")

        check_step_slider(page, widget, svg)
        widget.screenshot(path=str(ARTIFACTS / f"widget-{shot}-step.png"))
        timer.lap("slider_round_trip")

        check_sources_tab(widget)
        widget.screenshot(path=str(ARTIFACTS / f"widget-{shot}-sources.png"))
        timer.lap("sources_tab")
    timer.lap("browser_close")
    timer.dump()
