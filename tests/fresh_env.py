"""A fresh virtual environment away from the checkout, as a user would have one.

The wheel test and the Binder test both install tapemagic into a new virtual
environment and run notebooks there. They copy the files a clone would have
(never the working tree's ``build/`` or ``.venv``), and run every command with an
environment that names no other Python: no ``PYTHONPATH`` (which would put the
checkout on the path), no Jupyter or IPython settings of the machine, and
``HOME`` in a new folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["ROOT", "copy_checkout", "environment", "run", "site_packages"]

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(target: Path) -> None:
    """Copy the files a clone would have, as they are in this working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def environment(home: Path, venv: Path) -> dict[str, str]:
    """The variables a command in ``venv`` runs with, ``HOME`` being ``home``.

    pip's cache stays the machine's, so a second run downloads nothing.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("JUPYTER", "IPYTHON", "PYTHON", "VIRTUAL_ENV", "MPL"))
    }
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env.update(
        HOME=str(home),
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def run(command: list, **kwargs) -> str:
    """Run ``command``; fail with the end of its output unless it exits 0.

    Returns:
        What it printed on stdout.
    """
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} failed ({done.returncode}):\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def site_packages(venv: Path) -> Path:
    """The ``site-packages`` folder of ``venv`` (created by ``python -m venv``)."""
    found = sorted(venv.glob("lib/python3.*/site-packages"))
    assert len(found) == 1, f"expected one site-packages in {venv}, found {found}"
    return found[0].resolve()
