#!/usr/bin/env bash
# The seeds' walkthroughs (../shared/seeds), with the real kubectl and real
# local processes, each on a kuotad of its own:
#   000  Kueue + PyTorchJob: the integrations list from kueue-values.yaml, the
#        seed's queues (and the errors its two typos get, as on Kueue),
#        pytorch-dist-mnist admitted all-or-nothing, the seed's kubectl views.
#   001  two teams' RayClusters in one cohort: team A's prod cluster preempts
#        team B's dev cluster, which ends `suspended`, as the seed shows.
#   002  Volcano gang jobs (see volcano_seed_test.sh).
# Usage: seeds_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests/seeds
PROBE=$HERE/job_kinds/probe.py
command -v kubectl >/dev/null || { echo "FAIL: kubectl not found on PATH"; exit 1; }
source "$HERE/lib.sh"

ROOT=$(mktemp -d)
PIDS=()
TAG=kuota-seeds-$$
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  pkill -9 -f "$TAG" 2>/dev/null
  rm -rf "$ROOT"
}
trap cleanup EXIT
# seed_kuotad NAME FLAGS...: a fresh kuotad for one seed; TMP is its folder.
seed_kuotad() {
  TMP=$ROOT/$1
  mkdir -p "$TMP"
  shift
  start_kuotad "$@"
  PIDS+=("$PID")
}
stop_kuotad() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }

# --- Seed 000: PyTorchJob on Kueue --------------------------------------------
echo "== seed 000"
seed_kuotad s000 --gpus 10 --config "$M/000-kueue-values.yaml"
k create namespace team-a >/dev/null
out=$(k apply -f "$M/000-queues-as-written.yaml" 2>&1)
contains "000: the seed's ResourceFlavor typo is refused with the field named" \
  'ResourceFlavor.kueue.x-k8s.io "nvidia-gpu-flavor" is invalid: spec.nodeSelector: unknown field' "$out"
contains "000: the seed's ClusterQueue without coveredResources is refused with the field named" \
  "spec.resourceGroups[0].coveredResources: Required value" "$out"
contains "000: the seed's LocalQueue applies" "localqueue.kueue.x-k8s.io/team-a-queue created" "$out"
k apply -f "$M/000-queues.yaml" >/dev/null || bad "000: corrected queues do not apply"
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
contains "000: its workload is finished" "True" \
  "$(k get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="pytorch-dist-mnist")].status.conditions[?(@.type=="Finished")].status}')"
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

# --- Seed 001: RayClusters, team A's prod preempts team B's dev ---------------
echo "== seed 001"
seed_kuotad s001 --gpus 4 --cpus 16 --memory 64Gi
k apply -f "$M/001-queues.yaml" >/dev/null || bad "001: queues do not apply"
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
k delete raycluster -n team-a raycluster-prod >/dev/null
if wait_for 30 "raycluster-dev   2                 2" k get rayclusters -n team-b; then
  ok "001: team B's cluster comes back when team A's is deleted"
else
  bad "001: team B's cluster did not come back" "$(k get rayclusters -A)"
fi
stop_kuotad

echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
