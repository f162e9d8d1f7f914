# Sourced by the scripts that need packages from PyPI (the Dask integration's test, the API
# fuzzer, the NATS check). `python_venv VENV CHECK PIP_ARGUMENTS…` makes the virtual environment
# VENV and installs PIP_ARGUMENTS in it with pip, unless the shell command CHECK succeeds already;
# a system without Python's venv module gets python3-venv from apt-get first.
python_venv() {
  venv="$1"; check="$2"; shift 2
  if sh -c "$check" >/dev/null 2>&1; then return 0; fi
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "$(basename "$0"): python3 -m venv failed; installing python3-venv" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "$@"
}
