"""Causes about what a name holds: a Variable's name rebound to a plain tensor,
a name rebound while the sources still hold its old value, a name bound to a
new Variable after the tape read the old one, a non-trainable Keras weight
asked about, and a target that never depended on the source at all.
"""

from __future__ import annotations

import math

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..fixes import in_place_assign
from ..source import assigned_name, in_place_update
from ..words import Words

__all__: list[str] = []


# -- rebound_variable -----------------------------------------------------------------


def _find_rebound(facts: Facts, q: Query) -> Break | None:
    """A plain tensor under a name that held a Variable (``w = w - lr * g``)."""
    s = q.source
    value = facts.values[s]
    if value.origin == "variable":
        return None
    if value.rebound_from is not None:
        name = facts.names.of(s, q)
        return Break(None, None, math.inf, (name, value.rebound_from), s)  # elsewhere
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
    own = (variable or name).split(":")[0]
    held = (
        "a tf.Variable" if _anonymous(own) or own == name else f"the tf.Variable {own}"
    )
    code = w.facts.graph.cell.line(b.line)
    elsewhere = w.facts.values[w.q.source].rebound_at if b.line is None else None
    if elsewhere is not None:
        where, line, code = elsewhere
        what = (
            f"the name {name} held {held}, but the assignment in {where} at "
            f"line {line} ({code}) rebound it to a plain tensor, which the tape "
            "does not watch"
        )
    elif b.line is None:
        what = (
            f"the name {name} held {held} in an earlier cell but now holds a "
            f"plain tensor (a line such as {name} = {name} - lr * g rebinds it), "
            "and the tape does not watch plain tensors"
        )
    else:
        what = (
            f"the name {name} held {held}, but the assignment {w.at(b.line)} "
            "rebound it to a plain tensor, which the tape does not watch"
        )
    update = in_place_update(code, name)
    fix = f"Update the variable in place ({update}) so that {name} stays a tf.Variable"
    if b.line is None:
        fix += ", and create it again with tf.Variable"
    return what, fix


def _anonymous(name: str) -> bool:
    last = name.rsplit("/", 1)[-1]
    return last == "Variable" or (last.startswith("Variable_") and last[9:].isdigit())


declare_cause(
    "rebound_variable",
    code="TM009",
    doc="a Variable name rebound to a plain tensor (w = w - lr * g)",
    detect=[Detector("watch", 10, _find_rebound)],
    words=_rebound_variable_words,
)


# -- rebound_name ---------------------------------------------------------------------


def _find_rebound_name(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """A name that held the source was rebound in the cell, while the sources
    (a list or dict made before) still hold the old value."""
    s = q.source
    value = facts.values[s]
    graph = facts.graph
    name, now = None, None
    for b in graph.bindings:
        if b.previous == s and b.value != s:
            name, now = b.name, (b.kind, b.python_type)
    if name is None:
        made = value.made_at if value.origin == "variable" else value.line
        op = facts.index.producer(s)
        if op is not None and op.during is None:
            made = op.line
        assigned = assigned_name(graph.cell.line(made))
        if assigned is None or assigned in value.names:
            return None
        held = [b for b in graph.bindings if b.name == assigned and b.value != s]
        if not held:
            return None
        name, now = assigned, (held[-1].kind, held[-1].python_type)
    line = _last_assignment(facts, q, name, after=value.made_at or 1)
    if line is None:
        return None
    return Break(None, line, math.inf, (name, now), s)


def _last_assignment(facts: Facts, q: Query, name: str, after: int) -> int | None:
    """The last line of the cell, after ``after`` and before the gradient call
    (if it was made in the cell), that binds ``name``."""
    lines = facts.graph.cell.lines
    last = len(lines) + 1
    request = q.request
    if (
        request is not None
        and request.here
        and request.via is None  # the magic asks after the cell
        and request.line is not None
    ):
        last = request.line
    found = None
    for number in range(max(2, after + 1), min(last, len(lines) + 1)):
        if assigned_name(lines[number - 1]) == name:
            found = number
    return found


_NOW = {
    "variable": "a new tf.Variable",
    "tensor": "a plain tensor",
    "numpy": "a NumPy value",
}


def _rebound_name_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    name, (kind, python_type) = b.detail
    if kind == "python":
        now = f"a Python {python_type}"
    elif kind is None:
        now = "nothing (it was deleted)"
    else:
        now = _NOW.get(kind, "another value")
    message = (
        f"{s} still holds the old {name}: the assignment {w.at(b.line)} rebound "
        f"the name {name} to {now}, and {t} is computed from the new {name}, not "
        f"from the old one in {s}"
    )
    rewritten = in_place_assign(w.facts.graph.cell.line(b.line), name)
    if rewritten is not None:
        return message, (
            f"Update the old {name} in place instead of rebinding the name: "
            f"{rewritten.strip()}"
        )
    return message, (
        f"Update {name} in place with {name}.assign(...), or give the new {name} "
        "as the source"
    )


declare_cause(
    "rebound_name",
    code="TM010",
    doc="a name rebound in the cell (to a new Variable, a number) while the "
    "sources still hold its old value",
    detect=[Detector("unlinked", 5, _find_rebound_name)],
    words=_rebound_name_words,
)


# -- remade_variable ------------------------------------------------------------------


def _find_remade(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """The source is a Variable the tape never saw, under the name of one the
    tape did read: the name was bound to a new Variable after the tape ran
    (the cell that makes it was run again)."""
    s = q.source
    value = facts.values[s]
    if value.origin != "variable" or facts.index.used(s):
        return None
    name = facts.names.of(s, q)
    for other in facts.values.values():
        if (
            other.id != s
            and other.origin == "variable"
            and name in other.names
            and facts.index.used(other.id)
        ):
            first = facts.first_consumer(other.id, set())
            line = first.line if first is not None else None
            return Break(None, None, math.inf, (name, line), s)
    return None


def _remade_variable_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    name, line = b.detail
    read = f" {w.at(line)}" if line is not None else ""
    return (
        f"{s} is a new tf.Variable, made after the tape ran: the tape read an "
        f"older Variable named {name}{read}, and {t} was computed from that one, "
        f"so the new {name} has no path to {t} (running the cell that makes "
        f"{name} again makes a new Variable)",
        f"Run the %%tape cell again, so that it computes {t} from the new {name}; "
        f"to change a Variable without replacing it, use {name}.assign(...)",
    )


declare_cause(
    "remade_variable",
    code="TM011",
    doc="the source name was bound to a new Variable after the tape read the old "
    "one (its cell run again)",
    detect=[Detector("unlinked", 6, _find_remade)],
    words=_remade_variable_words,
)


# -- non_trainable_weight -------------------------------------------------------------


def _find_non_trainable_weight(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """A non-trainable Keras weight that the target does not depend on (asked
    for through ``model.weights``, say): BatchNormalization's moving statistics."""
    value = facts.values[q.source]
    if value.origin != "variable" or value.trainable or not value.path:
        return None
    return Break(None, None, math.inf, value.path, q.source)


def _non_trainable_weight_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    moving = "moving_" in b.detail.rsplit("/", 1)[-1]
    how = (
        "BatchNormalization assigns its moving statistics while training; "
        "no gradient updates them"
        if moving
        else "no gradient updates it"
    )
    return (
        f"{s} is a non-trainable weight of a Keras layer ({how}), and {t} does not "
        f"depend on it",
        "Ask for the gradients of model.trainable_weights (not model.weights), or "
        f"leave {s} out of the sources",
    )


declare_cause(
    "non_trainable_weight",
    code="TM012",
    doc="a non-trainable Keras weight among the sources (model.weights)",
    detect=[Detector("unlinked", 80, _find_non_trainable_weight)],
    words=_non_trainable_weight_words,
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
    code="TM013",
    doc="the target does not depend on the source at all",
    detect=[
        Detector("unlinked", 90, _find_unrelated),
        Detector("unexplained", 90, _find_no_path),
    ],
    words=_not_connected_words,
)
