#!/usr/bin/env bash
# lab.sh: set everything up, then open the course in JupyterLab.
#
#   bash scripts/lab.sh                  # the first course notebook, on port 8888 or the next free one
#   bash scripts/lab.sh --port=9999      # extra args go to `jupyter lab`
#   bash scripts/lab.sh --ip=0.0.0.0     # listen on all interfaces
#
# The last line it prints is the address to open, with its token:
#   http://localhost:8888/lab/tree/01-gradient-tape-basics.ipynb?token=...
# JupyterLab itself logs warnings and errors only; Ctrl-C stops it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
PY="$ROOT/.venv/bin/python"

FIRST_NOTEBOOK="01-gradient-tape-basics.ipynb"

# value_of NAME ARG...: the value of the last --NAME=VALUE among the arguments.
value_of() {
    local name="$1" a value=""
    shift
    for a in "$@"; do [[ "$a" == "--$name="* ]] && value="${a#*=}"; done
    echo "$value"
}

args=(
    --notebook-dir=notebooks
    --LabApp.default_url="/lab/tree/$FIRST_NOTEBOOK"
    --no-browser
    --log-level=WARN
)
port="$(value_of port "$@")"
[ -n "$port" ] || port="$(value_of ServerApp.port "$@")"
if [ -z "$port" ]; then  # 8888, or the next port nothing listens on
    port="$("$PY" - <<'PY'
import socket
for port in range(8888, 8988):
    with socket.socket() as s:
        try:
            s.bind(("localhost", port))
        except OSError:
            continue
        print(port)
        break
PY
)"
    args+=(--port="$port")
fi
token="$(value_of IdentityProvider.token "$@")"
if [ -z "$token" ]; then
    token="$("$PY" -c 'import secrets; print(secrets.token_hex(24))')"
    args+=(--IdentityProvider.token="$token")
fi
ip="$(value_of ip "$@")"
[ -n "$ip" ] || ip="$(value_of ServerApp.ip "$@")"
[ -n "$ip" ] || args+=(--ip=localhost)
# JupyterLab refuses to start as root without it (containers, CI machines).
if [ "$(id -u)" -eq 0 ] && [[ " $* " != *" --allow-root "* ]]; then
    args+=(--allow-root)
fi

host=localhost
case "$ip" in "" | 0.0.0.0 | "*" | localhost) ;; *) host="$ip" ;; esac
url="http://$host:$port/lab/tree/$FIRST_NOTEBOOK?token=$token"

echo "== starting JupyterLab on notebooks/ (Ctrl-C to stop)"
# Once the server answers, say where to go: the last line printed. JupyterLab
# logs warnings and errors only, so nothing follows it but what goes wrong.
(
    if "$PY" - "http://localhost:$port/api/status?token=$token" "$$" <<'PY'
import os, sys, time, urllib.request

url, server = sys.argv[1], int(sys.argv[2])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
while True:
    try:
        opener.open(url, timeout=2).close()
        break
    except OSError:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            sys.exit(1)  # the server stopped; it said why
        time.sleep(0.5)
PY
    then
        echo "== JupyterLab is ready. Open the course in your browser at this address:"
        echo "$url"
    fi
) &
# exec: JupyterLab takes this process's place (and its PID, which the lines
# above wait on), so Ctrl-C reaches it as it would without this script.
exec .venv/bin/jupyter lab "${args[@]}" "$@"
