"""Fuzz the tape's lifecycle: random sequences of everything a user can do to tapes.

A hypothesis state machine opens tapes (persistent or not, nested, re-entered),
pauses them with ``stop_recording``, resets them, watches tensors, variables and
objects that are neither, runs ops, asks for gradients, jacobians and batch
jacobians with good and bad arguments (from this thread or from a worker
thread), and lets exceptions escape ``with`` blocks. After every step the tape
stack of the thread must hold exactly the tapes that are recording, each once,
and every error must be one of the documented ones. At the end every block is
closed and no tape may be left on the stack. (That a dropped tape is garbage is
checked in tests/engine/test_memory.py, where nothing else holds it.)

Budget: see tests/fuzz/budget.py (``TAPEMAGIC_FUZZ_EXAMPLES`` for a long run).
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.context import state
from tapemagic.engine.errors import OpError

from .budget import fuzz_settings

DOCUMENTED = (TypeError, ValueError, RuntimeError, OpError)

ODD = [None, "x", 3, 2.5, [1.0, 2.0], {"a": 1}, object(), np.ones(2), [None]]
# mostly tensors and variables, sometimes anything at all
ANY = st.one_of(*[Bundle("values")] * 4, st.sampled_from(ODD))

SHAPES = [(), (3,), (2, 3), (3, 3), (2, 3, 1)]
OPS = {
    "multiply": lambda x, y: x * y,
    "add": lambda x, y: tf.add(x, y),
    "matmul": lambda x, y: tf.matmul(x, y),
    "tanh": lambda x, y: tf.tanh(x),
    "reduce_sum": lambda x, y: tf.reduce_sum(x, axis=0),
    "cast": lambda x, y: tf.cast(x, tf.int32),
    "stop_gradient": lambda x, y: tf.stop_gradient(x) * y,
}


def _check_documented(err: Exception, what: str) -> None:
    if not isinstance(err, DOCUMENTED) or type(err).__module__.startswith("numpy"):
        raise AssertionError(
            f"{what} raised an undocumented {type(err).__name__}: {err}"
        ) from err
    assert str(err).strip(), f"{what}: {type(err).__name__} without a message"


class TapeLifecycle(RuleBasedStateMachine):
    """Tapes, ``with`` blocks and values, and a model of which tapes record."""

    tapes = Bundle("tapes")
    values = Bundle("values")

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[tuple] = []  # open with-blocks, innermost last
        self.recording: dict[int, bool] = {}  # id(tape) -> does it record now
        self.live: dict[int, GradientTape] = {}
        self.rng = np.random.default_rng(0)
        self.worker = ThreadPoolExecutor(1)
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore", UserWarning)  # integer sources warn

    # -- values ------------------------------------------------------------------
    @initialize(target=values)
    def a_variable(self) -> Variable:
        return Variable(self.rng.uniform(-1, 1, size=(3, 3)))

    @initialize(target=tapes, persistent=st.booleans())
    def an_open_tape(self, persistent: bool) -> GradientTape:
        tape = self.new_tape(persistent=persistent, watch_accessed=True)
        self.enter(tape)
        return tape

    @rule(target=values, shape=st.sampled_from(SHAPES), kind=st.sampled_from(
        ["float64", "float32", "int32", "variable", "untrainable"]))  # fmt: skip
    def make_value(self, shape: tuple, kind: str) -> Any:
        a = self.rng.uniform(-1, 1, size=shape)
        if kind == "variable":
            return Variable(a)
        if kind == "untrainable":
            return Variable(a, trainable=False)
        return Tensor(a.astype(kind))

    @rule(target=values, op=st.sampled_from(sorted(OPS)), x=values, y=values)
    def run_op(self, op: str, x: Any, y: Any) -> Any:
        try:
            return OPS[op](x, y)
        except Exception as err:
            _check_documented(err, op)
            return x

    @rule(v=values, scale=st.floats(-2, 2))
    def assign(self, v: Any, scale: float) -> None:
        if isinstance(v, Variable):
            v.assign(v.numpy() * np.asarray(scale, v.numpy().dtype))

    # -- tapes -------------------------------------------------------------------
    @rule(target=tapes, persistent=st.booleans(), watch_accessed=st.booleans())
    def new_tape(self, persistent: bool, watch_accessed: bool) -> GradientTape:
        tape = GradientTape(persistent, watch_accessed)
        self.recording[id(tape)] = False
        self.live[id(tape)] = tape
        return tape

    @rule(tape=tapes)
    def enter(self, tape: GradientTape) -> None:
        if self.recording[id(tape)]:
            with pytest.raises(ValueError, match="already-active tape"):
                tape.__enter__()
            return
        tape.__enter__()
        self.frames.append(("tape", tape, None))
        self.recording[id(tape)] = True

    @rule(tape=tapes)
    def pause(self, tape: GradientTape) -> None:
        cm = tape.stop_recording()
        if not self.recording[id(tape)]:
            with pytest.raises(RuntimeError, match="not recording"):
                cm.__enter__()
            return
        cm.__enter__()
        self.frames.append(("pause", tape, cm))
        self.recording[id(tape)] = False

    @precondition(lambda self: self.frames)
    @rule(raising=st.sampled_from([None, ZeroDivisionError, KeyboardInterrupt]))
    def leave(self, raising: type | None) -> None:
        """Leave the innermost block, normally or with an exception escaping it."""
        kind, tape, cm = self.frames.pop()
        exc = (raising, raising("the cell"), None) if raising else (None, None, None)
        if kind == "tape":
            assert not tape.__exit__(*exc)  # never swallows the cell's error
            self.recording[id(tape)] = False
        else:
            assert not cm.__exit__(*exc)  # the `with` statement re-raises it
            self.recording[id(tape)] = True

    @rule(tape=tapes)
    def reset(self, tape: GradientTape) -> None:
        if not self.recording[id(tape)]:
            with pytest.raises(ValueError, match="not recording"):
                tape.reset()
            return
        tape.reset()
        assert tape._nodes == [] and not tape._watched

    @rule(tape=tapes, item=ANY, nested=st.booleans())
    def watch(self, tape: GradientTape, item: Any, nested: bool) -> None:
        try:
            tape.watch({"a": [item]} if nested else item)
        except Exception as err:
            _check_documented(err, "watch")
            assert not isinstance(item, (Tensor, Variable)), err

    @rule(
        tape=tapes,
        y=ANY,
        sources=st.lists(ANY, max_size=3),
        call=st.sampled_from(["gradient", "jacobian", "batch_jacobian"]),
        zero=st.booleans(),
        elsewhere=st.booleans(),
    )
    def differentiate(self, tape, y, sources, call, zero, elsewhere) -> None:
        """Ask for derivatives, from this thread or from a worker thread."""
        mode = tf.UnconnectedGradients.ZERO if zero else tf.UnconnectedGradients.NONE
        usable = tape._nodes is not None

        def ask() -> Any:
            try:
                if call == "batch_jacobian":
                    return tape.batch_jacobian(y, sources[:1] or None, mode)
                return getattr(tape, call)(y, sources, unconnected_gradients=mode)
            except Exception as err:
                return err

        result = self.worker.submit(ask).result() if elsewhere else ask()
        if isinstance(result, Exception):
            _check_documented(result, call)
        if usable and not tape._persistent:
            # a non-persistent tape leaves the stack as soon as it is asked
            self.recording[id(tape)] = False
        if not usable:
            assert isinstance(result, RuntimeError), result
        event(f"{call}: {type(result).__name__}")
        if isinstance(result, Exception) or call == "batch_jacobian":
            return
        for g, s in zip(result, sources):
            if g is not None:
                shape = s.shape if call == "gradient" else y.shape + s.shape
                assert tuple(g.shape) == tuple(shape), (call, g.shape, shape)

    # -- invariants ----------------------------------------------------------------
    @invariant()
    def the_stack_holds_exactly_the_recording_tapes(self) -> None:
        stack = state.tapes
        assert len({id(t) for t in stack}) == len(stack), f"a tape twice: {stack}"
        on_stack = {id(t) for t in stack}
        for key, tape in self.live.items():
            assert tape._recording == self.recording[key], (tape, self.recording[key])
            assert (key in on_stack) == self.recording[key], tape
        assert on_stack <= set(self.live), "a tape the model lost is on the stack"

    def teardown(self) -> None:
        try:
            while self.frames:
                kind, tape, cm = self.frames.pop()
                if kind == "tape":
                    tape.__exit__(None, None, None)
                else:
                    cm.__exit__(None, None, None)
            assert state.tapes == [], f"tapes left recording: {state.tapes}"
            assert state.observers == []
        finally:
            state.tapes.clear()
            self.worker.shutdown()
            self._warnings.__exit__(None, None, None)


TapeLifecycle.TestCase.settings = fuzz_settings(200, stateful_step_count=30)
test_tape_lifecycle = TapeLifecycle.TestCase
