"""TensorFlow's ``tf.GradientTape``, heard: its events, and a tape a log explains.

A tape tells its listeners when it starts and stops recording (entering and
leaving its ``with`` block, ``stop_recording``, a non-persistent tape's
answer), pauses and is reset, what it watches, and each gradient request with
the cotangents its backward sweep reaches and its answer: the
:class:`~tapemagic.engine.events.TapeEvent`, ``WatchEvent``, ``GradientAsked``,
``CotangentsReached`` and ``GradientAnswered`` records of tapemagic's engine.
As on that engine, a request's own ops are heard only where a listener hears
ops anyway (asked inside a ``with`` block). Cotangents are those TensorFlow's
sweep hands to a Python gradient function: every op's but a ``tf.function``'s
(differentiated as a whole) and a variable read's (whose cotangent is the
variable's gradient, in the answer).

:class:`RecordingTape` is a ``tf.GradientTape`` made with a listener (the
``%%tape`` magic's explanation log): the listener hears everything from
entering its ``with`` block to leaving it, and each of its gradient requests,
in that cell or a later one. Every other ``tf.GradientTape`` is heard while a
listener listens (the methods below replace TensorFlow's then).
:data:`SURFACE` is how the graph package reads these tapes.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import Any

import tensorflow as tf
from tensorflow.python import pywrap_tfe
from tensorflow.python.eager import backprop, context
from tensorflow.python.framework import indexed_slices, ops
from tensorflow.python.util import nest

from ..engine.events import (
    CotangentsReached,
    GradientAnswered,
    GradientAsked,
    TapeEvent,
    TapeState,
    ValueRef,
    WatchEvent,
)
from ..hooks import registered_diagnosis
from . import recorder
from .state import STATE, Mirror, Request
from .values import (
    EagerTensor,
    array_of,
    as_variable,
    describe,
    flatten,
    note_namespace,
    register_variable,
)

__all__ = [
    "SURFACE",
    "GradientTape",
    "RecordingTape",
    "describe_tape",
    "note_namespace",
    "recorder",
]

GradientTape = backprop.GradientTape
_ORIGINAL = {
    name: GradientTape.__dict__[name]
    for name in (
        "_push_tape",
        "_pop_tape",
        "watch",
        "stop_recording",
        "reset",
        "gradient",
        "jacobian",
        "batch_jacobian",
    )  # fmt: skip
}
_LISTENER = "_tapemagic_listener"
_MIRROR = "_tapemagic_mirror"


def _mirror(tape: Any) -> Mirror:
    mirror = tape.__dict__.get(_MIRROR)
    if mirror is None:
        mirror = tape.__dict__[_MIRROR] = Mirror(tape)
    return mirror


def _listeners_of(tape: Any) -> list:
    """Who hears a tape's own events: the thread's listeners, and its own."""
    listeners = list(STATE.listeners)
    own = tape.__dict__.get(_LISTENER)
    if own is not None and not any(item is own for item in listeners):
        listeners.append(own)
    return listeners


def _announce(tape: Any, kind: str) -> None:
    listeners = _listeners_of(tape)
    if listeners:
        event = TapeEvent(tape, kind, ops.uid())
        for listener in listeners:
            listener.on_tape(event)


# -- the replaced methods --------------------------------------------------------


def _push_tape(self: Any) -> None:
    fresh = self._tape is None
    _ORIGINAL["_push_tape"](self)
    mirror = _mirror(self)
    if fresh:
        mirror.restart()
    STATE.stack.append(mirror)
    if not STATE.resetting:
        _announce(self, "start")


def _pop_tape(self: Any) -> None:
    _ORIGINAL["_pop_tape"](self)
    stack = STATE.stack
    mirror = self.__dict__.get(_MIRROR)
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is mirror:
            del stack[i]
            break
    if not STATE.resetting:
        _announce(self, "stop")


def watch(self: Any, tensor: Any) -> None:
    """``tape.watch``: each tensor or variable watched is announced."""
    _ORIGINAL["watch"](self, tensor)
    mirror = _mirror(self)
    listeners = _listeners_of(self)
    for item in tf.nest.flatten(tensor):
        var = as_variable(item)
        if var is not None:
            register_variable(item)
            floating = var.dtype.is_floating or var.dtype.is_complex
            mirror.watch_variable(var.handle._id, var, floating)
        elif isinstance(item, EagerTensor):
            key = item._id
            key = STATE.alias.get(key, key)
            mirror.watch_tensor(
                key, item, item.dtype.is_floating or item.dtype.is_complex
            )
        else:
            continue
        if listeners:
            ref = describe(item)
            if ref is not None:
                event = WatchEvent(self, ref)
                for listener in listeners:
                    listener.on_watch(event)


@contextlib.contextmanager
def stop_recording(self: Any) -> Iterator[None]:
    """``tape.stop_recording()``: the tape stops, then pauses, then starts."""
    with _ORIGINAL["stop_recording"](self):
        _announce(self, "pause")
        yield


def reset(self: Any) -> None:
    """``tape.reset()``: one "reset" event (TensorFlow pops and pushes anew)."""
    STATE.resetting += 1
    try:
        _ORIGINAL["reset"](self)
    finally:
        STATE.resetting -= 1
    _announce(self, "reset")


def _requested(kind: str) -> Callable:
    """A gradient request method that tells listeners its question, the
    cotangents its sweep reaches, and its answer."""
    original = _ORIGINAL[kind]
    signature = inspect.signature(original)

    def request(self: Any, *args: Any, **kwargs: Any) -> Any:
        listeners = _listeners_of(self)
        if (
            not listeners
            or not context.executing_eagerly()
            or any(r.tape is self for r in STATE.requests)
        ):
            # Nobody listens, or a jacobian asks its own tape row by row.
            return original(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        call = bound.arguments
        asked = GradientAsked.of_call(self, kind, call)
        for listener in listeners:
            listener.on_gradient_asked(asked)
        target = call.get("target")
        sources = call.get("sources", call.get("source"))
        given = tuple(flatten(target))
        paths = tuple([path for path, _ in nest.flatten_with_tuple_paths(sources)])
        pending = Request(self, listeners)
        STATE.requests.append(pending)
        _hear_sweeps(True)
        try:
            result = original(self, *args, **kwargs)
        except BaseException as err:  # an interrupt too: listeners must hear the end
            _end_request(pending)
            answered = GradientAnswered(
                self, kind, _refs(target), _refs(sources), None, err, given, paths
            )
            for listener in pending.listeners:
                listener.on_gradient_answered(answered)
            raise
        _end_request(pending)
        if not self._persistent:
            _mirror(self).used = True
        flat = [result] if kind == "batch_jacobian" else tf.nest.flatten(result)
        answered = GradientAnswered(
            self,
            kind,
            _refs(target),
            _refs(sources),
            tuple([_result_array(g) for g in flat]),
            None,
            given,
            paths,
        )
        for listener in pending.listeners:
            listener.on_gradient_answered(answered)
        return result

    request.__name__ = kind
    request.__doc__ = original.__doc__
    request.__wrapped__ = original
    return request


def _end_request(pending: Request) -> None:
    _hear_sweeps(False)
    requests = STATE.requests
    for i in range(len(requests) - 1, -1, -1):
        if requests[i] is pending:
            del requests[i]
            break
    if pending.reached:
        event = CotangentsReached(tuple(pending.reached), tuple(pending.flowed))
        for listener in pending.listeners:
            listener.on_cotangents(event)


def _refs(structure: Any) -> tuple[ValueRef | None, ...]:
    if structure is None:
        return ()
    return tuple([describe(item) for item in flatten(structure)])


def _result_array(g: Any) -> Any:
    if g is None:
        return None
    if isinstance(g, indexed_slices.IndexedSlices):
        STATE.quiet += 1
        try:
            g = tf.convert_to_tensor(g)
        finally:
            STATE.quiet -= 1
    return array_of(g) if isinstance(g, EagerTensor) else None


gradient = _requested("gradient")
jacobian = _requested("jacobian")
batch_jacobian = _requested("batch_jacobian")


# -- cotangents ------------------------------------------------------------------
# TensorFlow's backward sweep calls one Python function per op it differentiates
# (backprop._gradient_function, registered with the C++ tape). While a request
# is answered, a wrapper registered in its place notes what reaches each op.

_sweep_lock = threading.Lock()
_sweeps = 0


def _hear_sweeps(on: bool) -> None:
    global _sweeps
    with _sweep_lock:
        _sweeps += 1 if on else -1
        if on and _sweeps == 1:
            pywrap_tfe.TFE_Py_RegisterGradientFunction(_gradient_function)
        elif not on and _sweeps == 0:
            pywrap_tfe.TFE_Py_RegisterGradientFunction(backprop._gradient_function)


def _gradient_function(op_name: Any, attr_tuple: Any, num_inputs: int, inputs: Any,
                       outputs: Any, out_grads: Any, skip_input_indices: Any,
                       forward_pass_name_scope: Any) -> Any:  # fmt: skip
    requests = STATE.requests
    ids = None
    if requests and not STATE.quiet:
        ids = _note_cotangents(requests[-1], op_name, inputs, outputs, out_grads)
    in_grads = backprop._gradient_function(
        op_name, attr_tuple, num_inputs, inputs, outputs, out_grads,
        skip_input_indices, forward_pass_name_scope,
    )  # fmt: skip
    if ids is not None:
        _note_flowed(requests[-1], ids, inputs, in_grads)
    return in_grads


def _note_flowed(pending: Request, ids: tuple, inputs: Any, in_grads: Any) -> None:
    """Note what the op whose outputs are ``ids`` passed back to each input."""
    alias = STATE.alias
    if inputs and all(isinstance(t, EagerTensor) for t in inputs):
        input_ids = tuple([alias.get(t._id, t._id) for t in inputs])
    else:  # TensorFlow kept no inputs: the op's, as it ran
        input_ids = STATE.inputs.get(ids)
    if not isinstance(in_grads, (list, tuple)):
        in_grads = (in_grads,)  # a gradient function of one input may say it bare
    if input_ids is None or len(input_ids) != len(in_grads):
        return
    pending.flowed.append(
        (
            ids,
            input_ids,
            tuple(
                [array_of(g) if isinstance(g, EagerTensor) else None for g in in_grads]
            ),  # fmt: skip
        )
    )


def _note_cotangents(
    pending: Request, op_name: Any, inputs: Any, outputs: Any, out_grads: Any
) -> tuple | None:
    """Note what reached an op: its outputs are named by their ids, or, when
    TensorFlow kept no outputs, found from the op's inputs. The output ids, or
    None when nothing was noted."""
    alias = STATE.alias
    if outputs and all(isinstance(o, EagerTensor) for o in outputs):
        ids = tuple([alias.get(o._id, o._id) for o in outputs])
    elif inputs and all(isinstance(t, EagerTensor) for t in inputs):
        name = op_name.decode() if isinstance(op_name, bytes) else op_name
        raw = tuple([alias.get(t._id, t._id) for t in inputs])
        ids = STATE.outputs.get((name, raw))
    else:
        return None  # in a traced function (a jacobian's rows), or nothing kept
    if ids is None or len(ids) != len(out_grads):
        return None
    arrays = []
    for g in out_grads:
        if not isinstance(g, EagerTensor):
            return None  # an output nothing reached, or sparse: not a plain cotangent
        arrays.append(array_of(g))
    if len(ids) == 1:
        pending.reached.append((ids, arrays[0]))
    else:
        pending.reached.append((ids, tuple(arrays)))
    return ids


recorder.PATCHES.extend(
    (GradientTape, name, method)
    for name, method in (
        ("_push_tape", _push_tape),
        ("_pop_tape", _pop_tape),
        ("watch", watch),
        ("stop_recording", stop_recording),
        ("reset", reset),
        ("gradient", gradient),
        ("jacobian", jacobian),
        ("batch_jacobian", batch_jacobian),
    )
)


# -- a tape with a listener ------------------------------------------------------


class RecordingTape(GradientTape):
    """A ``tf.GradientTape`` whose listener hears all it runs and answers.

    Args:
        persistent, watch_accessed_variables: as for ``tf.GradientTape``.
        explain: the listener (an explanation log); it is bound to the tape.

    Example:
        >>> from tapemagic.graph.log import ExplainLog
        >>> log = ExplainLog()
        >>> w = tf.Variable(2.0)
        >>> with RecordingTape(explain=log) as tape:
        ...     y = w * w
        >>> [e[1] for e in log.events if e[0] == "op"]
        ['multiply']
    """

    def __init__(
        self,
        persistent: bool = False,
        watch_accessed_variables: bool = True,
        *,
        explain: Any,
    ) -> None:
        super().__init__(
            persistent=persistent, watch_accessed_variables=watch_accessed_variables
        )
        self.__dict__[_LISTENER] = explain
        self._tapemagic_listening = False
        explain.bind(self)

    def __enter__(self) -> RecordingTape:
        self._tapemagic_listening = recorder.listen(self.__dict__[_LISTENER])
        try:
            return super().__enter__()
        except BaseException:
            self._stop_listening()
            raise

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        try:
            super().__exit__(typ, value, traceback)
        finally:
            self._stop_listening()

    def _stop_listening(self) -> None:
        if self._tapemagic_listening:
            self._tapemagic_listening = False
            recorder.unlisten(self.__dict__[_LISTENER])

    def explain(self, target: Any = None, sources: Any = None) -> Any:
        """Why gradients of this tape are, or would be, None: cause, place, fix.

        The same call as on tapemagic's engine (``GradientTape.explain``),
        from the tape's explanation log: every gradient asked so far without
        ``target`` and ``sources``; with them, a gradient not asked yet too.

        Args:
            target: a tensor (or nested structure), or None for every target.
            sources: a tensor or variable (or nested structure), or None.

        Returns:
            The findings: a list-like object that prints one sentence per
            problem (and an HTML list in a notebook).

        Raises:
            RuntimeError: if no diagnosis is registered (``import tapemagic``
                registers the one of ``tapemagic.graph``).
        """
        diagnosis = registered_diagnosis()
        if diagnosis is None:
            raise RuntimeError(
                "tape.explain() needs tapemagic.graph, which is not registered. "
                "`import tapemagic` registers it, or call tapemagic.explain(tape)."
            )
        return diagnosis(self, target, sources)

    _push_tape = _push_tape
    _pop_tape = _pop_tape
    watch = watch
    stop_recording = stop_recording
    reset = reset
    gradient = gradient
    jacobian = jacobian
    batch_jacobian = batch_jacobian


# -- how the graph package reads these tapes ---------------------------------------


def describe_tape(tape: Any, nodes: bool = True) -> TapeState:
    """The public state of a ``tf.GradientTape``, as plain records.

    TensorFlow keeps the recorded nodes in C++, out of reach: ``nodes`` is
    always empty; the explanation log holds every op instead.
    """
    mirror = tape.__dict__.get(_MIRROR)
    if tape._recording:
        status = "recording"
    elif tape._tape is None:
        status = "answered" if mirror is not None and mirror.used else "new"
    else:
        status = "stopped"
    variables = tuple(
        ref for ref in (describe(v) for v in tape.watched_variables()) if ref
    )
    watched = ()
    if mirror is not None:
        watched = tuple(ref for ref in map(describe, mirror.watched.values()) if ref)
    return TapeState(
        persistent=tape._persistent,
        watch_accessed_variables=tape._watch_accessed_variables,
        status=status,
        variables=variables,
        watched=watched,
        nodes=(),
    )


class _Surface:
    """How :mod:`tapemagic.graph` reads a ``tf.GradientTape`` (see
    :class:`tapemagic.graph.recorders.Surface`)."""

    name = "tensorflow"

    def owns(self, tape: Any) -> bool:
        return isinstance(tape, GradientTape)

    def describe(self, obj: Any) -> ValueRef | None:
        return describe(obj)

    def describe_tape(self, tape: Any, nodes: bool = True) -> TapeState:
        return describe_tape(tape, nodes)

    def explain_listener(self, tape: Any) -> Any:
        return tape.__dict__.get(_LISTENER)

    def flatten(self, structure: Any) -> list:
        return flatten(structure)

    def is_value(self, obj: Any) -> bool:
        return isinstance(obj, EagerTensor) or as_variable(obj) is not None

    def __repr__(self) -> str:
        return "<recorder surface 'tensorflow'>"


SURFACE = _Surface()
