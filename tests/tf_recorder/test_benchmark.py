"""The TensorFlow recorder's benchmark runs and checks its workloads.

No timing is asserted: the script checks that the recorded tape's gradients
equal the plain tape's before it times anything, so one short run proves the
workloads right; the figures belong in the report, not in tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_recorder_benchmark_checks_both_workloads_and_prints_its_table():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_tf_recorder.py"),
         "--quick", "--blocks", "1"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert [row.split("|")[1].strip() for row in rows[2:]] == [
        "op overhead (200 ops on (16,))",
        "Keras MLP 64-128-10 step (batch 32)",
    ]
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[3].endswith("x") and float(cells[3][:-1]) > 0, row
        assert cells[4] in ("< 2x: yes", "< 2x: no"), row
