#!/usr/bin/env bash
# The seeds' walkthroughs (../shared/seeds), with the real kubectl and real
# local processes, each on a kuotad of its own:
#   000  Kueue + PyTorchJob: the integrations list from kueue-values.yaml, the
#        seed's queues (and the errors its two typos get, as on Kueue),
#        pytorch-dist-mnist admitted all-or-nothing, the seed's kubectl views.
#   001  two teams' RayClusters in one cohort: team A's prod cluster preempts
#        team B's dev cluster, which ends `suspended`, as the seed shows.
#   002  Volcano's gang jobs, read straight out of the seed: pytorch-ddp-training
#        and horovod-training start all their pods together or not at all
#        (through Volcano's default queue), and `kubectl delete pod` of a
#        running rank is PodEvicted -> RestartJob. Stand-ins for the images'
#        programs (torchrun, horovodrun, horovod-training) go first on PATH.
# With v1beta2 as the second argument, every Kueue manifest (the queues, the
# seed's Configuration) is applied as its kueue.x-k8s.io/v1beta2 copy
# (v1beta2_convert.py: Kueue's conversion) and the same checks must pass;
# kubectl get in v1beta2 must then show the v1beta2 fields. Environment:
# SEEDS (default "000 001 002") picks the seeds; DECISIONS names a file that
# gets each Workload's state at fixed steps, emptied first
# (seeds_v1beta2_test.sh compares the two versions' files).
# Usage: seeds_test.sh PATH/TO/kuotad [v1beta1|v1beta2]
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad [v1beta1|v1beta2]}
API=${2:-v1beta1}
[[ $API == v1beta1 || $API == v1beta2 ]] || { echo "usage: $0 PATH/TO/kuotad [v1beta1|v1beta2]"; exit 2; }
SEEDS=${SEEDS:-000 001 002}
DECISIONS=${DECISIONS:-/dev/null}
: >"$DECISIONS"
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests/seeds
PROBE=$HERE/job_kinds/probe.py
source "$HERE/lib.sh"
need kubectl
scratch kuota-seeds
# seed_kuotad NAME FLAGS...: a fresh kuotad for one seed; TMP is its folder.
seed_kuotad() {
  TMP=$ROOT/$1
  shift
  start_kuotad "$@"
  PIDS+=("$PID")
}
want() { [[ " $SEEDS " == *" $1 "* ]]; }
# record STEP [NAMESPACE]: each Workload's decision now (owner, quota reserved,
# admitted, eviction reason, finished, flavors), one line each, to $DECISIONS.
record() {
  local scope=(-A)
  [[ -n ${2:-} ]] && scope=(-n "$2")
  k get workloads "${scope[@]}" -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} reserved={.status.conditions[?(@.type=="QuotaReserved")].status} admitted={.status.conditions[?(@.type=="Admitted")].status} evicted={.status.conditions[?(@.type=="Evicted")].reason} finished={.status.conditions[?(@.type=="Finished")].status} flavors={.status.admission.podSetAssignments[*].flavors}{"\n"}{end}' |
    sort | sed "s|^|$1: |" >>"$DECISIONS"
}
# KM: the Kueue manifests in the version under test.
KM=$M
if [[ $API == v1beta2 ]]; then
  KM=$ROOT/v1beta2
  mkdir -p "$KM"
  for f in 000-kueue-values.yaml 000-queues-as-written.yaml 000-queues.yaml 001-queues.yaml; do
    if python3 "$HERE/v1beta2_convert.py" "$M/$f" >"$KM/$f"; then ok "v1beta2 copy of $f"; else bad "v1beta2 copy of $f"; fi
    if grep -q 'kueue.x-k8s.io/v1beta1' "$KM/$f"; then bad "the copy of $f still says v1beta1"; fi
  done
fi

# --- Seed 000: PyTorchJob on Kueue --------------------------------------------
if want 000; then
echo "== seed 000 ($API)"
seed_kuotad s000 --gpus 10 --config "$KM/000-kueue-values.yaml"
k create namespace team-a >/dev/null
out=$(k apply -f "$KM/000-queues-as-written.yaml" 2>&1)
contains "000: the seed's ResourceFlavor typo is refused with the field named" \
  'ResourceFlavor.kueue.x-k8s.io "nvidia-gpu-flavor" is invalid: spec.nodeSelector: unknown field' "$out"
contains "000: the seed's ClusterQueue without coveredResources is refused with the field named" \
  "spec.resourceGroups[0].coveredResources: Required value" "$out"
contains "000: the seed's LocalQueue applies" "localqueue.kueue.x-k8s.io/team-a-queue created" "$out"
k apply -f "$KM/000-queues.yaml" >/dev/null || bad "000: corrected queues do not apply"
RELEASE=$TMP/release
job=$(sed -e "s|PROBE|$PROBE|g" -e "s|RELEASE|$RELEASE|g" -e "s|\"RANK\"|\"RANK\", \"$TAG\"|" "$M/000-pytorch-job.yaml")
# All or nothing: a copy asking for more GPUs than the quota has left waits
# whole, with no pod started.
big=$(sed -e 's/name: pytorch-dist-mnist$/name: pytorch-big/' -e 's/replicas: 2/replicas: 7/' <<<"$job")
out=$(k apply -f - <<<"$job" 2>&1)
expect_eq "000: kubectl apply -f pytorch-job.yaml" "pytorchjob.kubeflow.org/pytorch-dist-mnist created" "$out"
wait_for 20 "3" bash -c "kubectl --kubeconfig $TMP/kubeconfig get pods -n team-a --no-headers | grep -c Running"
k apply -f - <<<"$big" >/dev/null
sleep 1
wl=$(k get workloads -n team-a)
contains "000: kubectl get workloads -n team-a: admitted on cluster-queue-a" \
  "team-a-queue   cluster-queue-a   True" "$(grep pytorchjob-pytorch-dist-mnist <<<"$wl")"
contains "000: the big copy's workload waits (no quota reserved)" "pytorchjob-pytorch-big-" "$wl"
expect_eq "000: the big copy starts no pod at all (all or nothing)" "0" \
  "$(k get pods -n team-a --no-headers 2>/dev/null | grep -c pytorch-big)"
contains "000: why it waits" "insufficient unused quota for nvidia.com/gpu in flavor nvidia-gpu-flavor" \
  "$(k get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="pytorch-big")].status.conditions[0].message}')"
record "000 mnist and big submitted"
if [[ $API == v1beta2 ]]; then
  y=$(k get clusterqueues.v1beta2.kueue.x-k8s.io cluster-queue-a -o yaml)
  contains "000: kubectl get clusterqueues.v1beta2 answers in v1beta2" "apiVersion: kueue.x-k8s.io/v1beta2" "$y"
  contains "000: with the v1beta2 copy's quota" "nominalQuota: 10" "$y"
  contains "000: the workloads read in v1beta2" "kueue.x-k8s.io/v1beta2" \
    "$(k get workloads.v1beta2.kueue.x-k8s.io -n team-a -o jsonpath='{.items[*].apiVersion}')"
fi
contains "000: kubectl get pytorchjob shows it Running" "pytorch-dist-mnist   Running" \
  "$(k get pytorchjob pytorch-dist-mnist -n team-a)"
wait_for 20 RENDEZVOUS k logs -n team-a pytorch-dist-mnist-worker-1
contains "000: the three ranks met (torch-style rendezvous at MASTER_ADDR:MASTER_PORT)" \
  "RENDEZVOUS rank=2 world=3 peers=0,1,2" "$(k logs -n team-a pytorch-dist-mnist-worker-1)"
contains "000: each rank has its own GPU" "ENV CUDA_VISIBLE_DEVICES=" "$(k logs -n team-a pytorch-dist-mnist-master-0)"
contains "000: the flavor's node label is injected" '"kueue.x-k8s.io/default-flavor":"true"' \
  "$(k get pod -n team-a pytorch-dist-mnist-master-0 -o jsonpath='{.spec.nodeSelector}')"
k delete pytorchjob -n team-a pytorch-big >/dev/null
touch "$RELEASE"
wait_for 20 Succeeded k get pytorchjob pytorch-dist-mnist -n team-a
contains "000: kubectl get pytorchjob shows it Succeeded" "pytorch-dist-mnist   Succeeded" \
  "$(k get pytorchjob pytorch-dist-mnist -n team-a)"
wait_for 10 True k get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="pytorch-dist-mnist")].status.conditions[?(@.type=="Finished")].status}'
contains "000: its workload is finished" "True" \
  "$(k get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="pytorch-dist-mnist")].status.conditions[?(@.type=="Finished")].status}')"
record "000 mnist finished" team-a
# A framework the seed's values leave out (tfjob) is not queued.
cat <<YAML | k apply -f - >/dev/null
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: unmanaged, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: team-a-queue}}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - {name: tensorflow, image: tf, command: ["sh", "-c", "true $TAG"]}
YAML
sleep 1
expect_eq "000: a TFJob (not in integrations.frameworks) gets no Workload" "" \
  "$(k get workloads -n team-a -o name | grep tfjob)"
expect_eq "000: and is not suspended by Kueue's webhook" "" \
  "$(k get tfjob -n team-a unmanaged -o jsonpath='{.spec.runPolicy.suspend}')"
stop_kuotad
fi  # seed 000

# --- Seed 001: RayClusters, team A's prod preempts team B's dev ---------------
if want 001; then
echo "== seed 001 ($API)"
seed_kuotad s001 --gpus 4 --cpus 16 --memory 64Gi
k apply -f "$KM/001-queues.yaml" >/dev/null || bad "001: queues do not apply"
ray() { sed "s|\"SLEEP\"|\"sleep 600; true $TAG\"|" "$M/$1"; }
# The seed's commands are `oc create -f`; kubectl create is the same request.
ray 001-team-b-ray-cluster-dev.yaml | k create -f - >/dev/null || bad "001: team B's cluster"
wait_for 20 ready k get rayclusters -A
out=$(k get rayclusters -A)
contains "001: team B's dev cluster is ready, as the seed's first listing" \
  "team-b      raycluster-dev   2                 2                   6      16G      0      ready" "$out"
expect_eq "001: team B's head and two small-group-test workers run" "3" \
  "$(k get pods -n team-b --no-headers | grep -c Running)"
contains "001: worker pods are named as KubeRay names them" "raycluster-dev-worker-small-group-test-" \
  "$(k get pods -n team-b --no-headers)"
record "001 dev running"
ray 001-team-a-ray-cluster-prod.yaml | k create -f - >/dev/null || bad "001: team A's cluster"
wait_for 30 suspended k get rayclusters -A
wait_for 30 "raycluster-prod   2                 2" k get rayclusters -A
out=$(k get rayclusters -A)
echo "$out" | sed 's/^/     /'
contains "001: team A's prod cluster runs, as the seed's second listing" \
  "team-a      raycluster-prod   2                 2                   10     24G      4      ready" "$out"
contains "001: team B's dev cluster is suspended, as the seed's second listing" \
  "team-b      raycluster-dev    2                                     6      16G      0      suspended" "$out"
expect_eq "001: team B's pods are gone" "0" "$(k get pods -n team-b --no-headers 2>/dev/null | grep -c .)"
contains "001: team B's workload was preempted to reclaim/borrow within the cohort" "Preempted" \
  "$(k get workloads -n team-b -o jsonpath='{.items[0].status.conditions[*].reason}')"
contains "001: team A's workers got the GPU flavor" '"nvidia.com/gpu.present":"true"' \
  "$(k get pods -n team-a -l ray.io/group=gpu-group -o jsonpath='{.items[0].spec.nodeSelector}')"
record "001 prod preempted dev"
if [[ $API == v1beta2 ]]; then
  expect_eq "001: kubectl get clusterqueues.v1beta2 shows each queue's cohortName" "team-ab team-ab team-ab" \
    "$(k get clusterqueues.v1beta2.kueue.x-k8s.io -o jsonpath='{.items[*].spec.cohortName}')"
  expect_eq "001: and no v1beta1 cohort field" "" \
    "$(k get clusterqueues.v1beta2.kueue.x-k8s.io -o jsonpath='{.items[*].spec.cohort}')"
  expect_eq "001: the same ClusterQueue read as v1beta1 has cohort" "team-ab" \
    "$(k get clusterqueues.v1beta1.kueue.x-k8s.io team-a-cq -o jsonpath='{.spec.cohort}')"
  expect_eq "001: the RayClusters' workloads read in v1beta2 name their priority class in priorityClassRef" \
    "WorkloadPriorityClass/prod-priority WorkloadPriorityClass/dev-priority" \
    "$(k get workloads.v1beta2.kueue.x-k8s.io -n team-a -o jsonpath='{.items[0].spec.priorityClassRef.kind}/{.items[0].spec.priorityClassRef.name}') $(k get workloads.v1beta2.kueue.x-k8s.io -n team-b -o jsonpath='{.items[0].spec.priorityClassRef.kind}/{.items[0].spec.priorityClassRef.name}')"
  contains "001: kubectl get workloads.v1beta2 (a Table) lists team B's preempted workload" "raycluster-raycluster-dev-" \
    "$(k get workloads.v1beta2.kueue.x-k8s.io -n team-b)"
fi
k delete raycluster -n team-a raycluster-prod >/dev/null
if wait_for 30 "raycluster-dev   2                 2" k get rayclusters -n team-b; then
  ok "001: team B's cluster comes back when team A's is deleted"
else
  bad "001: team B's cluster did not come back" "$(k get rayclusters -A)"
fi
record "001 dev back" team-b
stop_kuotad
fi  # seed 001

# --- Seed 002: Volcano gang scheduling -----------------------------------------
# (No Kueue manifest here: the Volcano jobs go through Volcano's default queue.
# Seed 002's Kueue section is applied in both versions by seeds_v1beta2_test.sh.)
if want 002; then
echo "== seed 002"
SEED002=$(ls "$HERE"/../../../shared/seeds/002_*.txt 2>/dev/null | head -1)
[[ -n "$SEED002" ]] || { bad "002: seed 002 not found beside the project (../shared/seeds)"; SEED002=/dev/null; }
mkdir -p "$ROOT/s002/bin"
BIN=$ROOT/s002/bin
# The images' programs: each prints what it was given, then waits for its
# release file (torchrun takes a second to stop, as it does with its ranks).
cat >"$BIN/torchrun" <<SH
#!/bin/sh
echo "torchrun \$* task=\$VC_TASK_INDEX hosts=\$VC_WORKER_HOSTS"
trap 'sleep 1; exit 143' TERM
while [ ! -e $ROOT/s002/release-ddp ]; do sleep 0.1; done
: $TAG
SH
cat >"$BIN/horovodrun" <<SH
#!/bin/sh
echo "horovodrun \$*"
while [ ! -e $ROOT/s002/release-hvd ]; do sleep 0.1; done
: $TAG
SH
cat >"$BIN/horovod-training" <<SH
#!/bin/sh
exec sh -c "sleep 600" $TAG
SH
chmod +x "$BIN"/*
python3 - "$SEED002" "$ROOT/s002" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
jobs = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "batch.volcano.sh" in b]
for b in jobs:
    name = re.search(r"name: (\S+)", b).group(1)
    open(f"{sys.argv[2]}/{name}.yaml", "w", encoding="utf-8").write(b)
PY
PATH="$BIN:$PATH" seed_kuotad s002 --gpus 4
pods_of() { k get pods -n default -l "volcano.sh/job-name=$1" --no-headers 2>/dev/null; }
running() { pods_of "$1" | grep -c Running; }
k create -f "$TMP/pytorch-ddp-training.yaml" >/dev/null || bad "002: pytorch-ddp-training does not apply"
wait_for 20 4 running pytorch-ddp-training
expect_eq "002: pytorch-ddp-training's 4 workers run together (minAvailable 4, 4 GPUs)" 4 \
  "$(running pytorch-ddp-training)"
k create -f "$TMP/horovod-training.yaml" >/dev/null || bad "002: horovod-training does not apply"
sleep 1
expect_eq "002: horovod-training (needs the same 4 GPUs) starts no pod at all meanwhile" "" \
  "$(pods_of horovod-training)"
contains "002: its workload waits in Volcano's default queue" "volcano-default" \
  "$(k get workloads -n default -o jsonpath='{.items[*].spec.queueName}')"
contains "002: \$(VC_WORKER_0_SVC) expanded to this machine for torchrun's rendezvous" \
  "--rdzv_endpoint=127.0.0.1:29500" "$(k logs -n default pytorch-ddp-training-worker-3)"
uids_before=$(k get pods -n default -l volcano.sh/job-name=pytorch-ddp-training -o jsonpath='{.items[*].metadata.uid}')
k delete pod -n default pytorch-ddp-training-worker-2 --wait=false >/dev/null   # an eviction
wait_for 20 1 k get jobs.batch.volcano.sh -n default pytorch-ddp-training -o jsonpath='{.status.retryCount}'
expect_eq "002: PodEvicted -> RestartJob: the job's retryCount is 1" 1 \
  "$(k get jobs.batch.volcano.sh -n default pytorch-ddp-training -o jsonpath='{.status.retryCount}')"
contains "002: the RestartJob is an event on the job" "Restarting the job: pod pytorch-ddp-training-worker-2 was evicted" \
  "$(k get events -n default --field-selector involvedObject.name=pytorch-ddp-training -o jsonpath='{.items[*].message}')"
wait_for 30 4 running pytorch-ddp-training
uids_after=$(k get pods -n default -l volcano.sh/job-name=pytorch-ddp-training -o jsonpath='{.items[*].metadata.uid}')
shared=$(comm -12 <(tr ' ' '\n' <<<"$uids_before" | sort) <(tr ' ' '\n' <<<"$uids_after" | sort) | grep -c .)
expect_eq "002: all 4 workers were restarted together (no old pod left)" "4 0" \
  "$(running pytorch-ddp-training) $shared"
touch "$TMP/release-ddp"
wait_for 20 Completed k get jobs.batch.volcano.sh -n default pytorch-ddp-training
contains "002: pytorch-ddp-training Completed" "Completed" "$(k get jobs.batch.volcano.sh -n default pytorch-ddp-training)"
wait_for 20 5 running horovod-training
expect_eq "002: then horovod-training's master and 4 workers start together" 5 "$(running horovod-training)"
contains "002: horovodrun got the svc plugin's host list" "horovodrun -np 4 -H 127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1" \
  "$(k logs -n default horovod-training-master-0)"
touch "$TMP/release-hvd"
wait_for 20 Completed k get jobs.batch.volcano.sh -n default horovod-training
contains "002: the master's TaskCompleted -> CompleteJob ends the job" "Completed" \
  "$(k get jobs.batch.volcano.sh -n default horovod-training)"
wait_for 10 0 running horovod-training
expect_eq "002: and its workers are stopped" 0 "$(running horovod-training)"
stop_kuotad
fi  # seed 002

echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
