#!/usr/bin/env bash
# End-to-end regression tests for issue 15's findings against a real kuotad
# on loopback: hostile request bodies (hostile_requests.py: the Indexed Job
# with a numeric env name, 60,000-deep nesting, the copy-doubling JSON patch,
# 1e400, unsupported field selectors, random mutations of valid bodies), then
# objects no API request could store, written straight into the SQLite
# database: kuotad must start with them, report them on the objects (an Event
# and an Invalid condition), and keep scheduling and running other Jobs.
# Usage: hostile_input_test.sh PATH/TO/kuotad [MUTATIONS]
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad [MUTATIONS]}
MUTATIONS=${2:-600}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl sqlite3
PY=python3; [[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
scratch kuota-hostile

# --- 1. hostile requests
start_kuotad
creds
KUOTA_TOKEN=$TOKEN KUOTA_CA_FILE=$TMP/ca.crt \
  "$PY" "$HERE/hostile_requests.py" "$URL" "$PID" "$MUTATIONS" >"$TMP/requests.out" 2>&1
rc=$?
cat "$TMP/requests.out"
PASS=$((PASS + $(grep -c '^ok' "$TMP/requests.out")))
FAIL=$((FAIL + $(grep -c '^FAIL' "$TMP/requests.out")))
[[ $rc -eq 0 || $(grep -c '^FAIL' "$TMP/requests.out") -gt 0 ]] || bad "hostile_requests.py ran" "exit $rc"
stop_kuotad

# --- 2. objects no request could store, written into the database directly
# (a fresh database, made by a kuotad started and stopped once, so that the
# mutated Jobs above do not queue ahead of the good one below)
mv "$TMP/data" "$TMP/data1"
start_kuotad
stop_kuotad
DB=$TMP/data/kuota.db
insert() {  # insert RESOURCE NAMESPACE NAME JSON
  sqlite3 "$DB" "BEGIN;
    UPDATE kuota_meta SET value = value + 1 WHERE key = 'resource_version';
    INSERT INTO objects(resource, namespace, name, uid, rv, json) VALUES
      ('$1', '$2', '$3', 'uid-$3', (SELECT value FROM kuota_meta WHERE key = 'resource_version'),
       json_set('$4', '\$.metadata.uid', 'uid-$3', '\$.metadata.resourceVersion',
                (SELECT CAST(value AS TEXT) FROM kuota_meta WHERE key = 'resource_version')));
    COMMIT;" || bad "inserting $1 $3"
}
META='"creationTimestamp":"2026-01-01T00:00:00Z","generation":1'
insert jobs.batch default bad-env '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"bad-env","namespace":"default",'"$META"',"labels":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{"suspend":true,"completionMode":"Indexed","completions":2,"parallelism":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["true"],"env":[{"name":1,"value":"x"}]}]}}}}'
insert jobs.batch default bad-status '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"bad-status","namespace":"default",'"$META"'},"spec":{"completions":1,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["true"]}]}}},"status":{"succeeded":"many","conditions":"none","uncountedTerminatedPods":7}}'
insert pods default bad-pod '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad-pod","namespace":"default",'"$META"'},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":[1,2],"env":{"a":1},"resources":{"requests":{"cpu":[]}}}]},"status":{"phase":7}}'
insert workloads.kueue.x-k8s.io default bad-wl '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload","metadata":{"name":"bad-wl","namespace":"default",'"$META"'},"spec":{"queueName":"lq","podSets":"all"}}'
insert clusterqueues.kueue.x-k8s.io '' bad-cq '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"bad-cq",'"$META"'},"spec":{"resourceGroups":5}}'

start_kuotad
sleep 2
if kill -0 "$PID" 2>/dev/null && k get --raw /healthz >/dev/null 2>&1; then
  ok "kuotad starts and stays up with invalid objects stored"
else
  bad "kuotad starts and stays up with invalid objects stored" "$(tail -20 "$TMP/kuotad.log")"
fi
wait_for 10 InvalidJob k get events -n default -o custom-columns=R:.reason,O:.involvedObject.name
contains "an Event reports the stored Job it cannot use" "bad-env" \
  "$(k get events -n default --field-selector reason=InvalidJob -o custom-columns=O:.involvedObject.name 2>&1)"
contains "the Job carries an Invalid condition" "spec.template.spec.containers[0].env[0].name" \
  "$(k get job bad-env -n default -o jsonpath='{.status.conditions[?(@.type=="Invalid")].message}' 2>&1)"

# Scheduling and running go on beside them.
cpu_queue_yaml local cq 1 default lq | k apply -f - >/dev/null
job_yaml default good queue=lq container=c cmd="echo $TAG" requests="cpu: 100m" | k create -f - >/dev/null
if wait_for 20 Complete k get job good -n default -o jsonpath='{.status.conditions[*].type}'; then
  ok "a good Job is admitted and completes beside the invalid objects"
else
  bad "a good Job is admitted and completes beside the invalid objects" \
    "$(k get job,workloads -n default -o wide 2>&1; tail -20 "$TMP/kuotad.log")"
fi
if kill -0 "$PID" 2>/dev/null; then ok "kuotad still running at the end"; else bad "kuotad still running at the end" "$(tail -20 "$TMP/kuotad.log")"; fi
if grep -q "terminate called\|Segmentation\|AddressSanitizer\|runtime error" "$TMP/kuotad.log"; then
  bad "kuotad's log shows no crash or sanitizer report" "$(grep -m5 -A5 "terminate called\|Segmentation\|AddressSanitizer\|runtime error" "$TMP/kuotad.log")"
else
  ok "kuotad's log shows no crash or sanitizer report"
fi

echo "PASS $PASS FAIL $FAIL"
[[ $FAIL -eq 0 ]]
