"""A %%tape cell in IPython's terminal: the same facts, as text.

The real ``ipython`` command (``python -m IPython``) runs the cell from a file,
with tapemagic loaded by the profile (``c.InteractiveShellApp.extensions``), as
a student's terminal session would. A terminal shows no HTML, so the tape's
display is its text view: what was watched, every gradient asked for, b's None
and the fix.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.browser.notebook import NOTEBOOK_CELLS

ROOT = Path(__file__).resolve().parents[2]


def test_tape_cell_prints_its_text_view_in_the_terminal(tmp_path):
    setup, tape_cell = NOTEBOOK_CELLS[2], NOTEBOOK_CELLS[3]
    profile = tmp_path / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        'c.InteractiveShellApp.extensions = ["tapemagic"]\n'
        'c.InteractiveShellApp.exec_files = ["setup.py"]\n'
    )
    (tmp_path / "setup.py").write_text(setup + "\n")
    (tmp_path / "tape.ipy").write_text(tape_cell + "\n")
    env = dict(os.environ, IPYTHONDIR=str(tmp_path / "ipython"), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "IPython", "--no-banner", "--colors=nocolor",
         "tape.ipy"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("GradientTape 'tape' (non-persistent, answered)"), out
    assert "Ops: 3 recorded on the tape, of 3 that ran." in out
    assert "      b: None\n" in out
    assert "None gradients: b (g1)." in out
    because = "b: None because b was converted to a NumPy array by .numpy() at line 3"
    assert because in out
    assert "-> Keep b a tensor: y_hat = h + b." in out
    # Text only: no HTML, no widget, no SVG reaches a terminal.
    assert "<svg" not in out and "<div" not in out and "Widget" not in out
