#!/bin/sh
# Installs what GeoWake needs to build and test, only when it is missing:
#   - GEOS's C library and headers (libgeos-dev / brew geos) and pkg-config, which finds them;
#   - zlib's headers (zlib1g-dev; macOS has them), for gzip-compressed inputs;
#   - SQLite's library and headers (libsqlite3-dev / brew sqlite), geowake serve's embedded store;
#   - the NATS C client (libnats-dev / brew cnats), geowake serve --nats, and a NATS server
#     (nats-server), which make test starts to check it;
#   - curl, the client make test checks geowake serve's HTTP API with (macOS has it).
# Debian/Ubuntu: apt-get (with sudo when not root). macOS: Homebrew. Other systems: says what to install.
set -eu

have_geos() {
  command -v curl >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1 && pkg-config --exists geos && pkg-config --exists sqlite3 && pkg-config --exists libnats && command -v nats-server >/dev/null 2>&1 && { [ "$(uname -s)" = Darwin ] || pkg-config --exists zlib; }
}

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: 'swift' is not on PATH; install Swift 6.1 or newer from https://swift.org/install" >&2
  exit 69  # EX_UNAVAILABLE
fi

if have_geos; then
  exit 0
fi

case "$(uname -s)" in
  Linux)
    if command -v apt-get >/dev/null 2>&1; then
      if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-deps: need root or sudo to run apt-get install libgeos-dev zlib1g-dev libsqlite3-dev libnats-dev nats-server pkg-config curl" >&2
        exit 77  # EX_NOPERM
      fi
      echo "install-deps: installing libgeos-dev, zlib1g-dev, libsqlite3-dev, libnats-dev, nats-server, pkg-config and curl with apt-get" >&2
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libgeos-dev zlib1g-dev libsqlite3-dev libnats-dev nats-server pkg-config curl >/dev/null
    else
      echo "install-deps: please install GEOS (C API headers, 'geos' pkg-config module) and pkg-config" >&2
      exit 69
    fi
    ;;
  Darwin)
    if command -v brew >/dev/null 2>&1; then
      brew install geos sqlite cnats nats-server pkg-config
    else
      echo "install-deps: install Homebrew (https://brew.sh), then: brew install geos pkg-config" >&2
      exit 69
    fi
    ;;
  *)
    echo "install-deps: unsupported system $(uname -s); install GEOS and pkg-config by hand" >&2
    exit 69
    ;;
esac

if ! have_geos; then
  echo "install-deps: GEOS still not found by 'pkg-config geos' after installing" >&2
  exit 69
fi
