"""Declaring a None cause: one declaration holds its code, doc, detectors, words."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tapemagic.graph.cause import (
    BY_CODE,
    REGISTRY,
    RETIRED,
    SEVERITIES,
    STAGES,
    Detector,
    declare_cause,
)
from tapemagic.graph.findings import CAUSES, Finding


def test_every_declared_cause_is_complete():
    assert list(CAUSES) == list(REGISTRY)
    for code, cause in REGISTRY.items():
        assert cause.name == code
        assert cause.doc and CAUSES[code] == cause.doc
        assert cause.detectors, f"{code} is never detected"
        assert all(d.stage in STAGES for d in cause.detectors)
        assert callable(cause.words)
        assert cause.severity in SEVERITIES


def test_each_stage_has_one_detector_per_rank():
    for stage in STAGES:
        ranks = [d.rank for c in REGISTRY.values() for d in c.detectors
                 if d.stage == stage]  # fmt: skip
        assert len(ranks) == len(set(ranks)), stage


def test_only_nan_is_a_warning():
    warnings = [c.name for c in REGISTRY.values() if c.severity == "warning"]
    assert warnings == ["nan_gradient"]


def test_notes_change_no_result_and_are_never_errors():
    notes = {c.name for c in REGISTRY.values() if c.severity == "note"}
    assert notes >= {"source_is_target"}
    with pytest.raises(ValueError, match="severity must be one of"):
        declare_cause(
            "loud", code="TM901", doc="d", detect=[], words=_words, severity="fatal"
        )


def test_a_finding_names_a_declared_cause():
    with pytest.raises(ValueError, match="unknown cause 'no_such_cause'"):
        Finding("x", "y", "no_such_cause", "m", "f")


def _words(w, b):
    return "", ""


@pytest.mark.parametrize(
    ("name", "code", "detect", "phrase"),
    [
        ("stop_gradient", "TM901", [], "already declared"),
        ("new_cause", "TM016", [], "already stop_gradient's"),
        ("new_cause", "E0502", [], "must be TM and three digits"),
        ("new_cause", "TM901", [Detector("nowhere", 1, len)], "Unknown stage"),
        ("new_cause", "TM901", [Detector("cut", 10, len)], "already has rank 10"),
    ],
)
def test_a_bad_declaration_raises(name, code, detect, phrase):
    before = dict(REGISTRY)
    with pytest.raises(ValueError, match=phrase):
        declare_cause(name, code=code, doc="d", detect=detect, words=_words)
    assert before == REGISTRY and set(BY_CODE) == {c.code for c in before.values()}


def test_codes_are_unique_stable_and_none_is_retired():
    codes = [c.code for c in REGISTRY.values()]
    assert len(set(codes)) == len(codes)
    assert not set(codes) & set(RETIRED)
    # Given in the registry's order when codes came in; a new cause takes the
    # next free code, so the list only grows at its end.
    assert codes[:3] == ["TM001", "TM002", "TM003"]
    assert REGISTRY["integer_cast"].code == "TM014"
    assert REGISTRY["zero_gradient"].code == "TM026"
    assert all(BY_CODE[c.code] is c for c in REGISTRY.values())


def test_the_retired_list_is_empty_and_a_retired_code_is_refused(monkeypatch):
    assert RETIRED == {}
    monkeypatch.setitem(RETIRED, "TM902", "Replaced by TM014.")
    with pytest.raises(ValueError, match="a code is never reused"):
        declare_cause("new_cause", code="TM902", doc="d", detect=[], words=_words)


def test_a_new_cause_takes_one_declaration():
    # In a fresh process: the declaration stays in the registry for good.
    code = textwrap.dedent(
        """
        from tapemagic.graph.cause import Break, Detector, declare_cause
        from tapemagic.graph.diagnosis import diagnose
        from tapemagic.graph.findings import CAUSES
        from tapemagic.graph.model import (
            Cell, GradientRequest, GradientResult, Graph, OpNode, TapeInfo, Value)

        def find_round(facts, q, event, index, value):
            if isinstance(event, OpNode) and event.op == "round":
                return Break(event, event.line, event.seq, index, value)
            return None

        declare_cause(
            "rounded",
            code="TM901",
            doc="went through tf.round",
            detect=[Detector("cut", 5, find_round)],
            words=lambda w, b: (f"{w.source} was rounded {w.at(b.line)}",
                                "Do not round"),
        )
        g = Graph(
            TapeInfo("tape", False, True, "answered", True),
            Cell(None, None, ("%%tape", "y = tf.round(w)")),
            values=(Value("t1", "variable", (), "float32", True, names=("w",),
                          variable="w:0", trainable=True),
                    Value("t2", "op", (), "float32", True, 2, op="op1",
                          names=("y",))),
            ops=(OpNode("op1", 2, "round", ("t1",), ("t2",), False, False, 2,
                        "recording"),),
            gradients=(GradientRequest("g1", 3, "gradient", 0, ("t2",), ("t1",),
                                       (GradientResult("t1", True),)),),
        )
        (finding,) = diagnose(g)
        print(finding.cause, "rounded" in CAUSES)
        print(finding.message, finding.fix)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == [
        "rounded True",
        "w: None because w was rounded at line 2 (y = tf.round(w)). Do not round.",
    ]
