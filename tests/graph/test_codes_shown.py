"""Every finding shows its cause code wherever a finding is shown.

For each cause, the buggy cell the diagnosis tests use (``CASES`` of
test_diagnosis.py, the cells of ``ZEROS`` for a gradient of zeros, a square
root at 0 for NaN) runs through the real ``%%tape`` magic; then the code is
in the widget, the text view, the static HTML, ``tapemagic.explain``, the
break node's tooltip, ``assert_no_none_gradients``' message and the
explanation of "No gradients provided"; and, for a gradient asked in a later
cell, in the notes under that cell.
"""

from __future__ import annotations

import re
import warnings

import pytest

import tapemagic
from tapemagic.graph.cause import REGISTRY
from tapemagic.graph.from_tape import view_model
from tapemagic.later import explain_no_gradients
from tapemagic.viz.dot import build_view
from tapemagic.viz.page import static_html
from tapemagic.viz.text import render_text
from tapemagic.viz.widget import TapeWidget

from .cells import run
from .test_diagnosis import CASES
from .test_diagnosis_situations import ZEROS

# One buggy cell (after the setup) per cause: the first case that names it.
TRIGGERS: dict[str, tuple[list[str], str, str]] = {}
for _case in CASES.values():
    TRIGGERS.setdefault(_case.cause, (_case.buggy, _case.call, _case.source))
_zeros = ZEROS["dead_relu"]
TRIGGERS["zero_gradient"] = ([_zeros[0], _zeros[1]], "tape.explain()", "W1")
TRIGGERS["nan_gradient"] = (
    ["v0 = tf.Variable([0.0, 4.0])",
     "%%tape --target loss --sources v0\nloss = tf.reduce_sum(tf.sqrt(v0))"],
    "tape.explain()", "v0",
)  # fmt: skip


def test_every_cause_has_a_trigger():
    assert set(TRIGGERS) == set(REGISTRY)


def _svg_titles(svg: str) -> str:
    return " ".join(re.findall(r'xlink:title="([^"]*)"', svg))


@pytest.mark.parametrize("name", sorted(TRIGGERS))
def test_a_finding_shows_its_code_in_every_view(ip, name, monkeypatch):
    # where a course serves the site: the page then links to it
    monkeypatch.setenv("TAPEMAGIC_DOCS_URL", "https://example.org/docs")
    cells, call, source = TRIGGERS[name]
    code = REGISTRY[name].code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # an integer watched
        for cell in cells:
            run(ip, cell)
    tape = ip.user_ns["tape"]
    run(ip, f"_found = {call}")
    found = ip.user_ns["_found"]
    (finding,) = [f for f in found if f.source == source]
    assert finding.cause_code == code
    # tapemagic.explain and the Findings a notebook shows (the notes under a
    # later cell display the same Findings).
    assert f"[{code}]" in str(tapemagic.explain(tape))
    assert f"[{code}]" in str(found) and f"[{code}]" in found._repr_html_()
    graph, findings = view_model(tape)
    if finding not in findings:  # asked of a pair, or of another tape
        findings = (*findings, finding)
    # The text view, the widget (the code opens its page on click), the static HTML.
    assert f"[{code}]" in render_text(graph, findings)
    widget = TapeWidget(graph, findings)
    assert f'<code class="tm-code">{code}</code>' in widget._gradients.value
    assert f"https://example.org/docs/causes/{code}.html" in widget._gradients.value
    assert f'<code class="tm-code">{code}</code>' in static_html(graph, findings)
    # The break node's tooltip (the op where the path broke, else the source),
    # where that node is drawn on its own.
    view = build_view(graph, findings)
    node = finding.op or finding.source_id
    if f"\t{node} [" in view.digraph.source:
        assert f"{code}: {finding.message}"[:60] in view.digraph.source
    if finding.severity == "error":
        with pytest.raises(AssertionError, match=rf"\[{code}\]"):
            tapemagic.assert_no_none_gradients(tape)
        error = ValueError("No gradients provided for any variable.")
        assert f"[{code}]" in explain_no_gradients(error, tape)


@pytest.mark.parametrize(
    ("cells", "later", "code"),
    [
        (["%%tape --quiet\nloss = tf.reduce_sum(tf.matmul(x, tf.round(w)))"],
         "grads = tape.gradient(loss, w)", "TM015"),
        (["%%tape --quiet --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))",
          'w = tf.Variable([[0.5], [-1.0]], name="w")'],
         "grads = tape.gradient(loss, w)", "TM011"),
        (["%%tape --quiet --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))"],
         "loss2 = loss * 2.0\ngrads = tape.gradient(loss2, w)", "TM018"),
    ],
)  # fmt: skip
def test_the_notes_under_a_later_cell_show_the_code(ip, cells, later, code):
    for cell in cells:
        run(ip, cell)
    _, captured = run(ip, later)
    shown = captured.stdout + "".join(
        str(o.data.get("text/plain", "")) for o in captured.outputs
    )
    assert f"[{code}]" in shown
