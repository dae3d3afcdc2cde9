"""A notebook with a %%tape cell, run by a real kernel (nbclient), then exported.

The %%tape cell's output must be an ipywidgets view whose saved widget state
holds the graphviz SVG and the sources table with b's gradient flagged None;
the same output must carry a static text/html copy, so that nbconvert's HTML
(and GitHub's notebook view) show the graph without a kernel.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.browser.notebook import EXPECTED_NODES, NOTEBOOK_CELLS
from tests.browser.server import ARTIFACTS, make_notebook, private_dirs

pytestmark = [pytest.mark.slow, pytest.mark.dot]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture
def isolated_jupyter(tmp_path, monkeypatch):
    """Keep the user's Jupyter and IPython config, kernels and data out."""
    for var, path in private_dirs(tmp_path).items():
        monkeypatch.setenv(var, path)
    return tmp_path


def _descendants(state: dict, model_id: str) -> list[dict]:
    """The model and every model below it, through ``children``."""
    found, todo = [], [model_id]
    while todo:
        model = state[todo.pop()]
        found.append(model)
        todo.extend(
            k.removeprefix("IPY_MODEL_") for k in model["state"].get("children", [])
        )
    return found


def test_tape_cell_widget_state_and_html_export(isolated_jupyter):
    make_notebook(isolated_jupyter / "tape.ipynb", NOTEBOOK_CELLS)
    nb = nbformat.read(isolated_jupyter / "tape.ipynb", as_version=4)
    client = NotebookClient(
        nb,
        timeout=120,
        startup_timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(isolated_jupyter)}},
        store_widget_state=True,
    )
    client.execute()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, ARTIFACTS / "tape-nbclient.ipynb")

    printed = "".join(o.get("text", "") for o in nb.cells[0].outputs).strip()
    assert Path(printed).resolve() == Path(sys.prefix).resolve(), printed
    for cell in nb.cells:
        for out in cell.outputs:
            assert out.output_type != "error", f"{out.ename}: {out.evalue}"

    (output,) = [o for o in nb.cells[-1].outputs if o.output_type == "display_data"]
    assert set(output.data) == {WIDGET_VIEW, "text/html", "text/plain"}
    assert output.data["text/plain"].startswith("GradientTape 'tape' (non-persistent")

    state = nb.metadata["widgets"][WIDGET_STATE]["state"]
    top = state[output.data[WIDGET_VIEW]["model_id"]]
    assert top["model_name"] == "VBoxModel"
    assert "tapemagic-widget" in top["state"]["_dom_classes"]
    models = _descendants(state, output.data[WIDGET_VIEW]["model_id"])
    by_class = {
        c: m for m in models for c in m["state"].get("_dom_classes", ()) if "view" in c
    }
    svg = by_class["tapemagic-graph-view"]["state"]["value"]
    assert svg.count('class="node') == EXPECTED_NODES
    assert "∂ None" in svg
    sources = by_class["tapemagic-sources-view"]["state"]["value"]
    assert re.search(r'<tr class="tm-source-row tm-none"><td[^>]*><b>b</b>', sources)
    tabs = [m for m in models if m["model_name"] == "TabModel"]
    assert tabs[0]["state"]["titles"] == ["Graph", "Sources", "Gradients (1 None)"]

    # Exported without a kernel. With the widget state saved (as nbclient does),
    # nbconvert embeds the live widget: its state holds the SVG, and the page's
    # widget manager draws it.
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(nb)
    (ARTIFACTS / "tape-nbclient.html").write_text(body)
    assert body.count('class=\\"node') == EXPECTED_NODES
    # Saved without widget state (JupyterLab's default), the page shows the
    # static HTML copy: the same SVG, and the tables.
    static = output.data["text/html"]
    assert static.count('class="node') == EXPECTED_NODES
    del nb.metadata["widgets"]
    body, _ = HTMLExporter().from_notebook_node(nb)
    (ARTIFACTS / "tape-nbclient-static.html").write_text(body)
    assert '<div class="tapemagic-static">' in body
    (svg,) = re.findall(r"<svg.*?</svg>", body, flags=re.S)
    assert svg.count('class="node') == EXPECTED_NODES
    assert re.search(r'<tr class="tm-source-row tm-none"><td[^>]*><b>b</b>', body)
