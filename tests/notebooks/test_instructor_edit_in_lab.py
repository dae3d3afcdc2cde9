"""The instructor's edit of test_instructor_edit.py, made in JupyterLab's page.

Headless Chromium (Playwright, Debian's /usr/bin/chromium) opens notebook 1 in
the JupyterLab with jupytext of test_instructor_edit.py. The edit goes through
the page as an instructor makes it: a sentence typed at the end of a markdown
cell, the code cell's text replaced in its editor, the ``expect`` metadata set
on the cell models (what the property inspector's metadata editor does), then
File > Save (``docmanager:save``). The same checks follow: the pair is written
and in sync, only the edited cells changed, and the edited notebook passes the
course checks with no Python change.
"""

from __future__ import annotations

import time

import nbformat
import pytest

# Imported first: it checks for Playwright and Chromium (skip, or fail when the
# run requires the browser tests) before anything else.
from tests.browser.jupyter import chromium_page, expect, wait_kernel_idle
from tests.browser.server import Server

from .course import pair_of
from .test_instructor_edit import NAME, check_the_saved_edit, lab  # noqa: F401

# The expect metadata, set as the metadata editor sets it: on the cell's model.
SET_EXPECT = """([index, texts]) => {
    const panel = window.jupyterapp.shell.currentWidget;
    panel.content.widgets[index].model.setMetadata('expect', texts);
}"""


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_an_edit_typed_and_saved_in_jupyterlab_passes_the_course_checks(
    lab: Server,  # noqa: F811
    monkeypatch,
    tmp_path,
):
    path = lab.root / f"{NAME}.ipynb"
    before = nbformat.read(path, as_version=4)
    sources = [cell.source for cell in before.cells]
    heading = next(i for i, s in enumerate(sources) if s.startswith("## Recording"))
    code = next(i for i, s in enumerate(sources) if s.startswith("x = tf.Variable("))
    again = next(
        i
        for i, cell in enumerate(before.cells)
        if cell.metadata.get("expect") == ["dy/dx = 8.0"]
    )
    console = "console-instructor-edit.log"
    with chromium_page(tmp_path / "chromium-profile", console) as page:
        page.goto(f"{lab.url}/lab/workspaces/edit/tree/{NAME}.ipynb?token={lab.token}")
        cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        expect(cells).to_have_count(len(before.cells), timeout=120_000)
        # The kernel up, as when an instructor edits: the save then records
        # its language_info too.
        wait_kernel_idle(page, f"{NAME}.ipynb")

        # A sentence at the end of the markdown cell, then render it.
        markdown = cells.nth(heading)
        markdown.dblclick()
        editor = markdown.locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+End")
        page.keyboard.insert_text("\n\nWith x = 4, the derivative 2x + 2 is 10.")
        page.keyboard.press("Shift+Enter")
        expect(markdown.locator(".jp-RenderedMarkdown")).to_contain_text(
            "With x = 4, the derivative 2x + 2 is 10."
        )

        # The code cell's text replaced in its editor.
        editor = cells.nth(code).locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(
            sources[code]
            .replace("tf.Variable(3.0)", "tf.Variable(4.0)")
            .replace("# 2x + 2 = 8 at x = 3", "# 2x + 2 = 10 at x = 4")
        )
        page.keyboard.press("Escape")
        expect(editor).to_contain_text("x = tf.Variable(4.0)")

        page.evaluate(SET_EXPECT, [code, ["y     = 24.0", "dy/dx = 10.0"]])
        page.evaluate(SET_EXPECT, [again, ["dy/dx = 10.0"]])
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        pair = pair_of(path)
        deadline = time.monotonic() + 30
        while "tf.Variable(4.0)" not in pair.read_text():
            assert time.monotonic() < deadline, "saving wrote no Markdown pair"
            time.sleep(0.2)
    assert "version" in nbformat.read(path, as_version=4).metadata.language_info
    check_the_saved_edit(path, before, monkeypatch)
