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
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import nest
from . import op as _op
from .backprop import backward, sweep_observers
from .context import new_id, state
from .dtypes import from_numpy
from .eager_tensor import EagerTensor, _ref, constant_of
from .events import GradientAnswered, GradientAsked, TapeEvent, WatchEvent
from .op import Op, Stub, slim
from .ops import shape as _shape
from .tensor import Tensor, Variable, convert_to_tensor
from .tensor import array_of as _array_of
from .variable import ResourceVariable

__all__ = [
    "GradientTape",
    "UnconnectedGradients",
    "set_diagnosis",
    "set_explain_default",
    "set_explain_factory",
    "unwatchable",
]

# Largest number of cotangent elements one jacobian sweep may hold per tensor;
# bigger jacobians are split into several sweeps of this many rows.
JACOBIAN_CHUNK_ELEMENTS = 1 << 24


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def _unconnected_mode(value: Any) -> UnconnectedGradients:
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(getattr(value, "value", value))
    except ValueError:
        raise ValueError(
            f"unconnected_gradients={value!r} is not valid; use "
            "tf.UnconnectedGradients.NONE or tf.UnconnectedGradients.ZERO."
        ) from None


# The explanation log lives in tapemagic.graph, which the engine never imports,
# not even lazily: the package root (tapemagic/__init__.py, run by every import
# of tapemagic.tf) registers a factory here that loads it on first use.
_explain_factory: Callable[[], Any] | None = None


def set_explain_factory(factory: Callable[[], Any] | None) -> None:
    """Register what ``GradientTape(explain=True)`` builds (``tapemagic`` does).

    Args:
        factory: called with no arguments, returns a listener (see
            ``tapemagic.engine.recorder.Listener``); None unregisters it.

    Example:
        >>> from tapemagic.engine.recorder import explain_listener
        >>> type(explain_listener(GradientTape(explain=True))).__name__
        'ExplainLog'
    """
    global _explain_factory
    _explain_factory = factory


# Whether a GradientTape made without ``explain=`` keeps an explanation log:
# ``%tape --all on`` turns this on for every tape the user's code makes.
_explain_default = False


def set_explain_default(on: bool) -> None:
    """Make every ``GradientTape()`` the user's code creates without an
    ``explain=`` argument keep an explanation log (``%tape --all on``), or
    none (the default). Tapes made inside tapemagic (Keras' ``fit``) never do.

    Example:
        >>> from tapemagic.engine.recorder import explain_listener
        >>> set_explain_default(True)
        >>> explain_listener(GradientTape()) is not None
        True
        >>> set_explain_default(False)
        >>> explain_listener(GradientTape()) is None
        True
    """
    global _explain_default
    _explain_default = bool(on)


# GradientTape.explain runs the why-None diagnosis of tapemagic.graph, which
# the package root registers here (loading it on first use).
_diagnosis: Callable[[Any, Any, Any], Any] | None = None


def set_diagnosis(diagnosis: Callable[[Any, Any, Any], Any] | None) -> None:
    """Register what ``GradientTape.explain`` runs (``tapemagic`` does).

    Args:
        diagnosis: called as ``diagnosis(tape, target, sources)``, returns the
            findings; None unregisters it.

    Example:
        >>> import tapemagic  # registers the diagnosis here
        >>> _diagnosis is not None
        True
    """
    global _diagnosis
    _diagnosis = diagnosis


def _explain_observer(explain: Any, tape: GradientTape) -> Any:
    if explain is False or explain is None:
        return None
    if explain is True:
        if _explain_factory is None:
            raise RuntimeError(
                "GradientTape(explain=True) needs the explanation log of "
                "tapemagic.graph, which is not registered. `import tapemagic` "
                "registers it (every `import tapemagic.tf` does), or pass "
                "explain=<a tapemagic.engine.recorder.Listener>."
            )
        explain = _explain_factory()
    if not hasattr(explain, "on_op"):
        raise TypeError(
            f"explain={_describe(explain)} is neither a bool nor an observer with "
            "on_op/on_tape/... methods (tapemagic.engine.recorder.Listener). Pass "
            "explain=True, or a tapemagic.graph.log.ExplainLog()."
        )
    bind = getattr(explain, "bind", None)
    if bind is not None:
        bind(tape)
    return explain


def _observers_of(tape: GradientTape) -> list:
    """Observers listening now, plus the tape's own log even when it is not."""
    observers = list(state.observers)
    log = tape._explain
    if log is not None and not any(o is log for o in observers):
        observers.append(log)
    return observers


def _explained(method: Callable) -> Callable:
    """Tell the listeners about each gradient request: before, its sweep's
    cotangents, and its result."""
    kind = method.__name__
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapper(self: GradientTape, *args: Any, **kwargs: Any) -> Any:
        if self._explain is None and not state.observers:
            return method(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        call = dict(bound.arguments)
        mode = call.get("unconnected_gradients")
        asked = GradientAsked(
            self,
            kind,
            str(getattr(mode, "value", mode) or "none").lower(),
            call.get("output_gradients") is not None,
        )
        observers = _observers_of(self)
        for observer in observers:
            observer.on_gradient_asked(asked)
        # The listeners hear the sweep's cotangents until the answer; a request
        # made inside another (a gradient in a custom gradient's function)
        # leaves them to the outer one.
        sweep = sweep_observers.observers
        added = [o for o in observers if not any(s is o for s in sweep)]
        sweep.extend(added)
        target = call.get("target")
        sources = call.get("sources", call.get("source"))
        given = tuple(nest.flatten(target))
        paths = tuple([path for path, _ in nest.flatten_with_paths(sources)])
        try:
            result = method(self, *args, **kwargs)
        except BaseException as err:  # an interrupt too: listeners must hear the end
            _remove(sweep, added)
            answered = GradientAnswered(
                self, kind, _refs(target), _refs(sources), None, err, given, paths
            )
            for observer in observers:
                observer.on_gradient_answered(answered)
            raise
        _remove(sweep, added)
        flat = [result] if kind == "batch_jacobian" else nest.flatten(result)
        results = tuple([_array_or_none(g) for g in flat])
        answered = GradientAnswered(
            self, kind, _refs(target), _refs(sources), results, None, given, paths
        )
        for observer in observers:
            observer.on_gradient_answered(answered)
        return result

    return wrapper


def _remove(observers: list, gone: list) -> None:
    for item in gone:
        for i in range(len(observers) - 1, -1, -1):
            if observers[i] is item:
                del observers[i]


def _refs(structure: Any) -> tuple:
    return tuple(
        [
            _ref(item) if isinstance(item, (Tensor, Variable)) else None
            for item in nest.flatten(structure)
        ]
    )


def _array_or_none(g: Any) -> Any:
    if g is None:
        return None
    return _array_of(g) if isinstance(g, (Tensor, Variable)) else np.asarray(g)


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
            explain = _explain_default and not sys._getframe(
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
        if len(outputs) == 1:
            if outputs[0]._value.dtype.kind not in "fc" and not op.integer_gradient:
                return False  # integer and boolean results carry no gradient
        elif not any(o._value.dtype.kind in "fc" for o in outputs):
            return False  # (an op with no outputs at all, such as unstack of nothing)
        # Keep only what the VJPs read, so the tape frees the rest (see defop);
        # values too small to be worth a stub stay. (-1 is the one output.)
        for i in dropped:
            value = (outputs[0] if i < 0 else inputs[i])._value
            if value.nbytes >= _op.STUB_MIN_BYTES:
                inputs, outputs = slim(op, inputs, outputs, dropped)
                break
        self._nodes.append((op, inputs, outputs, params))
        if len(outputs) == 1:
            if op.integer_gradient and outputs[0]._value.dtype.kind not in "fc":
                # NOTE: a target, but not tracked: as TensorFlow's tape, which
                # records no op whose watched inputs are all integers.
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
        the cotangents would exceed ``JACOBIAN_CHUNK_ELEMENTS`` per tensor).

        Raises:
            RuntimeError: for a second call on a non-persistent tape, or
                ``experimental_use_pfor=False`` on a non-persistent tape.
        """
        self._check_usable("jacobian")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the "
                "jacobian with experimental_use_pfor=False."
            )
        mode = _unconnected_mode(unconnected_gradients)
        if self._recording and not self._persistent:
            self._pop()
        self._read_on_tape(target)
        y = _as_target(target, 0, what="jacobian target")
        flat_sources = _as_sources(sources)
        shape = y._value.shape
        size = y._value.size
        wanted = _differentiable_ids(flat_sources, self._tracked, "jacobian")
        eye = np.eye(size, dtype=y._value.dtype).reshape((size,) + shape)
        grads = {}
        if y._id in self._tracked:
            # NOTE: a target the tape never saw is unconnected even to itself:
            # TensorFlow reshapes it on the tape first, which records nothing.
            grads = self._chunked_sweeps(y, eye, wanted, flat_sources)
        results = []
        for s in flat_sources:
            g = grads.get(s._id)
            if g is not None:
                g = _shape.reshape(g, shape + s._value.shape)
            results.append(_result(g, s, mode, shape + s._value.shape))
        self._finish()
        return nest.pack_sequence_as(sources, results)

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
        self._check_usable("batch_jacobian")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the "
                "batch_jacobian with experimental_use_pfor=False."
            )
        mode = _unconnected_mode(unconnected_gradients)
        if self._recording and not self._persistent:
            self._pop()
        self._read_on_tape(target)
        y = _as_target(target, 0, what="batch_jacobian target")
        (x,) = _as_sources([source])
        yshape, xshape = y._value.shape, x._value.shape
        for what, shape in (("target", yshape), ("source", xshape)):
            if len(shape) < 2:
                raise ValueError(
                    f"batch_jacobian needs a {what} of rank at least 2 (batch, ...), "
                    f"got shape {shape}. Use jacobian() for unbatched values."
                )
        if yshape[0] != xshape[0]:
            raise ValueError(
                f"Need first dimension of target shape {yshape} and source shape "
                f"{xshape} to match: both are the batch size."
            )
        rows = int(np.prod(yshape[1:], dtype=np.int64))
        eye = np.eye(rows, dtype=y._value.dtype).reshape((rows, 1) + yshape[1:])
        seed = np.broadcast_to(eye, (rows,) + yshape)
        wanted = _differentiable_ids([x], self._tracked, "batch_jacobian")
        g = None
        if y._id in self._tracked:  # as in jacobian
            g = self._chunked_sweeps(y, seed, wanted, [x]).get(x._id)
        self._finish()
        out_shape = yshape + xshape[1:]
        if g is None or x._value.dtype.kind not in "fc":
            # NOTE: never None, as in TensorFlow: zeros in the target's dtype,
            # or in the source's when zeros were asked for (each row's answer)
            zero = x if mode is UnconnectedGradients.ZERO else y
            return constant_of(np.zeros(out_shape, zero._value.dtype))
        g = _shape.transpose(g, (1, 0) + tuple(range(2, g._value.ndim)))
        return _shape.reshape(g, out_shape)

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
        if _diagnosis is None:
            raise RuntimeError(
                "GradientTape.explain() needs tapemagic.graph, which is not "
                "registered. `import tapemagic` registers it (every "
                "`import tapemagic.tf` does)."
            )
        return _diagnosis(self, target, sources)

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

    def _read_on_tape(self, target: Any) -> None:
        # TensorFlow's jacobians first reshape the target on the tape: a
        # variable target is read there, so a tape that watches accessed
        # variables watches it (trainable) before it asks for the answer.
        if isinstance(target, Variable) and self._watch_accessed:
            variable = target._handle
            if variable._trainable:
                self._watch_variable(variable)

    def _sweep(self, seeds: dict[int, Tensor], source_ids: set[int]) -> dict:
        # A tape recording inside its own context (persistent) records its
        # backward ops too, which is how it nests with itself: the sweep then
        # walks a snapshot of the nodes.
        nodes = list(self._nodes) if self._recording else self._nodes
        return backward(nodes, seeds, source_ids)

    def _chunked_sweeps(self, y: Tensor, seed: np.ndarray, wanted: set[int],
                        sources: list) -> dict:  # fmt: skip
        rows = seed.shape[0]
        largest = max(
            [o._value.size for node in self._nodes for o in node[2]] + [y._value.size]
        )
        chunk = max(1, JACOBIAN_CHUNK_ELEMENTS // max(1, largest))
        if rows <= chunk:
            return self._sweep({y._id: constant_of(np.ascontiguousarray(seed))}, wanted)
        parts: dict[int, list] = {s._id: [] for s in sources}
        for start in range(0, rows, chunk):
            block = np.ascontiguousarray(seed[start : start + chunk])
            grads = self._sweep({y._id: constant_of(block)}, wanted)
            for key, part in parts.items():
                part.append(grads.get(key))
        return {
            key: _shape.concat(part, axis=0)
            for key, part in parts.items()
            if all(p is not None for p in part)
        }

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


def unwatchable(item: Any) -> str | None:
    """Why ``tape.watch(item)`` raises, or None for a tensor or variable it watches.

    ``item`` is one leaf; a variable refuses through ``Variable._watch_refusal``
    (a Keras weight does, as in TensorFlow).

    Example:
        >>> unwatchable(Variable(1.0)) is None
        True
        >>> print(unwatchable(3.0))  # doctest: +NORMALIZE_WHITESPACE
        Passed in object 3.0 of type 'float', not tf.Tensor or tf.Variable or
        ExtensionType. Convert it first: x = tf.constant(value), then tape.watch(x).
    """
    if isinstance(item, Variable):
        refusal = item._watch_refusal()
        if refusal is None:
            return None
        return (
            f"Passed in object {item!r} of type {type(item).__name__!r}, not "
            f"tf.Tensor or tf.Variable or ExtensionType. {refusal}"
        )
    if isinstance(item, Tensor):
        return None
    return (
        f"Passed in object {_describe(item, str)} of type {type(item).__name__!r}, not "
        "tf.Tensor or tf.Variable or ExtensionType. Convert it first: "
        "x = tf.constant(value), then tape.watch(x)."
    )


def _describe(value: Any, show: Callable[[Any], str] = repr) -> str:
    text = show(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _warn_not_floating(what: str, tensor: Any, call: str) -> None:
    dtype = from_numpy(tensor._value.dtype).name
    warnings.warn(
        f"The dtype of the {what} must be floating (e.g. tf.float32) when calling "
        f"GradientTape.{call}, got tf.{dtype}. Its gradient is None; cast it first: "
        f"tf.cast(x, tf.float32).",
        UserWarning,
        stacklevel=_user_stacklevel(),
    )


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside tapemagic: the user's line."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _as_target(value: Any, index: int, what: str = "target") -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, Variable):
        return value._snapshot
    where = what if index == 0 else f"{what} #{index}"
    raise TypeError(
        f"The {where} must be a tensor computed inside the tape, got "
        f"{_describe(value)} of type {type(value).__name__!r}. Compute it with tf "
        "ops on watched values inside the `with tf.GradientTape()` block."
    )


# The two concrete classes of sources, which the fast paths test for exactly.
_LEAVES = (EagerTensor, ResourceVariable)


def _as_sources(sources: Any) -> list:
    if type(sources) is list:
        # A flat list of variables (model.trainable_variables) or tensors.
        out = []
        for s in sources:
            cls = type(s)
            if cls is ResourceVariable:
                out.append(s._snapshot)
            elif cls is EagerTensor:
                out.append(s)
            else:
                break
        else:
            return out
    flat = nest.flatten(sources)
    out = []
    for i, s in enumerate(flat):
        if s is None:
            raise ValueError(
                f"sources[{i}] is None. Pass the tensors or variables to "
                "differentiate with respect to, e.g. model.trainable_variables."
            )
        if isinstance(s, Variable):
            out.append(s._snapshot)
        elif isinstance(s, Tensor):
            out.append(s)
        else:
            raise ValueError(
                f"sources[{i}] is {_describe(s)} of type {type(s).__name__!r}, not a "
                "tf.Tensor or tf.Variable. Gradients can only be taken with respect "
                "to tensors: make it a tf.Variable, or tf.constant and tape.watch it."
            )
    return out


def _differentiable_ids(sources: list, tracked: set[int], call: str) -> set[int]:
    """Ids of the sources that can get a gradient: floating and known to the tape.

    A tensor the tape neither watched nor computed gets None even when a recorded
    op used it (a constant multiplied by a variable, say), as in TensorFlow.
    """
    wanted = set()
    for s in sources:
        if s._value.dtype.kind not in "fc":
            _warn_not_floating("source tensor", s, call)
        elif s._id in tracked:
            wanted.add(s._id)
    return wanted


def _seeds(targets: list[Tensor], output_gradients: Any) -> dict[int, Tensor]:
    if output_gradients is None:
        given = [None] * len(targets)
    else:
        given = nest.flatten(output_gradients)
        if len(given) != len(targets):
            raise ValueError(
                f"output_gradients has {len(given)} entries but there are "
                f"{len(targets)} targets; give one cotangent per target (or None). For "
                "a single target pass one tensor, e.g. tf.constant([...])."
            )
    seeds: dict[int, Tensor] = {}
    for i, (t, og) in enumerate(zip(targets, given)):
        if og is None:
            shape, dtype = t._value.shape, t._value.dtype
            # (np.array of a number is a C call; np.ones goes through Python)
            seed = constant_of(np.ones(shape, dtype) if shape else np.array(1, dtype))
        else:
            seed = convert_to_tensor(og, dtype_hint=from_numpy(t._value.dtype))
            if seed._value.shape != t._value.shape:
                raise ValueError(
                    f"output_gradients[{i}] has shape {seed._value.shape} but target "
                    f"#{i} has shape {t._value.shape}; they must match."
                )
            if seed._value.dtype != t._value.dtype:
                raise ValueError(
                    f"output_gradients[{i}] has dtype {seed.dtype.name} but target "
                    f"#{i} has dtype {t.dtype.name}; they must match."
                )
        previous = seeds.get(t._id)
        seeds[t._id] = seed if previous is None else previous + seed
    return seeds


def _identity_or_result(g: Tensor | None, source: Tensor, seeds: dict,
                        mode: UnconnectedGradients) -> Tensor | None:  # fmt: skip
    # NOTE: a source that is a target gets its seed whatever its dtype:
    # TensorFlow's gradient(x, x) of an int32 x is an int32 1.
    if source._value.dtype.kind not in "fc" and source._id in seeds:
        return seeds[source._id]
    return _result(g, source, mode, source._value.shape)


def _result(g: Tensor | None, source: Tensor, mode: UnconnectedGradients,
            shape: tuple) -> Tensor | None:  # fmt: skip
    if g is not None and source._value.dtype.kind in "fc":
        return g
    if mode is UnconnectedGradients.ZERO:
        return constant_of(np.zeros(shape, source._value.dtype))
    return None


def _take_package_hooks() -> None:
    # The package root (always imported before any engine module) registers
    # its lazy loaders of the explanation log and the diagnosis here; without
    # it (the engine copied alone), explain=True says what to register.
    root = sys.modules.get(__name__.split(".")[0])
    register = getattr(root, "_register_engine_hooks", None)
    if register is not None:
        register(sys.modules[__name__])


_take_package_hooks()
