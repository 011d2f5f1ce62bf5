#!/usr/bin/env bash
# The test command: installs what is needed, then one build — clang, with
# AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's coverage —
# that runs every test (unit, end-to-end, load, fault, fuzz replay), the
# libFuzzer targets for 10 s each, and the Kueue conformance scenarios
# through `kuota simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SHARED=${KUOTA_SHARED:-$ROOT/../shared}
JOBS=${JOBS:-$(nproc)}

bash scripts/setup.sh

# One build of everything (build-ci): the tests, kuota and kuotad the
# end-to-end tests drive, and the 13 fuzz targets, whose coverage
# instrumentation the libraries carry (docs/fuzzing.md). Tests whose latency
# or memory bounds mean little under the sanitizers allow for them
# (KUOTA_SANITIZED); the figures themselves are measured in bench/.
# Precompiled headers (most of a file's compile time is parsing json, gtest,
# CLI11, httplib), a unity build (16 files of a target compiled as one: the
# templates they share are instantiated once; src/CMakeLists.txt lists the
# files compiled alone) and lld (links the 40-odd sanitized binaries faster).
echo "== build (clang-14, ASan + UBSan, libFuzzer coverage, every target)"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-ci -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only" -DKUOTA_SANITIZE=ON -DKUOTA_FUZZ=ON \
  -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld" -DKUOTA_PCH=ON -DKUOTA_BUILD_BENCH=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
ninja -C build-ci -j "$JOBS"

# As many tests at once as cores: all of them together keep the cores busy
# (twice as many at once took as long, 1.8 cores of CPU either way, and made
# the end-to-end tests' timings flaky).
echo "== every test under AddressSanitizer + UndefinedBehaviorSanitizer"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-ci --output-on-failure -j "$JOBS"
# The fault, disk-full, security, ... tests' summary lines (ctest shows the
# output of failed tests only).
grep -h -E '^(fault|disk full|security|kube mode|deploy|metrics|ui|monitoring): ' build-ci/Testing/Temporary/LastTest.log || true

echo "== libFuzzer: every target for ${KUOTA_FUZZ_SECONDS:-10} s (docs/fuzzing.md)"
bash scripts/fuzz.sh "${KUOTA_FUZZ_SECONDS:-10}" build-ci

echo "== Kueue conformance scenarios"
if [[ ! -d "$SHARED/conformance/cases" ]]; then
  echo "conformance cases not found at $SHARED/conformance (set KUOTA_SHARED)" >&2
  exit 1
fi
PY=python3
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; fi
"$PY" "$SHARED/conformance/check" \
  --cmd "$ROOT/build-ci/kuota simulate --cycles {cycles} --now {now} -o json -f {state}" \
  "$SHARED/conformance/cases" "$SHARED/conformance/topology" \
  "$SHARED/conformance/admission-fair-sharing" "$ROOT/tests/scenarios"
