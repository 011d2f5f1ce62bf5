#!/usr/bin/env bash
# Topology-aware scheduling's objects through kuotad, driven by the real
# kubectl: Topology served in kueue.x-k8s.io v1beta1 and v1beta2
# (cluster-scoped, short name topo, Kueue's CRD columns NAME and AGE),
# validated as Kueue's CRD (levels unique, hostname only lowest, changed only
# when hostname is the lowest before and after); a ResourceFlavor naming a topology needs
# nodeLabels and keeps its topologyName; Nodes pasted from
# `kubectl get node -o yaml` are accepted, and one the scheduler cannot read
# gets an InvalidObject Event; a Workload's topologyRequest is checked as
# Kueue's webhook does and reads back in v1beta2; a topologyAssignment
# written as v1beta2's slices is stored as written and reads back as
# v1beta1's domains; `kuota get topologies` lists them.
# Usage: topology_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-topology
start_kuotad --no-run-pods

# --- Discovery ----------------------------------------------------------------
out=$(k api-resources --api-group=kueue.x-k8s.io 2>&1)
contains "api-resources lists topologies, short name topo, cluster-scoped" \
  "$(printf 'topologies\ttopo\tkueue.x-k8s.io/v1beta2\tfalse\tTopology')" \
  "$(awk '$1 == "topologies" {print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5}' <<<"$out")"
out=$(k get --raw /apis/kueue.x-k8s.io/v1beta2 2>&1)
contains "v1beta2 discovery has topologies" '"name":"topologies"' "$out"

# --- Topology -----------------------------------------------------------------
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: default}
spec:
  levels:
  - nodeLabel: cloud.example.com/block
  - nodeLabel: cloud.example.com/rack
  - nodeLabel: kubernetes.io/hostname
EOF
)
contains "a v1beta1 Topology is created" "topology.kueue.x-k8s.io/default created" "$out"
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: racks}
spec:
  levels:
  - nodeLabel: cloud.example.com/rack
EOF
)
contains "a v1beta2 Topology is created" "topology.kueue.x-k8s.io/racks created" "$out"
out=$(k get topologies 2>&1)
contains "kubectl get topologies: Kueue's columns" "NAME      AGE" "$out"
contains "kubectl get topologies lists both" "racks" "$out"
out=$(k get topo default -o jsonpath='{.spec.levels[1].nodeLabel}' 2>&1)
expect_eq "kubectl get topo (short name) reads the levels" "cloud.example.com/rack" "$out"
out=$(k get topologies.v1beta2.kueue.x-k8s.io default -o jsonpath='{.apiVersion} {.spec.levels[2].nodeLabel}' 2>&1)
expect_eq "read as v1beta2" "kueue.x-k8s.io/v1beta2 kubernetes.io/hostname" "$out"
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: bad}
spec:
  levels:
  - nodeLabel: kubernetes.io/hostname
  - nodeLabel: cloud.example.com/rack
  - nodeLabel: cloud.example.com/rack
EOF
)
contains "hostname only at the lowest level" \
  'spec.levels[0].nodeLabel: Invalid value: "kubernetes.io/hostname": the kubernetes.io/hostname label can only be used at the lowest level' "$out"
contains "levels must be unique" 'spec.levels[2].nodeLabel: Duplicate value: "cloud.example.com/rack"' "$out"
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: typo}
spec:
  levels:
  - nodeLabell: cloud.example.com/rack
EOF
)
contains "an unknown field is refused" "spec.levels[0].nodeLabell: unknown field" "$out"
out=$("$KUOTA" get topologies --kubeconfig "$TMP/kubeconfig" 2>&1)
contains "kuota get topologies lists them" "default" "$out"
contains "kuota get topologies has Kueue's columns" "AGE" "$out"

# --- ResourceFlavor with a topology -------------------------------------------
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: tas-flavor}
spec:
  nodeLabels: {cloud.example.com/pool: tas}
  topologyName: default
EOF
)
contains "a ResourceFlavor naming a topology is created" "resourceflavor.kueue.x-k8s.io/tas-flavor created" "$out"
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: tas-no-labels}
spec:
  topologyName: default
EOF
)
contains "a topology without nodeLabels is refused" \
  "at least one nodeLabel is required when topology is set" "$out"

out=$(k patch resourceflavor tas-flavor --type=merge -p '{"spec":{"topologyName":"racks"}}' 2>&1)
contains "a flavor's topologyName is immutable once set" \
  'spec: Invalid value: "object": topologyName is immutable when topologyName is set' "$out"
out=$(k patch topology racks --type=json -p '[{"op":"add","path":"/spec/levels/0","value":{"nodeLabel":"cloud.example.com/block"}}]' 2>&1)
contains "a Topology's levels are immutable without a hostname level" \
  'spec.levels: Invalid value: "array": levels are mutable only when kubernetes.io/hostname is the lowest level both before and after the change' "$out"
out=$(k patch topology default --type=json -p '[{"op":"remove","path":"/spec/levels/0"}]' 2>&1)
contains "above a hostname level they may change" "topology.kueue.x-k8s.io/default patched" "$out"

# --- Nodes ---------------------------------------------------------------------
# kuotad keeps no status on a create (kube-apiserver keeps a Node's): it is
# written through the status subresource.
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: v1
kind: Node
metadata:
  labels:
    cloud.example.com/block: b1
    cloud.example.com/pool: tas
    cloud.example.com/rack: r1
    kubernetes.io/hostname: node-1
  name: node-1
spec:
  podCIDR: 10.244.1.0/24
  podCIDRs: [10.244.1.0/24]
  providerID: kind://docker/kind/node-1
  taints: [{key: gpu, value: "true", effect: NoSchedule}]
EOF
)
contains "a Node as kubectl prints it is created" "node/node-1 created" "$out"
out=$(k patch node node-1 --subresource=status --type=merge -p '{"status": {
  "addresses": [{"address": "172.18.0.3", "type": "InternalIP"}],
  "allocatable": {"cpu": "8", "ephemeral-storage": "100Gi", "memory": "32Gi", "pods": "110"},
  "capacity": {"cpu": "8", "ephemeral-storage": "100Gi", "memory": "32Gi", "pods": "110"},
  "conditions": [{"lastHeartbeatTime": "2026-01-01T00:00:00Z",
                  "lastTransitionTime": "2026-01-01T00:00:00Z",
                  "message": "kubelet is posting ready status", "reason": "KubeletReady",
                  "status": "True", "type": "Ready"}],
  "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
  "nodeInfo": {"architecture": "amd64", "kubeletVersion": "v1.34.0", "operatingSystem": "linux"}}}' 2>&1)
contains "its status is written" "node/node-1 patched" "$out"
out=$(k get node node-1 -o jsonpath='{.status.allocatable.cpu}' 2>&1)
expect_eq "its allocatable is kept" "8" "$out"
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: node-bad
  labels: {kubernetes.io/hostname: node-bad}
EOF
)
contains "a second Node is created" "node/node-bad created" "$out"
k patch node node-bad --subresource=status --type=merge \
  -p '{"status": {"allocatable": {"cpu": "lots"}}}' >/dev/null 2>&1
eventually "a Node the scheduler cannot read gets an InvalidObject Event" 10 "node-bad InvalidObject" \
  k get events -o jsonpath='{range .items[*]}{.involvedObject.name} {.reason}{"\n"}{end}'
out=$(k get events -o jsonpath='{range .items[*]}{.involvedObject.name} {.reason}{"\n"}{end}' 2>&1)
if grep -q "^node-1 InvalidObject" <<<"$out"; then
  bad "the scheduler reads node-1" "$out"
else
  ok "the scheduler reads node-1"
fi

# --- A Workload's topologyRequest and topologyAssignment -----------------------
k create namespace team >/dev/null
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: sliced, namespace: team}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 4
    template: {spec: {containers: [{name: c, image: busybox}]}}
    topologyRequest: {required: cloud.example.com/rack, podSetSliceSize: 2}
EOF
)
contains "a slice size without a slice topology is refused, as Kueue's webhook" \
  "spec.podSets[0].topologyRequest.podSetSliceSize: Forbidden: may not be set when podSetSliceRequiredTopology is not specified" "$out"
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: placed, namespace: team}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 4
    template: {spec: {containers: [{name: c, image: busybox}]}}
    topologyRequest:
      required: cloud.example.com/rack
      podSetSliceRequiredTopology: kubernetes.io/hostname
      podSetSliceSize: 2
EOF
)
contains "a Workload with a topologyRequest is created" "workload.kueue.x-k8s.io/placed created" "$out"
out=$(k get workloads.v1beta2.kueue.x-k8s.io placed -n team -o jsonpath='{.spec.podSets[0].topologyRequest.podSetSliceSize}' 2>&1)
expect_eq "its topologyRequest reads back in v1beta2" "2" "$out"

# A topologyAssignment written in v1beta2's slices is stored as written (v1beta2
# is the stored version) and reads back as v1beta1's domains; malformed slices
# are refused.
slices='"slices":[{"domainCount":2,"valuesPerLevel":[{"individual":{"prefix":"node-","roots":["1","2"]}}],"podCounts":{"individual":[2,1]}}]'
admission() {
  echo '{"status":{"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","count":4,"flavors":{"cpu":"tas-flavor"},"topologyAssignment":{"levels":["kubernetes.io/hostname"],'"$1"'}}]}}}'
}
out=$(k patch workloads.v1beta2.kueue.x-k8s.io placed -n team --subresource=status --type=merge \
  -p "$(admission "$slices")" 2>&1)
contains "a v1beta2 topologyAssignment is written" "workload.kueue.x-k8s.io/placed patched" "$out"
out=$(k get workloads.v1beta1.kueue.x-k8s.io placed -n team \
  -o jsonpath='{.status.admission.podSetAssignments[0].topologyAssignment}' 2>&1)
expect_eq "it reads back in v1beta1 as domains" \
  '{"domains":[{"count":2,"values":["node-1"]},{"count":1,"values":["node-2"]}],"levels":["kubernetes.io/hostname"]}' "$out"
out=$(k get workloads.v1beta2.kueue.x-k8s.io placed -n team \
  -o jsonpath='{.status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].individual.prefix}' 2>&1)
expect_eq "it reads back in v1beta2 as the slices written" "node-" "$out"
out=$(k patch workloads.v1beta2.kueue.x-k8s.io placed -n team --subresource=status --type=merge \
  -p "$(admission "${slices/\"1\",\"2\"/\"1\"}")" 2>&1)
contains "slices whose roots do not match domainCount are refused" \
  "status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0]: valuesPerLevel.individual, if set, must have roots of length equal to domainCount of this TopologyAssignmentSlice" "$out"

echo "PASS: $PASS  FAIL: $FAIL"
[[ $FAIL -eq 0 ]]
