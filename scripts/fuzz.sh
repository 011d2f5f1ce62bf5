#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/, docs/fuzzing.md) for SECONDS each, two
# at a time, from its seed corpus and found-bug regressions, and prints each
# target's executions and the total. Fails when a target crashes, leaks,
# times out on an input or fails a FUZZ_CHECK; the input is left in
# OUT/<target>/ (crash-*, leak-*, timeout-*) to become a regression
# (fuzz/regressions/<target>/).
# Usage: scripts/fuzz.sh [SECONDS] [BUILD_DIR] [OUT]
#   BUILD_DIR: a clang build with -DKUOTA_FUZZ=ON (default build-fuzz, as
#   docs/fuzzing.md makes it; scripts/test.sh makes and uses build-ci); OUT: where corpora grow and findings go
#   (default a temporary directory, removed unless something was found).
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-30}
BUILD=${2:-build-fuzz}
OUT=${3:-}
keep=1
if [[ -z "$OUT" ]]; then
  OUT=$(mktemp -d /tmp/kuota-fuzz-XXXXXX)
  keep=0
fi
targets=()
for f in fuzz/*_fuzzer.cc; do
  t=$(basename "$f" _fuzzer.cc)
  if [[ ! -x "$BUILD/fuzz/kuota_fuzz_$t" ]]; then
    echo "fuzz: $BUILD/fuzz/kuota_fuzz_$t not built (configure $BUILD with clang and -DKUOTA_FUZZ=ON)" >&2
    exit 1
  fi
  targets+=("$t")
done

run_one() {
  local t=$1 dir="$OUT/$t"
  mkdir -p "$dir/corpus"
  local seeds=(fuzz/corpus/"$t")
  [[ -d fuzz/regressions/$t ]] && seeds+=(fuzz/regressions/"$t")
  # New inputs go to $dir/corpus (first directory); the seeds stay as they are.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/fuzz/kuota_fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus" "${seeds[@]}" \
    >"$dir/log" 2>&1
  echo $? >"$dir/rc"
}

echo "== libFuzzer: ${#targets[@]} targets, ${SECONDS_EACH} s each, two at a time ($BUILD)"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [[ $running -ge 2 ]]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

total=0
failed=0
for t in "${targets[@]}"; do
  dir="$OUT/$t"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  execs=${execs:-0}
  total=$((total + execs))
  rc=$(cat "$dir/rc")
  found=$(ls "$dir" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | head -3 | tr '\n' ' ')
  if [[ "$rc" != 0 || -n "$found" ]]; then
    failed=$((failed + 1))
    printf 'FAIL %-22s %12d executions  exit %s %s\n' "$t" "$execs" "$rc" "$found"
    grep -m 5 -E 'ERROR|fuzz check failed|SUMMARY|runtime error' "$dir/log" | sed 's/^/     | /'
    keep=1
  else
    printf 'ok   %-22s %12d executions\n' "$t" "$execs"
  fi
done
echo "fuzz: ${#targets[@]} targets, $total executions, $failed failed (${SECONDS_EACH} s each)"
if [[ $keep -eq 1 ]]; then
  echo "fuzz: logs, grown corpora and findings in $OUT"
else
  rm -rf "$OUT"
fi
[[ $failed -eq 0 ]]
