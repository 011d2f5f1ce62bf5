#!/usr/bin/env bash
# Topology-aware scheduling on one machine, driven by the real kubectl: kuotad
# with 8 fake GPUs declared as two NVLink islands of 4
# (--gpu-topology "nvlink=0-3,4-7;numa=0-3,4-7") publishes its Node; a
# Topology of one level (the hostname) and a flavor naming it make a gang of 2
# pods of 2 GPUs with kueue.x-k8s.io/podset-required-topology admitted with a
# topologyAssignment on this machine, and its pods get GPUs of one NVLink
# island. A second gang of 3 x 2 GPUs fits the ClusterQueue's quota (16 GPUs)
# but not the machine (4 left): it waits with the topology's reason, and is
# admitted when the first one is deleted.
# Usage: tas_gpu_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-tas-gpu

start_kuotad --fake-gpus 8 --gpu-topology "nvlink=0-3,4-7;numa=0-3,4-7" --cpus 16
HOST=$(k get nodes -o jsonpath='{.items[0].metadata.labels.kubernetes\.io/hostname}')
[[ -n $HOST ]] || { echo "FAIL the machine's Node has no hostname label"; exit 1; }
k create namespace ml >/dev/null
echo "apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: machine}
spec:
  levels:
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: local-gpu}
spec:
  nodeLabels: {node-role.kubernetes.io/kuota: \"\"}
  topologyName: machine
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: local-gpu
      resources: [{name: cpu, nominalQuota: 16}, {name: nvidia.com/gpu, nominalQuota: 16}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: cq}" | k apply -f - >/dev/null || { echo "FAIL apply queues"; exit 1; }

# gang NAME PODS: an Indexed Job of PODS pods of 2 GPUs that must share a host.
gang() {
  echo "apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  completionMode: Indexed
  completions: $2
  parallelism: $2
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox
        command: [sh, -c, 'echo gpus=\$CUDA_VISIBLE_DEVICES; sleep 600']
        resources:
          requests: {cpu: 100m}
          limits: {nvidia.com/gpu: 2}" | k create -f - >/dev/null
}
# The GPUs each pod of Job $1 printed, one line per pod, sorted.
seen() {
  local p
  for p in $(k get pods -n ml -l batch.kubernetes.io/job-name="$1" -o name); do
    k logs -n ml "$p" 2>/dev/null | sed -n 's/^gpus=//p'
  done | sort
}
running() {
  for _ in $(seq 1 150); do
    (( $(seen "$1" | wc -l) >= $2 )) && return 0
    sleep 0.2
  done
  echo "FAIL Job $1: $2 pods did not print their GPUs"; k get pods -n ml -o wide; tail -20 "$TMP/kuotad.log"
  exit 1
}
# Field $2 (python expression on `w`, the Workload read as v1beta1: its topology
# assignment as domains) of Job $1's Workload.
workload() {
  k get workloads.v1beta1.kueue.x-k8s.io -n ml -o json | python3 -c "
import json, sys
for w in json.load(sys.stdin)['items']:
    if w['metadata']['name'].startswith('job-$1-'):
        print($2)"
}

gang first 2
running first 2
expect_eq "the gang's Workload is placed on this machine's hostname" \
  "{\"domains\": [{\"count\": 2, \"values\": [\"$HOST\"]}], \"levels\": [\"kubernetes.io/hostname\"]}" \
  "$(workload first "json.dumps(w['status']['admission']['podSetAssignments'][0]['topologyAssignment'], sort_keys=True)")"
gpus=$(seen first | tr '\n' ',' | sed 's/,$//')
island=$(python3 -c "
g = [int(x) for x in '$gpus'.split(',')]
print('one island' if len(set(g)) == 4 and len({x // 4 for x in g}) == 1 else 'split: $gpus')")
expect_eq "the gang's 4 GPUs are distinct and in one NVLink island" "one island" "$island"

gang second 3
msg=""
for _ in $(seq 1 100); do
  msg=$(workload second "next((c['message'] for c in w['status'].get('conditions', []) if c['type'] == 'QuotaReserved'), '')")
  [[ $msg == *topology* ]] && break
  sleep 0.2
done
contains "the second gang fits quota but waits for the machine, with Kueue's reason" \
  'topology "machine" allows to fit only 2 out of 3 pod(s)' "$msg"
contains "and says which level is short, and by how much" \
  "no kubernetes.io/hostname domain has room for 3 pods of cpu 100m, nvidia.com/gpu 2: the largest free one holds 2" "$msg"
expect_eq "no pod of the second gang started" "0" "$(k get pods -n ml -l batch.kubernetes.io/job-name=second --no-headers 2>/dev/null | wc -l)"

k delete job -n ml first --wait=false >/dev/null
running second 3
gpus=$(seen second | tr '\n' ',' | sed 's/,$//')
expect_eq "once the first gang is gone, the second gets 6 distinct GPUs" "6" \
  "$(tr ',' '\n' <<<"$gpus" | sort -u | wc -l)"
expect_eq "the second gang's Workload is placed on this machine" "3" \
  "$(workload second "w['status']['admission']['podSetAssignments'][0]['topologyAssignment']['domains'][0]['count']")"
k delete job -n ml second --wait=false >/dev/null
echo "PASS=$PASS FAIL=$FAIL"
[[ $FAIL -eq 0 ]]
