# GeoWake — two commands on a fresh machine:
#   make demo   installs what is missing, builds, runs geowake analyze on a bundled real track
#               and geowake fetch on the bundled morning checker
#   make test   installs what is missing, runs every test, kills geowake serve (kill -9) five times
#               during a load and compares its stream with geowake analyze
#               (scripts/serve-crash-check.py), checks its HTTP API with curl (tokens and
#               scopes on every route, bodies over the limit, malformed requests, fence changes:
#               scripts/serve-api-check.py), fuzzes the API from its OpenAPI document with
#               schemathesis (scripts/serve-fuzz-check.sh), runs it over a real nats-server's JetStream
#               with kill -9s and a NATS restart (scripts/serve-nats-check.sh), sends generated push schedules to
#               its APNs endpoint with curl, httpx and aioapns over HTTP/2 and TLS and compares every answer and
#               step with geowake push (scripts/serve-apns-check.sh), the Dask integration's test on a local
#               cluster (integrations/dask/test.sh, in a virtual environment), builds a package
#               that depends on GeoWake by version (scripts/check-embeddable.sh), then runs every
#               parser's fuzz target for 5 seconds (scripts/fuzz.sh)
#   make test-sanitized  the tests under AddressSanitizer (and UBSan for the C kernels), the
#               concurrent ones under ThreadSanitizer; CI runs it after make test
SWIFT ?= swift
DEMO_BIN := .build/release/geowake

.PHONY: deps build demo test test-sanitized fuzz bench compare-peers format

deps:
	@sh scripts/install-deps.sh

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) build -c release --product geowake
	@echo "== geowake analyze: a real iPhone track through Tokyo, 8 regions, an app =="
	@$(DEMO_BIN) analyze --regions Fixtures/demo/tokyo-regions.csv Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx --app Fixtures/demo/app-scenario.json
	@echo "== geowake fetch: background fetch for a user who opens the app each morning =="
	@$(DEMO_BIN) fetch --usage Fixtures/fetch/morning-checker.csv --feed Fixtures/fetch/news-feed.csv

# Temporary files go to .build/test-tmp, emptied before and after: SwiftPM leaves a few
# TemporaryDirectory.* folders behind on every build and test run.
TEST_TMP := $(CURDIR)/.build/test-tmp

test: deps
	rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	TMPDIR=$(TEST_TMP) $(SWIFT) test
	TMPDIR=$(TEST_TMP) python3 scripts/serve-crash-check.py .build/debug/geowake Fixtures/demo/tokyo-regions.csv \
	  --devices 30 --fixes 500 --kills 5 --checkpoint-interval 0.05
	TMPDIR=$(TEST_TMP) python3 scripts/serve-crash-check.py .build/debug/geowake Fixtures/demo/tokyo-regions.csv \
	  --devices 30 --fixes 500 --kills 5 --checkpoint-interval 0.05 --seed 2 --rules="--dwell 60 --confirm-distance 5 --confirm-time 10"
	TMPDIR=$(TEST_TMP) python3 scripts/serve-api-check.py .build/debug/geowake Fixtures/demo/tokyo-regions.csv
	TMPDIR=$(TEST_TMP) sh scripts/serve-fuzz-check.sh .build/debug/geowake Fixtures/demo/tokyo-regions.csv 100
	TMPDIR=$(TEST_TMP) sh scripts/serve-nats-check.sh .build/debug/geowake Fixtures/demo/tokyo-regions.csv --devices 30 --fixes 500 --kills 5
	TMPDIR=$(TEST_TMP) sh scripts/serve-apns-check.sh .build/debug/geowake Fixtures/demo/tokyo-regions.csv
	TMPDIR=$(TEST_TMP) sh integrations/dask/test.sh
	TMPDIR=$(TEST_TMP) sh scripts/check-embeddable.sh
	FUZZ_SECONDS=5 sh scripts/fuzz.sh
	rm -rf $(TEST_TMP)

# Every test under AddressSanitizer (the C kernels also under UndefinedBehaviorSanitizer; Swift
# itself traps on overflow and out-of-bounds access), then the concurrent parts — many devices on
# every core, async app handlers, the parallel map, the track read ahead, a GPX file read in halves, a device-column file read in pieces — under ThreadSanitizer, with the geowake they
# run built the same way, both without the live engine (--disable-default-traits: the server's
# packages are not built under the sanitizers). Separate build folders, so the ordinary build is left as it is. Leak
# detection is off: the test harness's process runner leaks by design.
test-sanitized: deps
	rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	TMPDIR=$(TEST_TMP) ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(SWIFT) test --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	  --scratch-path .build/sanitized-address --disable-default-traits
	TMPDIR=$(TEST_TMP) TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build/sanitized-thread --disable-default-traits \
	  --filter "OrderedParallelMap|ManyDevices|AppSimulation|DeviceTimeline|ReadAhead|RegionShortcutTests|GPXHalves|DeviceRowPieces"
	rm -rf $(TEST_TMP)

# libFuzzer on every parser (Fuzz/ is its own package, built with -sanitize=fuzzer,address):
# FUZZ_SECONDS per target (default 60), or FUZZ_RUNS executions; FUZZ_TARGETS to choose.
fuzz: deps
	sh scripts/fuzz.sh

# package-benchmark suites (Benchmarks/ is its own package, so `make test` never builds them).
bench: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

# GeoWake beside GEOS, S2, shapely and a naive loop, on the same generated data, in one run.
compare-peers: deps
	Benchmarks/compare-peers

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks/Benchmarks Benchmarks/Sources
