"""A notebook exported to HTML by nbconvert shows the tape's graph, offline.

The real ``jupyter nbconvert --to html --execute`` runs the notebook of
tests/browser/notebook.py in a fresh kernel and writes the page an instructor
would publish. Without saved widget state (as JupyterLab saves notebooks by
default, and as ``--ExecutePreprocessor.store_widget_state=False`` exports
them) the ``%%tape`` cell's output is its static HTML copy: the graph as
inline SVG and the sources and gradients tables. The page is then opened in
headless Chromium with every request off the page refused (the CDN scripts an
nbconvert page asks for included), and the drawn graph is checked and
screenshot to $ARTIFACTS_DIR/nbconvert-static.png.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

# Imported first: it checks for Playwright and Chromium (skip, or fail when the
# run requires the browser tests) before anything else.
from tests.browser.jupyter import chromium_page, expect
from tests.browser.notebook import EXPECTED_NODES, NOTEBOOK_CELLS
from tests.browser.server import ARTIFACTS, make_notebook, private_dirs

pytestmark = [pytest.mark.browser, pytest.mark.dot]


@pytest.fixture
def exported(tmp_path):
    """The executed notebook's HTML page, as nbconvert writes it."""
    env = dict(os.environ) | private_dirs(tmp_path)
    make_notebook(tmp_path / "tape.ipynb", NOTEBOOK_CELLS)
    result = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute",
         "--ExecutePreprocessor.store_widget_state=False", "tape.ipynb"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=240,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    page = tmp_path / "tape.html"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "nbconvert-static.html").write_text(page.read_text())
    return page


def test_nbconvert_html_shows_the_graph_as_inline_svg(exported, tmp_path):
    html = exported.read_text()
    # The kernel was this venv's, and the %%tape output is the static copy.
    assert sys.prefix in html
    assert "application/vnd.jupyter.widget-view+json" not in html
    (static,) = re.findall(r'<div class="tapemagic-static">.*?</details></div>', html,
                           flags=re.S)  # fmt: skip
    (svg,) = re.findall(r"<svg.*?</svg>", static, flags=re.S)
    assert svg.count('class="node') == EXPECTED_NODES
    assert "∂ None" in svg

    with chromium_page(tmp_path / "chromium-profile", "console-nbconvert.log") as page:
        # Offline: the page's own file only; MathJax and require.js from a CDN
        # are refused, and the graph must not need them.
        page.route(
            re.compile(r"^(?!file:)"), lambda route: route.abort("internetdisconnected")
        )
        page.goto(exported.as_uri())
        view = page.locator(".jp-OutputArea-output .tapemagic-static")
        expect(view).to_have_count(1)
        drawn = view.locator("svg").first
        expect(drawn.locator("g.node")).to_have_count(EXPECTED_NODES)
        none_source = drawn.locator("g.node.tm-source.tm-unwatched", has_text="∂ None")
        expect(none_source.locator("text", has_text=re.compile("^b$"))).to_be_visible()
        expect(drawn.locator("g.node.tm-target text", has_text="loss")).to_be_visible()
        box = drawn.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 200, box
        row = view.locator("tr.tm-source-row.tm-none")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("b")
        view.scroll_into_view_if_needed()
        view.screenshot(path=str(ARTIFACTS / "nbconvert-static.png"))
