"""Write the course notebooks for real TensorFlow: no tapemagic, no ``%%tape``.

    .venv/bin/python notebooks/source/to_tensorflow.py DIR          # every notebook
    .venv/bin/python notebooks/source/to_tensorflow.py DIR a.ipynb  # only these

Each notebook is written to ``DIR`` under its own name, with three changes:
``import tapemagic.tf as tf`` becomes ``import tensorflow as tf`` and
``%load_ext tapemagic`` goes; every ``%%tape`` cell becomes the
``with tf.GradientTape(...)`` block it stands for (and the ``tape.gradient``
call its ``--target``/``--sources`` ask for); a cell tagged ``tapemagic-only``
(one that shows what only tapemagic has, such as ``tape.explain()``) is kept as
comments. Markdown cells, tags and cell ids are unchanged.
"""

from __future__ import annotations

import argparse
import copy
import re
import shlex
import sys
import textwrap
from pathlib import Path

import nbformat

__all__ = ["ONLY_TAG", "as_tensorflow", "main", "tape_cell_as_tensorflow"]

HERE = Path(__file__).resolve().parent
COURSE = HERE.parent  # the course notebooks; this file sits in their source/
# A cell whose code has no TensorFlow equivalent: kept as comments.
ONLY_TAG = "tapemagic-only"
_IMPORT = re.compile(r"^import tapemagic\.tf as tf\b.*$", re.MULTILINE)
_LOAD_EXT = re.compile(r"^%load_ext tapemagic[ \t]*\n?", re.MULTILINE)


def _tape_options() -> argparse.ArgumentParser:
    """The ``%%tape`` options that change what the cell computes."""
    parser = argparse.ArgumentParser(prog="%%tape", add_help=False)
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument(
        "--no-watch-accessed", dest="watch_accessed", action="store_false"
    )
    parser.add_argument("--watch")
    parser.add_argument("--name", default="tape")
    parser.add_argument("--target")
    parser.add_argument("--sources")
    parser.add_argument("--out", default="grads")
    parser.add_argument("--unconnected", default="none")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--show")
    parser.add_argument("--engine")
    return parser


def tape_cell_as_tensorflow(source: str) -> str:
    """A ``%%tape`` cell as the plain TensorFlow it stands for.

    Example:
        >>> cell = "%%tape --target y --sources x,b\\ny = x * b"
        >>> print(tape_cell_as_tensorflow(cell))
        with tf.GradientTape() as tape:
            y = x * b
        grads = tape.gradient(y, [x, b])
    """
    header, _, body = source.partition("\n")
    options, unknown = _tape_options().parse_known_args(shlex.split(header)[1:])
    if unknown:
        raise ValueError(
            f"{header!r}: no TensorFlow equivalent known for {' '.join(unknown)}; "
            "add the option to notebooks/source/to_tensorflow.py or tag the cell "
            f"{ONLY_TAG!r}"
        )
    arguments = []
    if options.persistent:
        arguments.append("persistent=True")
    if not options.watch_accessed:
        arguments.append("watch_accessed_variables=False")
    lines = [f"with tf.GradientTape({', '.join(arguments)}) as {options.name}:"]
    if options.watch:
        lines.append(f"    {options.name}.watch([{options.watch}])")
    lines.append(textwrap.indent(body, "    "))
    if options.target is not None:
        sources = options.sources
        if "," in sources and not sources.startswith(("[", "(", "{")):
            sources = "[" + ", ".join(name.strip() for name in sources.split(",")) + "]"
        zero = ", unconnected_gradients=tf.UnconnectedGradients.ZERO"
        extra = zero if options.unconnected == "zero" else ""
        call = f"{options.name}.gradient({options.target}, {sources}{extra})"
        lines.append(f"{options.out} = {call}")
    return "\n".join(lines)


def as_tensorflow(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook for real TensorFlow: ``import tensorflow as tf``, no magic."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if ONLY_TAG in cell.metadata.get("tags", []):
            cell.source = "# tapemagic only, no TensorFlow equivalent:\n" + (
                textwrap.indent(cell.source, "# ", lambda line: True)
            )
            continue
        source = _LOAD_EXT.sub("", cell.source)
        source = _IMPORT.sub("import tensorflow as tf", source)
        if source.startswith("%%tape"):
            source = tape_cell_as_tensorflow(source)
        cell.source = source
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write the course notebooks for real TensorFlow (no %%tape)."
    )
    parser.add_argument("out", metavar="DIR", type=Path, help="folder to write to")
    parser.add_argument(
        "notebooks",
        nargs="*",
        type=Path,
        help="notebooks to convert (default: every notebooks/*.ipynb)",
    )
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(COURSE.glob("*.ipynb"))
    args.out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        nb.metadata.pop("jupytext", None)  # the copy is not paired
        nbformat.write(as_tensorflow(nb), args.out / path.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
