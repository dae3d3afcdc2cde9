"""The fuzz budget: a fixed, reproducible one in CI, a longer one on request.

By default every fuzz test runs a few hundred examples, derandomized, so CI
sees the same inputs every run and the whole folder stays under two minutes
on two cores. ``TAPEMAGIC_FUZZ_EXAMPLES=5000`` runs that many examples per
test from fresh random seeds (a bug found that way gets a regression test in
tests/engine/).

"The same inputs" needs one more step: Hypothesis mixes into its draws the
constants written in the local modules loaded so far, and tapemagic loads
most of its modules on first use, so the examples would depend on what
earlier tests imported. The derandomized budget therefore draws from
Hypothesis' own constants only; the long budget keeps tapemagic's (its kinks
and magic numbers are good inputs).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.internal.conjecture import providers

__all__ = ["LONG", "fuzz_settings"]

_ENV = "TAPEMAGIC_FUZZ_EXAMPLES"
LONG = int(os.environ.get(_ENV, "0") or 0)

if not LONG:
    # NOTE: Hypothesis' private hook (hypothesis is pinned in constraints.txt;
    # tests/fuzz/test_budget.py fails if the hook moves).
    _NO_CONSTANTS = providers.Constants()
    providers._get_local_constants = lambda: _NO_CONSTANTS


def fuzz_settings(default: int, **extra) -> settings:
    """Hypothesis settings: ``default`` examples derandomized, or the long budget.

    Example:
        >>> fuzz_settings(10).max_examples in (10, LONG)
        True
    """
    return settings(
        max_examples=LONG or default,
        derandomize=not LONG,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        **extra,
    )
