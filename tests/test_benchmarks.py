"""The benchmark scripts run, and their workloads compute the right answers.

No timing is asserted here: bench_engine.py checks every engine's result against
a float64 NumPy reference before it times anything, so one short run proves the
workloads correct; the figures themselves belong in docs/benchmarks.md, not in tests.
"""

from __future__ import annotations

import re
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
        "op overhead, tf.function",
        "MLP 64-128-10 step",
        "MLP 64-128-10 step, tf.function",
        "MLP 784-1024-1024-10 step",
        "jacobian",
        "batch_jacobian",
        "hessian",
        "peak memory, 500-op chain on (256,256) + gradient",
        "fresh process: import + first gradient",
        "fresh process, bytecode cached: import + first gradient",
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


def test_the_kernel_benchmark_measures_each_kernel_in_order():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_kernel.py"), "--quick",
         "--server"],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    cells = {row.split("|")[1].strip(): row.strip("|").split("|")[1:] for row in rows}
    assert list(cells) == ["kernel", "bare", "tapemagic", "tensorflow"]
    for engine in ("tapemagic", "tensorflow"):
        *laps, cpu, after_import, peak, per_node = (float(c) for c in cells[engine])
        # ready, framework imported, digits loaded, first gradient: one after another
        assert 0 < laps[0] < laps[1] < laps[2] < laps[3], cells[engine]
        assert cpu > 0, cells[engine]
        assert 0 < after_import <= peak
        assert abs(per_node - 7 * 1024 / peak) <= 1  # peak is shown rounded
    bare_peak = float(cells["bare"][6])
    assert bare_peak < float(cells["tapemagic"][6]) < float(cells["tensorflow"][6])
    bare_cpu = float(cells["bare"][4])
    assert bare_cpu < float(cells["tapemagic"][4]) < float(cells["tensorflow"][4])
    text = out.stdout
    server = re.search(r"JupyterLab server, Lab page served: peak RSS (\d+) MiB", text)
    assert server and int(server[1]) > 0, text
    notebook7 = re.search(
        r"Notebook 7 server, notebook page served: peak RSS (\d+) MiB", text
    )
    assert notebook7 and int(notebook7[1]) > 0, text
    for engine in ("tapemagic", "tensorflow"):
        line = re.search(rf"{engine}: server \+ kernel (\d+) MiB, (\d+) students", text)
        assert line, text
        both = int(server[1]) + float(cells[engine][6])
        assert abs(int(line[1]) - both) <= 1
        assert abs(int(line[2]) - 7 * 1024 / both) <= 1
