"""The course as its notebooks say it is: which notebooks, what each cell must do.

Everything a test checks about a course notebook is read from the notebook: its
cells' tags (``raises-exception``, ``expect-none``) and the texts in their
``expect`` metadata (see :mod:`tests.notebooks.expectations`). The notebooks in
``notebooks/`` are the source; each is paired by jupytext with a Markdown file
of the same name in ``notebooks/source/``, for review.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import jupytext
import nbformat
from jupytext.compare import compare_notebooks
from jupytext.config import load_jupytext_config

from .expectations import check_expectations
from .runner import ERROR_TAG, NONE_TAG

__all__ = [
    "NOTEBOOK_DIR",
    "SOURCE_DIR",
    "PAIRED",
    "ROOT",
    "WIDGET_MIME",
    "check_cells",
    "check_notebook",
    "course_notebooks",
    "load_converter",
    "pair_of",
    "pairing_problems",
]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Each notebook's jupytext pairing: the notebook, and a Markdown file of the
# same name in source/ (out of the way of the course in JupyterLab's file browser).
PAIRED = "ipynb,source//md"
SOURCE_DIR = NOTEBOOK_DIR / "source"
_SYNC = "jupytext --sync notebooks/*.ipynb"
_NO_VERSION = (
    '{"jupytext": {"notebook_metadata_filter": '
    '"-jupytext.text_representation.jupytext_version"}}'
)


def course_notebooks(folder: Path = NOTEBOOK_DIR) -> list[Path]:
    """The course notebooks: every ``*.ipynb`` directly in ``folder``, by name
    (subfolders such as ``exercises/`` hold other material)."""
    return sorted(folder.glob("*.ipynb"))


def load_converter() -> ModuleType:
    """``notebooks/source/to_tensorflow.py``, the command that writes the TensorFlow
    version of each notebook."""
    spec = importlib.util.spec_from_file_location(
        "course_tensorflow", SOURCE_DIR / "to_tensorflow.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pair_of(path: Path) -> Path:
    """The Markdown pair of the course notebook at ``path``."""
    return path.parent / "source" / f"{path.stem}.md"


def pairing_problems(path: Path) -> list[str]:
    """What keeps the notebook at ``path`` and its Markdown pair from being in
    sync, as jupytext sees it (an empty list when they are)."""
    nb = nbformat.read(path, as_version=4)
    formats = nb.metadata.get("jupytext", {}).get("formats")
    if formats != PAIRED:
        return [
            f"{path.name} is paired as {formats!r}, not {PAIRED!r}: in JupyterLab "
            "run the command 'Pair Notebook with Markdown', or "
            f"`jupytext --set-formats {PAIRED} notebooks/{path.name}`"
        ]
    pair = pair_of(path)
    if not pair.exists():
        return [f"{pair.name} is missing: run `{_SYNC}`"]
    if "jupytext_version:" in pair.read_text().split("\n---\n")[0]:
        # A newer jupytext must not make every pair differ.
        return [
            f"{pair.name} names a jupytext version in its header: run "
            f"`jupytext --update-metadata '{_NO_VERSION}' notebooks/{path.name}`"
        ]
    config = load_jupytext_config(str(path))
    notebook = jupytext.read(path, config=config)
    if pair.read_text() != jupytext.writes(notebook, fmt="md", config=config):
        return [
            f"{pair.name} is not what saving {path.name} writes: run `{_SYNC}` "
            "(it keeps whichever of the two was edited last)"
        ]
    try:
        compare_notebooks(jupytext.read(pair, config=config), notebook, fmt="md")
    except Exception as error:  # jupytext raises its own errors, not one base
        return [f"{pair.name} reads back differently from {path.name}: {error}"]
    return []


def _is_tape_cell(cell: dict) -> bool:
    return cell["source"].lstrip().startswith("%%tape")


def check_cells(name: str, report: dict) -> None:
    """Errors, stderr and None flags exactly where the tags say; tapes shown.

    A cell tagged ``expect-none`` is a ``%%tape`` cell whose view explains the
    None (the cause, then the fix), and the next ``%%tape`` cell is the fix.
    """
    cells = report["cells"]
    for position, cell in enumerate(cells):
        where = f"{name} cell {cell['index']}:\n{cell['source']}\n---\n{cell['text']}"
        if ERROR_TAG in cell["tags"]:
            assert cell["errors"], f"expected an exception in {where}"
        else:
            assert not cell["errors"], f"unexpected error in {where}"
            if NONE_TAG not in cell["tags"]:
                assert not cell["stderr"], f"unexpected stderr in {where}"
        if NONE_TAG in cell["tags"]:
            assert cell["nones"], f"expected a None gradient to be flagged in {where}"
            assert _is_tape_cell(cell), f"{NONE_TAG} on a cell without %%tape: {where}"
            assert re.search(r"None because .*\n\s*-> \S", cell["text"]), (
                f"no cause and fix for the None in {where}"
            )
            fix = next((c for c in cells[position + 1 :] if _is_tape_cell(c)), None)
            assert fix is not None and NONE_TAG not in fix["tags"], (
                f"no %%tape cell with the fix follows {where}"
            )
        else:
            assert not cell["nones"], (
                f"unexpected None gradient {cell['nones']} flagged in {where}"
            )
        if _is_tape_cell(cell):
            # The widget, with the static HTML (its drawing and tables) beside it
            # for viewers without a kernel; the flag shows in both.
            assert WIDGET_MIME in cell["mimes"], f"no widget under {where}"
            assert "<svg" in cell["html"], f"no drawing under {where}"
            flagged = "None gradient" in cell["html"]
            assert flagged == (NONE_TAG in cell["tags"]), (
                f"the view {'flags' if flagged else 'does not flag'} a None in {where}"
            )


def check_notebook(name: str, report: dict) -> dict[str, list[float]]:
    """:func:`check_cells`, then every cell shows what its ``expect`` says.

    Returns:
        The numbers the expectations' holes matched, by expectation (for a
        test report).
    """
    check_cells(name, report)
    numbers = {}
    for cell in report["cells"]:
        if not cell["expect"]:
            continue
        try:
            values = check_expectations(cell["expect"], cell["text"])
        except AssertionError as error:
            raise AssertionError(
                f"{name} cell {cell['index']}:\n{cell['source']}\n---\n{error}"
            ) from None
        if values:
            numbers[" / ".join(cell["expect"])] = values
    return numbers
