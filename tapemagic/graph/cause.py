"""How a None cause is declared: one :func:`declare_cause` call per cause.

A cause is what the diagnosis names when a gradient is None (or holds NaN): a
name such as ``"integer_cast"``, a stable code such as ``"TM014"`` (never
reused: a retired code stays in :data:`RETIRED`), a one-line meaning for the
docs, where the diagnosis finds it (its detectors), and the two sentences of
its finding (what happened, what to do). Each code has a page of text in
:mod:`tapemagic.graph.pages`. :mod:`tapemagic.graph.causes` declares every cause,
each in one place, the way ``defop`` declares an op:

.. code-block:: python

    def _find_stop_gradient(facts, q, event, index, value):
        if isinstance(event, OpNode) and event.op == "stop_gradient":
            return Break(event, event.line, event.seq, index, value)
        return None

    def _stop_gradient_words(w, b):
        return (f"the path ... goes through tf.stop_gradient {w.at(b.line)}",
                "Remove tf.stop_gradient from the path ...")

    declare_cause(
        "stop_gradient",
        code="TM016",
        doc="went through tf.stop_gradient",
        detect=[Detector("cut", 10, _find_stop_gradient)],
        words=_stop_gradient_words,
    )

The diagnosis asks questions in a fixed order and, at each one (a *stage*),
runs the detectors declared for it by rank, lowest first; the first that
returns a :class:`Break` names the cause. The stages and what their detectors
receive (``facts``: :class:`~tapemagic.graph.facts.Facts`, ``q``: the
:class:`Query`):

- ``"call"`` ``(facts, q)``: the gradient call itself is wrong (its
  arguments swapped, a target that is not a tensor, the source asked about
  itself); asked of every request first, whatever its answer.
- ``"source"`` ``(facts, q)``: the source itself cannot have a gradient.
- ``"unlinked"`` ``(facts, q, anc)``: no computation links the source to the
  target (``anc``: what the target was computed from).
- ``"watch"`` ``(facts, q)``: the asked tape would not watch the source.
- ``"cut"`` ``(facts, q, event, index, value)``: a gradient from the source
  reaches ``value`` and stops at ``event`` on the way to the target: an op
  without a gradient for its input ``index``, an
  :class:`~tapemagic.graph.model.Escape` or an
  :class:`~tapemagic.graph.model.Assign`.
- ``"recording"`` ``(facts, q, op, value, reset)``: an op on the path that the
  asked tape did not record (``reset``: the last ``reset()`` before the request).
- ``"usage"`` ``(facts, q, anc)``: the source would be watched, but was not used
  while the tape recorded.
- ``"unexplained"`` ``(facts, q, reach)``: the model shows a recorded path, yet
  the answer was None.
- ``"nan"`` ``(facts, q)``: the gradient holds NaN or Inf.
- ``"zero"`` ``(facts, q)``: the gradient is all zeros (a note: which op
  zeroed it).

Adding a cause takes one declaration here and one test in
``tests/graph/test_diagnosis.py`` (a test fails while a declared cause has no
case).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .model import GradientRequest, GradientResult, OpNode

__all__ = [
    "BY_CODE",
    "CAUSE_DOCS",
    "REGISTRY",
    "RETIRED",
    "SEVERITIES",
    "STAGES",
    "Break",
    "Cause",
    "Detector",
    "Query",
    "declare_cause",
    "find_break",
]

STAGES = (
    "call",
    "source",
    "unlinked",
    "watch",
    "cut",
    "recording",
    "usage",
    "unexplained",
    "nan",
    "zero",
)

# What a finding of each severity is about: a None gradient (or zeros that
# stand for one), a gradient holding NaN or Inf, or a note that changes no
# result (a gradient of zeros, the gradient of a value by itself).
SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Query:
    """One source of one gradient request (or of a predicted one).

    Attributes:
        source: the source's value id.
        targets: the target value ids.
        tape: 0 for the graph's own tape, 1, 2... for other tapes.
        before: the request's position in the log (``inf`` for a prediction):
            only what happened before it counts.
        request, result: the request and its answer for this source, if asked.
        index: the source's position among the request's sources.
    """

    source: str
    targets: tuple[str, ...]
    tape: int
    before: float
    request: GradientRequest | None = None
    result: GradientResult | None = None
    index: int = 0


@dataclass(frozen=True)
class Break:
    """Where a path broke: the event there, and what the cause's words need.

    Attributes:
        op: the op where it broke, if any.
        line: the cell line to quote.
        seq: the event's position in the log (findings are sorted by it).
        detail: whatever the cause's words need, set by its detector.
        value: the value the path reached last.
        cause: the cause's name; :func:`find_break` fills it in.
    """

    op: OpNode | None = None
    line: int | None = None
    seq: float = math.inf
    detail: Any = None
    value: str | None = None
    cause: str = ""


@dataclass(frozen=True)
class Detector:
    """Where a cause is found: at ``stage`` (one of :data:`STAGES`), tried in
    ``rank`` order among that stage's detectors; ``find`` returns a
    :class:`Break`, or None when the cause does not apply."""

    stage: str
    rank: int
    find: Callable[..., Break | None]


@dataclass(frozen=True)
class Cause:
    """One declared cause (see :func:`declare_cause`): ``name`` is its key in
    findings (``"integer_cast"``), ``code`` its stable code (``"TM014"``)."""

    name: str
    code: str
    doc: str
    detectors: tuple[Detector, ...]
    words: Callable[[Any, Break], tuple[str, str]]
    severity: str = "error"
    headed: bool = True


# name -> cause, in declaration order; code -> cause.
REGISTRY: dict[str, Cause] = {}
BY_CODE: dict[str, Cause] = {}

# Codes once given to a cause that is gone, each with what replaced it (a
# sentence naming the code or codes that took its place). A code is never
# reused: declare_cause refuses one listed here.
RETIRED: dict[str, str] = {}

_CODE = re.compile(r"TM\d{3}")
_BY_STAGE: dict[str, list[tuple[int, Cause, Detector]]] = {s: [] for s in STAGES}


def declare_cause(
    name: str,
    *,
    code: str,
    doc: str,
    detect: list[Detector] | tuple[Detector, ...],
    words: Callable[[Any, Break], tuple[str, str]],
    severity: str = "error",
    headed: bool = True,
) -> Cause:
    """Register a None cause: its name, code, meaning, where it is found, its words.

    Args:
        name: the cause's name in findings, e.g. ``"integer_cast"``.
        code: its stable code, ``TM`` and three digits, e.g. ``"TM014"``: the
            next free one for a new cause, never one in :data:`RETIRED`.
        doc: a one-line meaning for the docs (:data:`CAUSE_DOCS`).
        detect: the detectors that find it, one per stage and rank.
        words: ``words(w, b) -> (what happened, what to do)``, without final
            dots; ``w`` is the finding's :class:`~tapemagic.graph.words.Words`.
        severity: ``"error"`` (a None gradient), ``"warning"`` (NaN, Inf) or
            ``"note"`` (no result is wrong: a gradient of zeros, say).
        headed: whether the finding starts with the usual head (``"b: None
            because"``) before the words; a cause that is not about one
            source's answer (a target that is not a tensor) words it all.

    Returns:
        The cause.

    Raises:
        ValueError: if the name or code is taken, the code is retired or not
            ``TM`` and three digits, a stage is unknown, or a stage already has
            a detector of that rank.

    Example:
        >>> import tapemagic.graph.causes  # declares every cause
        >>> declare_cause("integer_cast", code="TM900", doc="again", detect=[],
        ...               words=lambda w, b: ("", ""))
        Traceback (most recent call last):
        ...
        ValueError: The cause 'integer_cast' is already declared; pick another name.
    """
    if name in REGISTRY:
        raise ValueError(f"The cause {name!r} is already declared; pick another name.")
    if not _CODE.fullmatch(code):
        raise ValueError(
            f"The code of {name!r} must be TM and three digits, e.g. 'TM027', "
            f"not {code!r}."
        )
    if code in BY_CODE or code in RETIRED:
        taken = BY_CODE[code].name if code in BY_CODE else "a retired cause"
        raise ValueError(
            f"The code {code} is already {taken}'s; a code is never reused, so "
            f"give {name!r} the next free code."
        )
    if severity not in SEVERITIES:
        raise ValueError(
            f"severity must be one of {', '.join(SEVERITIES)}, not {severity!r}"
        )
    cause = Cause(name, code, doc, tuple(detect), words, severity, headed)
    for d in cause.detectors:
        if d.stage not in _BY_STAGE:
            raise ValueError(
                f"Unknown stage {d.stage!r} for the cause {name!r}; use one of "
                f"{', '.join(STAGES)}."
            )
        taken = [c.name for rank, c, _ in _BY_STAGE[d.stage] if rank == d.rank]
        if taken:
            raise ValueError(
                f"The cause {taken[0]!r} already has rank {d.rank} at stage "
                f"{d.stage!r}; give {name!r} another rank."
            )
    REGISTRY[name] = cause
    BY_CODE[code] = cause
    for d in cause.detectors:
        _BY_STAGE[d.stage].append((d.rank, cause, d))
        _BY_STAGE[d.stage].sort(key=lambda entry: entry[0])
    return cause


def find_break(stage: str, *args: Any) -> Break | None:
    """Run the detectors of ``stage`` by rank; the first break found, or None.

    Example:
        >>> import tapemagic.graph.causes  # declares every cause
        >>> from tapemagic.graph.facts import Facts
        >>> from tapemagic.graph.model import Cell, Graph, TapeInfo, Value
        >>> g = Graph(TapeInfo("t", False, True, "stopped", True), Cell(None, None),
        ...           values=(Value("t1", "constant", (), "int32", False),
        ...                   Value("t2", "constant", (), "float32", True)))
        >>> find_break("source", Facts(g), Query("t1", ("t2",), 0, 9.0)).cause
        'integer_source'
    """
    for _, cause, detector in _BY_STAGE[stage]:
        found = detector.find(*args)
        if found is not None:
            return dataclasses.replace(found, cause=cause.name)
    return None


class _CauseDocs(Mapping):
    """name -> one-line meaning, for every declared cause (a live view)."""

    def __getitem__(self, name: str) -> str:
        return REGISTRY[name].doc

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)

    def __repr__(self) -> str:
        return repr(dict(self))


# Every cause the diagnosis can name, with a one-line meaning for the docs.
CAUSE_DOCS: Mapping[str, str] = _CauseDocs()
