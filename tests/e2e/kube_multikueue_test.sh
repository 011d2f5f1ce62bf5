#!/usr/bin/env bash
# MultiKueue in the Kubernetes mode: the driver (kuotad --kubeconfig) as the
# manager of a stand-in cluster (kuotad --serve-only, deploy/crds applied),
# with two more stand-ins as its workers, reached through kubeconfigs kept in
# Secrets of the driver's namespace. The stand-ins run no engine, so the test
# plays each worker's Kueue (it admits a copy by writing its status) and Job
# controller (it completes the Job), as the other Kubernetes-mode tests play
# the cluster's controllers. Checks:
#   * MultiKueueClusters turn Active, the AdmissionCheck Active;
#   * a queued Job's Workload is copied to both workers (origin label, the
#     manager's uid), the copy admitted on w2 wins: w1's copy is removed, the
#     Job is created on w2 (prebuilt-workload label, no managedBy), the check
#     turns Ready naming w2, status.clusterName is w2;
#   * the worker's Job status (Complete) comes back; the manager's Workload
#     finishes and the copies go;
#   * deleting a Job on the manager deletes it on its worker;
#   * a copy left on a worker with no Workload on the manager is collected.
# Usage: kube_multikueue_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-kube-multikueue
DRIVER=
cleanup_more() { [[ -z "$DRIVER" ]] || { kill -9 "$DRIVER"; wait "$DRIVER"; }; }

# Two worker stand-ins (Kueue's kinds are served built in: no CRDs needed).
declare -A WPID
for w in w1 w2; do
  mkdir -p "$TMP/$w"
  "$KUOTAD" --data-dir "$TMP/$w/data" --port 0 --kubeconfig-out "$TMP/$w/kubeconfig" --no-sync \
    --serve-only >>"$TMP/$w.log" 2>&1 &
  WPID[$w]=$!
  PIDS+=("$!")
done
kw() { local w=$1; shift; kubectl --kubeconfig "$TMP/$w/kubeconfig" "$@"; }
for w in w1 w2; do
  wait_for 20 ok kw "$w" get --raw /healthz || { echo "FAIL worker $w did not start"; exit 1; }
  kw "$w" create namespace team-a >/dev/null
  kw "$w" apply -f - >/dev/null <<<"$(cpu_queue_yaml default worker-cq 2 team-a team-a-queue)"
done

# The manager's stand-in, the CRDs, the driver.
start_kuotad --serve-only
k apply --server-side -f "$CRDS" >/dev/null || bad "kubectl apply --server-side -f deploy/crds"
contains "deploy/crds has the MultiKueue CRDs" "multikueueclusters.kueue.x-k8s.io" "$(k get crd)"
for ns in kuota-system team-a; do k create namespace "$ns" >/dev/null; done
PORT=$(free_port)
webhook_endpoints "$PORT"
for w in w1 w2; do
  k create secret generic "$w-kubeconfig" -n kuota-system --from-file=kubeconfig="$TMP/$w/kubeconfig" >/dev/null
done
cat >"$TMP/config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
multiKueue:
  gcInterval: 2s
EOF
"$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --webhook-port "$PORT" --no-leader-elect \
  --config "$TMP/config.yaml" >>"$TMP/driver.log" 2>&1 &
DRIVER=$!
eventually "the driver runs" 20 "engine running on the cluster" cat "$TMP/driver.log"
k apply -f - >/dev/null <<EOF || bad "apply the MultiKueue objects"
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1}
spec: {clusterSource: {kubeConfig: {location: w1-kubeconfig}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueCluster
metadata: {name: w2}
spec: {kubeConfig: {location: w2-kubeconfig, locationType: Secret}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: two}
spec: {clusters: [w1, w2]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: two-clusters}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: two}
EOF
k apply -f - >/dev/null <<EOF || bad "apply the manager's queues"
$(cpu_queue_yaml default manager-cq 10 team-a team-a-queue | sed 's/^  namespaceSelector: {}/  namespaceSelector: {}\n  admissionChecks: [two-clusters]/')
EOF
for w in w1 w2; do
  eventually "MultiKueueCluster $w turns Active (Connected)" 15 "True Connected" \
    k get multikueuecluster "$w" -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].message}'
done
eventually "the AdmissionCheck turns Active" 15 "True" \
  k get admissioncheck two-clusters -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# job NAME: a suspended Job for the MultiKueue queue, managed by MultiKueue.
job() {
  job_yaml team-a "$1" queue=team-a-queue "cmd=true" "requests=cpu: 1" |
    sed 's/^spec:/spec:\n  suspend: true\n  managedBy: kueue.x-k8s.io\/multikueue/'
}
# admit W WORKLOAD: what W's Kueue writes when it admits its copy.
admit() {
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  kw "$1" patch workload "$2" -n team-a --subresource=status --type=merge -p "{\"status\":{
    \"admission\":{\"clusterQueue\":\"worker-cq\",\"podSetAssignments\":[{\"name\":\"main\",
      \"flavors\":{\"cpu\":\"default\"},\"resourceUsage\":{\"cpu\":\"1\"},\"count\":1}]},
    \"conditions\":[
      {\"type\":\"QuotaReserved\",\"status\":\"True\",\"reason\":\"QuotaReserved\",\"message\":\"Quota reserved in ClusterQueue worker-cq\",\"lastTransitionTime\":\"$now\"},
      {\"type\":\"Admitted\",\"status\":\"True\",\"reason\":\"Admitted\",\"message\":\"The workload is admitted\",\"lastTransitionTime\":\"$now\"}]}}"
}
wl_of() { k get workloads -n team-a -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$1\")].metadata.name}"; }

job first | k apply -f - >/dev/null || bad "create Job first"
eventually "the manager makes a Workload for it" 20 "job-first" wl_of first
WL=$(wl_of first)
for w in w1 w2; do
  eventually "its copy is created on $w" 20 "$WL" kw "$w" get workloads -n team-a -o name
done
contains "the copy carries the origin label" '"kueue.x-k8s.io/multikueue-origin":"multikueue"' \
  "$(kw w1 get workload "$WL" -n team-a -o jsonpath='{.metadata.labels}')"
expect_eq "... and the manager Workload's uid" "$(k get workload "$WL" -n team-a -o jsonpath='{.metadata.uid}')" \
  "$(kw w1 get workload "$WL" -n team-a -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/multikueue-origin-uid}')"
contains "the manager nominates both workers" "w1 w2" \
  "$(k get workload "$WL" -n team-a -o jsonpath='{.status.nominatedClusterNames[*]}')"
admit w2 "$WL" >/dev/null || bad "w2 admits its copy"
eventually "the check turns Ready naming w2" 20 'Ready The workload was admitted on "w2"' \
  k get workload "$WL" -n team-a -o jsonpath='{.status.admissionChecks[0].state} {.status.admissionChecks[0].message}'
expect_eq "status.clusterName is w2" "w2" "$(k get workload "$WL" -n team-a -o jsonpath='{.status.clusterName}')"
eventually "w1's copy is removed" 20 "No resources" bash -c "kubectl --kubeconfig $TMP/w1/kubeconfig get workloads -n team-a 2>&1"
eventually "the Job is created on w2" 20 "first" kw w2 get jobs -n team-a -o name
expect_eq "... for the copy (prebuilt-workload-name)" "$WL" \
  "$(kw w2 get job first -n team-a -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/prebuilt-workload-name}')"
expect_eq "... without managedBy, so w2's own controllers run it" "" \
  "$(kw w2 get job first -n team-a -o jsonpath='{.spec.managedBy}')"
expect_eq "no Job on w1" "" "$(kw w1 get jobs -n team-a -o name 2>/dev/null)"
eventually "the manager's Job is started (it runs on w2)" 20 "false" \
  k get job first -n team-a -o jsonpath='{.spec.suspend}'
kw w2 patch job first -n team-a --subresource=status --type=merge \
  -p '{"status":{"succeeded":1,"conditions":[{"type":"Complete","status":"True"}]}}' >/dev/null ||
  bad "complete the Job on w2"
eventually "w2's Job status comes back to the manager" 20 "True" \
  k get job first -n team-a -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
eventually "the manager's Workload finishes" 20 "True" \
  k get workload "$WL" -n team-a -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
eventually "w2's copy and Job are removed" 20 "No resources" bash -c "kubectl --kubeconfig $TMP/w2/kubeconfig get jobs,workloads -n team-a 2>&1"

# Deleting on the manager deletes on the worker.
job second | k apply -f - >/dev/null || bad "create Job second"
eventually "second's copy reaches w1" 20 "job-second" kw w1 get workloads -n team-a -o name
WL2=$(wl_of second)
admit w1 "$WL2" >/dev/null || bad "w1 admits second's copy"
eventually "second's Job is created on w1" 20 "second" kw w1 get jobs -n team-a -o name
k delete job second -n team-a >/dev/null
eventually "deleting second on the manager deletes its Job and copy on w1" 20 "No resources" \
  bash -c "kubectl --kubeconfig $TMP/w1/kubeconfig get jobs,workloads -n team-a 2>&1"

# An orphan on a worker (its manager Workload gone while the manager was away) is collected.
kw w2 apply -f - >/dev/null <<EOF || bad "create an orphan copy on w2"
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: orphan
  namespace: team-a
  labels: {kueue.x-k8s.io/multikueue-origin: multikueue}
  annotations: {kueue.x-k8s.io/multikueue-origin-uid: no-such-uid}
spec:
  queueName: team-a-queue
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]}}}]
EOF
eventually "the orphan is collected within gcInterval" 20 "No resources" \
  bash -c "kubectl --kubeconfig $TMP/w2/kubeconfig get workloads -n team-a 2>&1"
contains "the driver says so" "collecting team-a/orphan on w2" "$(cat "$TMP/driver.log")"

echo "PASS: $PASS  FAIL: $FAIL"
[[ $FAIL -eq 0 ]]
