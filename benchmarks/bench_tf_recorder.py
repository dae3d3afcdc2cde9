"""What recording costs on real TensorFlow: each workload under a plain
``tf.GradientTape`` and under the tape a ``%%tape`` cell runs (a
``RecordingTape`` whose explanation log hears every op, read, conversion and
escape, with its line), in the same process, taking turns block by block.

Workloads:

- op overhead: 200 small elementwise ops (tanh, multiply, add, sin) on a (16,)
  float32 variable, then one gradient (``bench_explain.py``'s, on TensorFlow);
- Keras MLP step: a Sequential 64-128-10 MLP (relu), a batch of 32, sparse
  categorical cross-entropy from logits, the gradient of every weight and one
  SGD update.

Both variants' gradients are checked equal before timing. Times are medians of
repeated blocks after a warm-up. The goal: recording under 2x the plain tape.

Run:  .venv/bin/python benchmarks/bench_tf_recorder.py [--blocks N] [--quick]
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
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from timing import median_times  # noqa: E402  (benchmarks/timing.py)

from tapemagic.graph.log import ExplainLog  # noqa: E402
from tapemagic.tf_recorder import load  # noqa: E402

RecordingTape = load().RecordingTape
OPS = 200
X16 = np.linspace(-1.0, 1.0, 16).astype(np.float32)


def _tape(recorded: bool) -> tf.GradientTape:
    if recorded:
        return RecordingTape(explain=ExplainLog(__file__, label="bench"))
    return tf.GradientTape()


def make_chain(recorded: bool) -> Callable[[], Any]:
    x = tf.Variable(X16)
    c = tf.constant(0.9)

    def step() -> Any:
        with _tape(recorded) as tape:
            y = x
            for _ in range(OPS // 4):
                y = tf.sin(tf.tanh(y) * c + c)
        return tape.gradient(y, x)

    return step


def make_mlp(recorded: bool) -> Callable[[], Any]:
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((64,)),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.SGD(learning_rate=0.0)  # the weights stay put
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 64)).astype(np.float32)
    y = rng.integers(0, 10, size=(32,))

    def step() -> Any:
        with _tape(recorded) as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return grads

    return step


WORKLOADS = {
    f"op overhead ({OPS} ops on (16,))": (make_chain, OPS),
    "Keras MLP 64-128-10 step (batch 32)": (make_mlp, None),
}


def _same(a: Any, b: Any) -> bool:
    flat_a, flat_b = tf.nest.flatten(a), tf.nest.flatten(b)
    return len(flat_a) == len(flat_b) and all(
        np.allclose(p.numpy(), q.numpy(), rtol=1e-5, atol=1e-7)
        for p, q in zip(flat_a, flat_b)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15, help="timed blocks")
    parser.add_argument("--quick", action="store_true", help="short blocks (checks)")
    args = parser.parse_args()
    timing = {"min_block": 0.01, "warm_up": 0.0} if args.quick else {}

    print("| workload | plain tf.GradientTape | %%tape recording | ratio | goal |")
    print("| --- | --- | --- | --- | --- |")
    for name, (make, ops) in WORKLOADS.items():
        plain, recorded = make(False), make(True)
        if not _same(plain(), recorded()):
            raise SystemExit(f"{name}: the recorded tape's gradients differ")
        times = median_times(
            {"plain": plain, "recorded": recorded}, blocks=args.blocks, **timing
        )
        ratio = times["recorded"] / times["plain"]
        met = "yes" if ratio < 2.0 else "no"
        print(
            f"| {name} | {_per(times['plain'], ops)} | {_per(times['recorded'], ops)} "
            f"| {ratio:.2f}x | < 2x: {met} |"
        )


def _per(seconds: float, ops: int | None) -> str:
    return f"{seconds / ops * 1e6:.1f} us/op" if ops else f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
