"""What one student's course kernel costs: peak memory and start time.

Runs notebook 04 (a Keras model trained on scikit-learn's digits) in a fresh
Jupyter kernel per engine, with nbclient, exactly as a student's kernel runs it:
on tapemagic (``notebooks/04-training-step.ipynb``) and on real TensorFlow (the
version ``notebooks/source/to_tensorflow.py`` writes: ``import tensorflow as tf``,
``%%tape`` turned into ``with tf.GradientTape()``), when TensorFlow is installed.
A bare kernel (no cell of the course) shows what Python and ipykernel cost alone.

Probe cells measure from inside each kernel: seconds from the kernel process's
start to the framework imported and to the first gradient answered, and the
peak resident set size (``ru_maxrss``) and the CPU seconds (user and system,
every thread) the kernel used, after all cells ran. Start times are
laps: the kernel ready for its first cell, the framework imported, the digits
loaded (scikit-learn and matplotlib imported), the first gradient answered.
The figures decide how many students share a BinderHub or JupyterHub node
(docs/authoring.md, "Sizing a class"). Takes about 20 s here.

With ``--server`` it also starts a JupyterLab server (a student's own in
JupyterHub; Binder runs one per session too), asks it for the Lab page, and
reads its peak RSS from /proc (Linux); then the same for a Notebook 7 server
and a notebook's page, when the ``notebook`` package is installed.

Run:  .venv/bin/python benchmarks/bench_kernel.py [--quick] [--server]
      [--engines bare,tapemagic,tensorflow]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "04-training-step"
MARK = "BENCH-KERNEL "

# The probes run in the kernel; psutil reads the process's start time.
START = """\
import json as _json, resource as _resource, time as _time
import psutil as _psutil
_bench = {}
def _bench_lap(name):
    _bench[name] = _time.time() - _psutil.Process().create_time()
_bench_lap("ready")
"""
AFTER_IMPORT = """\
_bench_lap("import")
_bench["import MiB"] = _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss / 1024
"""
AFTER_DATA = '_bench_lap("data")'
AFTER_GRADIENT = '_bench_lap("first gradient")'
REPORT = """\
_usage = _resource.getrusage(_resource.RUSAGE_SELF)
_bench["peak MiB"] = _usage.ru_maxrss / 1024
_bench["cpu s"] = _usage.ru_utime + _usage.ru_stime
print("BENCH-KERNEL " + _json.dumps(_bench))
"""


def course_notebook(engine: str, quick: bool) -> nbformat.NotebookNode:
    """Notebook 04 for ``engine`` ("bare": no course cell), with its probes."""
    if engine == "bare":
        cells = []
    else:
        if engine == "tensorflow":
            with tempfile.TemporaryDirectory() as out:
                converter = ROOT / "notebooks" / "source" / "to_tensorflow.py"
                subprocess.run(
                    [sys.executable, str(converter), out],
                    check=True, cwd=ROOT,
                )  # fmt: skip
                nb = nbformat.read(Path(out) / f"{NOTEBOOK}.ipynb", as_version=4)
        else:
            nb = nbformat.read(ROOT / "notebooks" / f"{NOTEBOOK}.ipynb", as_version=4)
        cells = [c for c in nb.cells if c.cell_type == "code"]
    new = nbformat.v4.new_code_cell
    probed = [new(START)]
    for cell in cells:
        source = cell.source
        if quick:
            source = source.replace(
                "epochs, batch_size = 15, 64", "epochs, batch_size = 1, 64"
            )
        probed.append(new(source))
        if "import tensorflow as tf" in source or "import tapemagic.tf as tf" in source:
            probed.append(new(AFTER_IMPORT))
        if "load_digits()" in source:
            probed.append(new(AFTER_DATA))
        gradient = "GradientTape" in source or source.startswith("%%tape")
        if gradient and not any(c.source == AFTER_GRADIENT for c in probed):
            probed.append(new(AFTER_GRADIENT))
    probed.append(new(REPORT))
    return nbformat.v4.new_notebook(cells=probed)


def measure(engine: str, quick: bool) -> dict[str, float]:
    """Run the probed notebook in a fresh kernel; what the probes reported."""
    nb = course_notebook(engine, quick)
    client = NotebookClient(
        nb, kernel_name="python3", timeout=300,
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
    )  # fmt: skip
    client.execute()
    for output in nb.cells[-1].outputs:
        text = output.get("text", "")
        if text.startswith(MARK):
            return json.loads(text[len(MARK) :])
    raise RuntimeError(f"the {engine} kernel printed no report: {nb.cells[-1].outputs}")


# What each front-end's server is asked for before its memory is read: its
# page, then what the page asks for at start (settings, extensions).
SERVERS = {
    "JupyterLab": (
        ["jupyterlab", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly"],
        ["lab", "lab/api/settings", "lab/api/extensions"],
    ),
    "Notebook 7": (
        ["notebook"],
        [f"notebooks/{NOTEBOOK}.ipynb", "lab/api/settings", "api/contents"],
    ),
}  # fmt: skip


def measure_server(front_end: str = "JupyterLab") -> float:
    """Peak RSS in MiB of a Jupyter server (a student's own, in JupyterHub) of
    ``front_end`` (a key of SERVERS) once it has served its page and what the
    page asks for at start."""
    app, paths = SERVERS[front_end]
    with tempfile.TemporaryDirectory() as base:
        env = dict(os.environ)
        for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
            env[var] = str(Path(base) / var.lower())
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env["JUPYTER_TOKEN"] = token = secrets.token_hex(16)
        cmd = [
            sys.executable, "-m", *app, "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0", f"--ServerApp.root_dir={ROOT / 'notebooks'}",
        ]  # fmt: skip
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)  # fmt: skip
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        base_url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    opener.open(f"{base_url}/api/status?token={token}", timeout=2)
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"{front_end} did not start") from None
                    time.sleep(0.2)
            for path in paths:
                opener.open(f"{base_url}/{path}?token={token}", timeout=30).read()
            with open(f"/proc/{server.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
            raise RuntimeError("no VmHWM in /proc/<pid>/status (Linux only)")
        finally:
            server.terminate()
            server.wait(timeout=30)


def students_per_node(peak_mib: float, node_gib: float = 8.0,
                      reserved_gib: float = 1.0) -> int:  # fmt: skip
    """Kernels of ``peak_mib`` that fit a node, ``reserved_gib`` kept for the
    system and the Jupyter servers (each student's own server comes on top:
    see docs/authoring.md)."""
    return int((node_gib - reserved_gib) * 1024 // peak_mib)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="train 1 epoch, not 15")
    parser.add_argument(
        "--engines",
        default="bare,tapemagic,tensorflow",
        help="comma-separated: bare, tapemagic, tensorflow (skipped if not installed)",
    )
    parser.add_argument(
        "--server", action="store_true", help="also a JupyterLab server's peak RSS"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # the kernels inherit it
    engines = args.engines.split(",")
    unknown = set(engines) - {"bare", "tapemagic", "tensorflow"}
    if unknown:
        parser.error(
            f"unknown engines {sorted(unknown)}: use bare, tapemagic, tensorflow"
        )
    if "tensorflow" in engines and importlib.util.find_spec("tensorflow") is None:
        print("TensorFlow is not installed: its kernel is left out")
        engines.remove("tensorflow")
    print(f"Notebook {NOTEBOOK}, one fresh kernel each"
          + (" (quick: 1 epoch)" if args.quick else ""))  # fmt: skip
    peaks = {}
    laps = ["ready", "import", "data", "first gradient"]
    columns = [f"{lap} (s)" for lap in laps]
    columns += ["CPU (s)", "peak after import (MiB)", "peak (MiB)", "per 8 GiB node"]
    print("| kernel | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for engine in engines:
        got = measure(engine, args.quick)
        times = " | ".join(f"{got[lap]:.2f}" if lap in got else "-" for lap in laps)
        peak = peaks[engine] = got["peak MiB"]
        after_import = f"{got['import MiB']:.0f}" if "import MiB" in got else "-"
        print(f"| {engine} | {times} | {got['cpu s']:.2f} | {after_import} | "
              f"{peak:.0f} | {students_per_node(peak)} |")  # fmt: skip
    print("Times are seconds from the kernel process's start; CPU: the kernel's user")
    print("and system seconds for the whole notebook; per node: kernels of")
    print("that peak in 7 GiB (8 GiB less 1 GiB for the system), servers not counted.")
    if args.server:
        server = measure_server("JupyterLab")
        print(f"JupyterLab server, Lab page served: peak RSS {server:.0f} MiB")
        if importlib.util.find_spec("notebook") is not None:
            notebook7 = measure_server("Notebook 7")
            print(f"Notebook 7 server, notebook page served: peak RSS "
                  f"{notebook7:.0f} MiB")  # fmt: skip
        for engine, peak in peaks.items():
            if engine != "bare":
                both = server + peak
                print(f"{engine}: server + kernel {both:.0f} MiB, "
                      f"{students_per_node(both)} students per 8 GiB node")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
