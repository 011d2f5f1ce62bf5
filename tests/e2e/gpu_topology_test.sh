#!/usr/bin/env bash
# kuotad hands out GPUs by topology, driven by the real kubectl: 8 fake GPUs
# declared as two NVLink islands of 4 on two NUMA nodes
# (--gpu-topology "nvlink=0-3,4-7;numa=0-3,4-7"). A pod asking 4 gets one
# island; a gang of two pods of 2 lands in one island (the one that holds all
# 4, though the other had a hole of 2); 1-GPU pods fill the partly used island
# (best fit); a pod asking 2 when island 0 has 1 free and island 1 has 3 gets
# two of island 1. Each pod's CUDA_VISIBLE_DEVICES, its kuota.dev/GPUPlacement
# condition and `kuota describe pod` say which GPUs and why, also after a
# restart of kuotad; the Node shows the topology; a bad --gpu-topology stops
# kuotad with the error named.
# Usage: gpu_topology_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-gpu-topo
TOPOLOGY="nvlink=0-3,4-7;numa=0-3,4-7"

# --- Bad topologies are refused at start, naming what is wrong ---------------
out=$("$KUOTAD" --data-dir "$TMP/bad" --port 0 --fake-gpus 8 --gpu-topology "nvlink=0-3,3-7" 2>&1)
contains "a GPU in two NVLink groups stops kuotad" \
  'kuotad: --gpu-topology "nvlink=0-3,3-7": nvlink: GPU 3 is in two groups' "$out"
out=$("$KUOTAD" --data-dir "$TMP/bad" --port 0 --fake-gpus 4 --gpu-topology "numa=0-7" 2>&1)
contains "a GPU the machine lacks stops kuotad" "numa: GPU 4 is not on this machine (GPUs 0-3)" "$out"
out=$("$KUOTAD" --data-dir "$TMP/bad" --port 0 --gpu-topology "$TOPOLOGY" 2>&1)
contains "a topology without declared GPUs stops kuotad" "give --gpus N or --fake-gpus N" "$out"

start_kuotad --fake-gpus 8 --gpu-topology "$TOPOLOGY" --cpus 16
k create namespace ml >/dev/null
echo "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: local}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: local
      resources: [{name: cpu, nominalQuota: 16}, {name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: cq}" | k apply -f - >/dev/null || { echo "FAIL apply queues"; exit 1; }
expect_eq "the Node shows the declared topology" "$TOPOLOGY" \
  "$(k get nodes -o jsonpath='{.items[0].metadata.annotations.kuota\.dev/gpu-topology}')"

# gpu_job NAME GPUS [PODS]: a queued Job of PODS pods (one start group) each
# asking GPUS, printing what it sees and sleeping until deleted.
gpu_job() {
  local extra=()
  [[ -n ${3:-} ]] && extra=(indexed="$3")
  job_yaml ml "$1" queue=lq grace=1 "${extra[@]}" requests="cpu: 100m" limits="nvidia.com/gpu: $2" \
    cmd="echo gpus=\$CUDA_VISIBLE_DEVICES; sleep 600; true $TAG" | k create -f - >/dev/null
}
# The GPUs each running pod of Job $1 sees, one line per pod, sorted.
seen() {
  local p
  for p in $(k get pods -n ml -l batch.kubernetes.io/job-name="$1" -o name); do
    k logs -n ml "$p" 2>/dev/null | sed -n 's/^gpus=//p'
  done | sort
}
# Job $1's pods' kuota.dev/GPUPlacement messages.
why() {
  k get pods -n ml -l batch.kubernetes.io/job-name="$1" \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="kuota.dev/GPUPlacement")].message}{"\n"}{end}'
}
# Until Job $1 has $2 pods that printed their GPUs (20 s at most).
running() {
  for _ in $(seq 1 100); do
    (( $(seen "$1" | wc -l) >= $2 )) && return 0
    sleep 0.2
  done
  return 1
}
# Deletes Job $1 and waits until its pods are gone (their GPUs free).
stop_job() {
  k delete job -n ml "$1" --wait=false >/dev/null
  for _ in $(seq 1 100); do
    [[ -z $(k get pods -n ml -l batch.kubernetes.io/job-name="$1" -o name 2>/dev/null) ]] && return 0
    sleep 0.2
  done
  bad "the pods of job $1 did not go"
}

# --- A pod asking 4 gets one island; a gang of 2 x 2 gets the other ----------
gpu_job four 4
running four 1 || bad "job four did not start"
expect_eq "a pod asking 4 gets NVLink island 0-3" "0,1,2,3" "$(seen four)"
contains "its condition says why" \
  "GPUs 0,1,2,3 share NVLink island 0-3 (best fit: it had 4 free)" "$(why four)"
pod=$(k get pods -n ml -l batch.kubernetes.io/job-name=four -o jsonpath='{.items[0].metadata.name}')
contains "kuota describe pod shows the GPUs and why" \
  "GPUs:             GPUs 0,1,2,3 share NVLink island 0-3 (best fit: it had 4 free)" \
  "$("$KUOTA" describe pod "$pod" -n ml --kubeconfig "$TMP/kubeconfig" 2>&1)"
contains "kubectl describe's Started event names them too" "with GPUs [0,1,2,3]: GPUs 0,1,2,3 share" \
  "$(k describe pod -n ml "$pod")"
stop_job four

# Island 0 with a hole of 2 (GPUs 2, 3), island 1 free: alone, a pod of 2
# would take the hole; the gang's 4 GPUs go to island 1, which holds them all.
gpu_job hole 2
running hole 1 || bad "job hole did not start"
expect_eq "a pod of 2 on an empty machine takes island 0's first two" "0,1" "$(seen hole)"
gpu_job gang 2 2
running gang 2 || bad "the gang did not start"
expect_eq "the gang's two pods of 2 share island 1" $'4,5\n6,7' "$(seen gang)"
contains "their condition names the gang's island" \
  "its gang of 2 pods (4 GPUs) is kept in NVLink island 4-7" "$(why gang)"
stop_job gang
stop_job hole

# --- Best fit: 1-GPU pods fill island 0, a pod of 2 goes where 3 are free ----
gpu_job three 3
running three 1 || bad "job three did not start"
expect_eq "a pod of 3 takes island 0" "0,1,2" "$(seen three)"
gpu_job single 1
running single 1 || bad "job single did not start"
expect_eq "a pod of 1 fills island 0's last GPU (best fit)" "3" "$(seen single)"
gpu_job other 1
running other 1 || bad "job other did not start"
expect_eq "the next pod of 1 opens island 1" "4" "$(seen other)"
stop_job single
# Now island 0 has 1 free (GPU 3), island 1 has 3 free (5, 6, 7).
gpu_job pair 2
running pair 1 || bad "job pair did not start"
expect_eq "a pod of 2 gets two of the island with 3 free" "5,6" "$(seen pair)"
contains "and says so" "GPUs 5,6 share NVLink island 4-7 (best fit: it had 3 free)" "$(why pair)"

# --- A restarted kuotad keeps who holds which GPU, and why -------------------
stop_kuotad
start_kuotad --fake-gpus 8 --gpu-topology "$TOPOLOGY" --cpus 16
gpu_job last 2
running last 1 || bad "job last did not start"
expect_eq "after a restart a pod of 2 gets the two GPUs left (3, 7)" "3,7" "$(seen last)"
contains "which span the machine" "GPUs 3,7 span the machine (no closer group had 2 free)" \
  "$(why last)"
contains "the adopted pod still says why it has its GPUs" \
  "GPUs 5,6 share NVLink island 4-7 (best fit: it had 3 free)" "$(why pair)"

echo "PASS=$PASS FAIL=$FAIL"
[[ $FAIL -eq 0 ]]
