"""Each course notebook runs in a real JupyterLab, in headless Chromium.

A JupyterLab from this virtual environment serves a copy of notebooks/ on a free
127.0.0.1 port (private Jupyter and IPython dirs, everything that would reach
the network switched off). Playwright drives Debian's /usr/bin/chromium: for
each notebook it opens the page, waits for the kernel, runs all cells, and
checks what a student sees: one tape widget with its graphviz drawing under
every ``%%tape`` cell, no "Error displaying widget", and a traceback only under
the cells tagged ``raises-exception``. A screenshot of one graph per notebook
goes to ``$ARTIFACTS_DIR/course/`` (default ``artifacts/course/``).

Pitfalls handled as in shared/recipes/jupyter-browser: the kernel's real idle
state is read from the status bar, ``page.evaluate`` is bounded in JavaScript,
and the server is shut down through its REST API, with any kernel left over
killed by PID.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tests.browser.requirement import CHROMIUM, playwright_and_chromium

from .course import NOTEBOOK_DIR, ROOT, course_notebooks
from .runner import ERROR_TAG

COURSE = [path.stem for path in course_notebooks()]

playwright_api = playwright_and_chromium()
expect = playwright_api.expect

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # root in a container: the sandbox refuses root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", ROOT / "artifacts")) / "course"
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

# Loopback requests must never go to an http_proxy from the environment.
_HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(url: str, token: str, method: str = "GET") -> int:
    request = urllib.request.Request(
        url, method=method, headers={"Authorization": f"token {token}"}
    )
    with _HTTP.open(request, timeout=5) as response:
        return response.status


def _pids_mentioning(text: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def _settings(config: Path, plugin: str, values: dict) -> None:
    path = config / "lab" / "user-settings" / f"{plugin}.jupyterlab-settings"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab serving a copy of the notebooks: (url, token)."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "notebooks"
    root.mkdir()
    for name in COURSE:  # a copy: autosave must never write outputs into git
        shutil.copy2(NOTEBOOK_DIR / f"{name}.ipynb", root)
    env = dict(os.environ)
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (base / sub).mkdir()
        env[var] = str(base / sub)
    config = base / "config"
    # No news toast over the screenshots.
    _settings(
        config,
        "@jupyterlab/apputils-extension/notification",
        {"fetchNews": "false", "checkForUpdates": False},
    )
    # Keep every cell in the DOM, so every widget can be counted.
    _settings(
        config, "@jupyterlab/notebook-extension/tracker", {"windowingMode": "none"}
    )
    port, token = _free_port(), secrets.token_hex(24)
    env["JUPYTER_TOKEN"] = token
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        "--LabApp.expose_app_in_browser=True",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = base / "server.log"
    url = f"http://127.0.0.1:{port}"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                code = server.returncode
                pytest.fail(f"jupyter lab exited ({code}):\n{log.read_text()}")
            try:
                if _api(f"{url}/api/status", token) == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab not ready in 90 s:\n{log.read_text()}")
            time.sleep(0.2)
        yield url, token
    finally:
        with contextlib.suppress(Exception):
            _api(f"{url}/api/shutdown", token, method="POST")
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        leftovers = []
        for _ in range(50):
            leftovers = _pids_mentioning(str(base / "runtime"))
            if not leftovers:
                break
            time.sleep(0.1)
        for pid in leftovers:  # only kernels this server started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "server.log").write_text(log.read_text())
        assert not leftovers, f"kernel processes survived shutdown: {leftovers}"


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
def test_notebook_runs_in_jupyterlab(lab, name, tmp_path):
    url, token = lab
    cells, tapes, raising = _expected(name)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    console: list[str] = []
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1000},
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(60_000)
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"PAGEERROR: {e}"))
            # One workspace per notebook: no tabs left over from another test.
            page.goto(f"{url}/lab/workspaces/{name}/tree/{name}.ipynb?token={token}")
            page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
            status = page.locator(
                f'.jp-StatusBar-TextItem[title="Change kernel for {name}.ipynb"]'
            )
            expect(status).to_have_text(re.compile(r"\|\s*Idle$"), timeout=120_000)

            started = time.monotonic()
            ran = page.evaluate(
                """() => Promise.race([
                     window.jupyterapp.commands.execute('notebook:run-all-cells'),
                     new Promise((_, no) => setTimeout(() => no(
                         new Error('run-all-cells did not settle')), 300000))])"""
            )
            # False when a cell raised; the raises-exception tag lets the rest run.
            assert ran is True or raising
            expect(status).to_have_text(re.compile(r"\|\s*Idle$"), timeout=120_000)
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
            shot.screenshot(path=str(ARTIFACTS / f"{name}.png"))
            (ARTIFACTS / f"{name}.json").write_text(
                json.dumps({"run_all_seconds": round(seconds, 1), "widgets": tapes})
            )
        finally:
            (ARTIFACTS / f"{name}-console.log").write_text("\n".join(console))
            context.close()
    assert not [line for line in console if line.startswith("PAGEERROR")], console
