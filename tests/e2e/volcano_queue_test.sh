#!/usr/bin/env bash
# Volcano Queues (scheduling.volcano.sh/v1beta1) through kuotad and the real
# kubectl: the default queue at start, a Queue mapped onto a ClusterQueue,
# webhook validation (422 naming spec.weight), a kubectl Warning for a field
# with no equivalent, and Volcano Jobs naming the queue in spec.queue (no
# Kueue label) queued under its capability and gang-started. About 15 s.
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-vcq   # TAG marks this run's processes (in their arguments)

count() { pgrep -f -- "$TAG-$1" | wc -l; }

vcjob() {  # vcjob NAME QUEUE: 2 pods of 1 GPU, running until TMP/release-NAME exists
  vcjob_yaml "$1" "  namespace: ml" "  queue: $2" "        - name: main
          image: busybox
          command: [\"sh\", \"-c\", \"while [ ! -e $TMP/release-$1 ]; do sleep 0.1; done; : $TAG-$1\"]
          resources:
            requests: {cpu: 100m}
            limits: {nvidia.com/gpu: 1}"
}

# workload FIELD JOB: the queueName, or the QuotaReserved message, of job JOB's Workload.
workload() {
  k get workloads -n ml -o json | python3 -c '
import json, sys
for w in json.load(sys.stdin)["items"]:
    if w["metadata"]["name"].startswith("vcjob-" + sys.argv[2] + "-"):
        if sys.argv[1] == "queue": print(w["spec"]["queueName"])
        for c in w.get("status", {}).get("conditions", []):
            if c["type"] == "QuotaReserved" and sys.argv[1] == "message": print(c.get("message", ""))' "$1" "$2"
}
pending_message() { workload message "$1"; }

start_kuotad --gpus 2

# --- the default queue, made with the first Volcano Job (as Volcano's install would)
expect_eq "no Volcano queue before any Volcano Job" "" "$(k get queues -o name 2>&1)"
k create namespace ml >/dev/null
touch "$TMP/release-first"
vcjob first default | k create -f - >/dev/null
wait_for 5 "default" k get queues && ok "the default queue exists after start" \
  || bad "the default queue exists after start" "$(k get queues 2>&1)"
expect_eq "default queue: weight 1, reclaimable" "1 true" \
  "$(k get queue default -o jsonpath='{.spec.weight} {.spec.reclaimable}')"
wait_for 5 "volcano-default" k get clusterqueues && ok "ClusterQueue volcano-default" \
  || bad "ClusterQueue volcano-default" "$(k get cq 2>&1)"
contains "q and queue-v1beta1 are short names" "default" "$(k get q 2>&1; k get queue-v1beta1 2>&1)"

# --- a Queue with a capability
cat >"$TMP/team.yaml" <<YAML
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: team
spec:
  weight: 2
  reclaimable: true
  capability:
    cpu: "2"
    memory: 4Gi
    nvidia.com/gpu: 2
YAML
out=$(k apply -f "$TMP/team.yaml" 2>&1)
contains "kubectl apply creates the Queue" "queue.scheduling.volcano.sh/team created" "$out"
out=$(k get queues 2>&1)
contains "kubectl get queues lists it" "team" "$out"
contains "kubectl get queues prints Volcano's PARENT column" "PARENT" "$out"
wait_for 5 "volcano-team" k get clusterqueues && ok "kubectl get clusterqueues shows volcano-team" \
  || bad "kubectl get clusterqueues shows volcano-team" "$(k get cq 2>&1)"
contains "volcano-team in cohort volcano" "volcano" "$(k get cq volcano-team 2>&1)"
expect_eq "capability is the nominal quota, nothing to borrow" "2 0 2 0 volcano 2" \
  "$(k get cq volcano-team -o jsonpath='{.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota} {.spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit} {.spec.resourceGroups[0].flavors[0].resources[2].nominalQuota} {.spec.resourceGroups[0].flavors[0].resources[2].borrowingLimit} {.spec.resourceGroups[0].flavors[0].name} {.spec.fairSharing.weight}')"
expect_eq "labelled with its queue" "team" \
  "$(k get cq volcano-team -o jsonpath='{.metadata.labels.kuota\.dev/volcano-queue}')"
wait_for 5 "volcano-team" k get localqueues -n ml && ok "LocalQueue volcano-team in namespace ml" \
  || bad "LocalQueue volcano-team in namespace ml" "$(k get lq -A 2>&1)"

# --- the webhook: 422 naming the field; warnings for what cannot be mapped
out=$(sed 's/weight: 2/weight: 0/; s/name: team/name: zero/' "$TMP/team.yaml" | k apply -f - 2>&1)
contains "weight 0: 422 naming spec.weight" "spec.weight: Invalid value: 0" "$out"
out=$(sed 's/cpu: "2"/cpu: lots/; s/name: team/name: bad/' "$TMP/team.yaml" | k apply -f - 2>&1)
contains "a bad quantity: 422 naming it" "spec.capability.cpu" "$out"
# research SPEC_LINE...: Queue research under parent science, with these fields.
research() {
  printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: research\n'
  printf 'spec:\n  parent: science\n'
  printf '  %s\n' "$@"
}
out=$(research 'deserved: {cpu: "4"}' 'capability: {cpu: "2"}' | k apply -f - 2>&1)
contains "deserved above capability: 422" "spec.deserved.cpu" "$out"
out=$(research 'capability: {cpu: "1"}' | k apply -f - 2>&1)
contains "an unmapped field prints a kubectl Warning" "Warning: spec.parent: ignored" "$out"
contains "... and the Queue is created" "queue.scheduling.volcano.sh/research created" "$out"
out=$(k delete queue default 2>&1)
contains "the default queue cannot be deleted" "can not be deleted" "$out"

# --- Volcano Jobs in the queue: gang-admitted under its capability
vcjob a team | k apply -f - >/dev/null
vcjob b team | k apply -f - >/dev/null
wait_for 10 "2" count a && ok "job a: both pods run (2 GPUs of the queue's 2)" \
  || bad "job a: both pods run" "$(k get pods -n ml 2>&1; tail -5 "$TMP/kuotad.log")"
expect_eq "job a's Workload is queued in volcano-team" "volcano-team" "$(workload queue a)"
sleep 1
expect_eq "job b waits while the queue is full: no pod runs" "0" "$(count b)"
contains "job b's pending reason" "quota for nvidia.com/gpu in flavor volcano" "$(pending_message b)"
touch "$TMP/release-a"
wait_for 15 "2" count b && ok "job b: both pods start together once a is done" \
  || bad "job b: both pods start together" "$(k get pods -n ml 2>&1; pending_message b)"
wait_for 10 "Completed" k get jobs.batch.volcano.sh a -n ml && ok "job a completed" \
  || bad "job a completed" "$(k get jobs.batch.volcano.sh -n ml 2>&1)"

# --- a queue that does not exist: the job stays pending and says why
vcjob c nope | k apply -f - >/dev/null
wait_for 5 "LocalQueue volcano-nope doesn't exist" pending_message c \
  && ok "a job naming a missing queue stays pending, saying why" \
  || bad "a job naming a missing queue stays pending" "$(pending_message c)"
expect_eq "... and runs nothing" "0" "$(count c)"

# --- closing a queue holds its ClusterQueue; deleting it removes what was made
sed 's/weight: 2/weight: 2\n  state: Closed/' "$TMP/team.yaml" | k apply -f - >/dev/null 2>&1
wait_for 5 "Hold" k get cq volcano-team -o jsonpath='{.spec.stopPolicy}' \
  && ok "state Closed: the ClusterQueue stops admitting (stopPolicy Hold)" \
  || bad "state Closed: stopPolicy Hold" "$(k get cq volcano-team -o yaml 2>&1 | head -30)"
expect_eq "status.state reports Closed" "Closed" "$(k get queue team -o jsonpath='{.status.state}')"
k delete queue research >/dev/null 2>&1
wait_for 5 "No resources" bash -c "kubectl --kubeconfig $TMP/kubeconfig get cq,lq -A -l kuota.dev/volcano-queue=research 2>&1" \
  && ok "deleting a Queue deletes its ClusterQueue and LocalQueues" \
  || bad "deleting a Queue deletes its ClusterQueue and LocalQueues" "$(k get cq,lq -A 2>&1)"
touch "$TMP/release-b" "$TMP/release-c"

echo "PASS: $PASS  FAIL: $FAIL"
[[ $FAIL -eq 0 ]]
