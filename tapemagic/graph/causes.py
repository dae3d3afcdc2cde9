"""Every None cause the diagnosis names, each declared once.

One :func:`~tapemagic.graph.cause.declare_cause` per cause: its code, its
one-line meaning, where the diagnosis finds it (its detectors, by stage and
rank) and its two sentences (what happened, what to do). See
:mod:`tapemagic.graph.cause` for the stages and what a detector receives.

Where the model cannot be sure, a sentence says what it saw and hedges: a
tensor made before the tape started may or may not come from the source (only
values made after the source are suspected, "if h depends on w, ..."); the
tensor added by ``assign_add``/``assign_sub`` is taken to be the value computed
on that line just before; a value copied out by a NumPy function that returns
a new array is tied to its copy by time only.
"""

from __future__ import annotations

import math

from .cause import Break, Detector, Query, declare_cause
from .facts import Facts
from .model import Assign, Escape, OpNode
from .source import in_place_update
from .words import COMPARISONS, Words, at_line

__all__: list[str] = []


def _first(facts: Facts, q: Query) -> tuple[OpNode | None, int | None, float]:
    """The first use of the source on the way to the targets: op, line, seq."""
    first = facts.first_use(q)
    if first is None:
        return None, None, math.inf
    return first, first.line, first.seq


def _is_variable(facts: Facts, q: Query) -> bool:
    return facts.values[q.source].origin == "variable"


def _watches(facts: Facts, q: Query) -> list:
    return [w for w in facts.graph.watches if w.value == q.source]


# -- not_watched ----------------------------------------------------------------------


def _find_watch_after_request(facts: Facts, q: Query) -> Break | None:
    if _is_variable(facts, q):
        return None
    late = [w for w in _watches(facts, q) if w.tape == q.tape and w.seq > q.before]
    if not late:
        return None
    return Break(None, late[0].line, late[0].seq, ("after_request", late[0]), q.source)


def _find_never_watched(facts: Facts, q: Query) -> Break | None:
    if _is_variable(facts, q):
        return None
    if any(w.tape != q.tape for w in _watches(facts, q)):
        return None  # watched by another tape: a wrong_tape question
    s = q.source
    home = Query(s, q.targets, 0, q.before)
    if facts.index.producer(s) is not None and facts.tracked(home):
        return None  # computed on the %%tape tape; another tape was asked
    first, line, seq = _first(facts, q)
    return Break(first, line, seq, ("never", None), s)


def _find_use_before_watch(
    facts: Facts, q: Query, op: OpNode, value: str, reset: int
) -> Break | None:
    return Break(op, op.line, op.seq, ("late", value), value)


def _not_watched_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    kind, detail = b.detail
    if kind == "after_request":
        return (
            f"tape.watch({s}) {w.at(b.line)} came after the gradient was asked",
            f"Call tape.watch({s}) before computing {t} and asking for its gradient",
        )
    if kind == "late":
        watch = next((w for w in w.facts.graph.watches if w.value == b.value), None)
        when = at_line(watch.line) if watch is not None else ""
        return (
            f"{s} was used {w.at(b.line)} before tape.watch({s}) {when}, "
            "and the tape records only what happens after the watch",
            f"Call tape.watch({s}) before the line that uses it",
        )
    value = w.facts.values[b.value]
    if value.origin == "constant":
        what = f"{s} is a constant and was never watched"
    elif value.origin == "outside":
        what = f"{s} is a plain tensor (not a tf.Variable) and was never watched"
    elif value.origin in ("numpy", "python"):
        what = f"{s} was made from a {value.python_type} and was never watched"
    elif value.origin == "op":
        what = (
            f"{s} is a plain tensor computed from values the tape does not "
            "watch, and was never watched itself"
        )
    else:
        what = f"{s} is a tensor the tape never watched"
    if b.op is not None:
        what += f", so the tape did not record its use {w.at(b.line)}"
    return what, f"Call tape.watch({s}) inside the tape, or make it a tf.Variable"


declare_cause(
    "not_watched",
    doc="a constant (or other tensor) that the tape never watched",
    detect=[
        Detector("watch", 50, _find_watch_after_request),
        Detector("watch", 70, _find_never_watched),
        Detector("recording", 90, _find_use_before_watch),
    ],
    words=_not_watched_words,
)


# -- not_trainable --------------------------------------------------------------------


def _find_not_trainable(facts: Facts, q: Query) -> Break | None:
    value = facts.values[q.source]
    if value.origin != "variable" or value.trainable is not False:
        return None
    if facts.watched_anywhere(q.source):
        return None
    first, line, seq = _first(facts, q)
    return Break(first, line, seq, None, q.source)


def _not_trainable_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    return (
        f"{s} is a tf.Variable made with trainable=False, so the tape does not "
        "watch it when it is read" + (f" {w.at(b.line)}" if b.line is not None else ""),
        f"Call tape.watch({s}) inside the tape, or create it with trainable=True",
    )


declare_cause(
    "not_trainable",
    doc="a Variable made with trainable=False, never watched",
    detect=[Detector("watch", 20, _find_not_trainable)],
    words=_not_trainable_words,
)


# -- watch_accessed_off ---------------------------------------------------------------


def _find_watch_accessed_off(facts: Facts, q: Query) -> Break | None:
    if not _is_variable(facts, q) or q.tape != 0:
        return None
    if facts.graph.tape.watch_accessed_variables:
        return None
    first, line, seq = _first(facts, q)
    return Break(first, line, seq, None, q.source)


def _watch_accessed_off_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    magic = w.facts.graph.cell.line(1) or ""
    how = (
        "the %%tape cell runs with --no-watch-accessed"
        if magic.lstrip().startswith("%%tape")
        else "the tape was made with watch_accessed_variables=False"
    )
    return (
        f"{how}, so reading {s}"
        + (f" {w.at(b.line)}" if b.line is not None else "")
        + f" does not watch it, and tape.watch({s}) was never called",
        f"Call tape.watch({s}) inside the tape before using {s}, or let the "
        "tape watch the variables it reads",
    )


declare_cause(
    "watch_accessed_off",
    doc="watch_accessed_variables=False and no tape.watch()",
    detect=[Detector("watch", 30, _find_watch_accessed_off)],
    words=_watch_accessed_off_words,
)


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
    first, line, _ = _first(facts, q)
    return Break(first, line, math.inf, ("other", None), q.source)


def _find_used_after_stop(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    first, line, _ = _first(facts, q)
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


# -- numpy_copy -----------------------------------------------------------------------


def _find_copy_out(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """A value computed from the source left the engine before values the
    target was computed from came in (tied by time only)."""
    values = facts.values
    desc = facts.descendants(q.source, q.before)
    fresh = [
        v
        for v in anc
        if values[v].origin in ("numpy", "python", "constant")
        and values[v].escape is None
    ]
    for e in sorted(facts.graph.escapes, key=lambda e: e.seq):
        if e.value not in desc or e.seq >= q.before:
            continue
        if any(facts.first_use_seq(v) > e.seq for v in fresh):
            return Break(None, e.line, e.seq, (e, False), e.value)
    return None


def _find_copy_cut(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, Escape):
        return None
    return Break(None, event.line, event.seq, (event, True), value)


def _numpy_copy_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    escape, linked = b.detail
    if escape.value == w.q.source:
        value = whose = s
    elif w.facts.values[escape.value].names:
        value = w.name(escape.value)
        whose = f"{value} (computed from {s})"
    else:
        value = "it"
        whose = f"a value computed from {s}"
    how = {
        "numpy": "converted to a NumPy array by .numpy()",
        "__array__": "converted to a NumPy array (np.asarray or a NumPy function)",
        "float": "turned into a Python float by float()",
        "int": "turned into a Python int by int()",
        "constant": "copied into a new tensor by tf.constant()",
    }.get(escape.how, f"copied out of the tensor ({escape.how})")
    if escape.how in ("float", "int"):
        then = (
            f"{t} is then computed from that Python number, which the tape "
            "cannot follow"
        )
    elif linked:
        then = f"the path to {t} continues from a constant made of its values"
    else:
        then = (
            f"{t} is then computed from those copied values, which the tape "
            "cannot follow"
        )
    fix = {
        "float": f"Keep {value} a tensor: use it in tf ops instead of float()",
        "int": f"Keep {value} a tensor: use it in tf ops instead of int()",
        "constant": f"Use {value} itself instead of tf.constant({value})",
        "__array__": f"Use {value} directly in tf ops (tf.math instead of NumPy "
        "functions)",
    }.get(escape.how, f"Use {value} directly in tf ops")
    return f"{whose} was {how} {w.at(b.line)}; {then}", fix


declare_cause(
    "numpy_copy",
    doc="copied out of the engine (.numpy(), np.asarray, float(), "
    "tf.constant(var)) and used again as a new constant",
    detect=[
        Detector("unlinked", 10, _find_copy_out),
        Detector("cut", 30, _find_copy_cut),
    ],
    words=_numpy_copy_words,
)


# -- integer_cast ---------------------------------------------------------------------


def _find_integer_cast(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, OpNode) or event.op != "cast":
        return None
    if facts.values[event.outputs[0]].differentiable:
        return None
    return Break(event, event.line, event.seq, index, value)


def _integer_cast_words(w: Words, b: Break) -> tuple[str, str]:
    return (
        f"the path from {w.source} to {w.target} goes through "
        f"{w.op(b.op)} {w.at(b.line)}, which has no gradient",
        "Keep the values floating point: cast to a float dtype such as "
        "tf.float32, or leave the cast out",
    )


declare_cause(
    "integer_cast",
    doc="cast to an integer or bool dtype on the way to the target",
    detect=[Detector("cut", 20, _find_integer_cast)],
    words=_integer_cast_words,
)


# -- non_differentiable ---------------------------------------------------------------


def _find_no_gradient_op(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, OpNode):
        return None
    return Break(event, event.line, event.seq, index, value)


def _find_custom_gradient_none(facts: Facts, q: Query, reach: set[str]) -> Break | None:
    """A custom gradient on the recorded path must have returned None."""
    for op in facts.graph.ops:
        if op.op.startswith("custom_gradient/") and set(op.inputs) & reach:
            return Break(op, op.line, op.seq, "custom", q.source)
    return None


def _non_differentiable_words(w: Words, b: Break) -> tuple[str, str]:
    s, t, op = w.source, w.target, b.op
    if b.detail == "custom":
        return (
            f"the custom gradient {w.op(op)} {w.at(b.line)} returned None for {s}",
            f"Return a gradient for {s} from the custom gradient function",
        )
    if op.op == "where" and b.detail == 0:
        return (
            f"{s} reaches {t} only through the condition of tf.where "
            f"{w.at(b.line)}, and a condition has no gradient",
            f"Let {s} flow into the values tf.where picks from (its second or "
            "third argument) if the gradient should reach it",
        )
    if b.detail in op.no_gradient_inputs:
        return (
            f"{s} reaches {t} only through an argument of {w.op(op)} "
            f"{w.at(b.line)} that has no gradient (its indices)",
            f"Let {s} flow into the values {op.op} picks from, not into its indices",
        )
    picks = ""
    if op.op in COMPARISONS and any(
        user.op == "where" and i == 0
        for out in op.outputs
        for user, i in w.facts.index.uses(out)
    ):
        picks = " (its True or False only picks the branch of tf.where)"
    return (
        f"the path from {s} to {t} goes through {w.op(op)} "
        f"{w.at(b.line)}, which has no gradient{picks}",
        _non_differentiable_fix(op.op),
    )


def _non_differentiable_fix(name: str) -> str:
    if name in COMPARISONS or name.startswith("logical_") or name.startswith("is_"):
        return (
            "A comparison only gives True or False: use the compared values "
            "themselves in the computation, e.g. in the branches of tf.where"
        )
    if name in ("round", "floor", "ceil", "floordiv"):
        return (
            f"Use a smooth stand-in for {name} on the gradient path, e.g. the value "
            f"itself, or x + tf.stop_gradient(tf.{name}(x) - x) to keep the "
            "rounded value with the gradient of x"
        )
    if name in ("argmax", "argmin", "argsort"):
        return (
            f"Use a differentiable stand-in for {name}, e.g. tf.nn.softmax weights "
            "instead of an index"
        )
    if name in ("zeros_like", "ones_like"):
        return (
            f"{name} uses only the shape of its input: compute the values from the "
            "source instead"
        )
    return f"Use ops with a gradient on the path instead of {name}"


declare_cause(
    "non_differentiable",
    doc="went through an op with no gradient (argmax, round, "
    "floor, comparisons, the condition of where, ...)",
    detect=[
        Detector("cut", 90, _find_no_gradient_op),
        Detector("unexplained", 10, _find_custom_gradient_none),
    ],
    words=_non_differentiable_words,
)


# -- stop_gradient --------------------------------------------------------------------


def _find_stop_gradient(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, OpNode) or event.op != "stop_gradient":
        return None
    return Break(event, event.line, event.seq, index, value)


def _stop_gradient_words(w: Words, b: Break) -> tuple[str, str]:
    return (
        f"the path from {w.source} to {w.target} goes through "
        f"tf.stop_gradient {w.at(b.line)}, which blocks the gradient on "
        "purpose",
        f"Remove tf.stop_gradient from the path if {w.source} should get a gradient",
    )


declare_cause(
    "stop_gradient",
    doc="went through tf.stop_gradient",
    detect=[Detector("cut", 10, _find_stop_gradient)],
    words=_stop_gradient_words,
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
    first, _, _ = _first(facts, q)
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
    doc="computed inside tape.stop_recording()",
    detect=[
        Detector("recording", 30, _find_paused_op),
        Detector("usage", 40, _find_paused_read),
    ],
    words=_stop_recording_words,
)


# -- python_number --------------------------------------------------------------------


def _find_python_twin(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """The target used another tensor made from the same Python or NumPy
    value as the source."""
    s = q.source
    values = facts.values
    anchor = values[s].same_as or s
    twins = [
        v.id for v in facts.graph.values if v.id != s and anchor in (v.id, v.same_as)
    ]
    used = [v for v in twins if v in anc]
    if not used:
        return None
    twin = values[used[0]]
    first = facts.first_consumer(used[0], anc)
    line = twin.line if twin.line is not None else (first.line if first else None)
    return Break(first, line, math.inf, twin, used[0])


def _python_number_words(w: Words, b: Break) -> tuple[str, str]:
    twin = b.detail
    kind = {"numpy": "NumPy array", "python": f"Python {twin.python_type}"}.get(
        twin.origin, "Python value"
    )
    return (
        f"{w.target} is computed {w.at(b.line)} from the {kind} that "
        f"{w.source} was made from, not from the tensor {w.source}, and "
        "the tape only follows tensors",
        f"Use the tensor {w.source} in the computation of {w.target}",
    )


declare_cause(
    "python_number",
    doc="a Python number where a tensor was needed",
    detect=[Detector("unlinked", 20, _find_python_twin)],
    words=_python_number_words,
)


# -- rebound_variable -----------------------------------------------------------------


def _find_rebound(facts: Facts, q: Query) -> Break | None:
    """A plain tensor under a name that held a Variable (``w = w - lr * g``)."""
    s = q.source
    value = facts.values[s]
    if value.origin == "variable":
        return None
    if value.rebound_from is not None:
        name = facts.names.of(s, q)
        return Break(None, None, math.inf, (name, value.rebound_from), s)
    for b in facts.graph.bindings:
        if b.previous_kind != "variable" or b.kind != "tensor" or b.previous is None:
            continue
        op = facts.index.producer(s)
        # The name held this very tensor: bound to it at the end, or a line
        # `name = ...` made it (in a loop, an earlier turn's value).
        held = b.value == s or (
            op is not None and facts.names.assigned_name(op) == b.name
        )
        if held and s in facts.descendants(b.previous, math.inf):
            line = op.line if op is not None else None
            variable = facts.values[b.previous].variable
            return Break(op, line, math.inf, (b.name, variable), s)
    return None


def _rebound_variable_words(w: Words, b: Break) -> tuple[str, str]:
    name, variable = b.detail
    variable = (variable or name).split(":")[0]
    if b.line is None:
        what = (
            f"the name {name} held the tf.Variable {variable} in an earlier "
            "cell but now holds a plain tensor (a line such as "
            f"{name} = {name} - lr * g rebinds it), and the tape does not watch "
            "plain tensors"
        )
    else:
        what = (
            f"the name {name} held the tf.Variable {variable}, but the "
            f"assignment {w.at(b.line)} rebound it to a plain tensor, which "
            "the tape does not watch"
        )
    update = in_place_update(w.facts.graph.cell.line(b.line), name)
    fix = f"Update the variable in place ({update}) so that {name} stays a tf.Variable"
    if b.line is None:
        fix += ", and create it again with tf.Variable"
    return what, fix


declare_cause(
    "rebound_variable",
    doc="a Variable name rebound to a plain tensor (w = w - lr * g)",
    detect=[Detector("watch", 10, _find_rebound)],
    words=_rebound_variable_words,
)


# -- integer_source -------------------------------------------------------------------


def _find_integer_source(facts: Facts, q: Query) -> Break | None:
    s = q.source
    if facts.values[s].differentiable:
        return None
    watch = next((w for w in facts.graph.watches if w.value == s), None)
    if watch is not None:
        return Break(None, watch.line, math.inf, "watch", s)
    first = facts.first_use(q)
    line = first.line if first is not None else facts.values[s].line
    return Break(first, line, math.inf, "use", s)


def _integer_source_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    dtype = w.facts.values[w.q.source].dtype
    if b.detail == "watch":
        then = f", so tape.watch({s}) {at_line(b.line)} does nothing"
    elif b.line is not None:
        then = f", so its use {w.at(b.line)} carries no gradient"
    else:
        then = ""
    return (
        f"{s} has dtype {dtype}, and only floating-point tensors can have "
        f"gradients{then}",
        f"Make it floating point, e.g. tf.constant(3.0) instead of "
        f"tf.constant(3), or watch tf.cast({s}, tf.float32) and use that",
    )


declare_cause(
    "integer_source",
    doc="the source has an integer dtype",
    detect=[Detector("source", 10, _find_integer_source)],
    words=_integer_source_words,
)


# -- not_connected --------------------------------------------------------------------


def _find_unrelated(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    made = facts.index.producer(q.targets[0])
    return Break(None, made.line if made else None, math.inf, None, q.source)


def _find_no_path(facts: Facts, q: Query, reach: set[str]) -> Break | None:
    return Break(None, None, math.inf, "unknown", q.source)


def _not_connected_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    if b.detail == "unknown":
        return (
            f"the tape has no gradient path from {s} to {t}",
            f"Check that {t} is computed from {s} with tf ops inside the tape",
        )
    made = f", computed {w.at(b.line)}," if b.line is not None else ""
    return (
        f"{t}{made} does not depend on {s}: nothing computed from {s} leads to {t}",
        f"Use {s} when computing {t}, or leave {s} out of the sources",
    )


declare_cause(
    "not_connected",
    doc="the target does not depend on the source at all",
    detect=[
        Detector("unlinked", 90, _find_unrelated),
        Detector("unexplained", 90, _find_no_path),
    ],
    words=_not_connected_words,
)


# -- wrong_tape -----------------------------------------------------------------------


def _find_watch_reset(facts: Facts, q: Query) -> Break | None:
    if _is_variable(facts, q) or q.tape != 0:
        return None
    reset = facts.reset_before(q)
    if not any(w.tape == 0 and w.seq < reset for w in _watches(facts, q)):
        return None
    return Break(None, facts.line_of_seq(reset), reset, ("reset", reset), q.source)


def _find_watched_elsewhere(facts: Facts, q: Query) -> Break | None:
    if _is_variable(facts, q):
        return None
    elsewhere = [w for w in _watches(facts, q) if w.tape != q.tape]
    if not elsewhere:
        return None
    if q.tape != 0 and facts.connected(Query(q.source, q.targets, 0, q.before)):
        return None  # the usage cause names the tape that has the path
    w = elsewhere[0]
    return Break(None, w.line, w.seq, ("watched", w), q.source)


def _find_recorded_before_reset(
    facts: Facts, q: Query, op: OpNode, value: str, reset: int
) -> Break | None:
    if not facts.recorded_on(op, q.tape) or op.seq > reset:
        return None
    return Break(op, op.line, op.seq, ("reset", reset), value)


def _find_asked_other_tape(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    if q.tape == 0 or not facts.connected(Query(q.source, q.targets, 0, q.before)):
        return None
    line = q.request.line if q.request else None
    return Break(None, line, q.before, ("asked", None), q.source)


def _find_read_before_reset(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    s = q.source
    reset = facts.reset_before(q)
    reads = [
        r
        for r in facts.graph.reads
        if r.value == s and r.seq < q.before and r.tape_state == "recording"
    ]
    if not reads or not all(r.seq < reset for r in reads):
        return None
    return Break(None, facts.line_of_seq(reset), reset, ("reset", reset), s)


def _wrong_tape_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    kind, detail = b.detail
    if kind == "reset":
        return (
            f"tape.reset() {at_line(b.line)} erased everything the tape had "
            f"recorded and watched before it, including the path from {s} to {t}",
            f"Compute {t} (and call tape.watch({s}) if needed) after "
            "tape.reset(), or remove the reset",
        )
    if kind == "watched":
        return (
            f"{s} was watched by another tape {w.at(b.line)}, not by the tape "
            "asked for the gradient",
            f"Call tape.watch({s}) on the tape you ask for the gradient, or ask "
            "that other tape",
        )
    return (
        f"the gradient was asked of another tape{w.request_place()}, but "
        f"the path from {s} to {t} was recorded by {w.tape_name()}",
        f"Ask that tape for the gradient: {w.tape_call()}",
    )


declare_cause(
    "wrong_tape",
    doc="the gradient was asked on another tape, or after reset()",
    detect=[
        Detector("watch", 40, _find_watch_reset),
        Detector("watch", 60, _find_watched_elsewhere),
        Detector("recording", 10, _find_recorded_before_reset),
        Detector("usage", 10, _find_asked_other_tape),
        Detector("usage", 30, _find_read_before_reset),
    ],
    words=_wrong_tape_words,
)


# -- assign_cut -----------------------------------------------------------------------


def _find_assign_cut(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, Assign):
        return None
    return Break(None, event.line, event.seq, event, value)


def _assign_cut_words(w: Words, b: Break) -> tuple[str, str]:
    assign = b.detail
    variable = w.name(assign.variable)
    method = "assign"
    for name in ("assign_add", "assign_sub"):
        if f".{name}(" in (w.facts.code(b.line) or ""):
            method = name
    return (
        f"the path from {w.source} to {w.target} goes through "
        f"{variable}.{method}(...) {w.at(b.line)}: assigning to a variable "
        "copies the value, and the gradient does not flow through the copy",
        f"Use the computed tensor directly instead of assigning it to "
        f"{variable} inside the tape",
    )


declare_cause(
    "assign_cut",
    doc="a Variable's value was replaced with assign*() inside the tape",
    detect=[Detector("cut", 40, _find_assign_cut)],
    words=_assign_cut_words,
)


# -- nan_gradient ---------------------------------------------------------------------


def _find_nan(facts: Facts, q: Query) -> Break:
    """The first op on the path whose output is not finite (else the first
    with a singular derivative), and a tf.where after it that masks it."""
    reach = facts.forward(q, recorded=True)
    anc, _, _ = facts.ancestors(q)
    path = [
        op
        for op in facts.graph.ops
        if op.seq < q.before
        and op.during is None
        and set(op.inputs) & reach
        and any(o in anc and o in reach for o in op.outputs)
    ]
    located = next(
        (op for op in path if any(facts.values[o].finite is False for o in op.outputs)),
        None,
    )
    if located is None:
        located = next((op for op in path if op.singular == "derivative"), None)
    mask = None
    if located is not None:
        below = set(located.outputs)
        for op in path:
            if op.seq <= located.seq:
                continue
            if set(op.inputs) & below:
                if op.op == "where" and set(op.inputs[1:]) & below:
                    mask = op
                    break
                below.update(op.outputs)
    if located is None:
        return Break(None, None, math.inf, mask, q.source)
    return Break(located, located.line, located.seq, mask, q.source)


def _nan_gradient_words(w: Words, b: Break) -> tuple[str, str]:
    op, mask = b.op, b.detail
    if op is None:
        return (
            f"some values on the path from {w.source} to {w.target} are "
            "NaN or infinite",
            "Check the inputs with tf.debugging.check_numerics and keep each op "
            "inside its domain",
        )
    name = w.op(op)
    if mask is not None:
        where = "on that line" if mask.line == b.line else w.at(mask.line)
        return (
            f"{name} {w.at(b.line)} is infinite or NaN for some elements, "
            f"and tf.where {where} hides them only in the forward "
            "pass: their gradient is still computed and 0 times infinity is NaN",
            f"Make the input of {op.op} safe before the op as well, e.g. "
            f"tf.where(mask, x, 1.0) inside it, so no element hits its bad point",
        )
    return (
        f"{name} {w.at(b.line)} has an infinite or undefined derivative at "
        "some of its inputs (for example sqrt or log at 0, or a division by 0)",
        f"Keep the input of {op.op} away from those points, e.g. add a small "
        "epsilon or clip it with tf.maximum",
    )


declare_cause(
    "nan_gradient",
    doc="the gradient exists but holds NaN or Inf",
    detect=[Detector("nan", 10, _find_nan)],
    words=_nan_gradient_words,
    severity="warning",
)
