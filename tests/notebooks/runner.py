"""Execute course notebooks with nbclient and report what a student would see.

The test suite imports :func:`run_notebook`; the Binder test runs this file as a
script with another virtual environment's Python, so it needs nothing beyond
nbclient and nbformat (which JupyterLab brings along)::

    python runner.py --report report.json [--save DIR] a.ipynb b.ipynb ...

Besides running the cells, the kernel gets a probe that notices every ``None``
gradient answered by a ``%%tape`` tape (a tape with an explanation log), and
attributes it to the cell whose code asked for it. That is the kernel's side of
the flag the widget shows; the report also keeps each cell's outputs, so a
test can check the student's side too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

__all__ = ["ERROR_TAG", "NONE_TAG", "PROBE", "run_notebook", "summarize_cell"]

# Cells tagged so are expected to raise (nbclient's own tag) or to flag a None
# gradient; untagged cells must do neither.
ERROR_TAG = "raises-exception"
NONE_TAG = "expect-none"

_REPORT_MARK = "TAPEMAGIC-PROBE-REPORT "

# Runs first, in the kernel: remembers, per execution count, the None gradients
# that the explained tapes in the user namespace answered during that cell.
PROBE = r"""
def _tapemagic_probe_install():
    import sys

    ip = get_ipython()
    seen = {}  # id(tape) -> (tape, requests already looked at)
    found = {}  # execution count -> ["b (g1)", ...]

    def tapes():
        try:
            from tapemagic.engine.recorder import explain_listener
            from tapemagic.engine.tape import GradientTape
        except ImportError:
            return []
        return [
            v
            for v in list(ip.user_ns.values())
            if isinstance(v, GradientTape) and explain_listener(v) is not None
        ]

    def post_run_cell(result):
        new = []
        for tape in tapes():
            _, done = seen.get(id(tape), (tape, 0))
            from tapemagic.engine.recorder import explain_listener

            count = len(explain_listener(tape).requests)
            if count <= done:
                continue
            from tapemagic.graph.from_tape import graph_from_tape
            from tapemagic.graph.index import index_of

            graph = graph_from_tape(tape)
            for request in graph.gradients[done:]:
                for answer in request.results:
                    if answer.none:
                        name = index_of(graph).name_of(answer.source)
                        new.append(f"{name} ({request.id})")
            seen[id(tape)] = (tape, count)
        if new and result.execution_count is not None:
            found[result.execution_count] = new

    ip.events.register("post_run_cell", post_run_cell)

    def report():
        import json

        return json.dumps({"prefix": sys.prefix, "nones": found})

    return report


_tapemagic_probe_report = _tapemagic_probe_install()
del _tapemagic_probe_install
"""

_REPORT = f"print({_REPORT_MARK!r} + _tapemagic_probe_report())"


def _text(output: dict) -> str:
    """What a text view shows of one output (stream, result, display or error)."""
    kind = output.get("output_type")
    if kind == "stream":
        return output.get("text", "")
    if kind == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    data = output.get("data", {})
    return str(data.get("text/plain", ""))


def _shown(outputs: list) -> str:
    """Every output as text, one after another; a stream goes on where the
    same stream's previous output stopped, as a notebook shows it."""
    parts: list[str] = []
    previous = None
    for output in outputs:
        stream = output.get("name") if output.get("output_type") == "stream" else None
        if parts and not (stream and stream == previous):
            parts.append("\n")
        parts.append(_text(output))
        previous = stream
    return "".join(parts)


def summarize_cell(cell: Any, index: int, nones: list[str]) -> dict:
    """The facts a test checks about one executed code cell.

    Args:
        cell: the executed nbformat code cell.
        index: its position in the notebook (markdown cells count).
        nones: the None gradients the probe saw while it ran.

    Returns:
        A JSON-ready dict: source, tags, expect (the texts its metadata says
        it shows), errors (exception names), stdout, stderr, text (every
        output as text), html (every text/html output), mime types shown
        besides text, and nones.
    """
    outputs = cell.get("outputs", [])
    expect = cell.get("metadata", {}).get("expect", [])
    mimes = sorted(
        {mime for o in outputs for mime in o.get("data", {})} - {"text/plain"}
    )
    return {
        "index": index,
        "source": cell.source,
        "tags": list(cell.get("metadata", {}).get("tags", [])),
        "expect": [expect] if isinstance(expect, str) else list(expect),
        "errors": [o["ename"] for o in outputs if o.get("output_type") == "error"],
        "stdout": "".join(
            o.get("text", "")
            for o in outputs
            if o.get("output_type") == "stream" and o.get("name") == "stdout"
        ),
        "stderr": "".join(
            o.get("text", "")
            for o in outputs
            if o.get("output_type") == "stream" and o.get("name") == "stderr"
        ),
        "text": _shown(outputs),
        "html": "\n".join(str(o.get("data", {}).get("text/html", "")) for o in outputs),
        "mimes": mimes,
        "nones": nones,
    }


def run_notebook(
    path: str | Path, *, timeout: int = 120, save: str | Path | None = None
) -> dict:
    """Run every cell of a notebook in a fresh kernel, as "Run All" would.

    Errors do not stop the run, so every cell's outcome is reported. The kernel
    is the ``python3`` kernel of this interpreter, started in the notebook's
    folder.

    Args:
        path: the notebook.
        timeout: seconds any one cell may take.
        save: if given, a folder where the executed notebook is written.

    Returns:
        ``{"name", "seconds", "prefix", "cells": [summarize_cell(...), ...],
        "widgets": the saved widget state}``, cells being the code cells only.
    """
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_REPORT))
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    probe_errors: list = []

    async def install_probe(notebook: Any) -> None:
        # Outside the history, so the cells keep the In[] numbers of "Run All".
        reply = await client.kc.execute_interactive(
            PROBE, store_history=False, timeout=timeout
        )
        if reply["content"]["status"] != "ok":
            probe_errors.append(reply["content"])

    client.on_notebook_start = install_probe
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    report_cell = nb.cells.pop()
    errors = [o for o in report_cell.outputs if o.get("output_type") == "error"]
    if probe_errors or errors:
        raise RuntimeError(
            f"the notebook probe failed in {path.name}: {probe_errors or errors}"
        )
    line = next(
        line
        for o in report_cell.outputs
        for line in o.get("text", "").splitlines()
        if line.startswith(_REPORT_MARK)
    )
    probe = json.loads(line[len(_REPORT_MARK) :])
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        count = cell.get("execution_count")
        nones = probe["nones"].get(str(count), []) if count is not None else []
        cells.append(summarize_cell(cell, index, nones))
    if save is not None:
        Path(save).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, Path(save) / path.name)
    return {
        "name": path.stem,
        "seconds": seconds,
        "prefix": probe["prefix"],
        "cells": cells,
        "widgets": nb.metadata.get("widgets", {}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--report", type=Path, required=True)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args(argv)
    reports = [
        run_notebook(nb, timeout=args.timeout, save=args.save) for nb in args.notebooks
    ]
    args.report.write_text(json.dumps(reports, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
