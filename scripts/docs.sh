#!/usr/bin/env bash
# docs.sh: set everything up, then build the documentation site and check it.
#
#   bash scripts/docs.sh                 # site in docs/_build/html
#   SKIP_APT=1 bash scripts/docs.sh      # never touch apt
#
# Sphinx builds from scratch with warnings as errors (-W, and every warning
# shown before failing), executing the course notebooks and the pages' cells;
# then every internal link and anchor of the built pages is checked.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh

t0=$SECONDS
step() { printf '== [%4ss] %s\n' "$((SECONDS - t0))" "$*"; }

OUT="$ROOT/docs/_build/html"
step "sphinx-build: docs -> $OUT"
rm -rf "$ROOT/docs/_build"
# The build and the kernels that run the notebooks import this checkout's tapemagic.
PYTHONPATH="$ROOT" .venv/bin/python -m sphinx -W --keep-going -E -q -b html docs "$OUT"
step "links: every internal link and anchor"
.venv/bin/python docs/_ext/check_links.py "$OUT"
step "done: open $OUT/index.html"
