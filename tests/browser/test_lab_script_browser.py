"""`bash scripts/lab.sh`, as a student starts the course.

The script sets everything up (here with SKIP_APT=1: the Debian packages are
there), starts JupyterLab on notebooks/ and prints, as its last line, the
address to open with its token. Opened in headless Chromium, that address
shows the first course notebook, not the Launcher. Ctrl-C stops the server.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.browser.jupyter import chromium_page, expect
from tests.browser.server import ARTIFACTS, _free_port, private_dirs

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "lab.sh"
FIRST = "01-gradient-tape-basics.ipynb"
URL = re.compile(
    r"^http://localhost:(\d+)/lab/tree/" + re.escape(FIRST) + r"\?token=[0-9a-f]{48}$"
)


def _lines_until_quiet(proc: subprocess.Popen, quiet: float, limit: float) -> list[str]:
    """What the script prints until it has said nothing for ``quiet`` seconds
    after printing a URL line (or ``limit`` seconds have passed)."""
    lines: list[str] = []
    buffer = b""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + limit
    last = time.monotonic()
    while time.monotonic() < deadline:
        if any(URL.match(line) for line in lines) and time.monotonic() - last > quiet:
            break
        if not sel.select(timeout=0.5):
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        buffer += chunk
        *done, buffer = buffer.split(b"\n")
        lines += [line.decode(errors="replace") for line in done]
        last = time.monotonic()
    return lines


def test_lab_sh_prints_the_address_last_and_opens_the_first_notebook(tmp_path):
    port = _free_port()
    env = dict(os.environ, SKIP_APT="1") | private_dirs(tmp_path)
    proc = subprocess.Popen(
        ["bash", str(SCRIPT), f"--port={port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        # Ctrl-C as in a terminal, whatever this test process ignores.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        lines = _lines_until_quiet(proc, quiet=3, limit=240)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "lab-sh-output.txt").write_text("\n".join(lines))
        assert lines, "lab.sh printed nothing"
        assert URL.match(lines[-1]), f"the last line is not the address: {lines[-5:]}"
        assert URL.match(lines[-1]).group(1) == str(port)
        said = "\n".join(lines)
        assert "No web browser found" not in said
        assert "Skipped non-installed server" not in said

        with chromium_page(tmp_path / "profile", "lab-sh-console.txt") as page:
            page.goto(lines[-1])
            tab = page.locator(".lm-TabBar-tab.jp-mod-current .lm-TabBar-tabLabel")
            tab.filter(has_text=FIRST).wait_for(timeout=120_000)
            heading = page.locator(".jp-NotebookPanel:visible h1").first
            heading.wait_for(timeout=60_000)
            assert heading.inner_text().startswith("1. Gradient tape basics")
            assert page.locator(".jp-Launcher:visible").count() == 0
            # Its kernel starts and runs the first code cell (%load_ext tapemagic).
            # The status bar says the kernel is up ("Python 3 (ipykernel) | Idle").
            idle = page.locator(".jp-StatusBar-TextItem", has_text="(ipykernel) | Idle")
            try:
                idle.first.wait_for(timeout=120_000)
            except Exception:
                page.screenshot(path=str(ARTIFACTS / "lab-sh-no-kernel.png"))
                dialogs = page.locator(".jp-Dialog").all_inner_texts()
                raise AssertionError(f"no idle kernel; dialogs: {dialogs}") from None
            first_code = page.locator(".jp-NotebookPanel:visible .jp-CodeCell").first
            first_code.locator(".cm-content").click()
            page.keyboard.press("Shift+Enter")
            prompt = first_code.locator(".jp-InputPrompt")
            expect(prompt).to_have_text("[1]:", timeout=120_000)
            # The file browser lists each notebook once, beside two folders.
            names = page.locator(".jp-DirListing-item .jp-DirListing-itemText")
            names.first.wait_for()
            shown = sorted(names.all_inner_texts())
            course = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
            assert shown == sorted([*course, "exercises", "source"]), shown
            page.screenshot(path=str(ARTIFACTS / "lab-sh-first-notebook.png"))
    finally:
        # Ctrl-C, as a student stops it: the script stops the server and exits.
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail("lab.sh did not stop on Ctrl-C within 30 s")
