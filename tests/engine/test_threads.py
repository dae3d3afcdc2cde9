"""Tapes in threads: each thread's tapes see only that thread's ops.

Eight threads record at the same time, stepping in lockstep through a barrier
so their ops interleave op by op. Each thread's gradient must equal what the
same computation gives alone in one thread, its tape must hold only nodes whose
outputs that thread made, and every thread's tape stack must be empty at the
end, including in a thread whose cell raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.context import state

THREADS = 8
STEPS = 6


def _run_threads(work: Callable[[int, threading.Barrier], Any]) -> list:
    barrier = threading.Barrier(THREADS, timeout=30)
    results: list = [None] * THREADS
    errors: list = []

    def run(i: int) -> None:
        try:
            results[i] = work(i, barrier)
        except BaseException as err:  # reported in the main thread below
            errors.append(err)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results


def _inputs(i: int) -> np.ndarray:
    return np.random.default_rng(i).standard_normal((4, 3))


# One weight matrix shared by every thread: its id is watched by every thread's
# tape, so a tape stack shared between threads would record other threads' ops.
W0 = np.random.default_rng(100).standard_normal((3, 2))


def _model(x: Tensor, w: Any, made: set[int] | None, sync: Callable[[], Any]) -> Tensor:
    """A few layers; ``sync()`` between ops makes threads interleave op by op."""
    h = x
    for _ in range(STEPS):
        h = tf.matmul(h, w) if h.shape[-1] == 3 else tf.matmul(h, w, transpose_b=True)
        sync()
        h = tf.tanh(h) * 0.9
        sync()
        if made is not None:
            made.add(h._id)
    return tf.reduce_sum(h * h)


def _alone(i: int) -> tuple[np.ndarray, np.ndarray]:
    w = Variable(W0)
    xt = Tensor(_inputs(i))
    with GradientTape(persistent=True) as tape:
        tape.watch(xt)
        loss = _model(xt, w, None, lambda: None)
    gw, gx = tape.gradient(loss, [w, xt])
    return gw.numpy(), gx.numpy()


def test_eight_threads_record_only_their_own_ops_and_match_one_thread() -> None:
    want = [_alone(i) for i in range(THREADS)]
    w = Variable(W0)

    def work(i: int, barrier: threading.Barrier) -> tuple:
        xt = Tensor(_inputs(i))
        made: set[int] = set()
        barrier.wait()
        with GradientTape(persistent=True) as tape:
            tape.watch(xt)
            loss = _model(xt, w, made, barrier.wait)
        made.add(loss._id)
        outputs = {o._id for node in tape._nodes for o in node[2]}
        gw, gx = tape.gradient(loss, [w, xt])
        barrier.wait()
        return gw.numpy(), gx.numpy(), outputs, made, list(state.tapes)

    results = _run_threads(work)
    ids = [r[3] for r in results]
    for i, (gw, gx, outputs, made, stack) in enumerate(results):
        np.testing.assert_array_equal(gw, want[i][0])
        np.testing.assert_array_equal(gx, want[i][1])
        others = set().union(*[m for j, m in enumerate(ids) if j != i])
        assert not outputs & others, f"thread {i}'s tape recorded another's ops"
        assert made <= outputs, f"thread {i}'s tape missed its own ops"
        assert stack == [], f"thread {i} left {stack} on its tape stack"
    assert state.tapes == []


def test_a_variable_shared_by_threads_is_watched_only_where_read() -> None:
    # One trainable variable read by every thread: each thread's tape watches
    # it and gets only its own thread's gradient; a thread that never reads it
    # inside its tape does not watch it.
    w = Variable(np.array([1.0, 2.0, 3.0]))

    def work(i: int, barrier: threading.Barrier) -> tuple:
        barrier.wait()
        with GradientTape() as tape:
            if i % 2 == 0:
                barrier.wait()
                loss = tf.reduce_sum(w * w * float(i + 1))
                barrier.wait()
            else:
                barrier.wait()
                loss = tf.constant(float(i))
                barrier.wait()
        watched = tape.watched_variables()
        return tape.gradient(loss, w), watched

    for i, (grad, watched) in enumerate(_run_threads(work)):
        if i % 2 == 0:
            np.testing.assert_array_equal(grad.numpy(), 2 * (i + 1) * w.numpy())
            assert watched == (w,)
        else:
            assert grad is None and watched == ()


def test_a_failing_cell_in_one_thread_leaves_every_stack_clean() -> None:
    def work(i: int, barrier: threading.Barrier) -> tuple:
        x = Tensor(np.full((2, 2), float(i)))
        outer = GradientTape()
        inner = GradientTape(persistent=True)
        failed = False
        try:
            with outer, inner:
                outer.watch(x)
                inner.watch(x)
                barrier.wait()
                y = x * x
                barrier.wait()  # every thread has both tapes on its stack here
                assert state.tapes == [outer, inner]
                if i == 3:
                    tf.matmul(y, tf.ones((3, 3), tf.float64))  # shapes do not fit
        except tf.errors.InvalidArgumentError:
            failed = True
        barrier.wait()
        grad = outer.gradient(y, x) if not failed else None
        return failed, list(state.tapes), grad

    for i, (failed, stack, grad) in enumerate(_run_threads(work)):
        assert failed == (i == 3)
        assert stack == []
        if not failed:
            np.testing.assert_array_equal(grad.numpy(), np.full((2, 2), 2.0 * i))


def test_a_gradient_asked_from_another_thread_takes_the_tape_off_its_stack() -> None:
    # Regression (issue 8): a non-persistent tape leaves the stack when it is
    # asked for its gradient; asked from a worker thread, it left the worker's
    # (empty) stack instead and stayed on its own thread's stack for good,
    # where every later op of that thread walked it.
    x = Variable(2.0)
    with ThreadPoolExecutor(1) as pool:
        with GradientTape() as tape:
            y = x * x
            grad = pool.submit(tape.gradient, y, x).result()
            assert state.tapes == []
        assert state.tapes == []
        with GradientTape(persistent=True) as kept:
            y = x * x
            pool.submit(kept.gradient, y, x).result()
            assert state.tapes == [kept]  # a persistent tape keeps recording
        assert state.tapes == []
    assert float(grad) == 4.0
