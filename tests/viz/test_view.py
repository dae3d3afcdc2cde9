"""One diagnosis per display: a ``%%tape`` cell's view, end to end.

The widget, the SVG, the text, the static HTML and ``tape.explain()`` read
the one pair ``view_model`` keeps per tape state, so the cause detectors run
once per source whatever the cell shows; and they all list the same findings.
"""

from __future__ import annotations

import html
import re
from collections import Counter

import pytest
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.graph import cause as cause_module
from tapemagic.graph.build import graph_from_tape
from tapemagic.graph.diagnosis import diagnose
from tapemagic.viz import view as view_module
from tapemagic.viz.text import render_text

SETUP = """
import tapemagic.tf as tf
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
w = tf.Variable([[0.5], [-1.0]], name="w")
b = tf.Variable([0.25], name="b")
"""
# Two None gradients with two causes (b copied to NumPy, c never watched),
# and one that is fine (w).
CELL = """%%tape
c = tf.constant(3.0)
h = tf.matmul(x, w) + b.numpy()
loss = tf.reduce_sum(h * c)
grads = tape.gradient(loss, [w, b, c])
"""
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture
def ip(shell, monkeypatch):
    """The shell with x, w, b, and a frontend that shows HTML; cleaned up after."""
    before = set(shell.user_ns)
    shell.run_cell(SETUP)
    monkeypatch.setattr(view_module, "_rich_frontend", lambda: True)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]


@pytest.fixture
def runs(monkeypatch):
    """Every call of a cause detector: ``(stage, request id, source id)``."""
    calls: list[tuple[str, str | None, str]] = []

    def counted(stage, find):
        def detector(facts, q, *rest):
            request = q.request.id if q.request is not None else None
            calls.append((stage, request, q.source))
            return find(facts, q, *rest)

        return detector

    for stage, entries in cause_module._BY_STAGE.items():
        wrapped = [
            (
                rank,
                cause,
                cause_module.Detector(d.stage, d.rank, counted(stage, d.find)),
            )
            for rank, cause, d in entries
        ]
        monkeypatch.setitem(cause_module._BY_STAGE, stage, wrapped)
    return calls


def run_cell(ip, cell: str = CELL) -> dict:
    """Run ``cell``; the one bundle it displayed."""
    with capture_output() as captured:
        result = ip.run_cell(cell, store_history=True)
    assert result.success, result.error_in_exec
    (shown,) = captured.outputs
    return shown.data


def one_diagnosis(ip, runs: list) -> Counter:
    """The detector calls of one diagnosis of the cell's tape, from scratch."""
    graph = graph_from_tape(ip.user_ns["tape"], name="tape")
    before = len(runs)
    diagnose(graph)
    return Counter(runs[before:])


def assert_detectors_ran_once(ip, runs: list) -> None:
    """Each source's detectors ran as often as in one diagnosis: once."""
    seen = Counter(runs)
    assert seen, "no detector ran: the cell has None gradients to explain"
    # The first stage asks about the gradient call, once per source.
    calls = Counter((r, s) for stage, r, s in runs if stage == "call")
    (request,) = graph_from_tape(ip.user_ns["tape"]).gradients
    assert set(calls) == {(request.id, s) for s in request.sources}
    assert all(n == len(cause_module._BY_STAGE["call"]) for n in calls.values())
    assert seen == one_diagnosis(ip, runs)


def finding_messages(page: str, findings) -> set[str]:
    """The messages of the findings an HTML page lists (beside their short
    forms, which the sources table shows)."""
    found = re.findall(r'class="tm-finding"[^>]*>(?:<span[^>]*>)?([^<]*)<', page)
    return {html.unescape(text) for text in found} - {f.short for f in findings}


def test_the_widget_runs_each_sources_detectors_once(ip, runs):
    bundle = run_cell(ip)
    assert WIDGET in bundle and "<svg" in bundle["text/html"]
    assert_detectors_ran_once(ip, runs)


def test_the_text_fallback_runs_each_sources_detectors_once(ip, runs, monkeypatch):
    monkeypatch.setenv("PATH", "")  # graphviz finds no `dot`: the text view
    bundle = run_cell(ip)
    page = bundle["text/html"]
    assert WIDGET in bundle and "<svg" not in page and "tapemagic-text" in page
    assert_detectors_ran_once(ip, runs)
    # The text view in the graph's place lists each finding once.
    (_, findings) = view_module.TapeView(ip.user_ns["tape"], "tape").model()
    for finding in findings:
        assert page.count(html.escape(finding.message)) >= 1
        text = bundle["text/plain"]
        assert text.count(finding.message) == 1


def test_the_static_html_runs_each_sources_detectors_once(ip, runs, monkeypatch):
    # A frontend without widgets still gets the static HTML from the bundle;
    # asking for it again (a re-display) computes nothing new.
    bundle = run_cell(ip)
    assert bundle["text/html"].startswith('<div class="tapemagic-static">')
    assert_detectors_ran_once(ip, runs)
    before = len(runs)
    again = view_module.tape_mimebundle(ip.user_ns["tape"])
    assert again["text/html"] == bundle["text/html"] and len(runs) == before


def test_the_text_frontend_runs_each_sources_detectors_once(ip, runs, monkeypatch):
    monkeypatch.setattr(view_module, "_rich_frontend", lambda: False)
    bundle = run_cell(ip)
    assert set(bundle) == {"text/plain"}
    assert_detectors_ran_once(ip, runs)


def test_a_tape_that_records_more_is_diagnosed_again(ip, runs):
    run_cell(ip)
    tape = ip.user_ns["tape"]
    first = view_module.TapeView(tape, "tape").model()
    assert view_module.TapeView(tape, "tape").model()[1] is first[1]
    ip.run_cell("more = tape.gradient(loss, c)")
    graph, findings = view_module.TapeView(tape, "tape").model()
    assert graph is not first[0] and len(graph.gradients) == 2


def test_explain_the_text_the_widget_and_the_html_list_the_same_findings(ip):
    bundle = run_cell(ip)
    tape = ip.user_ns["tape"]
    explained = [f.message for f in tape.explain()]
    assert len(explained) == 2  # b's copy to NumPy, c never watched
    graph, findings = view_module.TapeView(tape, "tape").model()
    assert [f.message for f in findings] == explained
    text = bundle["text/plain"]
    assert text == render_text(graph, findings)
    why = text.split("Why, and what to do:\n", 1)[1].splitlines()
    assert [line.strip() for line in why[::2]] == explained
    widget = view_module.TapeView(tape, "tape").widget()
    assert [f.message for f in widget.findings] == explained
    assert finding_messages(widget._gradients.value, findings) == set(explained)
    assert finding_messages(bundle["text/html"], findings) == set(explained)
