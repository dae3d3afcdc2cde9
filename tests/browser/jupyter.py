"""A Jupyter front-end from this venv, seen in a real headless Chromium.

What the browser tests of JupyterLab and Notebook 7 share, on top of the server
of tests/browser/server.py: a Chromium page driven by Playwright (Debian's
/usr/bin/chromium, never ``playwright install``), the kernel's wait and Run
All, and what a ``%%tape`` cell's widget must show once it is drawn. Both
front-ends are built on JupyterLab's components, so the widget's DOM is the
same in both. Screenshots and console logs go to $ARTIFACTS_DIR (default
./artifacts).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.browser.notebook import EXPECTED_NODES, SWEEP_STEPS
from tests.browser.requirement import CHROMIUM, playwright_and_chromium
from tests.browser.server import ARTIFACTS

playwright_api = playwright_and_chromium()
expect = playwright_api.expect

# Flags that keep Chromium off the (closed) network and quiet as root.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # we run as root in a container; the sandbox refuses root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDGET_SELECTOR = ".jp-OutputArea-output .jupyter-widgets.tapemagic-widget"


@contextlib.contextmanager
def chromium_page(
    profile: Path, console_log: str, known_errors: tuple[str, ...] = ()
) -> Iterator[Any]:
    """A Playwright page in a fresh headless Chromium profile.

    The browser's console and page errors go to ``console_log`` in the
    artifacts; a page error fails the test once the browser is closed, unless
    its message is one of ``known_errors`` (the front-end's own, reported
    upstream, raised with no notebook open as well).
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    console: list[str] = []
    with playwright_api.sync_playwright() as p:
        # launch_persistent_context is the Playwright way to give Chromium an
        # explicit (here: new, empty) --user-data-dir.
        ctx = p.chromium.launch_persistent_context(
            str(profile),
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
            yield page
        finally:
            (ARTIFACTS / console_log).write_text("\n".join(console))
            ctx.close()
    known = {f"PAGEERROR: {message}" for message in known_errors}
    errors = [c for c in console if c.startswith("PAGEERROR") and c not in known]
    assert not errors, console


def wait_kernel_ready(page: Any) -> None:
    """Block until the current notebook's kernel is connected and idle.

    Asked of the application object, not of an indicator: JupyterLab's toolbar
    says "idle" before any kernel exists, and running cells then races the
    kernel's automatic start (a second kernel, lost cells, a hang).
    """
    page.wait_for_function(
        """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                   const k = w && w.sessionContext && w.sessionContext.session
                             && w.sessionContext.session.kernel;
                   return !!k && k.connectionStatus === 'connected'
                          && k.status === 'idle'; }""",
        timeout=120_000,
    )


def wait_kernel_idle(page: Any, nb_name: str) -> None:
    """Block until the notebook ``nb_name``'s kernel is started, connected, idle.

    JupyterLab's status-bar item goes Initializing -> Connecting -> Unknown ->
    Idle, and only reads "Idle" once the kernel really answered; the
    application object then says the same.
    """
    status = page.locator(
        f'.jp-StatusBar-TextItem[title="Change kernel for {nb_name}"]'
    )
    expect(status).to_have_text(re.compile(r"\|\s*Idle$"), timeout=120_000)
    wait_kernel_ready(page)


def run_all_cells(page: Any, seconds: int = 120, cells_may_raise: bool = False) -> None:
    """Run every cell through the application's command (both front-ends).

    The command settles False when a cell raised: a failure unless
    ``cells_may_raise`` (cells tagged ``raises-exception`` let the rest run).
    """
    # page.evaluate has no timeout of its own: bound the promise in JS.
    ok = page.evaluate(
        """([ms]) => Promise.race([
             window.jupyterapp.commands.execute('notebook:run-all-cells'),
             new Promise((_, no) => setTimeout(
                 () => no(new Error(`run-all-cells did not settle in ${ms} ms`)),
                 ms))])""",
        [seconds * 1000],
    )
    assert ok is True or cells_may_raise, ok


def check_tape_graph(page: Any, widget: Any, engine: str) -> Any:
    """The drawn graph of tests/browser/notebook.py's cell; returns its <svg>.

    Every node is drawn, b is the source flagged None, loss the target, and
    the header counts one None gradient.
    """
    svg = widget.locator("svg").first
    expect(svg.locator("g.node")).to_have_count(EXPECTED_NODES)
    # b is None on both; on TensorFlow, b.numpy() read b on the tape, which
    # watches the variables it reads: b is a watched source there.
    state = "tm-unwatched" if engine == "tapemagic" else "tm-watched"
    none_source = svg.locator(f"g.node.tm-source.{state}", has_text="∂ None")
    expect(none_source).to_have_count(1)
    expect(none_source.locator("text", has_text="∂ None")).to_be_visible()
    expect(none_source.locator("text", has_text=re.compile("^b$"))).to_be_visible()
    expect(svg.locator("g.node.tm-target text", has_text="loss")).to_be_visible()
    expect(widget.locator(".tapemagic-header")).to_contain_text("1 None gradient")
    box = svg.bounding_box()
    assert box and box["width"] > 200 and box["height"] > 200, box
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    return svg


def check_step_slider(page: Any, widget: Any, svg: Any) -> None:
    """The step slider goes to the kernel and back: one node reached.

    The handle is dragged with the mouse to the first of the sweep's steps
    (Notebook 7 takes the arrow keys before the slider sees them).
    """
    handle = widget.locator(".widget-slider .noUi-handle").first
    track = widget.locator(".widget-slider .noUi-base").first
    start, rail = handle.bounding_box(), track.bounding_box()
    y = start["y"] + start["height"] / 2
    page.mouse.move(start["x"] + start["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(rail["x"] + rail["width"] / SWEEP_STEPS, y, steps=5)
    page.mouse.up()
    expect(handle).to_have_attribute("aria-valuenow", "1.0")
    expect(svg.locator("g.node.tm-reached")).to_have_count(1, timeout=30_000)
    expect(widget.locator(".tapemagic-step")).to_contain_text(
        f"Step 1 of {SWEEP_STEPS}: the cotangent of loss"
    )


def check_sources_tab(widget: Any) -> None:
    """The Sources tab: b's row says None."""
    widget.get_by_role("tab", name="Sources").click()
    row = widget.locator(".tapemagic-sources tr.tm-none")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("b")
    expect(row.locator(".tm-status-none")).to_have_text("None")
