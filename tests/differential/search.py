"""A search run: many random programs on both, every kind of difference kept.

The long mode of ``test_against_tensorflow.py`` stops at the first
difference and shrinks it; a search keeps going, so one run shows every
kind of difference at once (the first line of each is its kind), each with
the shortest program that showed it. From fresh random seeds, with the
constants of tapemagic's modules among Hypothesis' draws::

    .venv/bin/python -m tests.differential.search 5000

It prints how many programs ran and each kind found; it exits 1 if any.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import warnings

import tensorflow as tf
from hypothesis import HealthCheck, given, settings

import tapemagic.tf as tm

from .compare import differences
from .generate import programs
from .program import Program, run, to_source

__all__ = ["search"]


def _kind(found: list[str]) -> str:
    """What a difference is, without its numbers: its first line, after the name."""
    first = found[0].splitlines()[0]
    return first.split(":", 1)[-1].strip()[:80]


def search(count: int) -> tuple[int, dict[str, tuple[list[str], str]]]:
    """Run ``count`` random programs: how many ran, and each kind of difference
    found with its shortest program."""
    kinds: dict[str, tuple[list[str], str]] = {}
    ran = 0

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(programs())
    def one(program: Program) -> None:
        nonlocal ran
        ran += 1
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            found = differences(run(program, tm), run(program, tf))
        if found:
            kind, source = _kind(found), to_source(program)
            if kind not in kinds or len(source) < len(kinds[kind][1]):
                kinds[kind] = (found, source)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # watching an integer warns, as in TF
        one()
    return ran, kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="how many programs to run")
    args = parser.parse_args(argv)
    ran, kinds = search(args.count)
    kind = "kind" if len(kinds) == 1 else "kinds"
    print(f"{ran} programs, {len(kinds)} {kind} of difference")
    for found, source in kinds.values():
        print("=" * 72)
        print("\n".join(found))
        print(source)
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main())
