#!/usr/bin/env bash
# Kueue's ProvisioningRequest admission check (docs/provisioning.md) on
# kuotad, with the real kubectl; the test plays the cluster autoscaler by
# writing the ProvisioningRequests' status conditions. A PyTorchJob waits,
# its check Pending, until its request <workload>-prov-1 is Provisioned, then
# starts with the consume-provisioning-request annotations on its pods; a
# Failed request is retried after the config's backoff under the name -2;
# CapacityRevoked rejects the check and deactivates the workload (as Kueue
# v0.20 does, admitted or not; no retry). The ProvisioningRequestConfig's
# CRD rules refuse a bad config.
# With --kube, the same flow runs through the Kubernetes driver against
# `kuotad --serve-only` (kube_mode_test.sh's stand-in API server).
# Usage: provisioning_test.sh PATH/TO/kuotad [--kube]
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad [--kube]}
MODE=${2:-standalone}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-provisioning
if [[ $MODE == --kube ]]; then
  # The stand-in API server, then the driver managing it.
  start_kuotad --serve-only --insecure-http
  DRIVER_LOG=$TMP/driver.log
  "$KUOTAD" --kubeconfig "$TMP/kubeconfig" --no-leader-elect --webhook-port -1 \
    --health-port 0 >"$DRIVER_LOG" 2>&1 &
  DRIVER=$!
  trap 'kill -TERM $DRIVER 2>/dev/null; wait $DRIVER 2>/dev/null; scratch_cleanup' EXIT
  wait_for 20 "engine running" cat "$DRIVER_LOG" || { echo "FAIL the driver did not start"; tail -30 "$DRIVER_LOG"; exit 1; }
else
  start_kuotad --no-run-pods
fi

k create namespace ml >/dev/null
out=$(k apply -f - 2>&1 <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: bad}
spec:
  provisioningClassName: queued-provisioning.gke.io
  managedResources: [cpu, cpu]
  retryStrategy: {backoffLimitCount: "three"}
YAML
)
contains "a config breaking the CRD's rules is refused naming the fields" \
  'spec.managedResources[1]: Duplicate value: "cpu"' "$out"
contains "... every field" "spec.retryStrategy.backoffLimitCount in body must be of type integer" "$out"

k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ProvisioningRequestConfig
metadata: {name: gke}
spec:
  provisioningClassName: queued-provisioning.gke.io
  parameters: {maxRunDurationSeconds: "3600"}
  retryStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: gke}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy: {admissionChecks: [{name: prov}]}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 10}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: cq}
YAML
expect_eq "the v1beta1 config is defaulted and served as v1beta2" "1 1 1800" \
  "$(k get provisioningrequestconfigs.v1beta2.kueue.x-k8s.io gke -o jsonpath='{.spec.retryStrategy.backoffLimitCount} {.spec.retryStrategy.backoffBaseSeconds} {.spec.retryStrategy.backoffMaxSeconds}')"
eventually "the AdmissionCheck is Active" 20 "True Active" \
  k get admissioncheck prov -o jsonpath='{.status.conditions[?(@.type=="Active")].status} {.status.conditions[?(@.type=="Active")].reason}'

pytorch() {
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: $1
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: busybox, command: [sleep, "1000"], resources: {requests: {cpu: 100m}}}]
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: pytorch, image: busybox, command: [sleep, "1000"], resources: {requests: {cpu: 100m}}}]
YAML
}
wl_of() { k get workloads -n ml -o name | sed 's|.*/||' | grep "^pytorchjob-$1-"; }
check_of() { k get workload -n ml "$1" -o jsonpath='{.status.admissionChecks[?(@.name=="prov")].state}'; }
condition() { k get "$1" -n ml "$2" -o jsonpath="{.status.conditions[?(@.type==\"$3\")].status}"; }
autoscaler() {  # autoscaler REQUEST TYPE MESSAGE
  k patch provisioningrequest -n ml "$1" --subresource=status --type=merge \
    -p "{\"status\":{\"conditions\":[{\"type\":\"$2\",\"status\":\"True\",\"reason\":\"$2\",\"message\":\"$3\",\"lastTransitionTime\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}}" >/dev/null
}

# --- Provisioned: the job starts with the autoscaler's annotations ----------
pytorch train | k apply -f - >/dev/null
wait_for 20 pytorchjob-train bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -n ml -o name"
WL=$(wl_of train)
eventually "the workload's ProvisioningRequest $WL-prov-1 is created" 20 "queued-provisioning.gke.io" \
  k get provisioningrequest -n ml "$WL-prov-1" -o jsonpath='{.spec.provisioningClassName}'
expect_eq "... with the config's parameters and one pod template per pod set" \
  "3600 ppt-$WL-prov-1-master:1 ppt-$WL-prov-1-worker:2" \
  "$(k get provisioningrequest -n ml "$WL-prov-1" -o jsonpath='{.spec.parameters.maxRunDurationSeconds}{range .spec.podSets[*]} {.podTemplateRef.name}:{.count}{end}')"
# Created owned by the Workload, then handed to the request (in the Kubernetes
# mode the driver's write may land a moment after the request's).
eventually "... the pod templates exist, owned by the request" 20 "ProvisioningRequest" \
  k get podtemplate -n ml "ppt-$WL-prov-1-worker" -o jsonpath='{.metadata.ownerReferences[0].kind}'
eventually "the check is Pending while the request is" 20 "Pending" check_of "$WL"
expect_eq "the job stays suspended: quota reserved, not admitted" "True False" \
  "$(condition workload "$WL" QuotaReserved) $(condition workload "$WL" Admitted)"
autoscaler "$WL-prov-1" Provisioned "capacity is ready"
eventually "Provisioned makes the check Ready" 20 "Ready" check_of "$WL"
eventually "... and admits the workload" 20 "True" condition workload "$WL" Admitted
if [[ $MODE == --kube ]]; then
  # No operator runs the job on the stand-in: its pod templates carry them.
  eventually "the started job's pod templates carry the consume-provisioning-request annotation" 20 \
    "$WL-prov-1 queued-provisioning.gke.io" \
    k get pytorchjob -n ml train -o jsonpath='{.spec.pytorchReplicaSpecs.Worker.template.metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request} {.spec.pytorchReplicaSpecs.Worker.template.metadata.annotations.autoscaling\.x-k8s\.io/provisioning-class-name}'
else
  eventually "its pods carry the consume-provisioning-request annotation" 30 "$WL-prov-1 queued-provisioning.gke.io" \
    k get pods -n ml -l training.kubeflow.org/job-name=train -o jsonpath='{.items[0].metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request} {.items[0].metadata.annotations.autoscaling\.x-k8s\.io/provisioning-class-name}'
fi

# --- Failed: retried after the backoff as attempt 2 ----------------------------
pytorch retry | k apply -f - >/dev/null
wait_for 20 pytorchjob-retry bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -n ml -o name"
WL2=$(wl_of retry)
eventually "the second job gets its request" 20 "$WL2-prov-1" k get provisioningrequests -n ml -o name
autoscaler "$WL2-prov-1" Failed "out of stock"
eventually "a Failed request evicts the workload for a retry" 20 "AdmissionCheck" \
  k get workload -n ml "$WL2" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].reason}'
eventually "after the backoff it is admitted again with a second request $WL2-prov-2" 20 "$WL2-prov-2" \
  k get provisioningrequests -n ml -o name
expect_eq "... the check counts the retry" "1" \
  "$(k get workload -n ml "$WL2" -o jsonpath='{.status.admissionChecks[?(@.name=="prov")].retryCount}')"
autoscaler "$WL2-prov-2" Provisioned "second time lucky"
eventually "the retried job is admitted" 20 "True" condition workload "$WL2" Admitted

# --- CapacityRevoked: the check is Rejected and the workload deactivated ------
autoscaler "$WL-prov-1" CapacityRevoked "nodes reclaimed"
eventually "CapacityRevoked rejects the check" 20 "Rejected" check_of "$WL"
eventually "... and deactivates the workload" 20 "false" \
  k get workload -n ml "$WL" -o jsonpath='{.spec.active}'
eventually "... whose job is suspended again" 20 "true" \
  k get pytorchjob -n ml train -o jsonpath='{.spec.runPolicy.suspend}'
expect_eq "... its templates without the annotation again" "" \
  "$(k get pytorchjob -n ml train -o jsonpath='{.spec.pytorchReplicaSpecs.Worker.template.metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request}')"

# --- Finished or deleted workloads lose their requests --------------------------
k delete pytorchjob -n ml retry >/dev/null
eventually "a deleted job's request and pod templates go" 30 "none" \
  bash -c "n=\$(kubectl --kubeconfig $TMP/kubeconfig get provisioningrequests,podtemplates -n ml -o name | grep -c $WL2); [[ \$n == 0 ]] && echo none"

echo "$PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
