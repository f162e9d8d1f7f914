#!/bin/sh
# Runs the Dask integration's tests against a real local Dask cluster, in a virtual environment
# (.build/dask-venv) made here with what integrations/dask/requirements.txt lists, when missing.
# GEOWAKE names the geowake binary (default: .build/debug/geowake, built by `swift test`).
set -eu
cd "$(dirname "$0")/../.."
venv=.build/dask-venv
if ! "$venv/bin/python" -c "import dask.dataframe, distributed, pandas" >/dev/null 2>&1; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "dask tests: python3 -m venv failed; installing python3-venv" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check -r integrations/dask/requirements.txt
fi
geowake="${GEOWAKE:-.build/debug/geowake}"
[ -x "$geowake" ] || swift build --product geowake
case "$geowake" in /*) ;; *) geowake="$(pwd)/$geowake" ;; esac
root="$(pwd)"
cd integrations/dask && GEOWAKE="$geowake" PYTHONPATH=. "$root/$venv/bin/python" -m unittest -v tests.test_distributed
