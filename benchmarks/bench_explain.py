"""What the explanation log costs: the engine's op-overhead workload, four ways.

The workload is ``bench_engine.py``'s op overhead: 200 small elementwise ops
(tanh, multiply, add, sin) on a (16,) float32 vector, then one gradient. It runs

- as a hand-written NumPy forward and backward (the limit),
- with no tape (the forward only),
- under a plain ``GradientTape`` (also with the gradient call's observer check
  bypassed, to show that explain support costs a plain tape nothing),
- under ``GradientTape(explain=True)``, which logs every op with its line.

Times are medians of repeated blocks after a warm-up, the variants taking turns
block by block. Every variant's gradient
is checked against the NumPy one before timing. The goal: the explain tape at
most 2x the plain tape.

Run:  .venv/bin/python benchmarks/bench_explain.py [--blocks N]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from timing import median_times  # noqa: E402  (benchmarks/timing.py)

import tapemagic.tf as tf  # noqa: E402
from tapemagic.engine.tape import GradientTape  # noqa: E402

OPS = 200
X16 = np.linspace(-1.0, 1.0, 16).astype(np.float32)
C = np.float32(0.9)


def numpy_step() -> np.ndarray:
    x, saved = X16, []
    for _ in range(OPS // 4):
        t = np.tanh(x)
        s = t * C + C
        saved.append((t, s))
        x = np.sin(s)
    g = np.ones_like(x)
    for t, s in reversed(saved):
        g = g * np.cos(s)
        g = g * C
        g = g * (1 - t * t)
    return g


def make_forward() -> Callable[[], Any]:
    x = tf.Variable(X16)
    c = tf.constant(0.9)

    def step() -> Any:
        y = x
        for _ in range(OPS // 4):
            y = tf.sin(tf.tanh(y) * c + c)
        return y

    return step


def make_taped(explain: bool, unwrapped: bool = False) -> Callable[[], Any]:
    x = tf.Variable(X16)
    c = tf.constant(0.9)
    gradient = GradientTape.gradient.__wrapped__ if unwrapped else None

    def step() -> Any:
        with tf.GradientTape(explain=explain) as tape:
            y = x
            for _ in range(OPS // 4):
                y = tf.sin(tf.tanh(y) * c + c)
        if gradient is not None:
            return gradient(tape, y, x)
        return tape.gradient(y, x)

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15, help="timed blocks")
    args = parser.parse_args()

    reference = numpy_step()
    variants = {
        "numpy forward+backward": numpy_step,
        "no tape (forward only)": make_forward(),
        "plain tape": make_taped(explain=False),
        "plain tape, unwrapped gradient": make_taped(explain=False, unwrapped=True),
        "explain tape": make_taped(explain=True),
    }
    for name, fn in variants.items():
        if "forward only" in name:
            continue
        got = np.asarray(fn())
        if not np.allclose(got, reference, rtol=1e-4, atol=1e-6):
            raise SystemExit(f"{name}: gradient differs from the NumPy reference")

    times = median_times(variants, blocks=args.blocks)
    base, plain = times["numpy forward+backward"], times["plain tape"]
    print(f"op overhead: {OPS} elementwise ops on (16,) float32 + one gradient")
    print(f"{'variant':34} {'us/op':>8} {'x numpy':>8} {'x plain tape':>13}")
    for name, seconds in times.items():
        print(
            f"{name:34} {seconds / OPS * 1e6:8.2f} {seconds / base:8.2f} "
            f"{seconds / plain:13.2f}"
        )
    ratio = times["explain tape"] / plain
    verdict = "within" if ratio <= 2.0 else "OVER"
    print(f"explain / plain = {ratio:.2f} ({verdict} the 2x budget)")


if __name__ == "__main__":
    main()
