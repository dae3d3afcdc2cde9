"""The fixed budget draws the same examples whatever was imported before it."""

from __future__ import annotations

import importlib
import sys

from hypothesis import given
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

from .budget import LONG, fuzz_settings


def _draws() -> list[str]:
    seen: list[str] = []

    @fuzz_settings(300)
    @given(st.lists(st.floats() | st.integers(), max_size=4))
    def collect(xs):
        seen.append(repr(xs))

    collect()
    return seen


def test_the_fixed_budget_does_not_depend_on_the_modules_loaded(tmp_path, monkeypatch):
    # A new local module with constants of its own: Hypothesis would mix
    # them into its draws (its providers' local constants), and tapemagic
    # loads its modules lazily, so earlier tests would change the examples.
    (tmp_path / "constants_probe.py").write_text(
        "WEIGHTS = (123456.789, -98765.4321, 31337, 271828182)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    before = _draws()
    importlib.import_module("constants_probe")
    try:
        after = _draws()
    finally:
        del sys.modules["constants_probe"]
    if LONG:  # the long budget keeps the local constants: its seeds are fresh anyway
        assert providers._get_local_constants().set_for_type("float")
        return
    assert before == after
    assert "123456.789" not in "".join(after)
