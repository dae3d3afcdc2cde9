"""What a course cell must show, written in the notebook itself.

A code cell's metadata may hold ``"expect"``: a list of texts its output must
show, in that order (stdout, what the cell displays as text, and an error as
``Name: message``). A text is matched literally, except for holes in braces,
each standing for one number (and the spaces NumPy pads it with)::

    "dy/dx = 8.0"                        the exact text
    "Held-out accuracy: {>= 0.9}"        a number at least 0.9 (also >, <, <=, !=)
    "w = {2.0 +- 0.001}, b"              a number within 0.001 of 2.0
    "Trained 15 epochs ({} steps)"       any number
    "{{'w': 1}}"                         doubled braces are literal braces

Each text is searched after where the previous one matched, so a text listed
twice must be shown twice. In JupyterLab the list is edited in the property
inspector (Advanced Tools, cell metadata); in the paired Markdown file it is the
``expect=[...]`` on the cell's code fence.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["EXPECT_KEY", "Expectation", "ExpectationError", "check_expectations"]

EXPECT_KEY = "expect"

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_COMPARE = {
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}
_HOLE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


class ExpectationError(ValueError):
    """An ``expect`` text that cannot be read (a hole that says no rule)."""


@dataclass(frozen=True)
class _Hole:
    words: str
    test: Callable[[float], bool]


def _hole(words: str) -> _Hole:
    text = words.strip()
    if not text:
        return _Hole("{}", lambda value: True)
    symbol = next((symbol for symbol in _COMPARE if text.startswith(symbol)), None)
    if symbol is not None:
        compare, bound = _COMPARE[symbol], _float(text[len(symbol) :], words)
        return _Hole(f"{{{text}}}", lambda value: compare(value, bound))
    if "+-" in text:
        centre, tolerance = (_float(part, words) for part in text.split("+-", 1))
        return _Hole(f"{{{text}}}", lambda value: abs(value - centre) <= abs(tolerance))
    raise ExpectationError(
        f"{{{words}}} is no number rule: write {{}} (any number), {{>= 0.9}}, "
        "{> 0}, {< 1e-4}, {<= 1}, {!= 0} or {2.0 +- 0.001}; {{ and }} for braces"
    )


def _float(text: str, words: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ExpectationError(
            f"{{{words}}}: {text.strip()!r} is not a number"
        ) from None


class Expectation:
    """One text a cell must show, with its number holes."""

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise ExpectationError(
                f"an expect entry must be a string, not {type(text).__name__}: {text!r}"
            )
        self.text = text
        self.holes: list[_Hole] = []
        parts, end = [], 0
        for match in _HOLE.finditer(text):
            parts.append(re.escape(text[end : match.start()]))
            if match.group(0) in ("{{", "}}"):
                parts.append(re.escape(match.group(0)[0]))
            else:
                self.holes.append(_hole(match.group(1)))
                parts.append(rf" *({_NUMBER})")  # NumPy pads numbers to align
            end = match.end()
        parts.append(re.escape(text[end:]))
        self.pattern = re.compile("".join(parts))

    def find(self, shown: str, start: int = 0) -> tuple[int, list[float]] | None:
        """Where the text is first shown from ``start`` with every hole's rule
        met: (the end of the match, the numbers in the holes), or None."""
        for match in self.pattern.finditer(shown, start):
            values = [float(group) for group in match.groups()]
            if all(hole.test(v) for hole, v in zip(self.holes, values, strict=True)):
                return match.end(), values
        return None

    def near_misses(self, shown: str) -> list[str]:
        """Where the text with its holes was shown but a number broke a rule."""
        return [match.group(0) for match in self.pattern.finditer(shown)]


def check_expectations(texts: list[str], shown: str) -> list[float]:
    """Check that ``shown`` shows every text of ``texts`` in order.

    Returns:
        The numbers the holes matched, in order (for a test report).

    Raises:
        AssertionError: saying which text is missing and what was shown.
        ExpectationError: if a text's hole is not a rule.
    """
    if isinstance(texts, str):
        texts = [texts]
    position, numbers = 0, []
    for text in texts:
        expectation = Expectation(text)
        found = expectation.find(shown, position)
        if found is None:
            misses = expectation.near_misses(shown[position:])
            detail = (
                f" (shown as {misses!r}: a number breaks its rule)" if misses else ""
            )
            after = " after the texts before it" if position else ""
            raise AssertionError(
                f"expected {text!r}{after}{detail}; the cell showed:\n{shown}"
            )
        position, values = found
        numbers.extend(values)
    return numbers
