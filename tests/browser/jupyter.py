"""A Jupyter front-end from this venv, seen in a real headless Chromium.

What the browser tests of JupyterLab and Notebook 7 share: a server started on
a free 127.0.0.1 port with a random token, in a temporary directory, with
private Jupyter and IPython dirs and everything that would reach the network
(news, update checks, the extension manager) off, shut down through its REST
API with any kernel left over killed by PID; a Chromium page driven by
Playwright (Debian's /usr/bin/chromium, never ``playwright install``); and what
a ``%%tape`` cell's widget must show once it is drawn. Both front-ends are
built on JupyterLab's components, so the widget's DOM is the same in both.
Screenshots, logs and timings go to $ARTIFACTS_DIR (default ./artifacts).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.browser.notebook import EXPECTED_NODES, SWEEP_STEPS
from tests.browser.requirement import CHROMIUM, playwright_and_chromium

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
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", "artifacts")).resolve()
WIDGET_SELECTOR = ".jp-OutputArea-output .jupyter-widgets.tapemagic-widget"

# How each front-end starts: its module and its switches. Both expose the
# application object as window.jupyterapp, for the tests to ask it about the
# kernel and to run commands.
APPS = {
    "jupyterlab": [
        "-m",
        "jupyterlab",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",  # no PyPI queries
        "--LabApp.expose_app_in_browser=True",
    ],
    "notebook": [
        "-m",
        "notebook",
        "--JupyterNotebookApp.expose_app_in_browser=True",
    ],
}

# urllib must never send loopback traffic to an http_proxy from the env.
_HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Timer:
    """Collects wall-clock durations of named steps (printed, saved as JSON)."""

    def __init__(self, name: str):
        self.name, self.steps, self._t = name, {}, time.monotonic()

    def lap(self, step: str) -> None:
        now = time.monotonic()
        self.steps[step] = round(now - self._t, 2)
        self._t = now

    def dump(self) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"timings-{self.name}.json").write_text(
            json.dumps(self.steps, indent=1)
        )
        print(
            f"\n[timings {self.name}] "
            + ", ".join(f"{k}={v}s" for k, v in self.steps.items())
        )


def make_notebook(path: Path, cells: list[str]) -> None:
    """Write a notebook of code cells for the python3 kernel."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.cells = [new_code_cell(src) for src in cells]
    nbformat.write(nb, path)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(url: str, token: str, method: str = "GET") -> int:
    req = urllib.request.Request(
        url, method=method, headers={"Authorization": f"token {token}"}
    )
    with _HTTP.open(req, timeout=5) as resp:
        return resp.status


def _pids_mentioning(text: str) -> list[int]:
    """PIDs whose command line contains `text` (our private runtime dir)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if text in (d / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


@dataclass
class Server:
    """A running Jupyter server: where it listens and where it serves from."""

    app: str
    url: str
    token: str
    root: Path
    log: Path


def _private_dirs(base: Path) -> dict[str, str]:
    """Private Jupyter and IPython dirs, with the news toast answered."""
    env = {}
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (base / sub).mkdir()
        env[var] = str(base / sub)
    # JupyterLab 4 (and Notebook 7, which reads the same user settings) asks
    # "Would you like to get notified about official Jupyter news?" in a toast
    # even with news_url=None; it covers the bottom right of every screenshot.
    settings = base / "config/lab/user-settings/@jupyterlab/apputils-extension"
    notif = settings / "notification.jupyterlab-settings"
    notif.parent.mkdir(parents=True)
    notif.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    return env


@contextlib.contextmanager
def jupyter_server(app: str, base: Path) -> Iterator[Server]:
    """Run the front-end ``app`` (a key of APPS) serving ``base/notebooks``.

    On exit the server is shut down through its REST API (which stops its
    kernels), its log goes to the artifacts, and a kernel that survived is
    killed by PID and fails the test.
    """
    if importlib.util.find_spec(APPS[app][1]) is None:
        pytest.fail(
            f"the {APPS[app][1]} package is not installed: pip install -e '.[test]' "
            "(it comes with the test extra)"
        )
    timer = Timer(f"server-{app}")
    root = base / "notebooks"
    root.mkdir()
    env = dict(os.environ) | _private_dirs(base)
    port, token = _free_port(), secrets.token_hex(24)
    env["JUPYTER_TOKEN"] = token  # kept out of argv / ps
    cmd = [
        sys.executable,
        *APPS[app],
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",  # fail, don't wander to another port
        f"--ServerApp.root_dir={root}",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")  # else: "Running as root is not recommended"
    log = base / "server.log"
    url = f"http://127.0.0.1:{port}"
    with open(log, "wb") as logf:
        proc = subprocess.Popen(
            cmd,
            cwd=root,
            env=env,
            stdout=logf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{app} exited with {proc.returncode}:\n{log.read_text()}")
            try:
                if _api(f"{url}/api/status", token) == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{app} not ready in 90s:\n{log.read_text()}")
            time.sleep(0.2)
        timer.lap("server_start")
        yield Server(app=app, url=url, token=token, root=root, log=log)
    finally:
        timer.lap("tests_using_server")
        with contextlib.suppress(Exception):
            _api(f"{url}/api/shutdown", token, method="POST")
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGTERM)  # our own child, by PID
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        timer.lap("server_shutdown")
        # Kernels run in their own sessions; any survivor names our runtime
        # dir in its argv (-f .../runtime/kernel-*.json).
        leftovers = []
        for _ in range(50):
            leftovers = _pids_mentioning(str(base / "runtime"))
            if not leftovers:
                break
            time.sleep(0.1)
        for pid in leftovers:  # only processes started for this server
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"server-{app}.log").write_text(log.read_text())
        timer.dump()
        assert not leftovers, f"kernel processes survived shutdown: {leftovers}"


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


def run_all_cells(page: Any) -> None:
    """Run every cell through the application's command (both front-ends)."""
    # page.evaluate has no timeout of its own: bound the promise in JS.
    ok = page.evaluate(
        """() => Promise.race([
             window.jupyterapp.commands.execute('notebook:run-all-cells'),
             new Promise((_, no) => setTimeout(
                 () => no(new Error('run-all-cells did not settle in 120 s')),
                 120000))])"""
    )
    assert ok is True


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
