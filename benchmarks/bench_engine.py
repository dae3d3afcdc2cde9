"""Engine benchmarks: tapemagic against hand-written NumPy, and peers if installed.

Each workload is written once against the TensorFlow API and run with
``tapemagic.tf`` (and with TensorFlow itself when it is installed); the
``tf.function`` rows run the same step under ``@tf.function`` (traced on the
first call, which the check against the reference makes, then replayed). HIPS
autograd and PyTorch get their own short versions. Before anything is timed, every
engine's result is checked against a float64 NumPy reference. Times are medians
of repeated blocks after a warm-up, the engines taking turns block by block; the
table gives each engine's ratio to the hand-written NumPy forward+backward
measured in the same run.

Run:  .venv/bin/python benchmarks/bench_engine.py [--quick] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from timing import median_times  # noqa: E402  (benchmarks/timing.py)

RNG = np.random.default_rng(0)


@dataclass
class Workload:
    name: str
    unit: str  # how results are reported: "us/op", "ms/step", "ms", "MiB", "s"
    scale: float  # seconds -> unit
    per: int = 1  # divide the time by this (ops per call)
    goal: str = ""
    numpy: Callable[[], Callable[[], Any]] | None = None
    tf_api: Callable[[Any], Callable[[], Any]] | None = None
    peers: dict[str, Callable[[], Callable[[], Any]]] = field(default_factory=dict)
    reference: Callable[[], np.ndarray] | None = None


# -- workload: op overhead -------------------------------------------------------------

OPS = 200
X16 = np.linspace(-1.0, 1.0, 16)


def overhead_numpy() -> Callable[[], np.ndarray]:
    x0 = X16.astype(np.float32)
    c = np.float32(0.9)

    def step():
        x, saved = x0, []
        for _ in range(OPS // 4):
            t = np.tanh(x)
            s = t * c + c
            saved.append((t, s))
            x = np.sin(s)
        g = np.ones_like(x)
        for t, s in reversed(saved):
            g = g * np.cos(s)
            g = g * c
            g = g * (1 - t * t)
        return g

    return step


def overhead_tf(tf: Any) -> Callable[[], Any]:
    x = tf.Variable(X16.astype(np.float32))
    c = tf.constant(0.9)

    def step():
        with tf.GradientTape() as tape:
            y = x
            for _ in range(OPS // 4):
                y = tf.sin(tf.tanh(y) * c + c)
        return tape.gradient(y, x)

    return step


def overhead_reference() -> np.ndarray:
    x = X16.copy()
    saved = []
    for _ in range(OPS // 4):
        t = np.tanh(x)
        s = t * 0.9 + 0.9
        saved.append((t, s))
        x = np.sin(s)
    g = np.ones_like(x)
    for t, s in reversed(saved):
        g = g * np.cos(s) * 0.9 * (1 - t * t)
    return g


# -- workload: MLP training step -------------------------------------------------------


def mlp_data(sizes: tuple[int, ...], batch: int) -> dict:
    rng = np.random.default_rng(1)
    ws = [rng.standard_normal((a, b)) / np.sqrt(a) for a, b in zip(sizes, sizes[1:])]
    bs = [np.zeros(b) for b in sizes[1:]]
    x = rng.standard_normal((batch, sizes[0]))
    y = rng.integers(0, sizes[-1], size=batch)
    return {"ws": ws, "bs": bs, "x": x, "y": y}


def mlp_numpy(sizes, batch, dtype=np.float32, lr=0.1):
    d = mlp_data(sizes, batch)
    ws = [w.astype(dtype) for w in d["ws"]]
    bs = [b.astype(dtype) for b in d["bs"]]
    x, y = d["x"].astype(dtype), d["y"]

    def step():
        acts, h = [x], x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w + b
            if i < len(ws) - 1:
                h = np.maximum(h, 0)
            acts.append(h)
        z = h - h.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = p
        g[np.arange(batch), y] -= 1
        g /= batch
        grads = []
        for i in range(len(ws) - 1, -1, -1):
            grads.append((g.sum(axis=0), acts[i].T @ g))
            if i:
                g = (g @ ws[i].T) * (acts[i] > 0)
        for (gb, gw), w, b in zip(reversed(grads), ws, bs):
            w -= lr * gw
            b -= lr * gb
        return grads[-1][1]

    return step


def mlp_tf(tf: Any, sizes, batch, dtype="float32", lr=0.1):
    d = mlp_data(sizes, batch)
    ws = [tf.Variable(w.astype(dtype)) for w in d["ws"]]
    bs = [tf.Variable(b.astype(dtype)) for b in d["bs"]]
    x = tf.constant(d["x"].astype(dtype))
    y = tf.constant(d["y"].astype(np.int32))
    params = [p for pair in zip(ws, bs) for p in pair]

    def step():
        with tf.GradientTape() as tape:
            h = x
            for i, (w, b) in enumerate(zip(ws, bs)):
                h = tf.matmul(h, w) + b
                if i < len(ws) - 1:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
            )
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(lr * g)
        return grads[0]

    return step


def mlp_reference(sizes, batch):
    # one float64 step: the gradient of the first weight matrix
    return mlp_numpy(sizes, batch, dtype=np.float64, lr=0.0)()


# -- workloads: jacobians and Hessians -------------------------------------------------


def jac_data():
    rng = np.random.default_rng(2)
    return rng.standard_normal((256, 256)) / 16, rng.standard_normal(256)


def jacobian_numpy():
    w, x = (a.astype(np.float32) for a in jac_data())
    return lambda: (1 - np.tanh(w @ x) ** 2)[:, None] * w


def jacobian_tf(tf):
    w, x0 = jac_data()
    w = tf.constant(w.astype(np.float32))
    x = tf.Variable(x0.astype(np.float32)[:, None])

    def step():
        with tf.GradientTape() as tape:
            y = tf.tanh(tf.matmul(w, x))
        return tf.reshape(tape.jacobian(y, x), (256, 256))

    return step


def jacobian_reference():
    w, x = jac_data()
    return (1 - np.tanh(w @ x) ** 2)[:, None] * w


def bj_data():
    rng = np.random.default_rng(3)
    return rng.standard_normal((64, 32)), rng.standard_normal((32, 32)) / 6


def batch_jacobian_numpy():
    x, w = (a.astype(np.float32) for a in bj_data())
    return lambda: (1 - np.tanh(x @ w) ** 2)[:, :, None] * w.T[None]


def batch_jacobian_tf(tf):
    x0, w0 = bj_data()
    x = tf.constant(x0.astype(np.float32))
    w = tf.constant(w0.astype(np.float32))

    def step():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.matmul(x, w))
        return tape.batch_jacobian(y, x)

    return step


def batch_jacobian_reference():
    x, w = bj_data()
    return (1 - np.tanh(x @ w) ** 2)[:, :, None] * w.T[None]


def hess_data():
    rng = np.random.default_rng(4)
    return rng.standard_normal((64, 64)) / 8, rng.standard_normal(64)


def hessian_numpy(dtype=np.float32):
    a, x = (v.astype(dtype) for v in hess_data())

    def step():
        t = np.tanh(a @ x)
        h = 2 * (1 - t * t) * (1 - 3 * t * t)
        return (a.T * h) @ a

    return step


def hessian_tf(tf):
    a0, x0 = hess_data()
    a = tf.constant(a0.astype(np.float32))
    x = tf.Variable(x0.astype(np.float32)[:, None])

    def step():
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(tf.tanh(tf.matmul(a, x)) ** 2)
            g = inner.gradient(y, x)
        return tf.reshape(outer.jacobian(g, x), (64, 64))

    return step


# -- peers: HIPS autograd and PyTorch (only when installed) ----------------------------


def peer_autograd(name: str):
    import autograd.numpy as anp
    from autograd import elementwise_grad, grad, hessian, jacobian

    if name == "op overhead":

        def f(x):
            for _ in range(OPS // 4):
                x = anp.sin(anp.tanh(x) * 0.9 + 0.9)
            return anp.sum(x)

        g = grad(f)
        x = X16.astype(np.float32)
        return lambda: g(x)
    if name == "jacobian":
        w, x = (v.astype(np.float32) for v in jac_data())
        j = jacobian(lambda x: anp.tanh(w @ x))
        return lambda: j(x)
    if name == "hessian":
        a, x = (v.astype(np.float32) for v in hess_data())
        h = hessian(lambda x: anp.sum(anp.tanh(a @ x) ** 2))
        return lambda: h(x)
    if name == "batch_jacobian":
        x, w = (v.astype(np.float32) for v in bj_data())
        # autograd has no batch_jacobian: per-example jacobians of the same function
        j = jacobian(lambda xs: anp.tanh(xs @ w))
        return lambda: np.einsum("bibj->bij", j(x).reshape(64, 32, 64, 32))
    del elementwise_grad
    raise KeyError(name)


def peer_torch(name: str):
    import torch

    torch.set_num_threads(2)
    if name == "op overhead":
        x = torch.tensor(X16.astype(np.float32), requires_grad=True)

        def step():
            y = x
            for _ in range(OPS // 4):
                y = torch.sin(torch.tanh(y) * 0.9 + 0.9)
            (g,) = torch.autograd.grad(y.sum(), x)
            return g.numpy()

        return step
    if name == "jacobian":
        w, x = (torch.tensor(v.astype(np.float32)) for v in jac_data())
        return lambda: torch.autograd.functional.jacobian(
            lambda x: torch.tanh(w @ x), x, vectorize=True
        ).numpy()
    if name == "hessian":
        a, x = (torch.tensor(v.astype(np.float32)) for v in hess_data())
        return lambda: torch.autograd.functional.hessian(
            lambda x: (torch.tanh(a @ x) ** 2).sum(), x, vectorize=True
        ).numpy()
    raise KeyError(name)


# -- the table -------------------------------------------------------------------------


def workloads(quick: bool) -> list[Workload]:
    big = (784, 1024, 1024, 10)
    big_batch = 512 if not quick else 64
    return [
        Workload(
            "op overhead", "us/op", 1e6, per=OPS, goal="<= 3 us/op",
            numpy=overhead_numpy, tf_api=overhead_tf, reference=overhead_reference,
        ),
        Workload(
            "op overhead, tf.function", "us/op", 1e6, per=OPS, goal="<= 1.5x NumPy",
            numpy=overhead_numpy, tf_api=lambda tf: tf.function(overhead_tf(tf)),
            reference=overhead_reference,
        ),
        Workload(
            "MLP 64-128-10 step", "ms/step", 1e3, goal="<= 1.8x NumPy",
            numpy=lambda: mlp_numpy((64, 128, 10), 128),
            tf_api=lambda tf: mlp_tf(tf, (64, 128, 10), 128),
            reference=lambda: mlp_reference((64, 128, 10), 128),
        ),
        Workload(
            "MLP 64-128-10 step, tf.function", "ms/step", 1e3, goal="<= 1.15x NumPy",
            numpy=lambda: mlp_numpy((64, 128, 10), 128),
            tf_api=lambda tf: tf.function(mlp_tf(tf, (64, 128, 10), 128)),
            reference=lambda: mlp_reference((64, 128, 10), 128),
        ),
        Workload(
            "MLP 784-1024-1024-10 step", "ms/step", 1e3, goal="<= 1.05x NumPy",
            numpy=lambda: mlp_numpy(big, big_batch),
            tf_api=lambda tf: mlp_tf(tf, big, big_batch),
            reference=lambda: mlp_reference(big, big_batch),
        ),
        Workload(
            "jacobian", "ms", 1e3, goal="<= 0.3 ms",
            numpy=jacobian_numpy, tf_api=jacobian_tf, reference=jacobian_reference,
        ),
        Workload(
            "batch_jacobian", "ms", 1e3, goal="<= 0.25 ms",
            numpy=batch_jacobian_numpy, tf_api=batch_jacobian_tf,
            reference=batch_jacobian_reference,
        ),
        Workload(
            "hessian", "ms", 1e3, goal="<= 1.0 ms",
            numpy=hessian_numpy, tf_api=hessian_tf,
            reference=lambda: hessian_numpy(np.float64)(),
        ),
    ]  # fmt: skip


def verify(name: str, engine: str, got: Any, want: np.ndarray) -> None:
    got = np.asarray(got, dtype=np.float64).reshape(want.shape)
    scale = max(1.0, float(np.max(np.abs(want))))
    err = float(np.max(np.abs(got - want))) / scale
    if not err < 1e-3:  # float32 engines against a float64 reference
        raise AssertionError(
            f"{name}: {engine} differs from the reference by {err:.2e}"
        )


def available_engines() -> dict[str, Any]:
    engines: dict[str, Any] = {"tapemagic": importlib.import_module("tapemagic.tf")}
    with contextlib.suppress(ImportError):
        engines["TensorFlow"] = importlib.import_module("tensorflow")
    return engines


def peers_available() -> dict[str, Callable[[str], Callable[[], Any]]]:
    found = {}
    for name, module, fn in (("autograd", "autograd", peer_autograd),
                             ("PyTorch", "torch", peer_torch)):  # fmt: skip
        try:
            importlib.import_module(module)
            found[name] = fn
        except ImportError:
            pass
    return found


def run_workload(w: Workload, engines: dict, peers: dict, *, blocks: int = 9,
                 warm_up: float = 0.25) -> dict[str, float]:  # fmt: skip
    want = w.reference() if w.reference else None
    candidates: dict[str, Callable[[], Any]] = {"NumPy": w.numpy()}
    for name, tf in engines.items():
        candidates[name] = w.tf_api(tf)
    for name, make in peers.items():
        try:
            candidates[name] = make(w.name)
        except KeyError:
            continue
    for name, fn in candidates.items():
        if want is not None:
            result = fn()
            if hasattr(result, "numpy"):
                result = result.numpy()
            verify(w.name, name, result, want)
    times = median_times(candidates, blocks=blocks, warm_up=warm_up)
    return {name: t / w.per * w.scale for name, t in times.items()}


# -- whole-process measurements: peak memory, cold start -------------------------------

MEMORY_SCRIPT = textwrap.dedent(
    """
    # The chain y = y * exp(square(tanh(y)) * c) + x on (256, 256) float32, c a
    # constant tensor: 83 blocks of 6 ops (498 ops), then the gradient for x.
    # The hand-written backward keeps what the gradient needs, three arrays of
    # 256 KiB per block: y, tanh(y) and the exp. The figure is the peak of memory
    # allocated by the workload (NumPy arrays and Python objects, as
    # tracemalloc counts them), above what the process held before it began:
    # the interpreter and the imports are not part of the workload. The first
    # line printed is the gradient's sum, which the two engines must agree on.
    import sys, tracemalloc, numpy as np
    engine = sys.argv[1]
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((256, 256)).astype(np.float32)
    c0 = rng.uniform(-0.5, 0.0, (256, 256)).astype(np.float32)
    if engine != "NumPy":
        import tapemagic.tf as tf
    tracemalloc.start()
    if engine == "NumPy":
        saved, y = [], x0
        for _ in range(83):
            u = np.tanh(y)
            e = np.exp(np.square(u) * c0)
            saved.append((y, u, e))
            y = y * e + x0
        g = np.ones_like(y)
        gx = np.zeros_like(y)
        for y, u, e in reversed(saved):
            gx += g
            gu = g * y * e * c0 * (2 * u)
            g = g * e + gu * (1 - u * u)
        g = gx + g
    else:
        x = tf.Variable(x0)
        c = tf.constant(c0)
        with tf.GradientTape() as tape:
            y = x
            for _ in range(83):
                y = y * tf.exp(tf.square(tf.tanh(y)) * c) + x
        g = tape.gradient(y, x).numpy()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    print(float(np.sum(g, dtype=np.float64)))
    print(peak)
    """
)

COLD_SCRIPT = textwrap.dedent(
    """
    import time
    t0 = time.perf_counter()
    import tapemagic.tf as tf
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x ** 2
    g = tape.gradient(y, x)
    assert float(g) == 6.0
    print(time.perf_counter() - t0)
    """
)

COLD_NUMPY = textwrap.dedent(
    """
    import time
    t0 = time.perf_counter()
    import numpy as np
    x = np.float32(3.0); g = 2 * x
    print(time.perf_counter() - t0)
    """
)


def goal_met(goal: str, value: float, ratio: float) -> bool:
    """Whether a figure meets its goal: "<= 3 us/op" or "<= 1.3x NumPy"."""
    limit = goal.split()[1]
    if limit.endswith("x"):
        return ratio <= float(limit[:-1])
    return value <= float(limit)


MEMORY_ROW = "peak memory, 500-op chain on (256,256) + gradient"
# The gradient's sum each engine's memory run printed, keyed by engine: checked
# against the first engine's (NumPy's) before a figure counts.
_CHECKSUMS: dict[str, float] = {}


def subprocess_figure(script: str, *args: str, repeat: int = 3,
                      check: bool = False) -> float:  # fmt: skip
    """The smallest figure the script prints last in ``repeat`` fresh processes;
    with ``check``, the line before it is a result every engine must agree on."""
    values = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        lines = out.stdout.strip().splitlines()
        values.append(float(lines[-1]))
        if check:
            result = float(lines[-2])
            want = _CHECKSUMS.setdefault("first", result)
            if not abs(result - want) <= 1e-4 * max(1.0, abs(want)):
                raise AssertionError(
                    f"{' '.join(args)}: the result {result} differs from {want}"
                )
    return min(values)


def cold_figures(env: dict[str, str] | None = None, repeat: int = 21) -> dict:
    """Median seconds to import and take a first gradient in a fresh process,
    NumPy's import beside it; the two take turns, so load drift hits both."""
    times: dict[str, list[float]] = {"NumPy": [], "tapemagic": []}
    for _ in range(repeat):
        for name, script in (("NumPy", COLD_NUMPY), ("tapemagic", COLD_SCRIPT)):
            out = subprocess.run(
                [sys.executable, "-c", script],
                capture_output=True, text=True, check=True, cwd=ROOT, env=env,
            )  # fmt: skip
            times[name].append(float(out.stdout.strip().splitlines()[-1]))
    return {name: statistics.median(values) for name, values in times.items()}


def cached_bytecode_env(cache: str) -> dict[str, str]:
    """An environment whose imports read bytecode compiled once into ``cache``,
    as an installed package's do (pip compiles it at install time)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for script in (COLD_NUMPY, COLD_SCRIPT):  # compile and cache
        subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, env=env,
                       capture_output=True)  # fmt: skip
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller MLP batch")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--blocks", type=int, default=9, help="timed blocks")
    parser.add_argument(
        "--warm-up", type=float, default=0.25, help="seconds of warm-up per engine"
    )
    args = parser.parse_args()

    engines, peers = available_engines(), peers_available()
    rows: dict[str, dict[str, float]] = {}
    goals: dict[str, tuple[str, str]] = {}
    for w in workloads(args.quick):
        if args.only and w.name not in args.only:
            continue
        rows[w.name] = run_workload(
            w, engines, peers, blocks=args.blocks, warm_up=args.warm_up
        )
        goals[w.name] = (w.unit, w.goal)
        print(f"  measured {w.name}", file=sys.stderr)
    if not args.only or "memory" in args.only:
        rows[MEMORY_ROW] = {
            name: subprocess_figure(MEMORY_SCRIPT, name, check=True)
            for name in ("NumPy", "tapemagic")
        }
        goals[MEMORY_ROW] = ("MiB", "<= 1.05x NumPy")
    if not args.only or "cold" in args.only:
        # As the environment runs: without cached bytecode (a source checkout
        # under PYTHONDONTWRITEBYTECODE) Python compiles tapemagic each time.
        repeat = 3 if args.quick else 21
        rows["fresh process: import + first gradient"] = cold_figures(repeat=repeat)
        goals["fresh process: import + first gradient"] = ("s", "<= 0.15 s")
        with tempfile.TemporaryDirectory() as cache:
            rows["fresh process, bytecode cached: import + first gradient"] = (
                cold_figures(cached_bytecode_env(cache), repeat=repeat)
            )
        goals["fresh process, bytecode cached: import + first gradient"] = (
            "s",
            "<= 0.15 s",
        )

    names = ["NumPy", "tapemagic"] + [
        n for n in [*engines, *peers] if n not in ("NumPy", "tapemagic")
    ]
    header = (
        f"| workload | unit | {' | '.join(names)} | tapemagic / NumPy | goal | met |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for wname, row in rows.items():
        unit, goal = goals[wname]
        cells = [f"{row[n]:.3g}" if n in row else "-" for n in names]
        ratio = row["tapemagic"] / row["NumPy"]
        met = "yes" if goal_met(goal, row["tapemagic"], ratio) else "no"
        figures = " | ".join([*cells, f"{ratio:.2f}x", goal, met])
        print(f"| {wname} | {unit} | {figures} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "goals": goals}, fh, indent=2)


if __name__ == "__main__":
    main()
