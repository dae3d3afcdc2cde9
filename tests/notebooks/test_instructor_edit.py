"""An instructor's edit, saved by JupyterLab, passes the course checks with no
change to any Python file.

A JupyterLab from this virtual environment, with jupytext's server extension,
serves a copy of notebooks/ on a free 127.0.0.1 port (private Jupyter and
IPython dirs). The test edits notebook 1 the way JupyterLab's editor saves it,
through the contents API (GET the notebook, change it, PUT it back): a sentence
in a markdown cell, the value a code cell computes with, and the texts that
cell's ``expect`` metadata says it prints. Saving writes the Markdown pair too;
the pair is in sync, and the edited notebook runs and passes the same checks as
the course in test_notebooks.py. The same run checked against the cell's old
``expect`` fails, so the check reads the notebook.
"""

from __future__ import annotations

import contextlib
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
from pathlib import Path

import nbformat
import pytest

from .course import NOTEBOOK_DIR, check_notebook, pairing_problems
from .runner import run_notebook

NAME = "01-gradient-tape-basics"
# Loopback requests must never go to an http_proxy from the environment.
_HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(url: str, token: str, method: str = "GET", body: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with _HTTP.open(request, timeout=30) as response:
        text = response.read()
        return response.status, json.loads(text) if text else None


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab with jupytext serving a copy of notebooks/: (url, token, root)."""
    root = tmp_path / "notebooks"
    root.mkdir()
    for path in [*NOTEBOOK_DIR.glob("*.ipynb"), *NOTEBOOK_DIR.glob("*.md")]:
        shutil.copy2(path, root)
    shutil.copy2(NOTEBOOK_DIR / "jupytext.toml", root)
    env = dict(os.environ)
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (tmp_path / sub).mkdir()
        env[var] = str(tmp_path / sub)
    # jupytext's server extension (pip enables it on install; said again here,
    # so that the test does not depend on how jupytext was installed).
    extensions = {"jpserver_extensions": {"jupyterlab_jupytext": True}}
    (tmp_path / "config" / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": extensions})
    )
    for plugin, values in [
        # No news toast; every cell kept in the page (for a browser that edits).
        (
            "@jupyterlab/apputils-extension/notification",
            {"fetchNews": "false", "checkForUpdates": False},
        ),
        ("@jupyterlab/notebook-extension/tracker", {"windowingMode": "none"}),
    ]:
        settings = tmp_path / "config" / "lab" / "user-settings" / plugin
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.with_name(f"{settings.name}.jupyterlab-settings").write_text(
            json.dumps(values)
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
    log = tmp_path / "server.log"
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
                pytest.fail(f"jupyter lab exited:\n{log.read_text()}")
            try:
                if _api(f"{url}/api/status", token)[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab not ready in 90 s:\n{log.read_text()}")
            time.sleep(0.2)
        yield url, token, root
    finally:
        with contextlib.suppress(Exception):
            _api(f"{url}/api/shutdown", token, method="POST")
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=10)
    assert "jupytext" in log.read_text().lower(), "jupytext did not load:\n" + (
        log.read_text()
    )


def _edit(nb: dict) -> None:
    """What the instructor changes, as JupyterLab's editor saves it: x = 4
    instead of 3 (so y = 24 and dy/dx = 10), the comment and the markdown that
    say so, and the texts the two printing cells expect."""
    cells = nb["cells"]
    heading = next(c for c in cells if c["source"].startswith("## Recording"))
    heading["source"] += "\n\nWith x = 4, the derivative 2x + 2 is 10."
    first = next(c for c in cells if c["source"].startswith("x = tf.Variable(3.0)"))
    first["source"] = (
        first["source"]
        .replace("tf.Variable(3.0)", "tf.Variable(4.0)")
        .replace("# 2x + 2 = 8 at x = 3", "# 2x + 2 = 10 at x = 4")
    )
    first["metadata"]["expect"] = ["y     = 24.0", "dy/dx = 10.0"]
    again = next(c for c in cells if c["metadata"].get("expect") == ["dy/dx = 8.0"])
    again["metadata"]["expect"] = ["dy/dx = 10.0"]


def check_the_saved_edit(path: Path, before: nbformat.NotebookNode, monkeypatch):
    """The pair written and in sync, only the edited cells changed, and the
    edited notebook passes the course checks, which fail with the old
    ``expect``."""
    after = nbformat.read(path, as_version=4)
    pair = path.with_suffix(".md").read_text()
    assert "x = tf.Variable(4.0)" in pair
    assert "With x = 4, the derivative 2x + 2 is 10." in pair
    assert 'expect=["y     = 24.0", "dy/dx = 10.0"]' in pair
    assert pairing_problems(path) == []
    # Only what was edited changed: same cells, same ids, still no outputs.
    assert [c.id for c in after.cells] == [c.id for c in before.cells]
    changed = [i for i, (a, b) in enumerate(zip(after.cells, before.cells)) if a != b]
    assert len(changed) == 3, changed
    assert not any(c.get("outputs") for c in after.cells)
    # A kernel that started before the save filled in language_info (the
    # Python version and such); nothing else of the notebook's metadata moves.
    assert after.metadata.language_info.name == "python"
    del after.metadata["language_info"], before.metadata["language_info"]
    assert after.metadata == before.metadata

    # The edited notebook runs and passes the course checks.
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        monkeypatch.setenv(var, str(path.parent.parent / var.lower()))
    report = run_notebook(path, timeout=180)
    numbers = check_notebook(path.stem, report)
    assert "dy/dx = 10.0\n" in "".join(cell["stdout"] for cell in report["cells"])
    assert numbers  # the notebook's numeric rules (w, b, loss) still hold

    # The same run against the expectations from before the edit fails: the
    # checks come from the notebook, not from Python.
    old = {
        i: cell.metadata.get("expect", [])
        for i, cell in enumerate(before.cells)
        if cell.cell_type == "code"
    }
    for cell in report["cells"]:
        cell["expect"] = old[cell["index"]]
    with pytest.raises(AssertionError, match=r"expected 'y     = 15\.0'"):
        check_notebook(path.stem, report)


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_an_edit_saved_through_the_contents_api_passes_the_course_checks(
    lab, monkeypatch
):
    url, token, root = lab
    path = root / f"{NAME}.ipynb"
    before = nbformat.read(path, as_version=4)
    status, model = _api(f"{url}/api/contents/{NAME}.ipynb?content=1", token)
    assert status == 200 and model["type"] == "notebook"
    nb = model["content"]
    _edit(nb)
    status, saved = _api(
        f"{url}/api/contents/{NAME}.ipynb",
        token,
        method="PUT",
        body={"type": "notebook", "format": "json", "content": nb},
    )
    assert status == 200 and saved["path"] == f"{NAME}.ipynb"
    check_the_saved_edit(path, before, monkeypatch)
