"""Causes about when the tape recorded: a path computed before the tape
started, after it stopped, or inside ``tape.stop_recording()``.
"""

from __future__ import annotations

import math

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..model import OpNode
from ..words import Words
from ._shared import first_use_at

__all__: list[str] = []


# -- outside_tape ---------------------------------------------------------------------


def _find_made_outside(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """The target was computed after the tape stopped, or from a value made
    before it started (and after the source: it may come from the source)."""
    s = q.source
    values = facts.values
    after = [y for y in q.targets if values[y].after_tape]
    if after:
        return Break(None, None, math.inf, ("after", after[0]), s)
    made = values[s].created
    outside = [
        v
        for v in anc
        if values[v].origin == "outside"
        and values[v].differentiable
        and v != s
        and made is not None
        and (values[v].created or 0) > made
    ]
    used_inside = facts.index.used(s) or any(
        r.value == s and r.tape_state == "recording" for r in facts.graph.reads
    )
    early = [y for y in q.targets if y in outside]
    if early:  # the target itself: made before this tape started
        return Break(None, None, math.inf, ("target_before", early[0]), s)
    if outside and not used_inside:
        v = sorted(outside, key=facts.order)[0]
        first = facts.first_consumer(v, anc)
        return Break(first, first.line if first else None, math.inf, ("before", v), s)
    return None


def _find_other_tape_off(
    facts: Facts, q: Query, op: OpNode, value: str, reset: int
) -> Break | None:
    if q.tape == 0:
        return None
    return Break(op, op.line, op.seq, ("other", None), value)


def _find_tape_stopped(
    facts: Facts, q: Query, op: OpNode, value: str, reset: int
) -> Break | None:
    if op.tape_state not in ("stopped", "idle"):
        return None
    return Break(op, op.line, op.seq, ("stopped", None), value)


def _find_used_outside_other_tape(
    facts: Facts, q: Query, anc: set[str]
) -> Break | None:
    if q.tape == 0:
        return None
    first, line, _ = first_use_at(facts, q)
    return Break(first, line, math.inf, ("other", None), q.source)


def _find_used_after_stop(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    first, line, _ = first_use_at(facts, q)
    return Break(first, line, math.inf, ("stopped", None), q.source)


def _outside_tape_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    kind, detail = b.detail
    if kind == "after":
        return (
            f"{w.name(detail)} was computed after the tape stopped recording, "
            "so the tape never saw how it was made",
            f"Compute {w.name(detail)} inside the tape (the %%tape cell or "
            "the with block), then ask for its gradient",
        )
    if kind == "target_before":
        tape = w.tape_name()
        return (
            f"{t} was computed before {tape} started recording, so {tape} never "
            f"saw how {t} depends on {s}",
            f"Ask the tape that recorded {t} for its gradient, or compute {t} "
            f"inside the with block of {tape}",
        )
    if kind == "before":
        early = w.name(detail)
        return (
            f"{s} is not used inside the tape: {t} is computed"
            f" {w.at(b.line)} from {early}, which was made before the tape "
            "started, so the tape cannot see how it depends on anything",
            f"If {early} depends on {s}, compute it inside the tape",
        )
    if kind == "other":
        return (
            f"the path from {s} to {t} goes through {w.op(b.op)}"
            f" {w.at(b.line)}, which ran while the tape asked"
            f"{w.request_place()} was not recording (outside its with block)",
            f"Compute {t} inside the with block of the tape you ask for the gradient",
        )
    where = f"{w.op(b.op)} {w.at(b.line)}" if b.op else f"{s}"
    return (
        f"the path from {s} to {t} goes through {where}, which ran after the "
        "tape stopped recording (a tape that is not persistent stops at its "
        "first gradient call)",
        f"Compute {t} before asking for a gradient, or make the tape persistent "
        "(tf.GradientTape(persistent=True), %%tape --persistent)",
    )


declare_cause(
    "outside_tape",
    code="TM018",
    doc="computed before the tape started or after it stopped",
    detect=[
        Detector("unlinked", 30, _find_made_outside),
        Detector("recording", 20, _find_other_tape_off),
        Detector("recording", 40, _find_tape_stopped),
        Detector("usage", 20, _find_used_outside_other_tape),
        Detector("usage", 90, _find_used_after_stop),
    ],
    words=_outside_tape_words,
)


# -- stop_recording -------------------------------------------------------------------


def _find_paused_op(
    facts: Facts, q: Query, op: OpNode, value: str, reset: int
) -> Break | None:
    if op.tape_state != "paused":
        return None
    return Break(op, op.line, op.seq, None, value)


def _find_paused_read(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    s = q.source
    reads = [r for r in facts.graph.reads if r.value == s]
    states = {r.tape_state for r in reads}
    if "paused" not in states or "recording" in states:
        return None
    paused = next(r for r in reads if r.tape_state == "paused")
    first, _, _ = first_use_at(facts, q)
    return Break(first, paused.line, paused.seq, None, s)


def _stop_recording_words(w: Words, b: Break) -> tuple[str, str]:
    what = f"{w.op(b.op)} " if b.op is not None else f"reading {w.source} "
    if b.op is not None and b.line is not None:
        what = f"{w.op(b.op)} "
    return (
        f"{what}{w.at(b.line)} ran inside tape.stop_recording(), so the "
        f"tape did not record the path from {w.source} to {w.target}",
        "Move that computation out of the stop_recording() block",
    )


declare_cause(
    "stop_recording",
    code="TM019",
    doc="computed inside tape.stop_recording()",
    detect=[
        Detector("recording", 30, _find_paused_op),
        Detector("usage", 40, _find_paused_read),
    ],
    words=_stop_recording_words,
)
