"""Causes about watching: a source the asked tape never watched (a constant,
a Variable made with ``trainable=False``, ``watch_accessed_variables=False``,
an integer dtype) or watched on another tape or before ``reset()``.
"""

from __future__ import annotations

import ast
import math

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..fixes import call_text, callee_argument, float_literals
from ..model import OpNode
from ..names import at_line
from ..words import Words
from ._shared import first_use_at, is_variable, watches_of

__all__: list[str] = []


# -- not_watched ----------------------------------------------------------------------


def _find_watch_after_request(facts: Facts, q: Query) -> Break | None:
    if is_variable(facts, q):
        return None
    late = [w for w in watches_of(facts, q) if w.tape == q.tape and w.seq > q.before]
    if not late:
        return None
    return Break(None, late[0].line, late[0].seq, ("after_request", late[0]), q.source)


def _find_never_watched(facts: Facts, q: Query) -> Break | None:
    if is_variable(facts, q):
        return None
    if any(w.tape != q.tape for w in watches_of(facts, q)):
        return None  # watched by another tape: a wrong_tape question
    s = q.source
    home = Query(s, q.targets, 0, q.before)
    if facts.index.producer(s) is not None and facts.tracked(home):
        return None  # computed on the %%tape tape; another tape was asked
    first, line, seq = first_use_at(facts, q)
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
    code="TM020",
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
    first, line, seq = first_use_at(facts, q)
    return Break(first, line, seq, None, q.source)


def _not_trainable_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    return (
        f"{s} is a tf.Variable made with trainable=False, so the tape does not "
        "watch it when it is read" + (f" {w.at(b.line)}" if b.line is not None else ""),
        f"Call {w.watch_call()} inside the tape, or create it with trainable=True",
    )


declare_cause(
    "not_trainable",
    code="TM021",
    doc="a Variable made with trainable=False, never watched",
    detect=[Detector("watch", 20, _find_not_trainable)],
    words=_not_trainable_words,
)


# -- watched_before_made --------------------------------------------------------------


def _find_watched_before_made(facts: Facts, q: Query) -> Break | None:
    """A variable made in the cell after its ``tape.watch``: a Keras layer
    watched before it was built (its weights are made when first called)."""
    value = facts.values[q.source]
    if value.origin != "variable" or value.made_at is None:
        return None
    lines = facts.graph.cell.lines
    before = [
        number
        for number in range(2, min(value.made_at, len(lines) + 1))
        if call_text(lines[number - 1], "watch") is not None
    ]
    if not before:
        return None
    return Break(None, before[-1], math.inf, value.made_at, q.source)


# What tape.watch is often given for a layer's weights.
_WEIGHT_LISTS = (
    "trainable_weights",
    "trainable_variables",
    "weights",
    "variables",
    "kernel",
    "bias",
)


def _layer_weights(argument: str) -> tuple[str, str] | None:
    """The layer whose weights ``tape.watch(argument)`` names, and the watch
    call that takes them (Keras weights are watched through ``.value``):
    ``layer.kernel``, ``layer.kernel.value``, ``layer.trainable_weights`` or
    ``[w.value for w in layer.trainable_weights]``."""
    try:
        node = ast.parse(argument, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        node = node.generators[0].iter
    elif isinstance(node, ast.Attribute) and node.attr == "value":
        node = node.value
    if not isinstance(node, ast.Attribute) or node.attr not in _WEIGHT_LISTS:
        return None
    layer = ast.unparse(node.value)
    if node.attr in ("kernel", "bias"):
        return layer, f"tape.watch({layer}.{node.attr}.value)"
    return layer, f"tape.watch([w.value for w in {layer}.{node.attr}])"


def _watched_before_made_words(w: Words, b: Break) -> tuple[str, str]:
    s, facts = w.source, w.facts
    made = b.detail
    watched, argument = call_text(facts.graph.cell.line(b.line), "watch")
    weights = _layer_weights(argument)
    if facts.values[w.q.source].path is None or weights is None:
        return (
            f"{s} did not exist yet when {watched} ran {at_line(b.line)}: it was "
            f"made {w.at(made)}, so the tape never watched it",
            f"Call {w.watch_call()} after the line that makes it",
        )
    layer, watch = weights
    message = (
        f"{s} did not exist yet when {watched} ran {at_line(b.line)}: {layer} "
        f"made its weights {w.at(made)}, the first time it was called, so the "
        "tape never watched them"
    )
    given = callee_argument(facts.graph.cell.line(made), layer)
    build = (
        f"run {layer}({given}) once before the tape, or {layer}.build({given}.shape)"
        if given is not None
        else f"call it once on an input before the tape, or call "
        f"{layer}.build(input_shape)"
    )
    return message, (
        f"Build {layer} before the tape watches its weights: {build}; then watch "
        f"them through their values: {watch}"
    )


declare_cause(
    "watched_before_made",
    code="TM022",
    doc="tape.watch ran before the variable existed (a Keras layer not built yet)",
    detect=[Detector("watch", 25, _find_watched_before_made)],
    words=_watched_before_made_words,
)


# -- watch_accessed_off ---------------------------------------------------------------


def _find_watch_accessed_off(facts: Facts, q: Query) -> Break | None:
    if not is_variable(facts, q) or q.tape != 0:
        return None
    if facts.graph.tape.watch_accessed_variables:
        return None
    first, line, seq = first_use_at(facts, q)
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
        f"Call {w.watch_call()} inside the tape before using {s}, or let the "
        "tape watch the variables it reads",
    )


declare_cause(
    "watch_accessed_off",
    code="TM023",
    doc="watch_accessed_variables=False and no tape.watch()",
    detect=[Detector("watch", 30, _find_watch_accessed_off)],
    words=_watch_accessed_off_words,
)


# -- integer_source -------------------------------------------------------------------


def _find_integer_source(facts: Facts, q: Query) -> Break | None:
    s = q.source
    value = facts.values[s]
    if value.differentiable:
        return None
    made = value.made_at if value.origin == "variable" else value.line
    if _made_of_integers(facts.graph.cell.line(made)):
        return Break(None, made, math.inf, "made", s)
    watch = next((w for w in facts.graph.watches if w.value == s), None)
    if watch is not None:
        return Break(None, watch.line, math.inf, "watch", s)
    first = facts.first_use(q)
    line = first.line if first is not None else facts.values[s].line
    return Break(first, line, math.inf, "use", s)


def _integer_source_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    dtype = w.facts.values[w.q.source].dtype
    if b.detail == "made":
        return (
            f"{s} was made from integers {w.at(b.line)}, so it has dtype {dtype}, "
            "and only floating-point tensors can have gradients",
            _integer_source_fix(w),
        )
    if b.detail == "watch":
        then = f", so tape.watch({s}) {at_line(b.line)} does nothing"
    elif b.line is not None:
        then = f", so its use {w.at(b.line)} carries no gradient"
    else:
        then = ""
    return (
        f"{s} has dtype {dtype}, and only floating-point tensors can have "
        f"gradients{then}",
        _integer_source_fix(w),
    )


def _integer_source_fix(w: Words) -> str:
    """The line that made the source, with its integers written as floats; or
    the source made again from its value; or the general advice."""
    facts, s = w.facts, w.source
    value = facts.values[w.q.source]
    maker = "tf.Variable" if value.origin == "variable" else "tf.constant"
    made = value.made_at if value.origin == "variable" else value.line
    rewritten = float_literals(
        facts.graph.cell.line(made), ("tf.Variable", "tf.constant")
    )
    if rewritten is not None:
        return f"Create {s} with a float value: {rewritten.strip()}"
    preview = next((p.text for p in facts.graph.previews if p.value == value.id), None)
    floats = _as_floats(preview)
    if floats is not None and s.isidentifier():
        return f"Create {s} with a float value: {s} = {maker}({floats})"
    return (
        f"Make it floating point, e.g. {maker}(3.0) instead of {maker}(3), or "
        f"watch tf.cast({s}, tf.float32) and use that"
    )


def _made_of_integers(code: str | None) -> bool:
    """Whether the line makes a variable or constant from integer literals."""
    return float_literals(code, ("tf.Variable", "tf.constant")) is not None


def _as_floats(text: str | None) -> str | None:
    """``"[1, 2]"`` as ``"[1.0, 2.0]"``: a small integer value's literal as
    floats; None for anything else (an elided preview, say)."""
    if text is None or "..." in text:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None

    def floats(item: object) -> object:
        if isinstance(item, list):
            return [floats(i) for i in item]
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            return float(item)
        raise ValueError(item)

    try:
        return repr(floats(value))
    except ValueError:
        return None


declare_cause(
    "integer_source",
    code="TM024",
    doc="the source has an integer dtype",
    detect=[Detector("source", 10, _find_integer_source)],
    words=_integer_source_words,
)


# -- wrong_tape -----------------------------------------------------------------------


def _find_watch_reset(facts: Facts, q: Query) -> Break | None:
    if is_variable(facts, q) or q.tape != 0:
        return None
    reset = facts.reset_before(q)
    if not any(w.tape == 0 and w.seq < reset for w in watches_of(facts, q)):
        return None
    return Break(None, facts.line_of_seq(reset), reset, ("reset", reset), q.source)


def _find_watched_elsewhere(facts: Facts, q: Query) -> Break | None:
    if is_variable(facts, q):
        return None
    elsewhere = [w for w in watches_of(facts, q) if w.tape != q.tape]
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
            f"Compute {t} (and call {w.watch_call()} if needed) after "
            "tape.reset(), or remove the reset",
        )
    if kind == "watched":
        return (
            f"{s} was watched by another tape {w.at(b.line)}, not by the tape "
            "asked for the gradient",
            f"Call {w.watch_call()} on the tape you ask for the gradient, or ask "
            "that other tape",
        )
    return (
        f"the gradient was asked of another tape{w.request_place()}, but "
        f"the path from {s} to {t} was recorded by {w.tape_name()}",
        f"Ask that tape for the gradient: {w.tape_call()}",
    )


declare_cause(
    "wrong_tape",
    code="TM025",
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
