#!/usr/bin/env bash
# How kuota.db beside this script was made: kuotad at commit 81068c0 (the last
# that stored kueue.x-k8s.io kinds as v1beta1) run with --no-run-pods, fed
# these v1beta1 objects and Jobs, and stopped once it had decided them. The
# migration test (tests/e2e/storage_migration_test.sh) opens a copy with the
# current kuotad. Kept for the record; the current kuotad writes v1beta2.
# Usage: make.sh PATH/TO/OLD/kuotad
set -euo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/OLD/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../../e2e/lib.sh"
scratch kuota-make-v1beta1-store
start_kuotad --no-run-pods
k create namespace team-a >/dev/null
k create namespace team-b >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: tas-flavor}
spec:
  nodeLabels: {pool: tas}
  topologyName: racks
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: racks}
spec:
  levels:
  - nodeLabel: example.com/rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: root}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: org}
spec: {parentName: root}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
description: urgent work
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: manual-check}
spec:
  controllerName: example.com/manual
  retryDelayMinutes: 5
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a-cq}
spec:
  cohort: org
  namespaceSelector: {}
  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: TryNextFlavor}
  preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 4}
      - {name: memory, nominalQuota: 8Gi}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-b-cq}
spec:
  cohort: org
  namespaceSelector: {}
  admissionChecks: [manual-check]
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 2}
      - {name: memory, nominalQuota: 4Gi}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: tas-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tas-flavor
      resources: [{name: cpu, nominalQuota: 16}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-a-lq, namespace: team-a}
spec: {clusterQueue: team-a-cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-b-lq, namespace: team-b}
spec: {clusterQueue: team-b-cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: tas-lq, namespace: team-a}
spec: {clusterQueue: tas-cq}
YAML
for n in 1 2; do
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata:
  name: node-$n
  labels: {pool: tas, example.com/rack: rack-1, kubernetes.io/hostname: node-$n}
YAML
  k patch node node-$n --subresource=status --type=merge -p \
    '{"status":{"allocatable":{"cpu":"8","memory":"32Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
done
job_yaml team-a running-high queue=team-a-lq priority=high cmd="sleep 1000" requests="cpu: 3, memory: 1Gi" | k apply -f - >/dev/null
job_yaml team-a waiting queue=team-a-lq cmd="sleep 1000" requests="cpu: 3, memory: 1Gi" | k apply -f - >/dev/null
job_yaml team-b checked queue=team-b-lq cmd="true" requests="cpu: 1" | k apply -f - >/dev/null
job_yaml team-a placed queue=tas-lq indexed=2 cmd="true" requests="cpu: 3" |
  sed 's/^    spec:$/    metadata:\n      annotations: {kueue.x-k8s.io\/podset-required-topology: example.com\/rack}\n    spec:/' |
  k apply -f - >/dev/null
sleep 5
k get workloads -A
stop_kuotad
sqlite3 "$TMP/data/kuota.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
cp "$TMP/data/kuota.db" "$HERE/kuota.db"
echo "wrote $HERE/kuota.db"
