#!/usr/bin/env bash
# Elastic Jobs in Kuota's Kubernetes mode (kuotad --kubeconfig), against
# kuotad --serve-only as the stand-in cluster (no Job controller: this script
# creates the Job's pods from its template as the Job controller would), with
# the real kubectl. The control layer that runs kuotad's elastic Jobs
# (elastic_job_test.sh) runs here over the cluster: the elastic Job's slice
# is admitted, the Job started and its 2 gated pods ungated; scaled to 4, a
# replacement slice is made and admitted, the old one finished as
# WorkloadSliceReplaced, the Job never suspended, the 2 new pods ungated and
# the first two left as they were (same resourceVersion); a fifth pod beyond
# the admitted count stays gated.
# Usage: kube_elastic_job_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl python3
scratch kuota-kube-elastic
DRIVER=
cleanup_more() { [[ -z "$DRIVER" ]] || { kill -9 "$DRIVER"; wait "$DRIVER"; }; }

start_kuotad --serve-only
k apply --server-side -f "$CRDS" >/dev/null || bad "kubectl apply --server-side -f deploy/crds"
for ns in kuota-system team-a; do k create namespace "$ns" >/dev/null; done
WPORT=$(free_port)
webhook_endpoints "$WPORT"
"$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --webhook-port "$WPORT" --no-leader-elect \
  >>"$TMP/driver.log" 2>&1 &
DRIVER=$!
eventually "the driver runs the engine" 20 "engine running on the cluster" cat "$TMP/driver.log"

k apply -f - >/dev/null <<'EOF' || bad "apply the queues"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
EOF
# As Kueue's Job webhook leaves it: suspended, its pods gated.
k create -f - >/dev/null <<'EOF' || bad "create the elastic Job"
apiVersion: batch/v1
kind: Job
metadata:
  name: scale
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  suspend: true
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      schedulingGates: [{name: kueue.x-k8s.io/elastic-job}]
      containers:
      - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
EOF
eventually "the elastic Job is started" 20 "false" k get job -n team-a scale -o jsonpath='{.spec.suspend}'
JOB_UID=$(k get job -n team-a scale -o jsonpath='{.metadata.uid}')
make_pod() {  # make_pod NAME: a pod of the Job from its template, gated
  k get job -n team-a scale -o json | python3 -c '
import json, sys
job = json.load(sys.stdin)
print(json.dumps({"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": sys.argv[1], "namespace": "team-a", "labels": {"job-name": "scale"},
               "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "scale",
                                    "uid": sys.argv[2], "controller": True}]},
  "spec": job["spec"]["template"]["spec"]}))' "$1" "$JOB_UID" | k create -f - >/dev/null ||
    bad "create pod $1"
}
gates() {  # the gates left, pod by pod
  k get pods -n team-a -o jsonpath='{range .items[*]}{.metadata.name}={.spec.schedulingGates[*].name}{" "}{end}'
}
make_pod scale-a
make_pod scale-b
eventually "its 2 pods are ungated up to the admitted count" 20 "scale-a= scale-b= " gates
RV_A=$(k get pod -n team-a scale-a -o jsonpath='{.metadata.resourceVersion}')
RV_B=$(k get pod -n team-a scale-b -o jsonpath='{.metadata.resourceVersion}')
first=$(k get workloads -n team-a -o jsonpath='{.items[0].metadata.name}')

k patch job -n team-a scale --type=merge -p '{"spec":{"parallelism":4}}' >/dev/null
make_pod scale-c
make_pod scale-d
count() { k get workloads -n team-a --no-headers | wc -l; }
eventually "the scale-up makes a replacement slice" 20 "2" count
second=$(k get workloads -n team-a -o jsonpath='{.items[*].metadata.name}' | tr ' ' '\n' | grep -v "^$first$")
expect_eq "it names the slice it replaces" "team-a/$first" \
  "$(k get workload -n team-a "$second" -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/workload-slice-replacement-for}')"
eventually "it is admitted" 20 "True" \
  k get workload -n team-a "$second" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
eventually "the old slice is finished as replaced" 20 "WorkloadSliceReplaced" \
  k get workload -n team-a "$first" -o jsonpath='{.status.conditions[?(@.type=="Finished")].reason}'
eventually "the new pods are ungated" 20 "scale-a= scale-b= scale-c= scale-d= " gates
expect_eq "the Job was never suspended" "false" "$(k get job -n team-a scale -o jsonpath='{.spec.suspend}')"
expect_eq "the first two pods were left as they were" "$RV_A $RV_B" \
  "$(k get pod -n team-a scale-a -o jsonpath='{.metadata.resourceVersion}') $(k get pod -n team-a scale-b -o jsonpath='{.metadata.resourceVersion}')"
make_pod scale-e
sleep 1
contains "a fifth pod beyond the admitted count stays gated" "scale-e=kueue.x-k8s.io/elastic-job" "$(gates)"
usage() { k get clusterqueue cq -o jsonpath='{.status.flavorsUsage[0].resources[0].total}'; }
eventually "the ClusterQueue counts 4 cpus, not 6" 20 "4" usage
echo "kube elastic job: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
