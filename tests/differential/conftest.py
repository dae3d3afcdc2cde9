"""Fixtures of the differential tests."""

from __future__ import annotations

import warnings

import pytest


@pytest.fixture
def quiet():
    """Warnings off: watching an integer warns, in tapemagic as in TensorFlow."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
