#!/usr/bin/env bash
# End-to-end, one kuotad: a Kubeflow Trainer v2 TrainJob on Trainer's
# torch-distributed ClusterTrainingRuntime, with the real kubectl and real
# local processes. Invalid TrainJobs get 422 naming the field; one naming a
# runtime that does not exist is accepted and says why it waits. A TrainJob of
# two nodes waits while a filler holds the quota, is admitted on the flavor
# that fits, its two pods run with torchrun's PET_* environment as Trainer's
# torch plugin gives it (tests/e2e/job_kinds/probe.py prints it), is
# preempted whole by a high-priority Job and resumes, then finishes (Trainer's
# Complete condition) and its quota is released. A TrainJob on a JAX runtime
# then runs with the JAX plugin's JAX_* environment.
# Usage: trainjob_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
PROBE=$HERE/job_kinds/probe.py
source "$HERE/lib.sh"
need kubectl python3
scratch kuota-trainjob

NS=team-train
start_kuotad --gpus 0
{ two_flavors_yaml; echo ---; two_flavor_queue_yaml "$NS" cq-train 50m 200m; } |
  k apply -f - >/dev/null || { echo "FAIL apply queues"; exit 1; }
cat <<YAML | k apply -f - >/dev/null || { echo "FAIL apply the runtime"; exit 1; }
# Trainer's torch-distributed runtime (manifests/base/runtimes).
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels: {trainer.kubeflow.org/framework: torch}
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
                      command: [torchrun, /workspace/train.py]
YAML

# trainjob NAME RUNTIME: a TrainJob of two nodes on RUNTIME, the probe as its
# trainer's command.
trainjob() {
  cat <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: $1
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low}
spec:
  runtimeRef: {name: $2}
  trainer:
    numNodes: 2
    numProcPerNode: 1
    command: [python3, $PROBE, --wait, $TMP/release, $TAG-train, "PET_*"]
    resourcesPerNode: {requests: {cpu: 80m}}
YAML
}
# batch NAME CPU PRIORITY: a one-pod Job taking CPU from the queue.
batch() {
  job_yaml "$NS" "$1" queue=lq priority="$3" backoff=0 grace=1 cmd="sleep 300; true $TAG-$1" \
    requests="cpu: $2"
}
pods() {
  k get pods -n "$NS" -l kuota.dev/job-name=mnist -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}' 2>/dev/null
}
running() { pods | grep -c '=Running$'; }
wl() {
  k get workloads -n "$NS" -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"mnist\")]}{$1}{end}" 2>/dev/null
}
suspended() { k get trainjob -n "$NS" mnist -o jsonpath='{.spec.suspend}' 2>/dev/null; }
admitted() { k get clusterqueue cq-train -o jsonpath='{.status.admittedWorkloads}' 2>/dev/null; }
until_eq() {  # until_eq SECS WANT CMD...: polls CMD until it prints WANT
  local secs=$1 want=$2; shift 2
  for _ in $(seq 1 $((secs * 5))); do
    [[ $("$@") == "$want" ]] && return 0
    sleep 0.2
  done
  return 1
}

echo "== Invalid TrainJobs: 422 naming the field"
out=$(trainjob bad torch-distributed | sed '/runtimeRef/d' | k create -f - 2>&1 >/dev/null)
contains "a TrainJob without runtimeRef: 422" "spec.runtimeRef: Required value" "$out"
out=$(trainjob bad torch-distributed | sed 's/numProcPerNode: 1/numProcPerNode: 0/' | k create -f - 2>&1 >/dev/null)
contains "numProcPerNode 0: 422" "numProcPerNode must be greater than or equal to 1" "$out"

echo "== A runtime that does not exist: accepted, and the job says why it waits"
trainjob orphan no-such-runtime | k create -f - >/dev/null 2>"$TMP/err" ||
  bad "a TrainJob on a missing runtime is accepted" "$(cat "$TMP/err")"
eventually "its condition says the runtime is missing" \
  10 'ClusterTrainingRuntime "no-such-runtime" not found' k get trainjob -n "$NS" orphan -o jsonpath='{.status.conditions[?(@.type=="Invalid")].message}'
contains "an Event says so too" "no-such-runtime" \
  "$(k get events -n "$NS" 2>&1)"
orphan_wl() {
  k get workloads -n "$NS" -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="orphan")].metadata.name}'
}
expect_eq "it has no Workload" "" "$(orphan_wl)"
k get clustertrainingruntime torch-distributed -o json |
  python3 -c 'import json,sys; o=json.load(sys.stdin); print(json.dumps({"apiVersion": o["apiVersion"], "kind": o["kind"], "metadata": {"name": "no-such-runtime"}, "spec": o["spec"]}))' |
  k create -f - >/dev/null
eventually "once the runtime is created, the job gets its Workload" 10 trainjob-orphan- orphan_wl
k delete trainjob -n "$NS" orphan --wait=false >/dev/null

echo "== Queued: a filler takes the whole big flavor"
batch filler 200m low | k create -f - >/dev/null
until_eq 20 Running k get pods -n "$NS" -l job-name=filler -o jsonpath='{.items[0].status.phase}' ||
  bad "the filler did not start"
trainjob mnist torch-distributed | k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
until_eq 10 False wl '.status.conditions[?(@.type=="QuotaReserved")].status'
expect_eq "waits in the queue while the quota is used" "False" \
  "$(wl '.status.conditions[?(@.type=="QuotaReserved")].status')"
expect_eq "the Workload has the trainer's pod set: 2 nodes" "node:2" \
  "$(wl '.spec.podSets[0].name'):$(wl '.spec.podSets[0].count')"
expect_eq "no pods while queued" "" "$(pods)"
expect_eq "suspended while queued" "true" "$(suspended)"

echo "== Admitted on the big flavor: two nodes run with torchrun's environment"
k delete job -n "$NS" filler --wait=false >/dev/null
until_eq 30 2 running || bad "the TrainJob's pods did not run" "$(pods)"
expect_eq "admitted: both nodes run" 2 "$(running)"
expect_eq "admitted on flavor big" "big" "$(wl '.status.admission.podSetAssignments[0].flavors.cpu')"
expect_eq "the pods run with the flavor's node label" "big big" \
  "$(k get pods -n "$NS" -l kuota.dev/job-name=mnist -o jsonpath='{.items[*].spec.nodeSelector.kuota\.dev/pool}')"
contains "and tolerate its taint" "kuota.dev/big" \
  "$(k get pods -n "$NS" mnist-node-0-1 -o jsonpath='{.spec.tolerations[*].key}')"
contains "the placement went through Kueue's runtime patch" "kuota.dev/pool" \
  "$(k get trainjob -n "$NS" mnist -o jsonpath='{.spec.runtimePatches[?(@.manager=="kueue.x-k8s.io/manager")]}')"
logs() { k logs -n "$NS" "$1" 2>&1; }
wait_for 10 PET_NODE_RANK logs mnist-node-0-1
rank0=$(logs mnist-node-0-0)
rank1=$(logs mnist-node-0-1)
contains "PET_NNODES is the TrainJob's numNodes" "ENV PET_NNODES=2" "$rank1"
contains "PET_NPROC_PER_NODE is its numProcPerNode" "ENV PET_NPROC_PER_NODE=1" "$rank1"
contains "node 0 is rank 0" "ENV PET_NODE_RANK=0" "$rank0"
contains "node 1 is rank 1" "ENV PET_NODE_RANK=1" "$rank1"
contains "PET_MASTER_ADDR is this machine" "ENV PET_MASTER_ADDR=127.0.0.1" "$rank1"
contains "PET_MASTER_PORT is Trainer's" "ENV PET_MASTER_PORT=29500" "$rank0"

out=$(k patch trainjob -n "$NS" mnist --type merge -p '{"spec":{"runtimeRef":{"name":"other"}}}' 2>&1)
contains "its runtimeRef is immutable (Trainer's CRD)" 'spec.runtimeRef: Invalid value: "object": field is immutable' "$out"

echo "== Preempted by a high-priority Job: the whole TrainJob stops, then resumes"
batch boss 200m high | k create -f - >/dev/null
until_eq 30 "" pods || bad "the TrainJob's pods are not gone" "$(pods)"
expect_eq "preempted: every pod is gone" "" "$(pods)"
until_eq 10 true suspended
expect_eq "suspended again" "true" "$(suspended)"
contains "the workload says it was preempted" "Preempted" "$(wl '.status.conditions[*].reason')"
expect_eq "Kueue's patch is emptied" "" \
  "$(k get trainjob -n "$NS" mnist -o jsonpath='{.spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs}')"
k delete job -n "$NS" boss --wait=false >/dev/null
until_eq 30 2 running
expect_eq "resumed after the high-priority job left" 2 "$(running)"

echo "== Finished: Complete, quota released"
touch "$TMP/release"
until_eq 30 True k get trainjob -n "$NS" mnist -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_eq "the TrainJob is Complete" "True" \
  "$(k get trainjob -n "$NS" mnist -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}')"
contains "kubectl get trainjob shows its state" "Complete" "$(k get trainjob -n "$NS" mnist)"
until_eq 20 0 admitted
expect_eq "quota released" "0" "$(admitted)"
until_eq 10 True wl '.status.conditions[?(@.type=="Finished")].status'
expect_eq "its workload is Finished" "True" "$(wl '.status.conditions[?(@.type=="Finished")].status')"
echo "== A JAX runtime: its pods get the JAX plugin's coordinator and ranks"
cat <<YAML | k apply -f - >/dev/null || bad "apply the jax runtime"
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: jax-distributed}
spec:
  mlPolicy: {numNodes: 1, jax: {}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers: [{name: node, image: nvcr.io/nvidia/jax:25.10-py3}]
YAML
trainjob jaxy jax-distributed | sed 's|"PET_\*"|"JAX_*"|' |
  k create -f - >/dev/null 2>"$TMP/err" || bad "create the JAX TrainJob" "$(cat "$TMP/err")"
wait_for 30 JAX_PROCESS_ID logs jaxy-node-0-1
jax1=$(logs jaxy-node-0-1)
contains "JAX_NUM_PROCESSES is the nodes" "ENV JAX_NUM_PROCESSES=2" "$jax1"
contains "JAX_PROCESS_ID is the completion index" "ENV JAX_PROCESS_ID=1" "$jax1"
contains "JAX_COORDINATOR_ADDRESS is node 0 at Trainer's port" \
  "ENV JAX_COORDINATOR_ADDRESS=127.0.0.1:29500" "$jax1"
until_eq 30 True k get trainjob -n "$NS" jaxy -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}' ||
  bad "the JAX TrainJob did not complete"
echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
