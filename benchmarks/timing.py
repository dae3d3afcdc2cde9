"""Timing shared by the benchmark scripts: medians of blocks that take turns."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["median_times"]


def median_times(
    fns: dict[str, Callable[[], Any]],
    *,
    blocks: int = 7,
    min_block: float = 0.05,
    warm_up: float = 0.25,
) -> dict[str, float]:
    """Median seconds per call of each function over ``blocks`` timed blocks.

    Each function first runs for ``warm_up`` seconds: BLAS starts its threads
    and sizes its buffers on the first large products, and a cold start would
    otherwise land in the first blocks (the jacobian workload measured 0.45 ms
    cold and 0.24 ms warm). The functions then take turns block by block, so a
    change in machine load hits them all alike instead of skewing one, and
    their ratios hold even when the machine's speed drifts.
    """
    reps = {}
    for name, fn in fns.items():
        start = time.perf_counter()
        fn()
        while time.perf_counter() - start < warm_up:
            fn()
        t0 = time.perf_counter()
        fn()
        reps[name] = max(1, int(min_block / max(time.perf_counter() - t0, 1e-7)))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(blocks):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(reps[name]):
                fn()
            samples[name].append((time.perf_counter() - t0) / reps[name])
    return {name: statistics.median(times) for name, times in samples.items()}
