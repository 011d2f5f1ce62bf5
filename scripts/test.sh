#!/usr/bin/env bash
# The test command: installs what is needed, builds, runs the unit tests, the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# Kueue conformance scenarios through `kuota simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SHARED=${KUOTA_SHARED:-$ROOT/../shared}
JOBS=${JOBS:-$(nproc)}

bash scripts/setup.sh

echo "== build (RelWithDebInfo)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKUOTA_BUILD_BENCH=OFF >/dev/null
ninja -C build -j "$JOBS"

echo "== unit and end-to-end tests"
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKUOTA_SANITIZE=ON \
  -DKUOTA_BUILD_BENCH=OFF >/dev/null
ninja -C build-asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS"

echo "== Kueue conformance scenarios"
if [[ ! -d "$SHARED/conformance/cases" ]]; then
  echo "conformance cases not found at $SHARED/conformance (set KUOTA_SHARED)" >&2
  exit 1
fi
PY=python3
if [[ -x /usr/bin/python3 ]]; then PY=/usr/bin/python3; fi
"$PY" "$SHARED/conformance/check" \
  --cmd "$ROOT/build/kuota simulate --cycles {cycles} --now {now} -o json -f {state}" \
  "$SHARED/conformance/cases" "$ROOT/tests/scenarios"
