#!/usr/bin/env bash
# lab.sh: set everything up, then open the course notebooks in JupyterLab.
#
#   bash scripts/lab.sh                  # http://localhost:8888/lab
#   bash scripts/lab.sh --port=9999      # extra args go to `jupyter lab`
#   bash scripts/lab.sh --ip=0.0.0.0     # listen on all interfaces
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
mkdir -p notebooks

args=(--notebook-dir=notebooks)
has_arg() {  # has_arg PREFIX ARG...: is an argument starting with PREFIX given?
    local prefix="$1" a
    shift
    for a in "$@"; do [[ "$a" == "$prefix"* ]] && return 0; done
    return 1
}
has_arg --ip "$@" || has_arg --ServerApp.ip "$@" || args+=(--ip=localhost)
# JupyterLab refuses to start as root without it (containers, CI machines).
if [ "$(id -u)" -eq 0 ] && ! has_arg --allow-root "$@"; then
    args+=(--allow-root)
fi

echo "== starting JupyterLab on notebooks/ (Ctrl-C to stop)"
exec .venv/bin/jupyter lab "${args[@]}" "$@"
