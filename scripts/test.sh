#!/usr/bin/env bash
# The test command: installs what is needed, builds, runs the end-to-end and
# load tests on an optimized build, every test under AddressSanitizer +
# UndefinedBehaviorSanitizer, the libFuzzer targets for 15 s each (a clang
# build of the fuzzers alone), and the Kueue conformance scenarios through
# `kuota simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SHARED=${KUOTA_SHARED:-$ROOT/../shared}
JOBS=${JOBS:-$(nproc)}

bash scripts/setup.sh

# The optimized build holds what only it can check: the binaries the
# end-to-end tests and the conformance checker drive at full speed, and the
# server tests whose memory and latency bounds mean nothing under ASan. Every
# unit test runs in the sanitizer build below (one build of each, not two).
# It is its own tree (build-test), at -O1 without debug info: about 40 % less
# compile time than -O2 -g, and the tests it runs do not need more; build/
# (scripts/build.sh, the benchmarks) keeps its own flags.
echo "== build (-O1): kuota, kuotad, server tests, fuzz replay"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" -DKUOTA_BUILD_BENCH=OFF >/dev/null
ninja -C build-test -j "$JOBS" kuota kuotad kuota_server_test kuota_fuzz_replay

echo "== end-to-end, server and fuzz-replay tests (optimized)"
ctest --test-dir build-test --output-on-failure -j "$JOBS" \
  -R '^(kuotad_|perf_|readme_|fuzz_)|^(WatchMemory|Overload|SlowClient|HealthListener|StreamCap)'
# The fault, disk-full and security tests' summary lines (ctest shows the
# output of failed tests only).
grep -h -E '^(fault|disk full|security|kube mode|deploy|metrics|ui|monitoring): ' build-test/Testing/Temporary/LastTest.log || true

echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKUOTA_SANITIZE=ON \
  -DKUOTA_BUILD_BENCH=OFF >/dev/null
ninja -C build-asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS"
grep -h -E '^(fault|disk full|security|kube mode|deploy|metrics|ui|monitoring): ' build-asan/Testing/Temporary/LastTest.log || true

echo "== libFuzzer: every target for ${KUOTA_FUZZ_SECONDS:-15} s (clang, ASan + UBSan; docs/fuzzing.md)"
# A clang build of the libraries and the 13 fuzz targets only (no tests),
# unoptimized as the sanitizer build: it compiles twice as fast as -O1.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DKUOTA_FUZZ=ON -DKUOTA_SANITIZE=ON -DKUOTA_BUILD_TESTS=OFF -DKUOTA_BUILD_BENCH=OFF >/dev/null
ninja -C build-fuzz -j "$JOBS" kuota_fuzzers
bash scripts/fuzz.sh "${KUOTA_FUZZ_SECONDS:-15}" build-fuzz

echo "== Kueue conformance scenarios"
if [[ ! -d "$SHARED/conformance/cases" ]]; then
  echo "conformance cases not found at $SHARED/conformance (set KUOTA_SHARED)" >&2
  exit 1
fi
PY=python3
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; fi
"$PY" "$SHARED/conformance/check" \
  --cmd "$ROOT/build-test/kuota simulate --cycles {cycles} --now {now} -o json -f {state}" \
  "$SHARED/conformance/cases" "$ROOT/tests/scenarios"
