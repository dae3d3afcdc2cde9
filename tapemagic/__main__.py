"""``python -m tapemagic run script.py [args]``: a TensorFlow program, unchanged,
on tapemagic (``import tensorflow`` loads :mod:`tapemagic.tf`; see
:mod:`tapemagic.alias`)."""

from __future__ import annotations

import os
import runpy
import sys

__all__ = ["main"]

USAGE = (
    "usage: python -m tapemagic run script.py [args ...]\n"
    "Runs script.py with `import tensorflow` and `import keras` loading "
    "tapemagic's modules."
)


def main(argv: list[str]) -> int:
    """Run the command line ``argv`` (without the program name); the exit status."""
    if len(argv) < 2 or argv[0] != "run":
        print(USAGE, file=sys.stderr)
        return 2
    script = argv[1]
    from .alias import alias_tensorflow

    alias_tensorflow()
    sys.argv = argv[1:]
    # as `python script.py` does: the script's folder first on the path
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except FileNotFoundError as err:
        if err.filename != script:
            raise
        print(f"python -m tapemagic run: no such file: {script!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
