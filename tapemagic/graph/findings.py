"""Findings: why a gradient came out ``None`` (or NaN), where, and what to do.

The diagnosis (:mod:`tapemagic.graph.diagnosis`) reads a graph model and returns
findings; the renderers show them. Each cause a finding can name is declared
once, in :mod:`tapemagic.graph.causes`. A finding is plain, immutable data;
:class:`Findings` is a tuple of them that prints as sentences (and as an HTML
list in a notebook).
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import causes as _causes  # noqa: F401  (declares every cause)
from .cause import CAUSE_DOCS, REGISTRY, SEVERITIES

__all__ = ["CAUSES", "Finding", "Findings"]

# Every cause the diagnosis can name, with a one-line meaning for the docs:
# a live view of the causes declared in tapemagic.graph.causes.
CAUSES: Mapping[str, str] = CAUSE_DOCS


@dataclass(frozen=True)
class Finding:
    """One explained gradient problem.

    Attributes:
        source: the source as the user knows it (its name, e.g. ``"b"``).
        target: the target as the user knows it (e.g. ``"loss"``).
        cause: the cause's name, a key of :data:`CAUSES` (its stable code is
            :attr:`cause_code`).
        message: one sentence a student understands, e.g. ``"b: None because b
            was converted to a NumPy array by .numpy() at line 3 ..."``.
        fix: what to do, as an imperative sentence.
        source_id: the source's value id in the graph model (``"t3"``).
        target_id: the target's value id, if known.
        request: the gradient request's id (``"g1"``), if any.
        op: the id of the op where the path broke (``"op4"``), if any.
        op_name: that op's name, e.g. ``"cast"``.
        line: the cell line where the path broke, if known.
        line_text: the text of that line.
        severity: ``"error"`` for a None gradient, ``"warning"`` for NaN/Inf,
            ``"note"`` for what changes no result (a gradient of zeros).
    """

    source: str
    target: str
    cause: str
    message: str
    fix: str
    source_id: str | None = None
    target_id: str | None = None
    request: str | None = None
    op: str | None = None
    op_name: str | None = None
    line: int | None = None
    line_text: str | None = None
    severity: str = "error"

    def __post_init__(self) -> None:
        if self.cause not in CAUSES:
            raise ValueError(f"unknown cause {self.cause!r}; known: {sorted(CAUSES)}")
        if self.severity not in SEVERITIES:
            raise ValueError(
                f"severity must be one of {', '.join(SEVERITIES)}, not "
                f"{self.severity!r}"
            )

    @property
    def cause_code(self) -> str:
        """The cause's stable code, e.g. ``"TM020"`` (``%tape --explain TM020``
        prints its page)."""
        return REGISTRY[self.cause].code

    @property
    def short(self) -> str:
        """A few words for a graph label, e.g. ``"cast to int32: no gradient"``."""
        where = f" at line {self.line}" if self.line is not None else ""
        return f"{self.cause.replace('_', ' ')}{where}"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(**data)

    def __str__(self) -> str:
        return f"{self.message} {self.fix} [{self.cause_code}]"


# How each severity shows in HTML: red for a None, amber for NaN, grey-blue
# for a note.
_COLOURS = {"error": "#b00020", "warning": "#a05a00", "note": "#3a5a80"}


class Findings(tuple):
    """The findings of one diagnosis: a tuple of :class:`Finding` that prints well.

    In a notebook it shows as an HTML list, in a terminal as one line per
    finding (the cause, the fix, then the cause's code).

    Example:
        >>> f = Finding("c", "y", "not_watched", "c: None because c was never "
        ...             "watched.", "Call tape.watch(c).")
        >>> found = Findings([f])
        >>> len(found), found[0].cause, found.errors == (f,)
        (1, 'not_watched', True)
        >>> print(found)
        c: None because c was never watched. Call tape.watch(c). [TM020]
        >>> print(Findings())
        No None gradient: every gradient asked for has a path to its target.
    """

    __slots__ = ()

    def __new__(cls, findings: Any = ()) -> Findings:
        return super().__new__(cls, findings)

    @property
    def errors(self) -> tuple[Finding, ...]:
        """The None gradients (severity ``"error"``), without the NaN warnings."""
        return tuple(f for f in self if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """The gradients holding NaN or Inf (severity ``"warning"``)."""
        return tuple(f for f in self if f.severity == "warning")

    @property
    def notes(self) -> tuple[Finding, ...]:
        """What changes no result (severity ``"note"``): a gradient of zeros."""
        return tuple(f for f in self if f.severity == "note")

    def __str__(self) -> str:
        if not self:
            return (
                "No None gradient: every gradient asked for has a path to its target."
            )
        return "\n".join(str(f) for f in self)

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        if not self:
            return f"<p>{html.escape(str(self))}</p>"
        items = []
        for f in self:
            colour = _COLOURS[f.severity]
            items.append(
                f'<li><span style="color: {colour}">{html.escape(f.message)}</span>'
                f"<br><b>Fix:</b> {html.escape(f.fix)} <code>[{f.cause_code}]</code>"
                "</li>"
            )
        return '<ul class="tapemagic-findings">' + "".join(items) + "</ul>"
