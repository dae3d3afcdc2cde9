#!/usr/bin/env bash
# setup.sh: install everything tapemagic needs to run, develop and test.
#
#   bash scripts/setup.sh            # Debian packages (if missing) + .venv
#   SKIP_APT=1 bash scripts/setup.sh # never touch apt
#   FORCE_PIP=1 bash scripts/setup.sh   # reinstall into .venv even if up to date
#   PYTHON=/path/to/python3.12 bash scripts/setup.sh   # interpreter for a new .venv
#
# Safe to run again: apt runs only when a Debian package is missing, .venv is
# created only when missing, and pip runs only when pyproject.toml or
# constraints.txt changed since the last successful install (or the editable
# install is gone). Runs as root (CI) or as a user with sudo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
STAMP="$VENV/.tapemagic-setup"

t0=$SECONDS
step() { printf '== [%4ss] %s\n' "$((SECONDS - t0))" "$*"; }

# --- 1. Debian packages ----------------------------------------------------
# graphviz             the `dot` binary that the graphviz python package runs
# chromium             /usr/bin/chromium for the browser tests (Debian's build:
#                      never `playwright install`, which downloads its own browser)
# fonts-liberation(2)  metric-compatible Times/Arial/Courier for graphviz labels
# fonts-dejavu-core    JupyterLab's UI font fallback
APT_PACKAGES=(graphviz chromium fonts-liberation fonts-liberation2 fonts-dejavu-core)

apt_missing() {
    local pkg status
    for pkg in "${APT_PACKAGES[@]}"; do
        status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
        [ "$status" = installed ] || echo "$pkg"
    done
}

if [ "${SKIP_APT:-0}" = 1 ]; then
    step "apt: skipped (SKIP_APT=1)"
else
    missing="$(apt_missing | tr '\n' ' ')"
    if ! command -v dot >/dev/null || [ ! -x /usr/bin/chromium ]; then
        missing="${missing:-${APT_PACKAGES[*]}}"
    fi
    if [ -z "$missing" ]; then
        step "apt: graphviz, chromium and fonts already installed"
    else
        step "apt: installing ${missing% }"
        SUDO=()
        if [ "$(id -u)" -ne 0 ]; then
            command -v sudo >/dev/null || {
                echo "setup.sh: not root and no sudo; install as root: apt-get install ${APT_PACKAGES[*]}" >&2
                echo "          (or rerun with SKIP_APT=1 if they are installed)" >&2
                exit 1
            }
            SUDO=(sudo)
        fi
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${APT_PACKAGES[@]}" >/dev/null
    fi
fi
if [ "${SKIP_APT:-0}" != 1 ]; then
    command -v dot >/dev/null || { echo "setup.sh: dot (graphviz) missing after apt" >&2; exit 1; }
    [ -x /usr/bin/chromium ] || { echo "setup.sh: /usr/bin/chromium missing after apt" >&2; exit 1; }
fi

# --- 2. Python virtual environment ----------------------------------------
python_ok() {  # usable for a new venv: runs, is 3.11+, has venv
    "$1" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null
}

if [ -x "$VENV/bin/python" ] && python_ok "$VENV/bin/python"; then
    step "venv: $VENV exists ($("$VENV/bin/python" -V 2>&1))"
else
    PY=""
    for candidate in ${PYTHON:-} python3.11 python3; do
        if command -v "$candidate" >/dev/null && python_ok "$candidate"; then
            PY="$candidate"
            break
        fi
    done
    [ -n "$PY" ] || { echo "setup.sh: need Python 3.11+ with venv (set PYTHON=...)" >&2; exit 1; }
    step "venv: creating $VENV with $PY ($("$PY" -V 2>&1))"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
fi

# --- 3. Python packages ----------------------------------------------------
# Everything is pinned by constraints.txt (a full `pip freeze` of a working venv).
# The stamp records what was installed; a match means there is nothing to do.
want="$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1) $ROOT"
installed_here() {  # the editable tapemagic in .venv points at this checkout
    "$VENV/bin/python" -I - "$ROOT" <<'PY' 2>/dev/null  # -I: not the ./*.egg-info
import json, sys
from importlib.metadata import distribution
from pathlib import Path
from urllib.parse import unquote, urlparse
url = json.loads(distribution("tapemagic").read_text("direct_url.json"))["url"]
sys.exit(Path(unquote(urlparse(url).path)).resolve() != Path(sys.argv[1]).resolve())
PY
}
if [ "${FORCE_PIP:-0}" != 1 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] \
    && installed_here; then
    step "pip: .venv up to date with pyproject.toml + constraints.txt"
else
    step "pip: upgrading pip"
    rm -f "$STAMP"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    step "pip: installing -e .[test,lab,docs] with constraints.txt"
    "$VENV/bin/python" -m pip install -q -c constraints.txt -e ".[test,lab,docs]"
    echo "$want" >"$STAMP"
fi

step "setup done: .venv ready ($("$VENV/bin/python" -V 2>&1))"
