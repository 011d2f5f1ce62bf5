#!/usr/bin/env bash
# End-to-end of Kueue's plain-Pod integration ("pod", enabled through kuotad's
# --config) with the real kubectl and real processes: a queued pod is created
# gated and waits while the queue is full, runs on its flavor once admitted,
# and releases its quota when it ends; a pod group runs only once all its
# pods exist; a high-priority pod preempts (terminates and deletes) a running
# low-priority one; a bad group annotation is refused naming the field; with
# "pod" not enabled, a queued pod runs at once with no Workload.
# Usage: pods_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-pods-e2e   # TAG marks this run's processes (in their arguments)

# Processes of this run whose arguments contain MARK.
count() { pgrep -f -- "$TAG-$1" | wc -l; }
# pod NAME CPU PRIORITY CMD [EXTRA METADATA LINES]: a queued plain pod.
pod() {
  local name=$1 cpu=$2 prio=$3 cmd=$4 extra=${5:-}
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $name
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
    kueue.x-k8s.io/priority-class: $prio
$extra
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "$cmd"]
    resources:
      requests: {cpu: "$cpu", memory: 100Mi}
YAML
}
phase() { k get pod -n ml "$1" -o jsonpath='{.status.phase}'; }
wl_of() { k get workloads -n ml -o name | grep "pod-$1-"; }

cat >"$TMP/pods.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: ["batch/job", "pod"]
YAML
cat >"$TMP/jobs-only.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: ["batch/job"]
YAML

start_kuotad --config "$TMP/pods.yaml" --no-cgroups
k create namespace ml >/dev/null
k apply -f "$HERE/manifests/local/pods-queues.yaml" >/dev/null || { echo "FAIL apply queues"; exit 1; }

# --- A single pod: gated while the queue is full, then runs on its flavor ----
# first runs long enough for the checks on the gated second pod, even on a
# loaded machine (a sanitized kuotad and kubectl calls beside other tests).
pod first 1 low "sleep 20; true $TAG-first" | k create -f - >/dev/null
wait_for 10 1 count first && ok "an admitted pod runs" || bad "first did not start"
pod second 1 low "sleep 1; true $TAG-second" | k create -f - >/dev/null
wait_for 5 pod-second- k get workloads -n ml -o name
wl_second=$(wl_of second)
[[ -n "$wl_second" ]] && ok "the pod has a Workload ($wl_second)" || bad "no workload for pod second"
pending=$(k get -n ml "$wl_second" \
  -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].reason}: {.status.conditions[?(@.type=="QuotaReserved")].message}')
contains "the Workload is pending with a reason" "Pending: couldn't assign flavors to pod set main: insufficient" "$pending"
expect_eq "a queued pod is created with Kueue's admission gate" "kueue.x-k8s.io/admission" \
  "$(k get pod -n ml second -o jsonpath='{.spec.schedulingGates[*].name}')"
expect_eq "and the managed label" "true" \
  "$(k get pod -n ml second -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/managed}')"
wait_for 5 SchedulingGated k get pod -n ml second \
  -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}'
expect_eq "the gated pod waits as kube-scheduler leaves it (PodScheduled: SchedulingGated)" \
  "SchedulingGated" \
  "$(k get pod -n ml second -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')"
contains "kubectl get pods shows STATUS SchedulingGated" "SchedulingGated" \
  "$(k get pod -n ml second --no-headers)"
expect_eq "its process does not run" 0 "$(count second)"
expect_eq "the Workload has one pod set from the pod's spec" "main 1" \
  "$(k get -n ml "$wl_second" -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count}')"
if wait_for 35 Running phase second; then ok "the pod runs once the first one ended"; else bad "second did not run"; fi
expect_eq "the first pod succeeded" Succeeded "$(phase first)"
expect_eq "the admitted pod lost its gate" "" \
  "$(k get pod -n ml second -o jsonpath='{.spec.schedulingGates}')"
expect_eq "and runs on the flavor's node labels" "blue" \
  "$(k get pod -n ml second -o jsonpath='{.spec.nodeSelector.kuota\.dev/pool}')"
wait_for 10 Succeeded phase second
wait_for 5 True k get -n ml "$wl_second" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
expect_eq "the Workload is finished when its pod ends" True \
  "$(k get -n ml "$wl_second" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}')"
wait_for 5 "0" k get cq cq -o jsonpath="{.status.admittedWorkloads}"
expect_eq "and its quota is released" "0" "$(k get cq cq -o jsonpath='{.status.admittedWorkloads}')"

# --- A pod group of 2: all or nothing ---------------------------------------
group_meta="    kueue.x-k8s.io/pod-group-name: train
  annotations:
    kueue.x-k8s.io/pod-group-total-count: \"2\""
pod train-0 500m low "sleep 1; true $TAG-train" "$group_meta" | k create -f - >/dev/null
sleep 0.5
expect_eq "the group's first pod stays gated" "kueue.x-k8s.io/admission" \
  "$(k get pod -n ml train-0 -o jsonpath='{.spec.schedulingGates[*].name}')"
expect_eq "and no Workload is made before the group is complete" "" \
  "$(k get workloads -n ml train -o name 2>/dev/null)"
expect_eq "its process does not run" 0 "$(count train)"
pod train-1 500m low "sleep 1; true $TAG-train" "$group_meta" | k create -f - >/dev/null
if wait_for 10 2 count train; then ok "both pods of the group run once the second exists"; else
  bad "the group did not start" "$(k get pods -n ml -o wide)"; fi
expect_eq "the group's Workload is named after the group, one pod set of 2" "1 2" \
  "$(k get workload -n ml train -o jsonpath='{.spec.podSets[*].count}' | wc -w) \
$(k get workload -n ml train -o jsonpath='{.spec.podSets[0].count}')"
wait_for 10 True k get workload -n ml train -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
expect_eq "the group's Workload is finished when both pods succeeded" True \
  "$(k get workload -n ml train -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}')"

# --- Preemption: a high-priority pod terminates a running low-priority one ---
pod victim 1 low "sleep 300; true $TAG-victim" | k create -f - >/dev/null
wait_for 10 1 count victim && ok "the victim runs" || bad "victim did not start"
wl_victim=$(wl_of victim)
pod boss 1 high "sleep 30; true $TAG-boss" | k create -f - >/dev/null
if wait_for 10 0 count victim; then ok "preemption killed the victim's process"; else bad "victim still running"; fi
if wait_for 10 NotFound bash -c "kubectl --kubeconfig $TMP/kubeconfig get pod -n ml victim 2>&1"; then
  ok "the preempted pod was terminated and deleted (Kueue does not recreate pods)"
else
  bad "the victim pod is still there" "$(k get pod -n ml victim -o yaml)"
fi
if wait_for 5 NotFound bash -c "kubectl --kubeconfig $TMP/kubeconfig get -n ml $wl_victim 2>&1"; then
  ok "and its Workload went with it"; else bad "the victim's workload remains"; fi
wait_for 10 1 count boss && ok "the high-priority pod runs" || bad "boss did not start"
k delete pod -n ml boss --wait=false >/dev/null

# --- Invalid group annotations: 422 naming the field -------------------------
out=$(pod bad-count 500m low "true" "    kueue.x-k8s.io/pod-group-name: g
  annotations:
    kueue.x-k8s.io/pod-group-total-count: \"0\"" | k create -f - 2>&1)
contains "a non-positive total count is refused naming the field" \
  'metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value: "0"' "$out"
out=$(pod no-count 500m low "true" "    kueue.x-k8s.io/pod-group-name: g" | k create -f - 2>&1)
contains "a group pod without the total count is refused" \
  'metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value' "$out"
contains "as 422 Invalid" 'The Pod "no-count" is invalid' "$out"
expect_eq "and nothing is stored" "" "$(k get pods -n ml bad-count no-count -o name 2>/dev/null)"

# --- "pod" not enabled: a queued pod is left alone ---------------------------
stop_kuotad
start_kuotad --config "$TMP/jobs-only.yaml" --no-cgroups
pod free 500m low "sleep 30; true $TAG-free" | k create -f - >/dev/null
wait_for 10 1 count free && ok "without the pod integration a queued pod runs at once" ||
  bad "free did not run" "$(k get pod -n ml free -o yaml)"
expect_eq "with no gate" "" "$(k get pod -n ml free -o jsonpath='{.spec.schedulingGates}')"
expect_eq "and no Workload" "" "$(k get workloads -n ml -o name | grep 'pod-free-')"

echo "pods e2e: $PASS passed, $FAIL failed"
(( FAIL == 0 ))
