#!/usr/bin/env bash
# Reservation and backfill on kuotad, with the real kubectl (docs/behaviour.md):
# a ClusterQueue of 2 cpu with kuota.dev/backfill and a 1h default runtime;
# a 1-cpu job runs; a 2-cpu gang cannot start and reserves the queue from
# when the running job is expected to end; a 1-cpu job that would still run
# then waits behind the reservation, saying so; the visibility API carries
# the gang's expected start (annotation kuota.dev/expected-start) and
# `kuota why` shows it. Malformed annotations are refused naming them.
# Usage: backfill_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-backfill
start_kuotad --no-run-pods
k create namespace ml >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
  annotations: {kuota.dev/backfill: "true", kuota.dev/default-runtime: 1h}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 2}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: cq}
YAML
job_yaml ml running queue=lq cmd="sleep 1000" requests="cpu: 1" | k apply -f - >/dev/null
eventually "the first job is admitted" 20 "True" \
  k get workloads -n ml -o jsonpath='{.items[0].status.conditions[?(@.type=="Admitted")].status}'
job_yaml ml gang queue=lq indexed=2 cmd="sleep 1000" requests="cpu: 1" | k apply -f - >/dev/null
sleep 1
job_yaml ml later queue=lq cmd="sleep 1000" requests="cpu: 1" | k apply -f - >/dev/null
wl_of() { k get workloads -n ml -o name | sed 's|.*/||' | grep "^job-$1-"; }
eventually "the gang reserves the queue" 20 "capacity is reserved for it (kuota.dev/backfill): expected to start at" \
  k get workload -n ml "$(wl_of gang)" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}'
eventually "the later job waits behind the reservation" 20 "waiting behind the reservation of ml/$(wl_of gang)" \
  k get workload -n ml "$(wl_of later)" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}'
contains "... because it would still run then (the queue's 1h default)" "would still run then (estimated 1h)" \
  "$(k get workload -n ml "$(wl_of later)" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}')"
admitted=$(k get workloads -n ml -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Admitted")].status}{"\n"}{end}' | grep -c True)
expect_eq "only the first job holds quota (1 cpu stays free for the gang)" 1 "$admitted"
v=$(k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads)
start=$(python3 -c 'import json,sys
d=json.load(sys.stdin)
print(" ".join(i["metadata"]["name"].split("-")[1] + "=" + i["metadata"].get("annotations", {}).get("kuota.dev/expected-start", "-") for i in d["items"]))' <<<"$v")
contains "the visibility API gives the gang's expected start" "gang=20" "$start"
contains "... and none for the job behind it" "later=-" "$start"
out=$("$KUOTA" why -n ml "$(wl_of gang)" --kubeconfig "$TMP/kubeconfig" 2>&1)
contains "kuota why shows the expected start" "Expected start" "$out"

out=$(k apply -f - 2>&1 <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: bad
  annotations: {kuota.dev/backfill: "yes"}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 1}]}]
YAML
)
contains "a malformed kuota.dev/backfill is refused naming it" \
  'metadata.annotations[kuota.dev/backfill]: Unsupported value: "yes": supported values: "true", "false"' "$out"
echo "backfill: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
