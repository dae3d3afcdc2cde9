"""What a tape's explanation says: its graph model and findings, once per state.

:func:`view_model` is the one entry the views use: the graph model of a tape
(:func:`~tapemagic.graph.build.graph_from_tape`) and its diagnosis
(:func:`~tapemagic.graph.diagnosis.diagnose`), computed once and kept until the
tape's log hears more (an op, a gradient request or its answer, the names the
magic records). The widget, the SVG, the text, the static HTML, ``explain()``
and the notes under a later cell all read that one pair.
"""

from __future__ import annotations

import weakref
from typing import Any

from .build import graph_from_tape
from .diagnosis import diagnose
from .findings import Findings
from .frames import user_namespace
from .log import LIVE_LOGS, ExplainLog
from .model import Graph
from .recorders import surface_of

__all__ = [
    "assert_no_none_gradients",
    "explain_tape",
    "graph_from_tape",
    "unseen_findings",
    "view_model",
]

# log -> (what the pair was computed from, the graph, its findings)
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def view_model(
    tape: Any, *, name: str | None = None, namespace: dict | None = None
) -> tuple[Graph, Findings]:
    """The graph model of ``tape`` and its findings, computed once per state.

    The pair is kept with the tape's explanation log and computed again only
    when the log changed since (the tape recorded or answered more) or other
    names are asked for.

    Args:
        tape: a ``GradientTape`` of any registered recorder, with or without
            an explanation log (without one, there are no findings).
        name, namespace: as for :func:`~tapemagic.graph.build.graph_from_tape`.

    Returns:
        ``(graph, findings)``.

    Example:
        >>> import tapemagic.tf as tf
        >>> c = tf.constant(2.0)
        >>> with tf.GradientTape(explain=True) as tape:
        ...     y = c * c
        >>> _ = tape.gradient(y, c)
        >>> graph, findings = view_model(tape)
        >>> [f.cause for f in findings], view_model(tape)[0] is graph
        (['not_watched'], True)
    """
    log = surface_of(tape).explain_listener(tape)
    if not isinstance(log, ExplainLog):
        return graph_from_tape(tape, name=name), Findings(())
    key = (log.version(), name, _namespace_key(namespace))
    kept = _VIEWS.get(log)
    if kept is not None and kept[0] == key:
        return kept[1], kept[2]
    graph = graph_from_tape(tape, name=name, namespace=namespace)
    findings = Findings(diagnose(graph))
    _VIEWS[log] = (key, graph, findings)
    return graph, findings


def _namespace_key(namespace: dict | None) -> tuple:
    """What of ``namespace`` the graph's names read: each name and what it holds."""
    if not namespace:
        return ()
    return tuple((key, id(value)) for key, value in namespace.items())


def explain_tape(tape: Any, target: Any = None, sources: Any = None) -> Findings:
    """What ``tape.explain(target, sources)`` returns: the tape's findings.

    Args:
        tape: a ``GradientTape`` with an explanation log (a ``%%tape`` cell's
            tape, on either engine).
        target, sources: tensors or variables (nested structures allowed), user
            names, or None (see :func:`tapemagic.graph.diagnosis.diagnose`).

    Returns:
        The findings, as a :class:`~tapemagic.graph.findings.Findings`.

    Raises:
        ValueError: if the tape keeps no explanation log.

    Example:
        >>> from tapemagic.engine import GradientTape, Variable
        >>> w = Variable(3.0, name="w")
        >>> with GradientTape(explain=True) as tape:
        ...     y = w * w
        >>> list(explain_tape(tape, y, w))
        []
    """
    surface = surface_of(tape)
    log = surface.explain_listener(tape)
    if not isinstance(log, ExplainLog):
        how = (
            "Make it with tf.GradientTape(explain=True), or run the cell with %%tape."
            if surface.name == "tapemagic"
            else "Run the cell that uses it with %%tape, which records one."
        )
        raise ValueError(
            "This GradientTape keeps no explanation log, so it cannot say why a "
            f"gradient is None. {how}"
        )
    target_ids = _value_ids(log, target)
    source_ids = _value_ids(log, sources)
    namespace = user_namespace()
    name = next((key for key, value in namespace.items() if value is tape), None)
    graph, findings = view_model(tape, name=name, namespace=namespace)
    if target_ids is None and source_ids is None:
        return findings
    return Findings(diagnose(graph, target_ids, source_ids))


def _value_ids(log: ExplainLog, structure: Any) -> list | None:
    """Graph ids for the tensors in ``structure`` (names pass through)."""
    if structure is None:
        return None
    recorder = log.recorder
    items = [structure] if isinstance(structure, str) else recorder.flatten(structure)
    refs = [recorder.describe(item) for item in items]
    for ref in refs:
        if ref is not None:
            log.see(ref)
    # The builder numbers values in the order the log first saw them.
    number = {key: f"t{i}" for i, key in enumerate(log.values, 1)}
    return [
        number[ref.id] if ref is not None else item
        for item, ref in zip(items, refs)
        if item is not None
    ]


def unseen_findings(namespace: dict) -> list[tuple[str | None, Findings]]:
    """Why the gradients asked since they were last shown came out None or NaN.

    For every tape with an explanation log still alive, the gradient requests
    made since the log was last asked (in a later cell, say: ``grads =
    tape.gradient(loss, w)`` after the ``%%tape`` cell) that gave a None, a
    NaN or an Inf, or failed on a target that is not a tensor, are explained;
    the log then counts them as shown. Notes (a gradient of zeros) are left
    for ``tape.explain()``.

    Args:
        namespace: the user's names (IPython's ``user_ns``), to name tapes and
            values.

    Returns:
        ``(tape name, findings)`` for each tape with something to say.

    Example:
        >>> import tapemagic.tf as tf
        >>> w = tf.Variable(2.0)
        >>> with tf.GradientTape(explain=True, persistent=True) as tape:
        ...     y = tf.round(w)
        >>> tape.gradient(y, w) is None
        True
        >>> ns = {"tape": tape}
        >>> [(name, [f.cause for f in found]) for name, found in unseen_findings(ns)
        ...  if name == "tape"]
        [('tape', ['non_differentiable'])]
        >>> [name for name, _ in unseen_findings(ns) if name == "tape"]
        []
    """
    found = []
    for log in list(LIVE_LOGS):
        tape = log.tape
        count = len(log.requests)
        if tape is None or count <= log.shown:
            continue
        new = range(log.shown, count)
        log.shown = count
        if not any(_went_wrong(log.requests[i]) for i in new):
            continue
        name = next((k for k, v in namespace.items() if v is tape), None)
        _, every = view_model(tape, name=name, namespace=namespace)
        ids = {f"g{i + 1}" for i in new}
        findings = Findings(
            f for f in every if f.request in ids and f.severity != "note"
        )
        if findings:
            found.append((name, findings))
    return found


def _went_wrong(request: dict) -> bool:
    """Whether a logged request gave a None, NaN or Inf, or failed on a
    target that is not a tensor."""
    if request["error"] is not None:
        return any(kind is not None for kind in request.get("target_types", ()))
    nones = any(summary[0] for summary in request["results"])
    bad = any(nan or inf for nan, inf, _ in request.get("flags", ()))
    return nones or bad


def assert_no_none_gradients(
    tape: Any, target: Any = None, sources: Any = None
) -> None:
    """Raise if a gradient of ``tape`` is (or would be) None, saying why.

    Meant for autograded exercises: the error lists each cause with its fix.
    NaN or Inf gradients are not None and do not raise.

    Args:
        tape: a ``GradientTape`` with an explanation log (a ``%%tape`` cell's
            tape on either engine, or ``GradientTape(explain=True)``), or a
            graph model.
        target, sources: what to check, as for ``tape.explain``; None checks
            every gradient asked so far.

    Raises:
        AssertionError: listing the findings, when a gradient is None.

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> assert_no_none_gradients(Graph(TapeInfo("t", False, True, "new", True),
        ...                                Cell(None, None)))
    """
    if isinstance(tape, Graph):
        findings = Findings(diagnose(tape, target, sources))
    else:
        findings = explain_tape(tape, target, sources)
    errors = findings.errors
    if errors:
        count = len(errors)
        head = "1 gradient is None" if count == 1 else f"{count} None gradients found"
        lines = "\n".join(f"- {f}" for f in errors)
        raise AssertionError(f"{head}:\n{lines}")
