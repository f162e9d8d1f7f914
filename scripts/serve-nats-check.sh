#!/bin/sh
# geowake serve over NATS JetStream against a real nats-server (scripts/serve-nats-check.py), in a
# virtual environment (.build/nats-venv) made here with nats-py from PyPI when missing. Needs
# Debian's nats-server (scripts/install-deps.sh installs it).
# usage: scripts/serve-nats-check.sh GEOWAKE REGIONS [serve-nats-check.py options]
set -eu
cd "$(dirname "$0")/.."
venv=.build/nats-venv
if ! "$venv/bin/python" -c "import nats" >/dev/null 2>&1; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "serve-nats-check: python3 -m venv failed; installing python3-venv" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "nats-py==2.9.0"
fi
command -v nats-server >/dev/null 2>&1 || { echo "serve-nats-check: nats-server is not installed (scripts/install-deps.sh installs it)" >&2; exit 69; }
exec "$venv/bin/python" scripts/serve-nats-check.py "$@"
