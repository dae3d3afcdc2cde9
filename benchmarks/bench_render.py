"""How long a tape takes to draw: 50, 500 and 5,000-op tapes, stage by stage.

Each tape is a training loop of 5 steps recorded by one
``GradientTape(explain=True)`` (as ``%%tape`` records it): per step a tanh MLP
of L layers (matmul, add, tanh per layer), a squared-error loss, and a running
total; then one gradient of the total with respect to every weight. L is chosen
so that the tape holds about 50, 500 or 5,000 ops.

Stages, each a median of ``--repeats`` runs:

- ``model``: ``graph_from_tape`` (the graph model from the log);
- ``diagnose``: the why-None diagnosis (when installed);
- ``dot``: ``build_view``, choosing what to draw and writing the DOT text;
- ``svg``: Graphviz's ``dot`` turning that into SVG;
- ``widget``: ``TapeWidget`` (the view, its SVG and tables), from the model;
- ``first view``: all of what a ``%%tape`` cell displays, from the tape:
  model, diagnosis, widget and the static HTML copy.

The goal: the first view of the 5,000-op tape in under 2 s.

Run:  .venv/bin/python benchmarks/bench_render.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tapemagic.tf as tf  # noqa: E402
from tapemagic.graph import from_tape  # noqa: E402
from tapemagic.graph.from_tape import graph_from_tape  # noqa: E402
from tapemagic.viz.dot import build_view, render_svg  # noqa: E402
from tapemagic.viz.view import TapeView, find_problems  # noqa: E402
from tapemagic.viz.widget import TapeWidget  # noqa: E402

STEPS = 5
SIZES = (50, 500, 5000)


def training_tape(target_ops: int) -> tuple[Any, int]:
    """A 5-step training loop in one explained tape, about ``target_ops`` ops."""
    per_step = target_ops // STEPS
    layers = max(1, (per_step - 4) // 3)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
    y = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
    ws = [
        tf.Variable(rng.normal(scale=0.5, size=(4, 4)).astype(np.float32), name=f"w{i}")
        for i in range(layers)
    ]
    bs = [tf.Variable(np.zeros(4, np.float32), name=f"b{i}") for i in range(layers)]
    with tf.GradientTape(explain=True) as tape:
        total = tf.constant(0.0)
        for _ in range(STEPS):
            h = x
            for w, b in zip(ws, bs):
                h = tf.tanh(tf.matmul(h, w) + b)
            loss = tf.reduce_mean(tf.square(h - y))
            total = total + loss
    tape.gradient(total, ws + bs)
    return tape, layers


def first_view(tape: Any) -> dict:
    """What a %%tape cell displays, computed afresh: the model and findings a
    view keeps per tape state are dropped first, so every repeat pays for them."""
    views = getattr(from_tape, "_VIEWS", None)
    if views is not None:
        views.clear()
    return TapeView(tape, "tape")._repr_mimebundle_()


def median(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    fn()  # warm-up (imports, caches)
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'tape':>10} {'layers':>6} {'model':>8} {'diagnose':>9} {'dot':>8} "
          f"{'svg':>8} {'widget':>8} {'first view':>11}  drawn")  # fmt: skip
    for size in SIZES:
        tape, layers = training_tape(size)
        ops = len(tape._explain.events and graph_from_tape(tape).ops)
        t_model, graph = median(
            lambda t=tape: graph_from_tape(t, name="tape"), args.repeats
        )
        t_diag, findings = median(lambda g=graph: find_problems(g), args.repeats)
        t_dot, view = median(lambda g=graph, f=findings: build_view(g, f), args.repeats)
        t_svg, svg = median(lambda v=view: render_svg(v), args.repeats)
        t_widget, _ = median(lambda g=graph, f=findings: TapeWidget(g, f), args.repeats)
        t_first, bundle = median(lambda t=tape: first_view(t), args.repeats)
        assert svg.count('class="node') == len(view.nodes)
        assert "text/html" in bundle
        drawn = f"{len(view.nodes)} nodes" + (" (collapsed)" if view.collapsed else "")
        print(
            f"{ops:>7} ops {layers:>6} {t_model * 1e3:>6.0f}ms {t_diag * 1e3:>7.0f}ms "
            f"{t_dot * 1e3:>6.0f}ms {t_svg * 1e3:>6.0f}ms {t_widget * 1e3:>6.0f}ms "
            f"{t_first * 1e3:>9.0f}ms  {drawn}"
        )
        print(f"{'':>18}{view.notes()}")


if __name__ == "__main__":
    main()
