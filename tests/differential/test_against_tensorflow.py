"""Random tape programs on tapemagic and on TensorFlow: nothing may differ.

Each program (generate.py) runs once with ``tapemagic.tf`` and once with
``tensorflow`` through the same interpreter (program.py); compare.py says
what must agree. A difference fails with the program as Python, shrunk by
hypothesis; it is fixed in tapemagic and kept, with what TensorFlow printed,
in test_regressions*.py (which need no TensorFlow).

Budget: tests/fuzz/budget.py. CI runs a fixed derandomized set; for a long run
``TAPEMAGIC_FUZZ_EXAMPLES=5000 python -m pytest tests/differential -q
--hypothesis-show-statistics`` (docs/RELIABILITY.md).
"""

from __future__ import annotations

import tensorflow as tf
from hypothesis import event, given, note

import tapemagic.tf as tm
from tapemagic.engine.op import OP_TABLE

from ..fuzz.budget import fuzz_settings
from .compare import differences
from .generate import programs
from .program import run, to_source
from .rows import EXCLUDED, OPS


@fuzz_settings(600)
@given(programs())
def test_tapemagic_answers_as_tensorflow_does(program):
    note(to_source(program))
    for step in program.steps:
        event(f"op {step.fn}")
    for q in program.queries:
        event(f"query {q.kind}")
    ours, theirs = run(program, tm), run(program, tf)
    if theirs and theirs[-1].kind == "error":
        event(f"error {theirs[-1].dtype}")
    found = differences(ours, theirs)
    assert not found, "\n".join(found) + "\n\nprogram:\n" + to_source(program)


def test_every_op_is_drawn_or_reached():
    """Every op of the table is called by a row, or the reason it is not is given."""
    drawn = {row.path.rsplit(".", 1)[-1] for row in OPS}
    missing = sorted(set(OP_TABLE) - drawn - set(EXCLUDED))
    assert missing == []
    assert sorted(set(EXCLUDED) & drawn) == []


def test_each_row_resolves_on_both_modules():
    for row in OPS:
        if row.path.startswith("op:") or row.path == "getitem":
            continue
        for module in (tm, tf):
            obj = module
            for part in row.path.split("."):
                obj = getattr(obj, part)
            assert callable(obj), (row.path, module.__name__)


def test_a_search_keeps_each_kind_of_difference_with_its_shortest_program(
    monkeypatch, capsys
):
    from . import search

    def planted(ours, theirs):  # every program differs, in one way
        return [f"{theirs[0].what}: planted"]

    monkeypatch.setattr(search, "differences", planted)
    assert search.main(["12"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("12 programs, 1 kind of difference\n")
    assert out.count("=" * 72) == 1 and "planted" in out and "tf.GradientTape" in out
