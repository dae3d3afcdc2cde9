"""What several cause families ask of a query: the source's first use, whether
it is a variable, the ``watch`` calls on it."""

from __future__ import annotations

import math

from ..cause import Query
from ..facts import Facts
from ..model import OpNode, Watch

__all__ = ["first_use_at", "is_variable", "watches_of"]


def first_use_at(facts: Facts, q: Query) -> tuple[OpNode | None, int | None, float]:
    """The first use of the source on the way to the targets: op, line, seq."""
    first = facts.first_use(q)
    if first is None:
        return None, None, math.inf
    return first, first.line, first.seq


def is_variable(facts: Facts, q: Query) -> bool:
    """Whether the source is a variable."""
    return facts.values[q.source].origin == "variable"


def watches_of(facts: Facts, q: Query) -> list[Watch]:
    """The ``watch`` calls on the source, on any tape."""
    return [w for w in facts.graph.watches if w.value == q.source]
