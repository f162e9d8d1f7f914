#!/bin/sh
# Runs the Dask integration's tests against a real local Dask cluster, in a virtual environment
# (.build/dask-venv) made here with what integrations/dask/requirements.txt lists, when missing.
# GEOWAKE names the geowake binary (default: .build/debug/geowake, built by `swift test`).
set -eu
cd "$(dirname "$0")/../.."
venv=.build/dask-venv
. scripts/python-venv.sh
python_venv "$venv" "$venv/bin/python -c 'import dask.dataframe, distributed, pandas'" -r integrations/dask/requirements.txt
geowake="${GEOWAKE:-.build/debug/geowake}"
[ -x "$geowake" ] || swift build --product geowake
case "$geowake" in /*) ;; *) geowake="$(pwd)/$geowake" ;; esac
root="$(pwd)"
cd integrations/dask && GEOWAKE="$geowake" PYTHONPATH=. "$root/$venv/bin/python" -m unittest -v tests.test_distributed
