"""The documentation site as a reader sees it, in headless Chromium, offline.

The site is the one ``bash scripts/docs.sh`` built into docs/_build/html
(scripts/test.sh builds it before pytest); when it is missing, the test builds
it into a temporary folder the same way. Every request that leaves the site's
files is refused: the pages must work offline, as the course does. The test
checks that the cause catalogue lists every cause code, that a cause page is
reached from it by its code and shows its example's finding, executed at build
time with the code at its end, that a course notebook's page holds the graph its
``%%tape`` cell drew (an SVG, executed at build time), and that Getting
started shows its cells' outputs. Screenshots go to $ARTIFACTS_DIR
(``site-causes.png``, ``site-cause-page.png``, ``site-course.png``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# Imported first: it checks for Playwright and Chromium (skip, or fail when the
# run requires the browser tests) before anything else.
from tests.browser.jupyter import chromium_page, expect
from tests.browser.server import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.dot, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "docs" / "_build" / "html"
COURSE_PAGE = "course/05-why-is-my-gradient-none.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built site: scripts/docs.sh's, or one built here when it is missing."""
    if (BUILT / "index.html").exists():
        return BUILT
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q"]
        + ["-b", "html", str(ROOT / "docs"), str(out)],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _offline(page) -> None:
    page.route(
        re.compile(r"^(?!file:)"), lambda route: route.abort("internetdisconnected")
    )


@pytest.mark.timeout(1200)
def test_a_reader_finds_every_cause_and_the_course_graphs(site, tmp_path):
    import tapemagic.graph.causes  # noqa: F401  (declares every cause)
    from tapemagic.graph.cause import REGISTRY

    with chromium_page(tmp_path / "chromium-profile", "console-site.log") as page:
        _offline(page)

        # The catalogue: one row per declared cause, each a link to its page.
        page.goto((site / "causes" / "index.html").as_uri())
        expect(page.locator("h1")).to_contain_text("The cause catalogue")
        listed = page.locator("article table td:first-child a code")
        expect(listed).to_have_count(len(REGISTRY))
        codes = sorted(c.code for c in REGISTRY.values())
        assert sorted(listed.all_inner_texts()) == codes
        page.screenshot(path=str(ARTIFACTS / "site-causes.png"), full_page=True)

        # A cause page, reached by its code: its meaning, and its example as
        # executed when the site was built, whose finding ends with the code.
        cause = REGISTRY["not_watched"]
        page.locator("article table a", has_text=cause.code).first.click()
        expect(page).to_have_url(re.compile(rf"causes/{cause.code}\.html$"))
        expect(page.locator("h1")).to_contain_text(cause.code)
        expect(page.locator("article")).to_contain_text(cause.doc[1:])
        output = page.locator(".cell_output", has_text=f"[{cause.code}]")
        expect(output.first).to_contain_text("c: None because")
        page.screenshot(path=str(ARTIFACTS / "site-cause-page.png"), full_page=True)

        # A course notebook, executed when the site was built: the first
        # %%tape cell's graph is drawn, x flagged as never watched.
        page.goto((site / COURSE_PAGE).as_uri())
        graphs = page.locator(".tapemagic-static svg")
        assert graphs.count() >= 10, "a %%tape cell of notebook 5 shows no graph"
        first = graphs.first
        expect(first.locator("g.node").first).to_be_visible()
        flagged = first.locator("g.node.tm-source.tm-unwatched", has_text="∂ None")
        expect(flagged.locator("text", has_text=re.compile("^x$"))).to_be_visible()
        box = first.bounding_box()
        assert box and box["width"] > 150 and box["height"] > 150, box
        # The page carries no widget view (it would need a kernel and a CDN).
        assert "widget-view+json" not in page.content()
        first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "site-course.png"))

        # Getting started ran its cells: the printed gradient, then a graph.
        page.goto((site / "getting-started.html").as_uri())
        outputs = page.locator(".cell_output")
        expect(outputs.first).to_contain_text("8.0")
        expect(page.locator(".cell_output .tapemagic-static svg").first).to_be_visible()
