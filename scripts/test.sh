#!/usr/bin/env bash
# test.sh: set everything up, lint, then run the whole test suite.
#
#   bash scripts/test.sh                 # ruff + all tests, browser tests included
#   bash scripts/test.sh -m "not browser" -x   # extra args go to pytest
#   SKIP_APT=1 bash scripts/test.sh      # never touch apt
#   SKIP_DOCS=1 bash scripts/test.sh     # leave out the documentation site
#
# After lint, it builds the documentation site with scripts/docs.sh (warnings
# are errors, internal links checked), then runs pytest.
#
# Screenshots and other test artifacts go to ./artifacts (ARTIFACTS_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh

t0=$SECONDS
step() { printf '== [%4ss] %s\n' "$((SECONDS - t0))" "$*"; }

export ARTIFACTS_DIR="${ARTIFACTS_DIR:-$ROOT/artifacts}"
export E2E_ARTIFACTS_DIR="${E2E_ARTIFACTS_DIR:-$ARTIFACTS_DIR}"
# A missing browser or Playwright is a failure here, never a silent skip.
export E2E_REQUIRE_BROWSER=1
mkdir -p "$ARTIFACTS_DIR"

# The TensorFlow recorder's tests run every time: TensorFlow comes with the test
# extra, and its absence is a failure, never a silent skip.
if ! .venv/bin/python -c "import tensorflow" 2>/dev/null; then
    echo "test.sh: TensorFlow is missing from .venv (it is in the test extra); rerun with FORCE_PIP=1" >&2
    exit 1
fi

step "ruff check + ruff format --check"
lint_rc=0
.venv/bin/ruff check . || lint_rc=1
.venv/bin/ruff format --check . || lint_rc=1
if [ "$lint_rc" -ne 0 ]; then
    echo "test.sh: lint failed (fix with: .venv/bin/ruff check --fix . && .venv/bin/ruff format .)" >&2
    exit 1
fi

if [ "${SKIP_DOCS:-0}" = 1 ]; then
    step "docs: skipped (SKIP_DOCS=1)"
else
    step "docs: bash scripts/docs.sh"
    bash scripts/docs.sh
fi

step "pytest"
set +e
.venv/bin/python -m pytest -p no:cacheprovider "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests (exit 5); that counts as a failure" >&2
fi
step "done: pytest exit $rc; artifacts in $ARTIFACTS_DIR"
exit "$rc"
