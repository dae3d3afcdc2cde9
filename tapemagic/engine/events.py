"""The records of recorder events, and the listener protocol.

Plain named tuples with no engine import, so that any recorder can build them
(this engine does in ``op.py``, ``tensor.py``, ``tape.py`` and ``backprop.py``;
see :mod:`tapemagic.engine.recorder` for the protocol and docs/DESIGN.md for
who emits what, in which order).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "AssignEvent",
    "ConvertEvent",
    "CotangentsReached",
    "EscapeEvent",
    "GradientAnswered",
    "GradientAsked",
    "Listener",
    "NodeRecord",
    "OpEvent",
    "OpInfo",
    "ReadEvent",
    "TapeEvent",
    "TapeState",
    "ValueRef",
    "VariableEvent",
    "WatchEvent",
]


# -- records ----------------------------------------------------------------------


class ValueRef(NamedTuple):
    """A tensor or variable as an event sees it.

    Attributes:
        id: the recorder's id (unique, in creation order; a variable's reads
            share the variable's id).
        shape: its shape, a tuple of ints.
        dtype: its NumPy dtype.
        value: its array at that moment (read-only), or None when the recorder
            no longer holds it (a recorded node keeps only what its VJP reads).
        variable: for a variable, the variable itself (its public ``name``,
            ``trainable``, and :func:`describe` for its value now); else None.
    """

    id: int
    shape: tuple
    dtype: np.dtype
    value: np.ndarray | None
    variable: Any = None


class OpInfo(NamedTuple):
    """What an op is, once per op: the facts the diagnosis needs.

    Attributes:
        name: TensorFlow's name for the op (``"multiply"``).
        differentiable: whether it has a gradient at all (tapes record only
            those).
        singular: ``"derivative"``, ``"value"`` or None (see ``Op.singular``).
        no_gradient_inputs: positions of the inputs that never get a gradient
            through it.
    """

    name: str
    differentiable: bool
    singular: str | None
    no_gradient_inputs: tuple[int, ...]


class OpEvent(NamedTuple):
    """An op ran (recorded on a tape or not). Heard through ``on_op``.

    Attributes:
        op: the op's :class:`OpInfo`.
        params: its static parameters (``axis``, ``dtype``...), as passed.
        input_ids, output_ids: ids of its input and output tensors.
        input_values, output_values: their arrays (read-only).
        tapes: the tapes that recorded it (the recorder's tape objects), in
            stack order; empty if none did.
    """

    op: OpInfo
    params: dict
    input_ids: tuple[int, ...]
    output_ids: tuple[int, ...]
    input_values: tuple
    output_values: tuple
    tapes: tuple

    @property
    def input_shapes(self) -> tuple[tuple, ...]:
        return tuple(v.shape for v in self.input_values)

    @property
    def output_shapes(self) -> tuple[tuple, ...]:
        return tuple(v.shape for v in self.output_values)

    @property
    def input_dtypes(self) -> tuple[np.dtype, ...]:
        return tuple(v.dtype for v in self.input_values)

    @property
    def output_dtypes(self) -> tuple[np.dtype, ...]:
        return tuple(v.dtype for v in self.output_values)


class ConvertEvent(NamedTuple):
    """A Python or NumPy value became a tensor. Heard through ``on_convert``.

    Attributes:
        source: the object converted (a float, list, array...).
        how: ``"input"`` (implicitly, as an op's input) or ``"constant"``
            (``convert_to_tensor``, ``tf.constant``).
        tensor: the new tensor.
    """

    source: Any
    how: str
    tensor: ValueRef


class ReadEvent(NamedTuple):
    """A variable was read. Heard through ``on_variable_read``.

    Attributes:
        variable: the variable, with the value read.
        tapes: the tapes that watch it (after this read), in stack order.
    """

    variable: ValueRef
    tapes: tuple


class EscapeEvent(NamedTuple):
    """A value left the engine. Heard through ``on_escape``.

    Attributes:
        value: the tensor or variable it left from.
        how: ``"numpy"``, ``"__array__"``, ``"float"``, ``"int"`` or
            ``"constant"`` (``tf.constant`` copying a tensor or variable).
        result: the object handed to the user (None for ``"constant"``).
    """

    value: ValueRef
    how: str
    result: Any = None


class AssignEvent(NamedTuple):
    """``assign``, ``assign_add`` or ``assign_sub`` ran. Heard through ``on_assign``.

    Attributes:
        variable: the variable, with its new value.
        value_id: the id of the tensor or variable assigned, or None.
        python_type: the type name of what was assigned (``"float"``).
        how: ``"assign"``, ``"assign_add"``, ``"assign_sub"`` or
            ``"assign_slice"``.
        operand: the array the assignment applied (the new value, or the
            delta added or taken), or None (a slice, or another recorder).
    """

    variable: ValueRef
    value_id: int | None
    python_type: str
    how: str = "assign"
    operand: Any = None


class VariableEvent(NamedTuple):
    """A variable was created. Heard through ``on_variable``.

    Attributes:
        variable: the new variable, with its initial value.
        initial: the tensor or variable its initial value was copied from, or
            None when it was made from a Python or NumPy value (a new variable
            copies its initial value: no gradient flows back through it).
        python_type: the type name of the initial value given (``"int"``,
            ``"float"``, ``"list"``, ``"ndarray"``, ``"EagerTensor"``...).
        source: the initial value as given (a Python float, a list...), so a
            listener can tell the same object used elsewhere; not to be kept.
    """

    variable: ValueRef
    initial: ValueRef | None
    python_type: str
    source: Any = None


class WatchEvent(NamedTuple):
    """``tape.watch`` was called on one tensor or variable. Heard through ``on_watch``.

    Attributes:
        tape: the tape.
        value: what it watched.
    """

    tape: Any
    value: ValueRef


class TapeEvent(NamedTuple):
    """A tape started or stopped recording, paused, or was reset (``on_tape``).

    Attributes:
        tape: the tape.
        kind: ``"start"`` (entering its ``with`` block, or the end of a
            ``stop_recording`` block), ``"stop"`` (leaving it, the start of a
            ``stop_recording`` block, or a non-persistent tape answering),
            ``"pause"`` (right after the ``"stop"`` of ``stop_recording``) or
            ``"reset"``.
        mark: a fresh id: every tensor made before the event has a smaller id,
            every one made after a larger one.
    """

    tape: Any
    kind: str
    mark: int


class GradientAsked(NamedTuple):
    """A gradient request begins (``on_gradient_asked``).

    Ops that run until its answer are the request's own computation.

    Attributes:
        tape: the tape asked.
        kind: ``"gradient"``, ``"jacobian"`` or ``"batch_jacobian"``.
        unconnected: ``"none"`` or ``"zero"``, as asked.
        output_gradients: whether output gradients were given.
    """

    tape: Any
    kind: str
    unconnected: str
    output_gradients: bool

    @classmethod
    def of_call(cls, tape: Any, kind: str, call: dict) -> GradientAsked:
        """The event of a request, from its bound arguments by name."""
        mode = call.get("unconnected_gradients")
        return cls(
            tape,
            kind,
            str(getattr(mode, "value", mode) or "none").lower(),
            call.get("output_gradients") is not None,
        )


class GradientAnswered(NamedTuple):
    """A gradient request ended (``on_gradient_answered``), after its cotangents.

    Attributes:
        tape, kind: as in :class:`GradientAsked`.
        targets, sources: what was asked, flattened: a :class:`ValueRef` per
            tensor or variable, None for anything else.
        results: the gradients' arrays (None for a None gradient), one per
            source; None when the request raised.
        error: the exception it raised, or None.
        target_objects: the flattened targets as given, tensors or not (a
            Python float where a tensor was needed, say), for a listener to
            tell what a target that is not a tensor was; not to be kept.
        source_paths: for each flattened source, where it sits in the
            structure given: the index or key at each level (``(1,)`` for the
            second of a list, ``("w",)`` in a dict, ``()`` for a source given
            alone).
    """

    tape: Any
    kind: str
    targets: tuple
    sources: tuple
    results: tuple | None
    error: BaseException | None
    target_objects: tuple = ()
    source_paths: tuple = ()


class CotangentsReached(NamedTuple):
    """Cotangents a request's backward sweep reached (``on_cotangents``).

    A sweep tells them in batches, in sweep order (from the targets back to
    the sources), all before the request's :class:`GradientAnswered`.

    Attributes:
        reached: ``(output_ids, cotangent)`` pairs: the ids of an op's outputs
            and the array arriving there (a tuple of arrays, one per output,
            for several outputs). Arrays may carry leading batch axes.
        flowed: ``(output_ids, input_ids, cotangents)`` per node the sweep
            passed: what each of the node's inputs received from that node
            (one array per input, None where none flowed), so that an edge
            shows its own share and not its input's total. Empty from a
            recorder that cannot tell.
    """

    reached: tuple[tuple[tuple[int, ...], Any], ...]
    flowed: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple], ...] = ()


class Listener:
    """The listener protocol: a method per event, each taking one record.

    Subclass it, or write any object with these methods (all of them, but
    ``on_variable``: the engine calls the others without checking). ``bind``
    is called once when a tape is made with ``GradientTape(explain=listener)``.
    """

    def bind(self, tape: Any) -> None:
        """``tape`` is the tape this listener explains."""

    def on_op(self, event: OpEvent) -> None:
        """An op ran."""

    def on_convert(self, event: ConvertEvent) -> None:
        """A Python or NumPy value became a tensor."""

    def on_variable_read(self, event: ReadEvent) -> None:
        """A variable was read."""

    def on_escape(self, event: EscapeEvent) -> None:
        """A value left the engine (or ``tf.constant`` copied a tensor)."""

    def on_assign(self, event: AssignEvent) -> None:
        """A variable was assigned."""

    def on_variable(self, event: VariableEvent) -> None:
        """A variable was created (optional: a listener without this method is
        not told)."""

    def on_watch(self, event: WatchEvent) -> None:
        """``tape.watch`` ran."""

    def on_tape(self, event: TapeEvent) -> None:
        """A tape started, stopped, paused or was reset."""

    def on_gradient_asked(self, event: GradientAsked) -> None:
        """A gradient request begins."""

    def on_cotangents(self, event: CotangentsReached) -> None:
        """A request's backward sweep reached these ops."""

    def on_gradient_answered(self, event: GradientAnswered) -> None:
        """A gradient request ended."""


class NodeRecord(NamedTuple):
    """One node a tape recorded for backprop, as plain data.

    Attributes:
        op: the op's :class:`OpInfo`.
        params: its static parameters.
        inputs, outputs: :class:`ValueRef` records (``value`` is None for a
            value the node does not keep).
    """

    op: OpInfo
    params: dict
    inputs: tuple[ValueRef, ...]
    outputs: tuple[ValueRef, ...]


class TapeState(NamedTuple):
    """A tape's public state (see :func:`describe_tape`).

    Attributes:
        persistent, watch_accessed_variables: as the tape was made.
        status: ``"new"`` (never entered), ``"recording"``, ``"stopped"``
            (left, or paused) or ``"answered"`` (a non-persistent tape that
            gave its one answer).
        variables: the variables it watches, in the order it began to.
        watched: the tensors ``tape.watch`` made it follow, in that order.
        nodes: what it recorded, in execution order (empty when not asked for).
    """

    persistent: bool
    watch_accessed_variables: bool
    status: str
    variables: tuple[ValueRef, ...]
    watched: tuple[ValueRef, ...]
    nodes: tuple[NodeRecord, ...]
