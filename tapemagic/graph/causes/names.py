"""Causes about what a name holds: a Variable's name rebound to a plain tensor,
and a target that never depended on the source at all.
"""

from __future__ import annotations

import math

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..source import in_place_update
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
