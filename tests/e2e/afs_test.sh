#!/usr/bin/env bash
# Admission fair sharing in kuotad, driven by the real kubectl: with Kueue's
# Configuration.admissionFairSharing and a ClusterQueue in
# UsageBasedAdmissionFairSharing mode, a LocalQueue that has been using the
# quota goes after one that has not: when team-a's running job ends, team-b's
# younger job is admitted before team-a's older one. Each LocalQueue's status
# shows its usage history (status.fairSharing.admissionFairSharingStatus), and
# a restarted kuotad starts from it.
# Usage: afs_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-afs

mkdir -p "$TMP"
cat >"$TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
admissionFairSharing:
  usageHalfLifeTime: 1h
  usageSamplingInterval: 1s
YAML
start_kuotad --config "$TMP/config.yaml" --cpus 4 --no-cgroups
k create namespace ml >/dev/null
echo "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: cpu}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: shared}
spec:
  namespaceSelector: {}
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: cpu
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-a, namespace: ml}
spec: {clusterQueue: shared}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-b, namespace: ml}
spec: {clusterQueue: shared}" | k apply -f - >/dev/null || { echo "FAIL apply queues"; exit 1; }

# job NAME QUEUE SECONDS: a Job of one 2-cpu pod that runs SECONDS.
job() {
  job_yaml ml "$1" queue="$2" grace=1 requests="cpu: 2" cmd="sleep $3" | k create -f - >/dev/null
}
# admitted_at JOB: when Job JOB's Workload reserved quota ('' while pending).
admitted_at() {
  k get workloads -n ml -o json | python3 -c "
import json, sys
for w in json.load(sys.stdin)['items']:
    if w['metadata']['name'].startswith('job-$1-'):
        for c in w['status'].get('conditions', []):
            if c['type'] == 'QuotaReserved' and c['status'] == 'True':
                print(c['lastTransitionTime'])"
}
history() {
  k get localqueue -n ml "$1" \
    -o jsonpath='{.status.fairSharing.admissionFairSharingStatus.consumedResources.cpu}'
}

job first team-a 8
for _ in $(seq 1 100); do [[ -n $(admitted_at first) ]] && break; sleep 0.1; done
sleep 2  # team-a uses the quota for two sampling intervals
job older team-a 1
sleep 1.1  # strictly older by creation time
job younger team-b 3
# The quota holds one job at a time: when team-b's job is admitted, team-a's
# older one must still be waiting.
for _ in $(seq 1 200); do [[ -n $(admitted_at younger) ]] && break; sleep 0.1; done
expect_eq "team-b's younger job is admitted" "yes" "$([[ -n $(admitted_at younger) ]] && echo yes || echo no)"
expect_eq "team-a's older job is still waiting then" "" "$(admitted_at older)"
for _ in $(seq 1 200); do [[ -n $(admitted_at older) ]] && break; sleep 0.1; done
expect_eq "team-a's older job runs after it" "yes" "$([[ -n $(admitted_at older) ]] && echo yes || echo no)"
# Until every job is done, so the history is no longer growing.
for _ in $(seq 1 100); do
  [[ $(k get jobs -n ml -o jsonpath='{range .items[*]}{.status.succeeded}{"\n"}{end}' | grep -c 1) -eq 3 ]] && break
  sleep 0.2
done
# The last sample of a finishing job may land after its Job says succeeded:
# read the history once it has held still for two sampling intervals.
h=$(history team-a) same=0
for _ in $(seq 1 40); do
  sleep 1
  n=$(history team-a)
  if [[ $n == "$h" ]]; then same=$((same + 1)); else same=0 h=$n; fi
  [[ $same -ge 2 ]] && break
done
expect_eq "team-a's LocalQueue status shows a usage history" "yes" \
  "$(python3 -c "v='$h'; print('yes' if v and v != '0' else 'no: ' + repr(v))")"
usage=$(k get --raw /metrics | awk '$1 ~ /^kueue_local_queue_admission_fair_sharing_usage\{/ && $1 ~ /name="team-a"/ {print $2}')
expect_eq "/metrics reports team-a's fair-sharing usage (Kueue's gauge), above 0" "yes" \
  "$(python3 -c "v='$usage'; print('yes' if v and float(v) > 0 else 'no: ' + repr(v))")"
stop_kuotad
start_kuotad --config "$TMP/config.yaml" --cpus 4 --no-cgroups
# The history decays by a 1 h half-life: a restart a second later keeps it
# (within 10%, or the 1m the status is rounded to).
expect_eq "after a restart the history is still there" "yes" "$(python3 -c "
from decimal import Decimal
def q(s):
    return Decimal(s[:-1]) / 1000 if s.endswith('m') else Decimal(s or '0')
a, b = q('$h'), q('$(history team-a)')
print('yes' if a > 0 and abs(a - b) <= max(a / 10, Decimal('0.001')) else 'no: %s then %s' % (a, b))")"
echo "PASS=$PASS FAIL=$FAIL"
[[ $FAIL -eq 0 ]]
