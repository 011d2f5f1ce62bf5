#!/usr/bin/env bash
# Crash test for "a container never runs twice" (issue 15), and exactly once
# when possible: kuotad is killed with SIGKILL at every step of a pod's start
# (its fault points, src/standalone/fault_point.h), and every Job's command
# must still run exactly once: its file holds one line and the Job ends with
# succeeded 1, failed 0.
#
# For each fault point, ITERATIONS times (one Job each, c1..cN): a kuotad
# armed with KUOTA_FAULT_POINT=<point>@c<k>- starts, Job c<k> (`sh -c 'echo
# ran >> FILE'`) is created, and kuotad must die at that point for that Job's
# pod (its log says so). The next kuotad, armed for c<k+1> only, recovers c<k>
# meanwhile (or the one after it, when it dies first). A last, unarmed kuotad
# finishes whatever is left; then every file and Job is checked. Jobs have
# backoffLimit 2, so a pod wrongly reported failed would show as failed: 1 and
# its replacement would run the command again.
#
# Usage: crash_start_test.sh PATH/TO/kuotad [ITERATIONS]
# ITERATIONS defaults to 20; CMake passes 5 for the sanitizer build
# (KUOTA_SANITIZE=ON, where each kuotad start is several times slower), and
# KUOTA_CRASH_ITERATIONS overrides both. About 15-25 s in a release build.
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad [ITERATIONS]}
N=${KUOTA_CRASH_ITERATIONS:-${2:-20}}
POINTS=(before-starting after-starting after-fork after-started after-go after-running)
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl curl
scratch kuota-crash   # TAG marks this run's commands (in their arguments)
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# start DIR [FAULT]: kuotad on DIR (now TMP), armed with FAULT when given;
# URL, TOKEN and DIR/ca.crt once it answers.
start() {
  TMP=$1
  KUOTA_FAULT_POINT=${2:-} start_kuotad --gpus 0 --no-cgroups
  creds
}
post() {  # post PATH JSON
  curl -sf --cacert "$TMP/ca.crt" -H "Authorization: Bearer $TOKEN" \
    -X POST -H 'Content-Type: application/json' "$URL$1" -d "$2" >/dev/null
}
job_json() {  # job_json NAME FILE
  cat <<JSON
{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "$1"},
 "spec": {"backoffLimit": 2, "template": {"spec": {"restartPolicy": "Never",
   "terminationGracePeriodSeconds": 1,
   "containers": [{"name": "main", "image": "busybox",
     "command": ["sh", "-c", "echo ran >> \"\$0\"; true $TAG", "$2"]}]}}}}
JSON
}
# "NAME succeeded=S failed=F complete=C failed-condition=D" per Job, sorted.
job_states() {
  k get jobs -n crash -o jsonpath='{range .items[*]}{.metadata.name} succeeded={.status.succeeded} failed={.status.failed} complete={.status.conditions[?(@.type=="Complete")].status} failed-condition={.status.conditions[?(@.type=="Failed")].status}{"\n"}{end}' 2>/dev/null | sort
}

echo "crash test: ${#POINTS[@]} fault points x $N Jobs"
total_start=$(now_ms)
for point in "${POINTS[@]}"; do
  t0=$(now_ms)
  failed_before=$FAIL
  dir=$ROOT/$point
  mkdir -p "$dir/out"
  died=0
  for k in $(seq 1 "$N"); do
    start "$dir" "$point@c$k-"
    (( k == 1 )) && post /api/v1/namespaces '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "crash"}}'
    # kuotad may die before it answers (the pod starts at once): then the
    # final check tells whether the Job was created.
    # (kill -0 alone cannot tell: the connection drops while the killed
    # kuotad is still exiting, or is not yet reaped, and kill -0 finds it.)
    if ! post /apis/batch/v1/namespaces/crash/jobs "$(job_json "c$k" "$dir/out/c$k")"; then
      sleep 0.5
      if ! grep -q "fault point $point reached (pod c$k-" "$dir/kuotad.log"; then
        bad "$point: create Job c$k" "$(tail -5 "$dir/kuotad.log")"
      fi
    fi
    # (Quietly: bash reports a job killed by a signal on its stderr.)
    { for _ in $(seq 1 500); do kill -0 "$PID" || break; sleep 0.02; done; } 2>/dev/null
    if kill -0 "$PID" 2>/dev/null; then
      bad "$point: kuotad did not reach the fault point for Job c$k"
      kill -9 "$PID"
    fi
    { wait "$PID"; } 2>/dev/null
    PID=
    if grep -q "fault point $point reached (pod c$k-" "$dir/kuotad.log"; then
      died=$((died+1))
    else
      bad "$point: kuotad died elsewhere than at the fault point for Job c$k" "$(tail -5 "$dir/kuotad.log")"
    fi
  done
  (( died == N )) && ok "$point: kuotad killed itself there for each of the $N Jobs"

  # An unarmed kuotad finishes what is left.
  start "$dir"
  want=$(for k in $(seq 1 "$N"); do
    echo "c$k succeeded=1 failed= complete=True failed-condition="; done | sort)
  got=
  for _ in $(seq 1 150); do
    got=$(job_states)
    [[ "$got" == "$want" ]] && break
    (( $(grep -cE '=True' <<<"$got") == N )) && break  # all ended, not all well
    sleep 0.2
  done
  if [[ "$got" == "$want" ]]; then ok "$point: all $N Jobs Complete with succeeded: 1, failed: 0"
  else bad "$point: Job states" "$(diff <(echo "$want") <(echo "$got"))"; fi
  runs=""
  for k in $(seq 1 "$N"); do
    n=$(wc -l <"$dir/out/c$k" 2>/dev/null || echo 0)
    (( n != 1 )) && runs+="c$k ran $n times"$'\n'
  done
  if [[ -z "$runs" ]]; then ok "$point: each Job's command ran exactly once"
  else bad "$point: commands not run exactly once" "$runs"; fi
  kill "$PID"; { wait "$PID"; } 2>/dev/null; PID=
  echo "     ($point: $(( $(now_ms) - t0 )) ms)"
  if (( FAIL > failed_before )); then
    echo "--- kuotad log ($point)"; grep -v '^kuotad:   ' "$dir/kuotad.log" | tail -30 | sed 's/^/     | /'
  fi
done

echo "passed $PASS, failed $FAIL in $(( $(now_ms) - total_start )) ms"
(( FAIL == 0 ))
