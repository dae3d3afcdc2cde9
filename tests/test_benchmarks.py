"""The benchmark scripts run, and their workloads compute the right answers.

No timing is asserted here: bench_engine.py checks every engine's result against
a float64 NumPy reference before it times anything, so one short run proves the
workloads correct; the figures themselves belong in the README, not in tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_engine_benchmark_verifies_every_workload_and_prints_its_table():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_engine.py"), "--quick",
         "--blocks", "1", "--warm-up", "0"],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    names = [row.split("|")[1].strip() for row in rows[1:]]
    assert names == [
        "op overhead",
        "MLP 64-128-10 step",
        "MLP 784-1024-1024-10 step",
        "jacobian",
        "batch_jacobian",
        "hessian",
        "peak memory, 500 ops on (256,256) + gradient",
        "fresh process: import + first gradient",
    ]
    for row in rows[1:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[-1] in ("yes", "no") and cells[-3].endswith("x"), row
        assert all(float(c) > 0 for c in cells[2:4]), row


def test_goals_read_as_absolute_limits_or_ratios_to_numpy():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_engine import goal_met
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert goal_met("<= 3 us/op", 2.9, 9.0) and not goal_met("<= 3 us/op", 3.1, 1.0)
    assert goal_met("<= 1.3x NumPy", 99.0, 1.29)
    assert not goal_met("<= 1.05x NumPy", 1.0, 1.06)
