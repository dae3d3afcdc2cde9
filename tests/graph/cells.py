"""Running buggy cells through the real ``%%tape`` magic, for the diagnosis tests."""

from __future__ import annotations

import re

import numpy as np
from IPython.utils.capture import capture_output

from tapemagic.graph.findings import Finding, Findings

SETUP = """
import numpy as np
import tapemagic.tf as tf
x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = tf.constant([[1.0], [0.0], [2.0]])
w = tf.Variable([[0.5], [-1.0]], name="w")
b = tf.Variable([0.25], name="b")
"""

# d/dw of sum(x @ w) is the column sums of x: [[9], [12]].
X_COLUMN_SUMS = np.array([[9.0], [12.0]])

# Internal ids (t3, op4, e1, g2) never appear in what a student reads.
INTERNAL_ID = re.compile(r"\b(?:t|op|e|g)\d+\b")


def run(ip, code: str):
    """Run a cell as a notebook would; returns (result, captured output)."""
    with capture_output() as captured:
        result = ip.run_cell(code, store_history=True)
    return result, captured


def run_all(ip, cells: list[str]) -> None:
    """Run cells that must not raise."""
    for cell in cells:
        result, captured = run(ip, cell)
        assert result.error_in_exec is None, (cell, result.error_in_exec)


def explain(ip, call: str = "tape.explain()") -> Findings:
    """The findings ``call`` gives in the shell."""
    result, _ = run(ip, f"_found = {call}")
    assert result.success, result.error_in_exec
    found = ip.user_ns["_found"]
    assert isinstance(found, Findings)
    return found


def check_sentences(finding: Finding, lines: tuple[str, ...] = ()) -> None:
    """A sentence a student reads: the source's name first, no internal ids.

    ``lines`` are the cell's lines: code quoted from them may hold any name.
    """
    assert finding.message.startswith((f"{finding.source}: ", f"{finding.target}: "))
    assert "because" in finding.message
    assert finding.message.endswith(".") and finding.fix.endswith(".")
    assert finding.fix[0].isupper()
    for text in (finding.message, finding.fix):
        for line in lines:
            if line.strip():
                text = text.replace(line.strip(), "")
        assert not INTERNAL_ID.search(text), text
        assert text.count(". ") == 0 or "e.g." in text, text
