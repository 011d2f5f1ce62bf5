#!/usr/bin/env bash
# `kuota perf` on bad input: each case must exit with the expected status and
# print an error that names what is wrong (never a crash).
# Usage: perf_cli_errors_test.sh PATH/TO/kuota
set -u
KUOTA=${1:?usage: $0 PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

# expect NAME WANT_STATUS WANT_TEXT -- ARGS...   (WANT_STATUS may be "nonzero")
expect() {
  local name=$1 want_status=$2 want_text=$3
  shift 4
  local out status
  out=$("$KUOTA" perf "$@" 2>&1)
  status=$?
  local status_ok=1
  if [[ $want_status == nonzero ]]; then
    [[ $status -ne 0 ]] || status_ok=0
  else
    [[ $status -eq $want_status ]] || status_ok=0
  fi
  if [[ $status_ok -eq 0 ]] || ! grep -qF -- "$want_text" <<<"$out"; then
    echo "FAIL $name: exit $status (want $want_status), output:"
    sed 's/^/    /' <<<"$out"
    echo "    (wanted text: $want_text)"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

printf 'cohorts: [\n' >"$TMP/bad-yaml.yaml"
printf 'cohorts:\n- className: c\n  count: 1\n  colour: red\n' >"$TMP/unknown.yaml"
printf 'cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 1\n    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n      workloads:\n      - className: w\n        request: 1\n' >"$TMP/ok.yaml"
# A port nothing listens on.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

expect missing-file 1 "--config: $TMP/nope.yaml: No such file or directory" -- --config "$TMP/nope.yaml" --virtual
expect directory 1 "is a directory" -- --config "$TMP" --virtual
expect bad-yaml 1 "bad-yaml.yaml: invalid YAML at line 2" -- --config "$TMP/bad-yaml.yaml" --virtual --out "$TMP/o1"
expect unknown-field 1 "line 4: cohorts[0].colour: unknown field" -- --config "$TMP/unknown.yaml" --virtual --out "$TMP/o2"
expect bad-url 1 "--server \"localhost:1\": not an http:// or https:// URL" -- --config "$TMP/ok.yaml" --server localhost:1 --out "$TMP/o3"
expect unreachable 1 "cannot reach kuotad at http://127.0.0.1:$PORT" -- --config "$TMP/ok.yaml" --server "http://127.0.0.1:$PORT" --out "$TMP/o4"
expect no-kuotad 1 "cannot run kuotad at $TMP/no-kuotad" -- --config "$TMP/ok.yaml" --kuotad "$TMP/no-kuotad" --out "$TMP/o5"
expect bad-out 1 "cannot create output directory" -- --config "$TMP/ok.yaml" --virtual --out /proc/kuota-perf-out
expect bad-timeout 2 "--timeout \"soon\"" -- --config "$TMP/ok.yaml" --timeout soon --out "$TMP/o6"
expect finishers-range nonzero "--finishers: Value 0 not in range 1 to 64" -- --config "$TMP/ok.yaml" --finishers 0 --out "$TMP/o8"
expect clients-range nonzero "--clients: Value 65 not in range 1 to 64" -- --config "$TMP/ok.yaml" --clients 65 --out "$TMP/o9"
expect virtual-and-finishers nonzero "--virtual excludes --finishers" -- --config "$TMP/ok.yaml" --virtual --finishers 4
expect virtual-and-server nonzero "--virtual excludes --server" -- --config "$TMP/ok.yaml" --virtual --server http://127.0.0.1:1
expect no-config nonzero "--config is required" --
expect help 0 "Kueue's scheduler benchmark, reproduced" -- --help
expect ok 0 "consistency: OK" -- --config "$TMP/ok.yaml" --virtual --no-plot --out "$TMP/o7"

if [[ $failures -gt 0 ]]; then
  echo "$failures case(s) failed"
  exit 1
fi
echo "all cases passed"
