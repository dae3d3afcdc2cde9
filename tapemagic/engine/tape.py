"""GradientTape with TensorFlow's semantics.

A tape records, in execution order, each op that has a watched input, and keeps
the ids of the tensors that depend on a watched value. ``gradient`` walks the
record backwards once; ``jacobian`` and ``batch_jacobian`` do the same with a
batch of cotangents, so a whole jacobian costs one sweep (a few, in chunks, when
it is very large).

TensorFlow's rules, which the tests pin: trainable variables are watched when
read inside the tape; unconnected sources get ``None`` (or zeros on request);
non-scalar targets give the gradient of their sum; integer sources give ``None``
with a warning; a non-persistent tape answers once.

This module holds the tape: its context, the recording rule, ``watch`` (and
putting back what a late watch needs) and ``gradient``. The jacobians' sweeps
are in ``jacobian.py``; what a request is given and answers, and what its
listeners hear, in ``request.py``; the hooks the package root fills (the
explanation log, the diagnosis) in ``hooks.py``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import hooks as _hooks
from . import jacobian as _jacobian
from . import nest
from . import saves as _saves
from .backprop import backward
from .context import new_id, state
from .eager_tensor import EagerTensor, _ref
from .events import TapeEvent, WatchEvent
from .hooks import (
    _diagnose,
    _explain_observer,
    set_diagnosis,
    set_explain_default,
    set_explain_factory,
)
from .op import Op
from .request import (
    _LEAVES,
    _PACKAGE_DIR,
    UnconnectedGradients,
    _as_sources,
    _as_target,
    _differentiable_ids,
    _explained,
    _identity_or_result,
    _observers_of,
    _seeds,
    _unconnected_mode,
    _warn_not_floating,
    unwatchable,
)
from .saves import Stub, slim
from .tensor import Tensor, Variable

__all__ = [
    "GradientTape",
    "UnconnectedGradients",
    "set_diagnosis",
    "set_explain_default",
    "set_explain_factory",
    "unwatchable",
]

# The dtypes that carry a gradient, as a set: a membership test costs less
# than reading a dtype's kind, on the path of every recorded op.
_FLOATING = frozenset(
    [np.dtype(t) for t in ("float16", "float32", "float64", "complex64", "complex128")]
)


class GradientTape:
    """Record operations for automatic differentiation, as ``tf.GradientTape``.

    Args:
        persistent: allow more than one ``gradient``/``jacobian`` call.
        watch_accessed_variables: watch trainable variables as soon as they are
            read inside the tape.
        explain: keep an explanation log of everything that runs inside the
            ``with`` block (every op, watched or not, with its source line;
            conversions, escapes to NumPy, variable reads and assigns) and of
            every gradient request. ``True`` uses the log ``tapemagic.graph``
            provides; any listener (``tapemagic.engine.recorder.Listener``)
            works too. Off by default (None: as ``set_explain_default``
            says, off unless ``%tape --all on``): a plain tape pays nothing.

    Example:
        >>> x = Variable(3.0)
        >>> with GradientTape() as tape:
        ...     y = x * x
        >>> print(tape.gradient(y, x))
        tf.Tensor(6.0, shape=(), dtype=float32)
    """

    def __init__(
        self,
        persistent: bool = False,
        watch_accessed_variables: bool = True,
        explain: Any = None,
    ) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        if explain is None:
            # The default (set_explain_default), for tapes the user's code
            # makes: not those inside tapemagic, such as fit's.
            explain = _hooks._explain_default and not sys._getframe(
                1
            ).f_code.co_filename.startswith(_PACKAGE_DIR)
        self._explain = _explain_observer(explain, self)
        self._listening = False
        self._recording = False
        # The tape stack of the thread that pushed the tape: it leaves that one
        # even when a gradient is asked from another thread.
        self._stack: list = state.tapes
        # Recorded state; None until the tape is first entered and again after a
        # non-persistent tape has answered (entering it then starts afresh).
        self._nodes: list | None = None
        self._tracked: set[int] = set()
        self._variables: dict[int, Variable] = {}
        self._watched: dict[int, Tensor] = {}
        self._used = False

    # -- context ---------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        self._push()
        if self._explain is not None:
            self._listen(True)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._recording:
            self._pop()
        if self._explain is not None:
            self._listen(False)

    def _push(self) -> None:
        if self._recording:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter an "
                "already-active tape. Use a new tf.GradientTape() for the inner block."
            )
        if self._nodes is None:
            self._start()
        self._stack = state.tapes
        self._stack.append(self)
        self._recording = True
        if self._explain is not None or state.observers:
            self._announce("start")

    def _pop(self) -> None:
        tapes = self._stack
        for i in range(len(tapes) - 1, -1, -1):
            if tapes[i] is self:
                del tapes[i]
                break
        self._recording = False
        if self._explain is not None or state.observers:
            self._announce("stop")

    def _listen(self, on: bool) -> None:
        # The explanation log hears every op from entering the `with` block to
        # leaving it, including ops under stop_recording() and after a
        # non-persistent tape has answered (the diagnosis needs those too).
        observers = state.observers
        log = self._explain
        if on:
            if not any(o is log for o in observers):
                observers.append(log)
                self._listening = True
        elif self._listening:
            for i in range(len(observers) - 1, -1, -1):
                if observers[i] is log:
                    del observers[i]
                    break
            self._listening = False

    def _announce(self, kind: str) -> None:
        """Tell the listeners that this tape started, stopped, paused or reset."""
        event = TapeEvent(self, kind, new_id())
        for observer in _observers_of(self):
            observer.on_tape(event)

    def _start(self) -> None:
        self._nodes = []
        self._tracked = set()
        self._variables = {}
        self._watched = {}
        self._used = False

    def _record(self, op: Op, inputs: tuple, outputs: tuple, params: dict) -> bool:
        """Record a differentiable op that ran, if it read a value this tape
        tracks; whether it did."""
        tracked = self._tracked
        drops = op.drops
        if drops is None:
            for t in inputs:
                if t._id in tracked:
                    break
            else:
                return False
            dropped = op.dropped
        else:
            # The inputs' VJPs read different values: keep those read by the
            # VJPs of the inputs this tape tracks, the ones that need a gradient.
            mask, bit = 0, 1
            for t in inputs:
                if t._id in tracked:
                    mask |= bit
                bit += bit
            if not mask:
                return False
            dropped = drops[mask]
        single = len(outputs) == 1
        if single:
            floating = outputs[0]._value.dtype in _FLOATING
            if not floating and not op.integer_gradient:
                return False  # integer and boolean results carry no gradient
        elif not any(o._value.dtype.kind in "fc" for o in outputs):
            return False  # (an op with no outputs at all, such as unstack of nothing)
        # Keep only what the VJPs read, so the tape frees the rest (see defop);
        # values too small to be worth a stub stay. (-1 is the one output.)
        if dropped:
            minimum = _saves.STUB_MIN_BYTES
            for i in dropped:
                if (outputs[0] if i < 0 else inputs[i])._value.nbytes >= minimum:
                    inputs, outputs = slim(op, inputs, outputs, dropped)
                    break
        self._nodes.append((op, inputs, outputs, params))
        if single:
            if not floating:
                # NOTE: an integer_gradient op's integer result is a target,
                # but not tracked: as TensorFlow's tape, which records no op
                # whose watched inputs are all integers.
                return True
            tracked.add(outputs[0]._id)
        else:
            tracked.update([o._id for o in outputs])
        return True

    def _track_outputs(self, inputs: tuple, outputs: tuple) -> None:
        """Track the floating outputs of a non-differentiable op that read a
        value this tape tracks (see op._announce)."""
        tracked = self._tracked
        for t in inputs:
            if t._id in tracked:
                tracked.update([o._id for o in outputs if o._value.dtype.kind in "fc"])
                return

    def _put_back(self, key: int) -> None:
        """Give the nodes that used ``key`` before it was watched the values its
        gradient reads, which they did not keep while nothing needed them (see
        ``saves`` in defop), from the tensors still alive; a stub whose tensor
        is gone says why when a gradient reaches it."""
        nodes = self._nodes
        for k, (op, inputs, outputs, params) in enumerate(nodes):
            reads = op.reads
            if reads is None or not any(t._id == key for t in inputs):
                continue
            need = frozenset().union(
                *[reads[i] for i, t in enumerate(inputs) if t._id == key]
            )
            values = [list(outputs), list(inputs)]
            for p in need:
                seq, j = (values[0], 0) if p < 0 else (values[1], p)
                stub = seq[j]
                if type(stub) is not Stub:
                    continue
                tensor = stub.tensor()
                if tensor is not None:
                    seq[j] = tensor
                else:
                    stub.reason = (
                        f"The gradient of {op.name} needs a value the tape no longer "
                        "holds: one of its inputs was watched after the op ran, and "
                        "the tape keeps only what the gradients of the values it "
                        "tracked then need. Call tape.watch(x) before the ops that "
                        "use x."
                    )
            nodes[k] = (op, tuple(values[1]), tuple(values[0]), params)

    def _watch_variable(self, var: Variable) -> None:
        if var._id not in self._variables:
            self._variables[var._id] = var
            if var._snapshot._value.dtype.kind in "fc":
                self._tracked.add(var._id)

    # -- public API ------------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Watch a tensor, a variable, or a nested structure of them.

        Raises:
            ValueError: if something in ``tensor`` is not a tensor or variable,
                or is a variable that refuses to be watched (a Keras weight:
                watch its ``.value``).
        """
        items = nest.flatten(tensor)
        for item in items:
            refusal = unwatchable(item)
            if refusal is not None:
                raise ValueError(refusal)
        for item in items:
            if self._nodes is None:
                self._start()
            if self._explain is not None or state.observers:
                event = WatchEvent(self, _ref(item))
                for observer in _observers_of(self):
                    observer.on_watch(event)
            if item._value.dtype.kind not in "fc":
                _warn_not_floating("watched tensor", item, "watch")
                if isinstance(item, Variable):
                    self._variables.setdefault(item._id, item._handle)
                continue
            late = self._nodes and item._id not in self._tracked
            if isinstance(item, Variable):
                self._watch_variable(item._handle)
            else:
                self._watched[item._id] = item
                self._tracked.add(item._id)
            if late:
                self._put_back(item._id)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Pause this tape inside the block: nothing there is recorded.

        Raises:
            RuntimeError: if the tape is not recording (outside its ``with``).
        """
        if not self._recording:
            raise RuntimeError(
                "Trying to stop recording a tape which is not recording. Call "
                "stop_recording() inside the tape's `with` block."
            )
        self._pop()
        if self._explain is not None or state.observers:
            self._announce("pause")
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forget everything recorded so far, as if the tape were entered anew.

        Raises:
            ValueError: if the tape is not recording.
        """
        if not self._recording:
            raise ValueError(
                "Tape is not recording: reset() only works inside the tape's `with` "
                "block."
            )
        self._start()
        if self._explain is not None or state.observers:
            self._announce("reset")

    def watched_variables(self) -> tuple[Variable, ...]:
        """Variables this tape watches, in the order they were created."""
        return tuple(self._variables[k] for k in sorted(self._variables))

    @_explained
    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """The gradient of ``target`` (summed if it is not a scalar) w.r.t. ``sources``.

        Args:
            target: a tensor or variable, or a nested structure of them; several
                targets give the gradient of their sum.
            sources: a tensor or variable, or a nested structure of them.
            output_gradients: cotangents for the targets (default: ones).
            unconnected_gradients: ``NONE`` (default) or ``ZERO`` for sources the
                target does not depend on.

        Returns:
            Gradients with the structure of ``sources``.

        Raises:
            RuntimeError: for a second call on a non-persistent tape.
            TypeError, ValueError: for targets, sources or output gradients that
                are not tensors or do not fit.
        """
        if self._nodes is None:
            self._check_usable("gradient")
        mode = _unconnected_mode(unconnected_gradients)
        if self._recording and not self._persistent:
            self._pop()
        if type(target) is EagerTensor:  # the common case: one tensor
            flat_targets = [target]
        else:
            flat_targets = [
                _as_target(t, i) for i, t in enumerate(nest.flatten(target))
            ]
        flat_sources = _as_sources(sources)
        seeds = _seeds(flat_targets, output_gradients)
        wanted = _differentiable_ids(flat_sources, self._tracked, "gradient")
        grads = self._sweep(seeds, wanted)
        results = [
            g
            if (g := grads.get(s._id)) is not None and s._id in wanted
            else _identity_or_result(g, s, seeds, mode)
            for s in flat_sources
        ]
        self._finish()
        if type(sources) is list and all(type(s) in _LEAVES for s in sources):
            return results  # a flat list of tensors or variables, as given
        return nest.pack_sequence_as(sources, results)

    @_explained
    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The jacobian of ``target`` w.r.t. each source: shape target + source.

        One batched backward sweep computes all rows (split into chunks only when
        the cotangents would exceed ``jacobian.JACOBIAN_CHUNK_ELEMENTS`` per
        tensor).

        Raises:
            RuntimeError: for a second call on a non-persistent tape, or
                ``experimental_use_pfor=False`` on a non-persistent tape.
        """
        return _jacobian.jacobian(
            self, target, sources, unconnected_gradients, experimental_use_pfor
        )

    @_explained
    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Tensor:
        """Per-example jacobians: ``result[b] = jacobian(target[b], source[b])``.

        Assumes, as TensorFlow does, that example ``b`` of the target depends only on
        example ``b`` of the source. Unconnected gives zeros in the target's dtype
        (in the source's with ``UnconnectedGradients.ZERO``), never None, as
        TensorFlow does.

        Raises:
            ValueError: if target or source has rank < 2 or their batch sizes differ.
        """
        return _jacobian.batch_jacobian(
            self, target, source, unconnected_gradients, experimental_use_pfor
        )

    def explain(self, target: Any = None, sources: Any = None) -> Any:
        """Why gradients of this tape are, or would be, None: cause, place, fix.

        Reads the explanation log (``GradientTape(explain=True)``; the ``%%tape``
        magic keeps one). Without ``target`` and ``sources`` it explains every
        gradient asked of the tape so far; with them, it also predicts the
        answer of a gradient not asked yet. It never changes a result.

        Args:
            target: a tensor (or nested structure), or None for every target.
            sources: a tensor or variable (or nested structure), or None.

        Returns:
            The findings: a list-like object that prints one sentence per
            problem (and an HTML list in a notebook).

        Raises:
            RuntimeError: if no diagnosis is registered (``import tapemagic``
                registers the one of ``tapemagic.graph``).
            ValueError: if the tape keeps no explanation log.
        """
        return _diagnose(self, target, sources)

    # -- internals -------------------------------------------------------------
    def _check_usable(self, what: str) -> None:
        if self._nodes is not None:
            return
        if self._used:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                f"gradients (or jacobians); this one already did. Create it with "
                f"tf.GradientTape(persistent=True) to call {what}() more than once."
            )
        raise RuntimeError(
            f"This GradientTape was never entered, so it has nothing to compute "
            f"{what}() from. Record with `with tf.GradientTape() as tape:` first."
        )

    def _sweep(self, seeds: dict[int, Tensor], source_ids: set[int]) -> dict:
        # A tape recording inside its own context (persistent) records its
        # backward ops too, which is how it nests with itself: the sweep then
        # walks a snapshot of the nodes.
        nodes = list(self._nodes) if self._recording else self._nodes
        return backward(nodes, seeds, source_ids)

    def _finish(self) -> None:
        if not self._persistent:
            # A non-persistent tape frees what it recorded after its one answer.
            self._nodes = None
            self._tracked = set()
            self._watched = {}
            self._used = True

    def __repr__(self) -> str:
        count = 0 if self._nodes is None else len(self._nodes)
        flags = "persistent" if self._persistent else "non-persistent"
        status = "recording" if self._recording else "stopped"
        return f"<GradientTape {flags}, {status}, {count} ops recorded>"
