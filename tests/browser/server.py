"""A Jupyter server from this venv, for the tests: no browser needed.

A JupyterLab or Notebook 7 started on a free 127.0.0.1 port with a random
token, in a temporary directory, with private Jupyter and IPython dirs and
everything that would reach the network (news, update checks, the extension
manager) off, shut down through its REST API with any kernel left over killed
by PID. The private dirs serve a kernel started without a server too
(nbclient, nbconvert). Logs and timings go to $ARTIFACTS_DIR (default
./artifacts). The browser's part is in tests/browser/jupyter.py.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", "artifacts")).resolve()

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

# JupyterLab 4 (and Notebook 7, which reads the same user settings) asks
# "Would you like to get notified about official Jupyter news?" in a toast
# even with news_url=None; it covers the bottom right of every screenshot.
NO_NEWS = {
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}
# Every cell kept in the page, so that every widget can be counted and edited.
EVERY_CELL_IN_PAGE = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"}
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


def api(
    url: str,
    token: str,
    method: str = "GET",
    body: dict | None = None,
    timeout: float = 30,
) -> tuple[int, Any]:
    """Call the server's REST API: (HTTP status, the JSON answer or None)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with _HTTP.open(req, timeout=timeout) as resp:
        text = resp.read()
        return resp.status, json.loads(text) if text else None


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


def private_dirs(base: Path, settings: dict[str, dict] = NO_NEWS) -> dict[str, str]:
    """Private Jupyter and IPython dirs under ``base``, as environment variables.

    ``settings`` are JupyterLab user settings, by plugin id (the news toast
    answered, by default).
    """
    env = {}
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (base / sub).mkdir()
        env[var] = str(base / sub)
    for plugin, values in settings.items():
        path = base / "config/lab/user-settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return env


@contextlib.contextmanager
def jupyter_server(
    app: str,
    base: Path,
    *,
    files: Iterable[Path | tuple[Path, str]] = (),
    settings: dict[str, dict] = NO_NEWS,
    server_config: dict | None = None,
    name: str | None = None,
) -> Iterator[Server]:
    """Run the front-end ``app`` (a key of APPS) serving ``base/notebooks``.

    ``files`` are copied there first (a ``(path, folder)`` pair into that
    subfolder); ``settings`` are the JupyterLab user
    settings (see private_dirs); ``server_config`` is written as the private
    jupyter_server_config.json (server extensions, contents managers);
    ``name`` names the log and timings in the artifacts (default
    ``server-<app>``). On exit the server is shut down through its REST API
    (which stops its kernels), its log goes to the artifacts, and a kernel
    that survived is killed by PID and fails the test.
    """
    if importlib.util.find_spec(APPS[app][1]) is None:
        pytest.fail(
            f"the {APPS[app][1]} package is not installed: pip install -e '.[test]' "
            "(it comes with the test extra)"
        )
    name = name or f"server-{app}"
    timer = Timer(name)
    root = base / "notebooks"
    root.mkdir()
    for entry in files:  # a copy: autosave must never write into git
        path, folder = entry if isinstance(entry, tuple) else (entry, ".")
        (root / folder).mkdir(exist_ok=True)
        shutil.copy2(path, root / folder)
    env = dict(os.environ) | private_dirs(base, settings)
    if server_config is not None:
        (base / "config/jupyter_server_config.json").write_text(
            json.dumps(server_config)
        )
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
                if api(f"{url}/api/status", token, timeout=5)[0] == 200:
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
            api(f"{url}/api/shutdown", token, method="POST", timeout=5)
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
        (ARTIFACTS / f"{name}.log").write_text(log.read_text())
        timer.dump()
        assert not leftovers, f"kernel processes survived shutdown: {leftovers}"
