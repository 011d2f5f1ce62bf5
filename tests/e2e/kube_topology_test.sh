#!/usr/bin/env bash
# Topology-aware scheduling in Kuota's Kubernetes mode (kuotad --kubeconfig),
# end to end, against kuotad --serve-only as the stand-in cluster (no
# kube-scheduler, no Job controller: this script creates the Job's pods as the
# Job controller would) with the real kubectl:
#   * Nodes labeled by block, rack and hostname with their allocatable, a
#     Topology, a topology ResourceFlavor, a ClusterQueue and a LocalQueue;
#   * a pod outside Kueue bound to a node takes its capacity (the driver feeds
#     it to the engine): a Job asking for a rack lands on the other rack;
#   * the Workload is admitted with a topologyAssignment (hostnames), the Job is
#     started with Kueue's topology gate, workload annotation and podset label;
#   * its pods, created in reverse index order behind the gate, are ungated by
#     the driver with a nodeSelector for their host, ranked by completion index
#     (the lowest indexes take the assignment's first domain);
#   * a pod beyond the assignment's count stays gated;
#   * a replacement pod created while the driver is down is ungated onto its
#     rank's host once it runs again.
# Usage: kube_topology_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl python3
scratch kuota-kube-topology
DRIVER=
cleanup_more() { [[ -z "$DRIVER" ]] || { kill -9 "$DRIVER"; wait "$DRIVER"; }; }

# --- the stand-in cluster ----------------------------------------------------
start_kuotad --serve-only
k apply --server-side -f "$CRDS" >/dev/null || bad "kubectl apply --server-side -f deploy/crds"
for ns in kuota-system team-a; do k create namespace "$ns" >/dev/null; done
# --- the driver (first: the CRDs store v1beta2, and the v1beta1 manifests
# below need its conversion webhook, reached through the Service's Endpoints)
WPORT=$(free_port)
webhook_endpoints "$WPORT"
start_driver() {  # one replica, no leader election: a restart leads at once
  "$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --webhook-port "$WPORT" --no-leader-elect \
    >>"$TMP/driver.log" 2>&1 &
  DRIVER=$!
}
start_driver
eventually "the driver runs the engine" 20 "engine running on the cluster" cat "$TMP/driver.log"

# Four nodes of 2 CPUs: block b1 holds racks r1 (n1, n2) and r2 (n3, n4).
node() {  # node NAME RACK
  cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels:
    pool: tas
    cloud.com/block: b1
    cloud.com/rack: $2
    kubernetes.io/hostname: $1
EOF
}
for n in "n1 r1" "n2 r1" "n3 r2" "n4 r2"; do
  set -- $n
  node "$1" "$2" | k create -f - >/dev/null || bad "create node $1"
  k patch node "$1" --subresource=status --type=merge \
    -p '{"status":{"allocatable":{"cpu":"2","memory":"8Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}}' \
    >/dev/null || bad "node $1's status"
done
expect_eq "the nodes' allocatable is kept" "2 2 2 2" \
  "$(k get nodes -o jsonpath='{range .items[*]}{.status.allocatable.cpu} {end}' | xargs)"

# A pod outside Kueue, bound to n1, takes both of its CPUs: rack r1 has 2 left.
k apply -f - >/dev/null <<'EOF' || bad "create the bound pod"
apiVersion: v1
kind: Pod
metadata:
  name: hog
  namespace: team-a
spec:
  nodeName: n1
  containers:
  - name: c
    image: busybox
    resources:
      requests:
        cpu: "2"
EOF

k apply -f - >/dev/null <<'EOF' || bad "apply the topology and queues"
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata:
  name: default
spec:
  levels:
  - nodeLabel: cloud.com/block
  - nodeLabel: cloud.com/rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: tas-flavor
spec:
  nodeLabels:
    pool: tas
  topologyName: default
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: tas-cq
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tas-flavor
      resources:
      - name: cpu
        nominalQuota: "100"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: tas-lq
  namespace: team-a
spec:
  clusterQueue: tas-cq
EOF


# --- a Job of 4 pods that must share a rack ----------------------------------
k create -f - >/dev/null <<'EOF' || bad "create the Job"
apiVersion: batch/v1
kind: Job
metadata:
  name: ranks
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: tas-lq
spec:
  suspend: true
  parallelism: 4
  completions: 4
  completionMode: Indexed
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-required-topology: cloud.com/rack
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests:
            cpu: "1"
EOF
eventually "the Job is started" 20 "false" k get job -n team-a ranks -o jsonpath='{.spec.suspend}'
wl=$(k get workloads.v1beta1.kueue.x-k8s.io -n team-a -o json)  # domains: v1beta1's form
wl_name=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["metadata"]["name"])' <<<"$wl")
ta=$(python3 -c '
import json, sys
w = json.load(sys.stdin)["items"][0]
ta = w["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]
print(" ".join(ta["levels"]), "|", " ".join("%s=%d" % ("/".join(d["values"]), d["count"]) for d in ta["domains"]))
' <<<"$wl" 2>&1)
# Rack r1 has 2 CPUs left (n1 is taken): the 4 pods go to r2, two on each node.
expect_eq "the Workload's topologyAssignment: hostnames in rack r2" \
  "kubernetes.io/hostname | n3=2 n4=2" "$ta"

job=$(k get job -n team-a ranks -o json)
tmpl=$(python3 -c '
import json, sys
t = json.load(sys.stdin)["spec"]["template"]
print(json.dumps([t["metadata"].get("annotations", {}).get("kueue.x-k8s.io/workload"),
                  t["metadata"].get("labels", {}).get("kueue.x-k8s.io/podset"),
                  [g["name"] for g in t["spec"].get("schedulingGates", [])]]))
' <<<"$job")
expect_eq "the started Job's template: workload annotation, podset label, topology gate" \
  "[\"$wl_name\", \"main\", [\"kueue.x-k8s.io/topology\"]]" "$tmpl"

# The Job controller's part: a pod per completion index from the template,
# created from the highest index down (creation order is not rank order).
make_pod() {  # make_pod INDEX: the Job's pod of that index, as JSON
  python3 -c '
import json, sys
job = json.loads(sys.stdin.read())
i = sys.argv[1]
t = job["spec"]["template"]
meta = t.get("metadata", {})
labels = dict(meta.get("labels", {}))
labels["batch.kubernetes.io/job-completion-index"] = i
labels["job-name"] = "ranks"
print(json.dumps({"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "ranks-" + i, "namespace": "team-a", "labels": labels,
               "annotations": dict(meta.get("annotations", {}),
                                   **{"batch.kubernetes.io/job-completion-index": i})},
  "spec": t["spec"]}))
' "$1" <<<"$job"
}
for i in 3 2 1 0; do
  make_pod "$i" | k create -f - >/dev/null || bad "create pod ranks-$i"
done
placed() {
  k get pods -n team-a -l job-name=ranks \
    -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeSelector.kubernetes\.io/hostname}:{.spec.schedulingGates[*].name} {end}' |
    tr ' ' '\n' | sort | xargs
}
eventually "the driver ungates the pods onto their hosts by index" 20 \
  "ranks-0=n3: ranks-1=n3: ranks-2=n4: ranks-3=n4:" placed
expect_eq "the flavor's node label is kept beside the host" "tas tas tas tas" \
  "$(k get pods -n team-a -l job-name=ranks -o jsonpath='{range .items[*]}{.spec.nodeSelector.pool} {end}' | xargs)"

# A fifth pod (a replacement the Job controller made too early) finds every
# domain full: it stays gated.
make_pod 4 | sed 's/"ranks-4"/"ranks-extra"/' | k create -f - >/dev/null || bad "create pod ranks-extra"
sleep 2
expect_eq "a pod beyond the assignment's count stays gated" "kueue.x-k8s.io/topology" \
  "$(k get pod -n team-a ranks-extra -o jsonpath='{.spec.schedulingGates[*].name}')"

# The driver restarted while a pod was replaced: the new one (index 1, after
# the extra pod is gone, so every rank is distinct again) is ungated onto its
# rank's host from the restarted driver's first list.
{ kill -9 "$DRIVER"; wait "$DRIVER"; } 2>/dev/null
DRIVER=
k delete pod -n team-a ranks-extra ranks-1 --wait=false >/dev/null
make_pod 1 | sed 's/"ranks-1"/"ranks-1b"/' | k create -f - >/dev/null || bad "create pod ranks-1b"
start_driver
eventually "after a restart the replacement is ungated onto its rank's host" 20 \
  "ranks-0=n3: ranks-1b=n3: ranks-2=n4: ranks-3=n4:" placed

if [[ $FAIL -gt 0 ]]; then
  echo "--- driver log (tail)"
  tail -40 "$TMP/driver.log"
fi
kill "$DRIVER" 2>/dev/null
wait "$DRIVER" 2>/dev/null
DRIVER=
echo "kube topology: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
