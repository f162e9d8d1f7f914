#!/bin/sh
# geowake serve's HTTP API fuzzed from its own OpenAPI document with schemathesis (PyPI, in a
# virtual environment made here, .build/schemathesis-venv, when missing): every operation with
# valid and invalid parameters, bodies and headers, and every check schemathesis has (no 5xx, the
# status codes, content types and bodies the document states, the document itself valid OpenAPI)
# but two: a valid request may be answered 404 (a device or region that is not there), and a batch
# of fixes the document would refuse is answered 200 with a reason for each fix, by design.
# A long poll is asked with wait=0 so that a run takes a minute rather than its waits.
# usage: scripts/serve-fuzz-check.sh GEOWAKE REGIONS [EXAMPLES]   (EXAMPLES per operation, default 30)
set -eu
geowake="$1"; regions="$2"; examples="${3:-30}"
cd "$(dirname "$0")/.."
venv=.build/schemathesis-venv
. scripts/python-venv.sh
python_venv "$venv" "$venv/bin/st --version" "schemathesis==4.32.5"
work="$(mktemp -d "${TMPDIR:-/tmp}/geowake-fuzz-XXXXXX")"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM
token="fuzz-token-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
echo "$token ingest,read,admin" > "$work/tokens"
"$geowake" serve --regions "$regions" --data "$work/data" --listen 127.0.0.1:0 --tokens "$work/tokens" 2> "$work/serve.log" &
pid=$!
port=""
for _ in $(seq 300); do
  port="$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$work/serve.log" | head -n 1)"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "serve-fuzz-check: the server did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
cat > "$work/schemathesis.toml" <<TOML
[parameters]
"query.wait" = 0

# Every check but positive_data_acceptance: a valid request may be answered 404 (a device or
# region that is not there).
[checks]
positive_data_acceptance.enabled = false

# A batch's fixes are checked one by one: one the document would refuse is answered, in a 200,
# rejected with its line, field and reason, beside the others.
[[operations]]
include-name = "POST /v1/fixes"
checks.negative_data_rejection.enabled = false
TOML
status=0
(cd "$work" && "$OLDPWD/$venv/bin/st" run "http://127.0.0.1:$port/openapi.json" \
  -H "Authorization: Bearer $token" \
  -n "$examples" --request-timeout 20 --generation-deterministic --no-color) > "$work/st.txt" 2>&1 || status=$?
if ! kill -0 "$pid" 2>/dev/null; then
  echo "serve-fuzz-check: the server died during the run; its log:" >&2; head -c 20000 "$work/serve.log" >&2
  echo "serve-fuzz-check: the requests made:" >&2; tail -n 60 "$work/st.txt" >&2; exit 1
fi
cat "$work/st.txt"
exit "$status"
