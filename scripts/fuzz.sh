#!/bin/sh
# make fuzz: builds the libFuzzer harness (Fuzz/, with -sanitize=fuzzer,address) and runs every
# parser target for FUZZ_SECONDS seconds (default 60), seeded from Fixtures/ and Fuzz/seeds/.
#   FUZZ_TARGETS="gpx csv"   only these targets
#   FUZZ_RUNS=10000000       stop each target after this many executions instead
#   FUZZ_MAX_LEN=4096        the longest input tried (bytes)
# A crash, leak or timeout is written to Fuzz/findings/TARGET/ and ends the script with status 1;
# each one found becomes a regression test. The corpus grows in Fuzz/.build/corpus/TARGET.
set -eu
cd "$(dirname "$0")/../Fuzz"
mkdir -p .build
build() {
  swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product geowake-fuzz \
    >.build/fuzz-build.log 2>&1
}
# A source file renamed or removed in the package can leave SwiftPM's cached build description of
# this package (which reaches the sources by path) naming it ("missing inputs"), and a C header
# added to a module's include directory can leave the compiler's cached build of that module
# without it ("cannot find ... in scope"): drop both and build once more. A build that still
# fails shows its output.
if ! build; then
  rm -f .build/*/release/description.json
  rm -rf .build/*/release/ModuleCache
  build || { cat .build/fuzz-build.log >&2; echo "fuzz: the harness does not build (above)" >&2; exit 1; }
fi
bin=$(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)/geowake-fuzz
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"track statistics analyze fidelity gpx csv jsonl regions validated scenario pushes push towers schedules fetch"}
seeds() {
  # The seed files for a target: small fixtures of its format.
  case $1 in
    track) find ../Fixtures -size -64k \( -name '*.gpx' -o -name '*.csv' -o -name '*.jsonl' \); find seeds/track seeds/gpx -type f ;;
    gpx) find ../Fixtures -size -64k -name '*.gpx'; find seeds/gpx -type f ;;
    statistics | analyze | fidelity) seeds track ;;
    validated) seeds regions ;;
    push) seeds pushes ;;
    fetch) find ../Fixtures/fetch -name '*checker.csv' ;;
    csv) find ../Fixtures/demo ../Fixtures/cells/drive_logs ../Fixtures/fidelity -size -64k -name '*.csv' | head -40 ;;
    jsonl) find ../Fixtures -size -64k -name '*.jsonl' ;;
    regions) find ../Fixtures/demo ../Fixtures/polygons -size -64k \( -name '*.csv' -o -name '*.json' \); find seeds/regions -type f ;;
    scenario) find seeds/scenario -type f ;;
    pushes) find ../Fixtures/push -name '*.jsonl' ;;
    towers) find ../Fixtures/cells/opencellid -size -64k -name '*.csv' ;;
    schedules) find ../Fixtures/fetch ../Fixtures/push -name '*.csv'; find ../Fixtures/fidelity -maxdepth 2 -name 'departures.csv' ;;
  esac
}
status=0
for target in $targets; do
  corpus=.build/corpus/$target
  mkdir -p "$corpus" "findings/$target"
  seeds "$target" | while read -r f; do cp "$f" "$corpus/seed-$(echo "$f" | cksum | cut -d' ' -f1)"; done
  limit="-max_total_time=$seconds"
  [ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
  log=.build/fuzz-$target.log
  if GEOWAKE_FUZZ_TARGET=$target "$bin" "$corpus" $limit -max_len=${FUZZ_MAX_LEN:-4096} -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="findings/$target/" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    per=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "fuzz $target: $runs executions ($per/s), no crash"
  else
    echo "fuzz $target: FAILED, see Fuzz/$log and Fuzz/findings/$target/"
    tail -30 "$log"
    status=1
  fi
done
exit $status
