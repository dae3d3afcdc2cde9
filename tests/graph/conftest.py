"""The IPython shell the diagnosis tests run their cells in."""

from __future__ import annotations

import pytest
from IPython.testing import globalipapp

from tapemagic.graph import log_names

from .cells import SETUP, run


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture
def ip(shell):
    """The shell with x, y, w, b defined; names the test adds are removed after."""
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    log_names._NAMED_VARIABLES.clear()
    before = set(shell.user_ns)
    run(shell, SETUP)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]
    log_names._NAMED_VARIABLES.clear()
