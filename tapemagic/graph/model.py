"""The graph model: a plain, engine-independent picture of one tape.

Everything the renderers (``tapemagic.viz``) and the diagnosis know about a tape
comes from a :class:`Graph`. It is immutable data (frozen dataclasses, tuples,
strings, numbers) with stable ids, it never holds a tensor or a tape, and it
turns into JSON and back (:meth:`Graph.to_dict`, :meth:`Graph.from_dict`).
:func:`tapemagic.graph.from_tape.graph_from_tape` builds one from a tape.
:func:`tapemagic.graph.index.index_of` (a
:class:`~tapemagic.graph.index.GraphIndex`, built once per graph) answers who
made and used each value, what reaches what, and what to call a value.

Structure (version 1). Ids are stable strings, numbered in the order things
happened: values ``t1, t2, ...``, ops ``op1, ...``, escapes ``e1, ...``,
gradient requests ``g1, ...``. Lines are line numbers of the cell (for a
``%%tape`` cell, line 1 is the ``%%tape`` line itself) or of the file the code
ran in; ``None`` when unknown. ``seq`` orders every event of one log.

- ``tape``: :class:`TapeInfo` (name, options, status).
- ``cell``: :class:`Cell` (label such as ``In[5]``, source lines).
- ``values``: :class:`Value`, one per tensor or variable seen, with its
  ``origin``: ``op`` (computed by an op, ``op`` says which), ``variable``,
  ``constant`` (made without an op, e.g. ``tf.constant``), ``numpy`` or
  ``python`` (a NumPy or Python value turned into a tensor as an op input),
  ``outside`` (made before the tape started), or ``unknown``.
- ``ops``: :class:`OpNode`, every op that ran, recorded on the tape or not.
- ``edges``: :class:`Edge`, value -> op (an input) and op -> value (an output).
- ``sources``: :class:`Source`, what the tape watched and how, and any other
  value a gradient was asked with respect to.
- ``targets``: ids of the values gradients were asked of.
- ``gradients``: :class:`GradientRequest` with one :class:`GradientResult` per
  source, in the order of the flattened sources.
- ``reads``, ``escapes``, ``assigns``, ``watches``, ``tape_events``: the log.
- ``bindings``: :class:`Binding`, the user's names the code (re)bound.
- ``gradient_values``: :class:`GradientValue`, the shape and norm of the
  cotangent reaching each op's output during each request's backward sweep (in
  sweep order), and of each source's gradient.
- ``edge_gradients``: :class:`EdgeGradient`, the shape and norm of the
  cotangent each swept op passed to each of its inputs: an edge's own share.
- ``previews``: :class:`Preview`, a short text of each source's value.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ORIGINS",
    "SCHEMA_VERSION",
    "TAPE_STATES",
    "Assign",
    "Binding",
    "Cell",
    "Edge",
    "Escape",
    "GradientRequest",
    "GradientResult",
    "EdgeGradient",
    "GradientValue",
    "Graph",
    "OpNode",
    "Preview",
    "Read",
    "Source",
    "TapeEvent",
    "TapeInfo",
    "Value",
    "Watch",
]

SCHEMA_VERSION = 1
ORIGINS = ("op", "variable", "constant", "numpy", "python", "outside", "unknown")
TAPE_STATES = ("idle", "recording", "paused", "stopped")


@dataclass(frozen=True)
class Value:
    """A tensor or variable the tape saw.

    Attributes:
        id: ``"t1"``, ``"t2"``, ... in order of first sight.
        origin: one of :data:`ORIGINS`.
        shape: the static shape.
        dtype: TensorFlow's dtype name, e.g. ``"float32"``.
        differentiable: whether the dtype can carry a gradient (floating or
            complex).
        line: where it was made: the op's line (origin ``op``), the conversion's
            line (``numpy``, ``python``, ``constant`` via ``convert_to_tensor``)
            or the first read (``variable``); None when the log did not see it
            being made.
        op: the id of the op that computed it (origin ``op``).
        names: the user's names that held it after the cell ran.
        variable: the variable's name (``"w:0"``) for origin ``variable``.
        trainable: whether that variable is trainable.
        python_type: for conversions, the type of the Python or NumPy value
            (``"float"``, ``"list"``, ``"ndarray"``, ``"float64"``).
        escape: the id of the escape (``.numpy()``, ``float()``...) whose result
            came back into the engine as this value (also a ``tf.constant``
            copy of a tensor or variable: the escape ``how="constant"``).
        finite: whether all its elements are finite, for the outputs of ops
            with a singular point (log, sqrt, division, exp...); None when not
            checked.
        same_as: another value converted from the very same Python or NumPy
            object (the first one the log saw), e.g. a float ``x`` used both in
            ``tf.constant(x)`` and in ``x * w``.
        after_tape: made after the tape stopped recording, where the log could
            not see how (origin ``unknown``).
        rebound_from: for a plain tensor bound to a user name that held a
            Variable at the end of an earlier ``%%tape`` cell, that variable's
            name (``"w:0"``): the name was rebound in between.
        created: the order in which this graph's values were created (1 for
            the oldest), before the tape or during it; a value can only have
            been computed from values created before it.
        made_at: for a variable created while the log listened, the line
            that created it.
        made_from: for such a variable, the type of the value it was created
            from (``"int"`` for ``tf.Variable(5)``); a variable made from a
            tensor has ``escape`` set too (the escape ``"variable"``).
        path: a Keras weight's path (``"dense_1/kernel"``).
        rebound_at: for a value with ``rebound_from``, the line of an earlier
            cell that bound the name last: ``(cell label, line, code)``.
    """

    id: str
    origin: str
    shape: tuple[int, ...]
    dtype: str
    differentiable: bool
    line: int | None = None
    op: str | None = None
    names: tuple[str, ...] = ()
    variable: str | None = None
    trainable: bool | None = None
    python_type: str | None = None
    escape: str | None = None
    finite: bool | None = None
    same_as: str | None = None
    after_tape: bool = False
    rebound_from: str | None = None
    created: int | None = None
    made_at: int | None = None
    made_from: str | None = None
    path: str | None = None
    rebound_at: tuple[str, int, str] | None = None


@dataclass(frozen=True)
class OpNode:
    """One op that ran.

    Attributes:
        id: ``"op1"``, ``"op2"``, ... in execution order.
        seq: position in the log.
        op: TensorFlow's op name, e.g. ``"matmul"``.
        inputs, outputs: value ids.
        differentiable: whether the op has a gradient at all.
        recorded: whether the tape recorded it for backprop (it did only if it
            was recording, an input was watched or computed from a watched
            value, the op is differentiable and an output is floating).
        line: the line it ran on.
        tape_state: the tape's state then, one of :data:`TAPE_STATES`.
        during: the id of the gradient request whose computation ran it.
        params: static parameters as ``(name, text)`` pairs.
        other_tapes: the numbers (1, 2, ...) of other tapes that recorded it.
        no_gradient_inputs: positions of inputs the op has no gradient for
            (the condition of ``where``, the indices of ``gather``).
        singular: ``"derivative"`` if the op's derivative is infinite or
            undefined at some finite inputs (log, sqrt, division), ``"value"``
            if its value can overflow (exp, cosh), else None.
    """

    id: str
    seq: int
    op: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    differentiable: bool
    recorded: bool
    line: int | None
    tape_state: str
    during: str | None = None
    params: tuple[tuple[str, str], ...] = ()
    other_tapes: tuple[int, ...] = ()
    no_gradient_inputs: tuple[int, ...] = ()
    singular: str | None = None


@dataclass(frozen=True)
class Edge:
    """A value flowing into an op (``index``: input position) or out of one."""

    source: str
    target: str
    index: int


@dataclass(frozen=True)
class Source:
    """A value the tape watched, or that a gradient was asked with respect to.

    Attributes:
        value: the value id.
        kind: ``"variable"`` or ``"tensor"``.
        watched: whether the tape watches it.
        how: ``"accessed"`` (a trainable variable read while recording, with
            ``watch_accessed_variables``), ``"watch"`` (``tape.watch``), or
            ``"none"`` (never watched).
        line: where it was watched (the read or the ``watch`` call).
        via: for ``how == "watch"``, the ``%%tape`` option that watched it
            (``"--watch image"``), or None for a ``tape.watch`` call.
    """

    value: str
    kind: str
    watched: bool
    how: str
    line: int | None = None
    via: str | None = None


@dataclass(frozen=True)
class Read:
    """A read of a variable; ``other_tapes``: other tapes watching it then."""

    seq: int
    value: str
    line: int | None
    tape_state: str
    other_tapes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Escape:
    """A value leaving the engine.

    ``how`` is ``numpy``, ``__array__``, ``float``, ``int``, ``constant``
    (``tf.constant`` copied the tensor or variable into a new, unlinked tensor)
    or ``variable`` (a new ``tf.Variable`` copied it as its initial value).
    """

    id: str
    seq: int
    value: str
    how: str
    line: int | None
    tape_state: str


@dataclass(frozen=True)
class Assign:
    """``variable.assign(...)``: ``value`` is the assigned tensor's id, if any."""

    seq: int
    variable: str
    value: str | None
    python_type: str
    line: int | None
    tape_state: str


@dataclass(frozen=True)
class Watch:
    """A ``watch`` call: ``tape`` is 0 for this tape, 1, 2... for other tapes."""

    seq: int
    tape: int
    value: str
    line: int | None
    tape_state: str


@dataclass(frozen=True)
class TapeEvent:
    """The tape started, stopped, paused (``stop_recording``) or was reset."""

    seq: int
    event: str
    line: int | None


@dataclass(frozen=True)
class GradientResult:
    """The answer for one source: None, or a tensor's shape, dtype and preview.

    ``nan``, ``inf`` and ``zero`` say whether the tensor holds a NaN, an
    infinity, or only zeros.
    """

    source: str | None
    none: bool
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    preview: str | None = None
    nan: bool = False
    inf: bool = False
    zero: bool = False


@dataclass(frozen=True)
class GradientRequest:
    """One ``gradient``, ``jacobian`` or ``batch_jacobian`` call.

    Attributes:
        id: ``"g1"``, ``"g2"``, ...
        seq: position in the log.
        kind: the method called.
        tape: 0 for this tape, 1, 2... for other tapes.
        targets, sources: value ids (None for an entry that was not a tensor).
        results: one per source; empty when the call raised.
        unconnected: ``"none"`` or ``"zero"``.
        output_gradients: whether output gradients were given.
        where: the cell (``"In[7]"``) or file the call was made in.
        line: the line of the call there.
        code: the text of that line, when known (a later cell's too).
        here: whether it was made in the tape's own cell.
        via: set when the ``%%tape`` magic made the call (its options).
        error: ``"RuntimeError: ..."`` when the call raised.
        source_paths: where each source sits in the structure given, as
            ``[1]``, ``['w']`` or ``[0][2]`` (``""`` for a source given alone).
        target_types: for each target that is not a tensor, its Python type
            (``"float"``); None for a tensor.
        target_escapes: for such a target, the escape that made it (``float()``
            or ``.numpy()`` handed it to the user), if the log saw it.
    """

    id: str
    seq: int
    kind: str
    tape: int
    targets: tuple[str | None, ...]
    sources: tuple[str | None, ...]
    results: tuple[GradientResult, ...]
    unconnected: str = "none"
    output_gradients: bool = False
    where: str | None = None
    line: int | None = None
    here: bool = False
    via: str | None = None
    error: str | None = None
    code: str | None = None
    source_paths: tuple[str, ...] = ()
    target_types: tuple[str | None, ...] = ()
    target_escapes: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class GradientValue:
    """The cotangent that reached a value while a request swept backwards.

    Attributes:
        request: the gradient request's id (``"g1"``).
        value: the value id: an op's output, or a source (its final gradient).
        op: the op whose output it reached; None for a source's gradient.
        shape: the cotangent's shape (leading batch axes for a jacobian).
        norm: its Frobenius norm; NaN or inf when it holds NaN or inf.
    """

    request: str
    value: str
    op: str | None
    shape: tuple[int, ...]
    norm: float


@dataclass(frozen=True)
class EdgeGradient:
    """The cotangent an op passed back to one input while a request swept:
    what flows along the edge from the input to the op.

    Attributes:
        request: the gradient request's id (``"g1"``).
        value: the input's value id.
        op: the op that passed it.
        shape: the cotangent's shape (leading batch axes for a jacobian).
        norm: its Frobenius norm; NaN or inf when it holds NaN or inf.
    """

    request: str
    value: str
    op: str
    shape: tuple[int, ...]
    norm: float


@dataclass(frozen=True)
class Preview:
    """A short text of a value (``"[[0.5], [-1.]]"``), elided past 8 items,
    and a one-line summary of a numeric one.

    Attributes:
        value: the value id.
        text: the short text.
        minimum, maximum, norm: over all its items (None if not numeric).
        first: its first items, flattened (``"0.5, -1., 0.25, 2., ..."``).
    """

    value: str
    text: str
    minimum: float | None = None
    maximum: float | None = None
    norm: float | None = None
    first: str | None = None


@dataclass(frozen=True)
class Binding:
    """A user name the code bound, rebound or deleted.

    ``kind`` and ``previous_kind`` are ``variable``, ``tensor``, ``numpy``,
    ``python``, ``other``, or None (unbound). A name whose ``previous_kind`` is
    ``variable`` and ``kind`` is ``tensor`` was rebound from a Variable to a
    plain tensor (``w = w - lr * g``). ``previous`` is the id of the value the
    name held before, when the log saw it.
    """

    name: str
    value: str | None
    kind: str | None
    previous_kind: str | None
    python_type: str | None = None
    previous: str | None = None


@dataclass(frozen=True)
class TapeInfo:
    """The tape itself.

    Attributes:
        name: the user's name for it (``"tape"``), if known.
        persistent, watch_accessed_variables: its options.
        status: ``"new"`` (never entered), ``"recording"``, ``"stopped"``, or
            ``"answered"`` (a non-persistent tape that gave its one answer).
        explained: whether an explanation log was kept (without one, only the
            recorded ops are known).
    """

    name: str | None
    persistent: bool
    watch_accessed_variables: bool
    status: str
    explained: bool


@dataclass(frozen=True)
class Cell:
    """The code the tape ran in: a label (``"In[5]"``), file name and lines."""

    label: str | None
    filename: str | None
    lines: tuple[str, ...] = ()

    def line(self, number: int | None) -> str | None:
        """The source text of line ``number`` (1-based), or None."""
        if number is None or not 1 <= number <= len(self.lines):
            return None
        return self.lines[number - 1]


@dataclass(frozen=True)
class Graph:
    """Everything known about one tape. See the module docs for the structure.

    Example:
        >>> g = Graph(
        ...     tape=TapeInfo("tape", False, True, "stopped", True),
        ...     cell=Cell("In[1]", None, ("%%tape", "y = x * x")),
        ...     values=(Value("t1", "variable", (), "float32", True, 2,
        ...                   names=("x",), variable="x:0", trainable=True),
        ...             Value("t2", "op", (), "float32", True, 2, op="op1",
        ...                   names=("y",))),
        ...     ops=(OpNode("op1", 1, "multiply", ("t1", "t1"), ("t2",), True,
        ...                 True, 2, "recording"),),
        ... )
        >>> Graph.from_json(g.to_json()) == g
        True
    """

    tape: TapeInfo
    cell: Cell
    values: tuple[Value, ...] = ()
    ops: tuple[OpNode, ...] = ()
    edges: tuple[Edge, ...] = ()
    sources: tuple[Source, ...] = ()
    targets: tuple[str, ...] = ()
    gradients: tuple[GradientRequest, ...] = ()
    reads: tuple[Read, ...] = ()
    escapes: tuple[Escape, ...] = ()
    assigns: tuple[Assign, ...] = ()
    watches: tuple[Watch, ...] = ()
    tape_events: tuple[TapeEvent, ...] = ()
    bindings: tuple[Binding, ...] = ()
    gradient_values: tuple[GradientValue, ...] = ()
    edge_gradients: tuple[EdgeGradient, ...] = ()
    previews: tuple[Preview, ...] = ()
    version: int = SCHEMA_VERSION

    # -- JSON ----------------------------------------------------------------
    def to_dict(self) -> dict:
        """The model as plain dicts, lists, strings, numbers, bools and None."""
        data = _to_data(self)
        return {"version": data.pop("version"), **data}

    @classmethod
    def from_dict(cls, data: dict) -> Graph:
        """Rebuild a model from :meth:`to_dict` output.

        Raises:
            ValueError: if ``data`` has another schema version or does not fit.
        """
        version = data.get("version")
        if version != SCHEMA_VERSION:
            raise ValueError(
                f"Graph data has version {version!r}, but this tapemagic reads "
                f"version {SCHEMA_VERSION}. Rebuild it with graph_from_tape()."
            )
        return _from_data(cls, data)

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string (``kwargs`` go to ``json.dumps``)."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> Graph:
        """Rebuild a model from :meth:`to_json` output."""
        return cls.from_dict(json.loads(text))


def _to_data(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        return {f.name: _to_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (tuple, list)):
        return [_to_data(item) for item in obj]
    return obj


def _from_data(tp: Any, data: Any) -> Any:
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise ValueError(f"Expected an object for {tp.__name__}, got {data!r}.")
        hints = typing.get_type_hints(tp)
        known = {f.name for f in dataclasses.fields(tp)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(
                f"Unknown fields {sorted(unknown)} for {tp.__name__}; the data does "
                "not come from this version of the graph model."
            )
        return tp(**{name: _from_data(hints[name], data[name]) for name in data})
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        inner = [a for a in args if a is not type(None)]
        return _from_data(inner[0], data)
    if origin is tuple:
        if not isinstance(data, (list, tuple)):
            raise ValueError(f"Expected a list for {tp}, got {data!r}.")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_data(args[0], item) for item in data)
        return tuple(_from_data(a, item) for a, item in zip(args, data))
    return data
