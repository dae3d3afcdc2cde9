"""Write the student version of each exercise notebook with `otter assign`.

The instructor's notebooks in ``master/`` hold the solutions and the checks in
otter-grader's assignment format. For each one, ``otter assign`` writes a
student version (solutions replaced by the prompts, checks as
``grader.check(...)`` cells, public tests in the notebook's metadata) and an
autograder version (solutions kept). This script runs it, gives the student
version's cells ids derived from their content (``otter assign`` makes random
ones, which would change every line of a diff), and writes it next to this
file, where Binder students open it::

    python notebooks/exercises/assign.py            # rewrite the student versions
    python notebooks/exercises/assign.py --out DIR  # write both versions to DIR only

``--out`` leaves the committed files alone: the tests use it to check that the
committed student versions are what the masters produce.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
MASTER_DIR = HERE / "master"


def masters() -> list[Path]:
    """The instructor's notebooks, in name order."""
    return sorted(MASTER_DIR.glob("*.ipynb"))


def stable_ids(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Give every cell an id made from its type and source (repeats numbered)."""
    seen: dict[str, int] = {}
    for cell in nb.cells:
        digest = hashlib.sha1(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()
        base = digest[:12]
        seen[base] = seen.get(base, 0) + 1
        cell["id"] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    return nb


def assign(master: Path, out: Path) -> dict[str, Path]:
    """Run ``otter assign`` on one master notebook.

    Args:
        master: the instructor's notebook.
        out: a folder; ``student/`` and ``autograder/`` are written in it.

    Returns:
        ``{"student": path, "autograder": path}`` of the two versions; the
        student version has stable cell ids.
    """
    result = subprocess.run(
        [sys.executable, "-m", "otter", "assign", "--no-pdfs", str(master), str(out)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"otter assign failed on {master.name}:\n{result.stdout}{result.stderr}"
        )
    paths = {kind: out / kind / master.name for kind in ("student", "autograder")}
    student = stable_ids(nbformat.read(paths["student"], as_version=4))
    nbformat.write(student, paths["student"])
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, help="write both versions here, not next to this file"
    )
    args = parser.parse_args(argv)
    if args.out is not None:
        for master in masters():
            assign(master, args.out)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for master in masters():
            student = assign(master, Path(tmp))["student"]
            (HERE / master.name).write_text(student.read_text())
            print(f"wrote {HERE / master.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
