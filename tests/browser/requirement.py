"""Whether the browser tests may skip: only when nobody asked for them.

``E2E_REQUIRE_BROWSER=1`` (scripts/test.sh sets it) says the browser tests must
run: a missing Playwright package or Chromium binary is then an error at
collection, never a skip. Unset, a machine without them skips the module.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


def required() -> bool:
    """Whether the run demands the browser tests (``E2E_REQUIRE_BROWSER=1``)."""
    return os.environ.get("E2E_REQUIRE_BROWSER") == "1"


def _missing(what: str, fix: str) -> None:
    if required():
        raise RuntimeError(
            f"{what}, and E2E_REQUIRE_BROWSER=1 requires the browser tests: {fix}"
        )
    pytest.skip(f"{what} (set E2E_REQUIRE_BROWSER=1 to fail instead)",
                allow_module_level=True)  # fmt: skip


def playwright_and_chromium(chromium: str = CHROMIUM) -> ModuleType:
    """``playwright.sync_api``, once both it and the Chromium binary are found.

    Call at module level: a missing piece skips the module, or raises when the
    run requires the browser tests.
    """
    try:
        api = importlib.import_module("playwright.sync_api")
    except ImportError:
        _missing(
            "playwright is not installed",
            "pip install -e '.[test]' (playwright comes with the test extra)",
        )
    if not os.access(chromium, os.X_OK):
        _missing(f"{chromium} not found", "apt-get install chromium")
    return api
