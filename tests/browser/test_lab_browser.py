"""A %%tape cell run in a real JupyterLab, seen in a real headless Chromium.

A JupyterLab server from this venv starts on a free 127.0.0.1 port with a
random token, in a temporary directory, with everything that would reach the
network (news, update checks, the extension manager, opening a browser) off.
Playwright (the Python package and its bundled driver) drives Debian's
/usr/bin/chromium (never `playwright install`): it opens a notebook with a
``%%tape`` cell, runs all cells, and waits for the tapemagic widget and the
graphviz ``<svg>`` drawn inside it by the browser's widget manager. It checks
the number of nodes, the source whose gradient is None (in the graph and in the
Sources tab), and that the step slider replays the backward sweep through the
kernel. The same notebook runs on tapemagic's engine and on real TensorFlow
(``import tensorflow as tf``: the TensorFlow recorder feeds the same widget).
Screenshots go to $ARTIFACTS_DIR (default ./artifacts).

Environment knobs:
  CHROMIUM_PATH        browser binary (default /usr/bin/chromium)
  E2E_REQUIRE_BROWSER  "1": fail instead of skip when Playwright or the browser
                       is missing (tests/browser/requirement.py)
  ARTIFACTS_DIR        where screenshots and logs go (default ./artifacts)
"""

from __future__ import annotations

import contextlib
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
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.browser.notebook import CELLS, EXPECTED_NODES, SWEEP_STEPS
from tests.browser.requirement import CHROMIUM, playwright_and_chromium

playwright_api = playwright_and_chromium()
sync_playwright = playwright_api.sync_playwright
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
class Lab:
    url: str
    token: str
    root: Path
    log: Path


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    timer = Timer("server")
    base = tmp_path_factory.mktemp("lab")
    root = base / "notebooks"
    root.mkdir()
    env = dict(os.environ)
    # Private Jupyter dirs: no user config, kernelspecs, workspaces or
    # settings leak in, and kernels' connection files land in runtime/.
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (base / sub).mkdir()
        env[var] = str(base / sub)
    # JupyterLab 4 asks "Would you like to get notified about official Jupyter
    # news?" in a toast even with news_url=None; it covers the bottom right of
    # every screenshot. Answer it in advance through user settings.
    settings = base / "config/lab/user-settings/@jupyterlab/apputils-extension"
    notif = settings / "notification.jupyterlab-settings"
    notif.parent.mkdir(parents=True)
    notif.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))

    port, token = _free_port(), secrets.token_hex(24)
    env["JUPYTER_TOKEN"] = token  # kept out of argv / ps
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",  # fail, don't wander to another port
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",  # no PyPI queries
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp for tests
    ]
    if os.geteuid() == 0:
        cmd.append(
            "--allow-root"
        )  # else: "Running as root is not recommended" + exit 1
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
                pytest.fail(
                    f"jupyter lab exited with {proc.returncode}:\n{log.read_text()}"
                )
            try:
                if _api(f"{url}/api/status", token) == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab not ready in 90s:\n{log.read_text()}")
            time.sleep(0.2)
        timer.lap("server_start")
        yield Lab(url=url, token=token, root=root, log=log)
    finally:
        timer.lap("tests_using_server")
        # Clean shutdown: the REST endpoint stops all kernels, then the server.
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
        (ARTIFACTS / "server.log").write_text(log.read_text())
        timer.dump()
        assert not leftovers, f"kernel processes survived shutdown: {leftovers}"


def _wait_kernel_idle(page, nb_name: str, how: str) -> None:
    """Block until this notebook's kernel is started, connected and idle.

    PITFALL: the toolbar's .jp-Notebook-ExecutionIndicator says
    data-status="idle" *before any kernel exists*. Running all cells then
    races the automatic kernel start: a second kernel gets started, cells are
    lost, and notebook:run-all-cells may never resolve (seen here: a
    10-minute hang). The status-bar item goes Initializing -> Connecting ->
    Unknown -> Idle, and only reads "Idle" once the kernel really answered.
    """
    status = page.locator(
        f'.jp-StatusBar-TextItem[title="Change kernel for {nb_name}"]'
    )
    expect(status).to_have_text(re.compile(r"\|\s*Idle$"), timeout=120_000)
    if how == "command":  # same fact through the app object
        page.wait_for_function(
            """() => { const w = window.jupyterapp.shell.currentWidget;
                       const k = w && w.sessionContext && w.sessionContext.session
                                 && w.sessionContext.session.kernel;
                       return !!k && k.connectionStatus === 'connected'
                              && k.status === 'idle'; }""",
            timeout=120_000,
        )


def _run_all(page, how: str) -> None:
    if how == "command":
        # page.evaluate has no timeout of its own: bound the promise in JS.
        ok = page.evaluate(
            """() => Promise.race([
                 window.jupyterapp.commands.execute('notebook:run-all-cells'),
                 new Promise((_, no) => setTimeout(
                     () => no(new Error('run-all-cells did not settle in 120 s')),
                     120000))])"""
        )
        assert ok is True
    elif how == "menu":
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
    else:
        raise ValueError(how)


# Screenshot names per engine (the engine's keep their names).
SHOTS = {"tapemagic": "tape", "tensorflow": "tape-tensorflow"}


@pytest.mark.browser
@pytest.mark.parametrize("engine", sorted(CELLS))
def test_tape_widget_renders_in_jupyterlab(lab, tmp_path, engine):
    how = "command"
    shot = SHOTS[engine]
    timer = Timer(f"{shot}-widget")
    nb_name = f"{shot}.ipynb"
    make_notebook(lab.root / nb_name, CELLS[engine])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    console = []
    with sync_playwright() as p:
        # launch_persistent_context is the Playwright way to give Chromium an
        # explicit (here: new, empty) --user-data-dir.
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1000},
        )
        try:
            timer.lap("browser_launch")
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.set_default_timeout(60_000)
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"PAGEERROR: {e}"))

            page.goto(
                f"{lab.url}/lab/workspaces/{shot}/tree/{nb_name}?token={lab.token}"
            )
            page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
            timer.lap("lab_loaded")
            _wait_kernel_idle(page, nb_name, how)
            timer.lap("kernel_idle")

            _run_all(page, how)
            widget = page.locator(WIDGET_SELECTOR)
            svg = widget.locator("svg").first
            svg.wait_for(state="visible", timeout=120_000)
            timer.lap("run_all_to_svg")

            # The graph: every node, and b flagged None in its source node.
            expect(svg.locator("g.node")).to_have_count(EXPECTED_NODES)
            # b is None on both; on TensorFlow, b.numpy() read b on the tape,
            # which watches the variables it reads: b is a watched source there.
            state = "tm-unwatched" if engine == "tapemagic" else "tm-watched"
            none_source = svg.locator(f"g.node.tm-source.{state}", has_text="∂ None")
            expect(none_source).to_have_count(1)
            expect(none_source.locator("text", has_text="∂ None")).to_be_visible()
            expect(
                none_source.locator("text", has_text=re.compile("^b$"))
            ).to_be_visible()
            expect(
                svg.locator("g.node.tm-target text", has_text="loss")
            ).to_be_visible()
            expect(widget.locator(".tapemagic-header")).to_contain_text(
                "1 None gradient"
            )
            box = svg.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 200, box
            expect(page.get_by_text("Error displaying widget")).to_have_count(0)
            # The first cell printed the venv prefix: the kernel is ours.
            expect(page.locator(".jp-OutputArea-output").first).to_contain_text(
                sys.prefix
            )
            widget.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"lab-{shot}.png"))
            widget.screenshot(path=str(ARTIFACTS / f"widget-{shot}-graph.png"))
            timer.lap("graph_checked")

            # The step slider goes to the kernel and back: one node reached.
            handle = widget.locator(".widget-slider .noUi-handle").first
            handle.focus()
            handle.press("ArrowRight")
            expect(svg.locator("g.node.tm-reached")).to_have_count(1, timeout=30_000)
            expect(widget.locator(".tapemagic-step")).to_contain_text(
                f"Step 1 of {SWEEP_STEPS}: the cotangent of loss"
            )
            widget.screenshot(path=str(ARTIFACTS / f"widget-{shot}-step.png"))
            timer.lap("slider_round_trip")

            # The Sources tab: b's row says None.
            widget.get_by_role("tab", name="Sources").click()
            row = widget.locator(".tapemagic-sources tr.tm-none")
            expect(row).to_have_count(1)
            expect(row).to_contain_text("b")
            expect(row.locator(".tm-status-none")).to_have_text("None")
            widget.screenshot(path=str(ARTIFACTS / f"widget-{shot}-sources.png"))
            timer.lap("sources_tab")
        finally:
            (ARTIFACTS / f"console-{shot}.log").write_text("\n".join(console))
            ctx.close()
    timer.lap("browser_close")
    timer.dump()
    assert not [c for c in console if c.startswith("PAGEERROR")], console
