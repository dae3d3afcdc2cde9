"""Fixtures of the Keras tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def float64_layers():
    """Layers made inside the test compute in float64 (Keras' floatx)."""
    from tapemagic.keras import backend

    before = backend.floatx()
    backend.set_floatx("float64")
    try:
        yield
    finally:
        backend.set_floatx(before)
