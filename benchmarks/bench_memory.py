"""Memory over a long session: 10,000 training steps in one process.

A notebook kernel lives for hours. This trains a small MLP on scikit-learn's
digits (1,797 images of 8x8 pixels, 10 classes) with a fresh
``tf.GradientTape`` for every step, exactly as course code does, and prints the
process's resident set size (RSS) after a warm-up and every 1,000 steps, the
number of live Tensor objects, and the relative drift of RSS against the
warm-up figure. A leak of one tensor per step shows as steady growth in both.

It is a benchmark, not a test (tests/engine/test_memory.py checks object counts
with generous bounds); it takes well under a minute here.

Run:  .venv/bin/python benchmarks/bench_memory.py [--steps 10000] [--warmup 1000]
      [--persistent]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tapemagic.tf as tf  # noqa: E402
from tapemagic.engine import Tensor  # noqa: E402

BATCH = 64


def rss_mib() -> float:
    """Resident set size of this process in MiB (Linux /proc, else psutil)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        import psutil

        return psutil.Process().memory_info().rss / 2**20


def live_tensors() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Tensor))


def digits() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    data = load_digits()
    return (data.data / 16.0).astype(np.float32), data.target.astype(np.int32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=1_000)
    parser.add_argument("--every", type=int, default=1_000)
    parser.add_argument(
        "--persistent",
        action="store_true",
        help="persistent tapes, each deleted after its step (default: non-persistent)",
    )
    args = parser.parse_args()

    x, y = digits()
    tf.random.set_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(1e-3)
    order = np.random.default_rng(0).permutation(len(x))

    def step(i: int) -> float:
        start = (i * BATCH) % (len(x) - BATCH)
        idx = order[start : start + BATCH]
        with tf.GradientTape(persistent=args.persistent) as tape:
            loss = loss_fn(y[idx], model(x[idx]))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        del tape  # a persistent tape lets go of its record here
        return float(loss)

    kind = "persistent" if args.persistent else "non-persistent"
    print(f"digits MLP 64-64-10, batch {BATCH}, Adam; a fresh {kind} tape every step")
    print(f"RSS before training: {rss_mib():.1f} MiB")
    t0 = time.perf_counter()
    for i in range(args.warmup):
        step(i)
    gc.collect()
    base = rss_mib()
    base_tensors = live_tensors()
    print(
        f"after {args.warmup:,} warm-up steps: RSS {base:.1f} MiB, "
        f"{base_tensors} live Tensors"
    )
    print(f"{'step':>7}  {'RSS MiB':>8}  {'drift':>7}  {'Tensors':>7}  {'loss':>7}")
    peak = base
    loss = float("nan")
    for i in range(1, args.steps + 1):
        loss = step(args.warmup + i)
        if i % args.every == 0 or i == args.steps:
            rss = rss_mib()
            peak = max(peak, rss)
            print(
                f"{i:>7,}  {rss:>8.1f}  {(rss - base) / base:>+7.2%}  "
                f"{live_tensors():>7}  {loss:>7.4f}"
            )
    seconds = time.perf_counter() - t0
    final = rss_mib()
    print(
        f"{args.steps:,} steps in {seconds:.1f} s ({1e3 * seconds / args.steps:.2f} "
        f"ms/step); RSS {base:.1f} -> {final:.1f} MiB after warm-up: drift "
        f"{(final - base) / base:+.2%} (peak {(peak - base) / base:+.2%}); live "
        f"Tensors {base_tensors} -> {live_tensors()}"
    )


if __name__ == "__main__":
    main()
