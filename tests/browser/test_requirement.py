"""With E2E_REQUIRE_BROWSER=1 a missing Playwright or Chromium fails the run;
unset, it skips. Each case is a real pytest run in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A browser test module as the real ones start.
BROWSER_MODULE = """\
from tests.browser.requirement import playwright_and_chromium

playwright_api = playwright_and_chromium()


def test_the_browser_runs():
    assert playwright_api.sync_playwright
"""


def run_pytest(tmp_path: Path, *, require: bool, block_playwright: bool,
               chromium: str) -> subprocess.CompletedProcess:  # fmt: skip
    (tmp_path / "test_in_browser.py").write_text(BROWSER_MODULE)
    (tmp_path / "test_elsewhere.py").write_text("def test_other():\n    pass\n")
    paths = [str(ROOT)]
    if block_playwright:
        # A package named playwright that cannot be imported hides the real one.
        blocker = tmp_path / "blocker" / "playwright"
        blocker.mkdir(parents=True)
        (blocker / "__init__.py").write_text("raise ImportError('blocked')\n")
        paths.insert(0, str(blocker.parent))
    env = {k: v for k, v in os.environ.items() if k != "E2E_REQUIRE_BROWSER"}
    env |= {"PYTHONPATH": os.pathsep.join(paths), "CHROMIUM_PATH": chromium}
    if require:
        env["E2E_REQUIRE_BROWSER"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("block_playwright", "chromium", "missing"),
    [
        (True, sys.executable, "playwright is not installed"),
        (False, "/nonexistent/chromium", "/nonexistent/chromium not found"),
    ],
    ids=["no playwright", "no chromium"],
)
def test_a_required_browser_that_is_missing_fails_the_run(
    tmp_path, block_playwright, chromium, missing
):
    result = run_pytest(
        tmp_path, require=True, block_playwright=block_playwright, chromium=chromium
    )
    out = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.INTERRUPTED, out  # collection error
    assert f"RuntimeError: {missing}, and E2E_REQUIRE_BROWSER=1 requires" in out
    assert "skipped" not in out and "Interrupted: 1 error during collection" in out


@pytest.mark.parametrize(
    ("block_playwright", "chromium", "missing"),
    [
        (True, sys.executable, "playwright is not installed"),
        (False, "/nonexistent/chromium", "/nonexistent/chromium not found"),
    ],
    ids=["no playwright", "no chromium"],
)
def test_an_optional_browser_that_is_missing_skips(
    tmp_path, block_playwright, chromium, missing
):
    result = run_pytest(
        tmp_path, require=False, block_playwright=block_playwright, chromium=chromium
    )
    out = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.OK, out
    assert "1 passed, 1 skipped" in out and missing in out
