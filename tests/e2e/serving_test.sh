#!/usr/bin/env bash
# End-to-end of Kueue's serving-workload integrations ("deployment" and
# "statefulset", enabled through kuotad's --config) with the real kubectl and
# real processes: a queued Deployment's pods (each its own Workload) and a
# StatefulSet's pods (one pod group) are created gated and wait while a
# filler Job holds the quota, run on the right flavor with their environment
# once it is gone, `kubectl rollout status` and `kubectl get` read their
# status; `kubectl rollout restart` rolls the Deployment as kube does (the
# default surge pod waits for quota and holds the old pods; with
# maxUnavailable 1 it completes, never below one running pod); `kubectl
# scale` up waits for quota (a Deployment's new pod) or is
# refused as Kueue refuses it (a queued StatefulSet changes size only to and
# from zero), scale down frees quota at once; a high-priority Job preempts
# them (pods deleted, made again gated) and they resume; deleting them
# releases the quota.
# Usage: serving_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-serving   # TAG marks this run's processes (in their arguments)
ROLLOUT_SAMPLER=
cleanup_more() { [[ -z "$ROLLOUT_SAMPLER" ]] || { kill "$ROLLOUT_SAMPLER"; wait "$ROLLOUT_SAMPLER"; }; }

cat >"$TMP/config.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: ["batch/job", "deployment", "statefulset"]
YAML
# Flavor "tiny" (10m) fits no pod; "big" (400m) fits 4 serving pods of 100m.

# serving KIND NAME REPLICAS: a queued Deployment or StatefulSet of 100m pods
# that print their environment and serve (sleep) until stopped.
serving() {
  local kind=$1 name=$2 replicas=$3 extra=""
  [[ $kind == StatefulSet ]] && extra="  serviceName: $name"
  cat <<YAML
apiVersion: apps/v1
kind: $kind
metadata:
  name: $name
  namespace: web
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low}
spec:
  replicas: $replicas
$extra
  selector: {matchLabels: {app: $name}}
  template:
    metadata:
      labels: {app: $name}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "echo ROLE=\$ROLE POD=\$POD_NAME; sleep 600; true $TAG-$name"]
        env:
        - {name: ROLE, value: $name-server}
        - name: POD_NAME
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
        resources: {requests: {cpu: 100m}}
YAML
}
job() { job_yaml web "$1" queue=lq priority="$2" "requests=cpu: $3" "cmd=sleep 600; true $TAG-$1"; }
count() { pgrep -f -- "$TAG-$1" | wc -l; }
pods_of() { k get pods -n web -l app="$1" -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.schedulingGates[*].name}{"\n"}{end}'; }
gated() { pods_of "$1" | grep -c 'kueue.x-k8s.io/admission'; }
# "none" when no Workload's name matches the regular expression, else their names.
workloads_like() {
  local names
  names=$(k get workloads -n web -o name | grep -E "$1")
  echo "${names:-none}"
}
both_counts() { echo "$(count web) $(count db)"; }
# The cpu used on flavor big, bracketed so that a needle matches it whole: [300m].
usage() { echo "[$(k get cq cq -o jsonpath='{.status.flavorsUsage[?(@.name=="big")].resources[?(@.name=="cpu")].total}')]"; }

start_kuotad --config "$TMP/config.yaml" --no-cgroups
{ two_flavors_yaml; echo ---; two_flavor_queue_yaml web cq 10m 400m; } | k apply -f - >/dev/null ||
  { echo "FAIL apply queues"; exit 1; }

# --- apps/v1 served as kube-apiserver serves it ------------------------------
contains "discovery lists deployments/scale as an autoscaling/v1 Scale" "deployments/scale" \
  "$(k api-resources --api-group=apps -o name 2>&1; k get --raw /apis/apps/v1)"
out=$(serving Deployment bad 1 | sed 's/matchLabels: {app: bad}/matchLabels: {app: other}/' | k create -f - 2>&1)
contains "a selector that does not match the template is refused with kube's path" \
  'spec.template.metadata.labels: Invalid value: map[string]string{"app":"bad"}: `selector` does not match template `labels`' "$out"

# --- Queued while a filler holds the quota -----------------------------------
job filler low 400m | k create -f - >/dev/null
eventually "the filler runs" 15 1 count filler
serving Deployment web 2 | k create -f - >/dev/null
serving StatefulSet db 2 | k create -f - >/dev/null
eventually "the Deployment's 2 pods are made gated" 10 2 gated web
eventually "the StatefulSet's first pod is made gated (OrderedReady)" 10 1 gated db
expect_eq "the Deployment's template is marked by Kueue's webhook" "deployment true lq" \
  "$(k get deploy -n web web -o jsonpath='{.spec.template.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent} {.spec.template.metadata.labels.kueue\.x-k8s\.io/managed} {.spec.template.metadata.labels.kueue\.x-k8s\.io/queue-name}')"
wait_for 10 "pod-web-" k get workloads -n web -o name
expect_eq "each Deployment pod is its own Workload" 2 \
  "$(k get workloads -n web -o name | grep -c 'workload.kueue.x-k8s.io/pod-web-')"
sts_wl=$(k get workloads -n web -o name | grep statefulset-db- | head -1)
[[ -n $sts_wl ]] && ok "the StatefulSet has one Workload ($sts_wl)" || bad "no StatefulSet workload" "$(k get workloads -n web)"
expect_eq "one pod set main for all its replicas (fast admission)" "main 2" \
  "$(k get -n web "$sts_wl" -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count}')"
expect_eq "its pod carries Kueue's serving pod group" "${sts_wl#*/} 2 true" \
  "$(k get pod -n web db-0 -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/pod-group-name} {.metadata.annotations.kueue\.x-k8s\.io/pod-group-total-count} {.metadata.annotations.kueue\.x-k8s\.io/pod-group-serving}')"
contains "the workloads are pending for quota" "insufficient" \
  "$(k get -n web "$sts_wl" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}')"
expect_eq "no serving process runs" "0 0" "$(count web) $(count db)"
contains "kubectl get deploy: READY 0/2" "0/2" "$(k get deploy -n web web --no-headers)"

# --- Admitted on flavor big once the filler is gone --------------------------
k delete job -n web filler --wait=false >/dev/null
eventually "the Deployment's pods run" 20 2 count web
eventually "both StatefulSet pods run, the second made once the first is ready" 20 2 count db
expect_eq "they run on flavor big's node labels" "big big big big" \
  "$(k get pods -n web -o jsonpath='{.items[*].spec.nodeSelector.kuota\.dev/pool}' | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
if k rollout status deploy/web -n web --timeout=20s >/dev/null 2>&1; then ok "kubectl rollout status deploy/web succeeds"; else bad "rollout status deploy" "$(k get deploy -n web web -o yaml | tail -30)"; fi
if k rollout status sts/db -n web --timeout=20s >/dev/null 2>&1; then ok "kubectl rollout status sts/db succeeds"; else bad "rollout status sts" "$(k get sts -n web db -o yaml | tail -20)"; fi
expect_eq "kubectl get deploy: READY 2/2, UP-TO-DATE 2, AVAILABLE 2" "READY UP-TO-DATE AVAILABLE 2/2 2 2" \
  "$(k get deploy -n web web | awk '{print $2, $3, $4}' | xargs)"
contains "kubectl get sts: READY 2/2" "2/2" "$(k get sts -n web db --no-headers)"
expect_eq "kubectl get rs works (a Deployment owns its pods here)" "" "$(k get rs -n web -o name 2>&1)"
web_pod=$(pods_of web | head -1 | cut -d' ' -f1)
eventually "a Deployment pod prints its environment" 10 "ROLE=web-server POD=$web_pod" k logs -n web "$web_pod"
eventually "a StatefulSet pod prints its environment" 10 "ROLE=db-server POD=db-1" k logs -n web db-1
expect_eq "db-1 has its ordinal label and hostname" "1 db-1 db" \
  "$(k get pod -n web db-1 -o jsonpath='{.metadata.labels.apps\.kubernetes\.io/pod-index} {.spec.hostname} {.spec.subdomain}')"
eventually "the quota used is 400m" 10 "[400m]" usage
# Kueue's pod reconciler: each member owns the group's Workload, db-1 (made
# after the Workload) too.
sts_owners() { k get -n web "$(k get workloads -n web -o name | grep statefulset-db-)" -o jsonpath='{.metadata.ownerReferences[*].name}' | tr ' ' '\n' | sort | tr '\n' ' '; }
eventually "both StatefulSet pods own its Workload" 10 "db-0 db-1 " sts_owners

# --- A rolling update (kubectl rollout restart) -------------------------------
# kube's defaults on 2 replicas: one surge pod, none unavailable. The quota is
# full, so the surge pod waits gated and no old pod goes: the rollout waits.
hashes() { k get pods -n web -l app=web -o jsonpath='{range .items[*]}{.metadata.labels.pod-template-hash}{"\n"}{end}' | sort -u | wc -l; }
k rollout restart deploy/web -n web >/dev/null
eventually "the surge pod waits gated for quota" 10 1 gated web
expect_eq "both old pods keep running" 2 "$(count web)"
contains "kubectl rollout status: waiting for the new replicas" "1 out of 2 new replicas have been updated" \
  "$(k rollout status deploy/web -n web --timeout=1s 2>&1)"
# maxUnavailable 1: an old pod may go, which frees the quota the new ones need.
( while :; do count web; sleep 0.2; done >"$TMP/web-running" ) &
ROLLOUT_SAMPLER=$!
k patch deploy web -n web \
  -p '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":1}}}}' >/dev/null
if k rollout status deploy/web -n web --timeout=40s >/dev/null 2>&1; then
  ok "with maxUnavailable 1 the rollout completes (kubectl rollout status)"
else
  bad "rollout status after maxUnavailable 1" "$(k get pods -n web -l app=web 2>&1)"
fi
kill "$ROLLOUT_SAMPLER"; wait "$ROLLOUT_SAMPLER" 2>/dev/null; ROLLOUT_SAMPLER=
eventually "every Deployment pod is of the new template" 10 1 hashes
eventually "two of them run" 10 2 count web
least=$(sort -n "$TMP/web-running" | head -1)
expect_eq "never fewer than replicas - maxUnavailable (1) running meanwhile" "yes" \
  "$([[ -n $least && $least -ge 1 ]] && echo yes || echo "no: at least $least")"
eventually "the quota used is 400m again" 10 "[400m]" usage

# --- kubectl scale ----------------------------------------------------------
k scale deploy/web -n web --replicas=3 >/dev/null
eventually "scale up: the Deployment's new pod waits gated for quota" 10 1 gated web
expect_eq "and its process does not run" 2 "$(count web)"
out=$(k scale sts/db -n web --replicas=3 2>&1)
contains "a queued StatefulSet cannot change size but to or from zero (Kueue)" \
  "spec.replicas: Invalid value: 3: field is immutable" "$out"
k scale sts/db -n web --replicas=0 >/dev/null
eventually "scale down to zero: the StatefulSet's pods go" 15 0 count db
eventually "and its Workload with them" 10 none workloads_like statefulset-db-
eventually "the freed quota admits the Deployment's waiting pod" 15 3 count web
k scale deploy/web -n web --replicas=1 >/dev/null
eventually "scale down frees the Deployment's quota at once" 10 "[100m]" usage
k scale sts/db -n web --replicas=2 >/dev/null
eventually "scale up from zero: the StatefulSet queues again and runs" 20 2 count db
eventually "quota used: 100m + 200m" 10 "[300m]" usage

# --- Preempted by a high-priority Job, then resumed --------------------------
job urgent high 400m | k create -f - >/dev/null
eventually "the urgent Job runs" 20 1 count urgent
eventually "the serving pods were stopped" 15 "0 0" both_counts
eventually "the Deployment's pod is made again, gated" 10 1 gated web
eventually "so is the StatefulSet's first pod" 10 1 gated db
contains "the StatefulSet's Workload was preempted" "statefulset-db-" \
  "$(k get events -n web --field-selector reason=Preempted -o jsonpath='{.items[*].involvedObject.name}')"
k delete job -n web urgent --wait=false >/dev/null
eventually "the Deployment resumes" 20 1 count web
eventually "the StatefulSet resumes" 20 2 count db

# --- Deleted: pods, Workloads and quota released ----------------------------
k delete deploy -n web web >/dev/null
k delete sts -n web db >/dev/null
eventually "the Deployment's pods end" 15 0 count web
eventually "the StatefulSet's pods end" 15 0 count db
eventually "their Workloads are gone" 15 none workloads_like 'pod-web-|statefulset-db-'
eventually "the quota is released" 10 "[0]" usage

echo "$PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
