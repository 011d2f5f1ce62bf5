# Shared helpers for the end-to-end scripts: sourced, not run. Each script
# sets KUOTAD (the binary) and TMP (its scratch directory) first.
#   start_kuotad [FLAGS...]  kuotad on $TMP/data, sets PID; kubectl via k()
#   k ARGS...                the real kubectl against it
#   wait_for SECS NEEDLE CMD...  until CMD's output contains NEEDLE
#   ok / bad / expect_eq / contains  count PASS and FAIL
PASS=0
FAIL=0
ok()  { PASS=$((PASS+1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL+1)); echo "FAIL $1"; [[ -n "${2:-}" ]] && echo "$2" | sed 's/^/     | /'; }
expect_eq() { if [[ "$2" == "$3" ]]; then ok "$1"; else bad "$1" "want: $2"$'\n'"got:  $3"; fi; }
contains() { if grep -qF -- "$2" <<<"$3"; then ok "$1"; else bad "$1" "want: $2"$'\n'"got:"$'\n'"$3"; fi; }

k() { kubectl --kubeconfig "$TMP/kubeconfig" "$@"; }

start_kuotad() {
  rm -f "$TMP/kubeconfig"
  "$KUOTAD" --data-dir "$TMP/data" --port 0 --kubeconfig-out "$TMP/kubeconfig" --no-sync \
    "$@" >>"$TMP/kuotad.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 400); do
    if [[ -s "$TMP/kubeconfig" ]] && k get --raw /healthz >/dev/null 2>&1; then return 0; fi
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "FAIL kuotad did not start:"; tail -30 "$TMP/kuotad.log"; exit 1
}

wait_for() {
  local secs=$1 needle=$2; shift 2
  local out
  for _ in $(seq 1 $((secs * 10))); do
    # Not `"$@" | grep -q`: under pipefail the writer's SIGPIPE fails the test.
    out=$("$@" 2>/dev/null)
    if grep -qF -- "$needle" <<<"$out"; then return 0; fi
    sleep 0.1
  done
  return 1
}
