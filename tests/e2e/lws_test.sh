#!/usr/bin/env bash
# End-to-end, one kuotad playing LWS's controllers: a LeaderWorkerSet of two
# groups (a leader and a worker each) with the real kubectl and real local
# processes. Each group is one Workload: queued while a filler holds the
# quota (its pods exist, gated), admitted on the right flavor, its pods run
# with LWS's environment (LWS_LEADER_ADDRESS, LWS_GROUP_SIZE,
# LWS_WORKER_INDEX), a high-priority Job preempts one group whole (both its
# pods deleted, recreated gated) while the other keeps running, the group
# resumes, scaling the set down to one group deletes the other's Workload
# and pods, and deleting the set releases the quota. A bad manifest gets 422
# naming the field.
# Usage: lws_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
PROBE=$HERE/job_kinds/probe.py
source "$HERE/lib.sh"
need kubectl python3
scratch kuota-lws

NS=ns-lws
# container NAME: a probe (40m CPU) printing LWS's variables and serving on.
container() {
  cat <<YAML
          containers:
          - name: $1
            image: probe
            command: ["python3", "$PROBE", "--wait", "$TMP/never", "$TAG", "LWS_*"]
            resources: {requests: {cpu: 40m}}
YAML
}
lws_yaml() {
  cat <<YAML
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
$(container leader)
    workerTemplate:
      spec:
$(container worker)
YAML
}

# pods: name|phase|gated|pool|group-index
pods() {
  k get pods -n "$NS" -l leaderworkerset.sigs.k8s.io/name=serve -o jsonpath='{range .items[*]}{.metadata.name}|{.status.phase}|{.spec.schedulingGates[*].name}|{.spec.nodeSelector.kuota\.dev/pool}|{.metadata.labels.leaderworkerset\.sigs\.k8s\.io/group-index}{"\n"}{end}'
}
running() { pods | grep -c '|Running|' ; }
gated() { pods | grep -c 'kueue.x-k8s.io/admission' ; }
# the set's workloads: group index|QuotaReserved|flavor|reasons
workloads() {
  k get workloads -n "$NS" -o jsonpath='{range .items[*]}{.metadata.annotations.kueue\.x-k8s\.io/component-workload-index}|{.status.conditions[?(@.type=="QuotaReserved")].status}|{.status.admission.podSetAssignments[0].flavors.cpu}|{.status.conditions[*].reason}{"\n"}{end}' | grep -v '^|' | sort
}
admitted() { k get clusterqueue cq-lws -o jsonpath='{.status.admittedWorkloads}'; }
# kubectl get lws: READY/DESIRED/UP-TO-DATE
lws_row() { k get lws -n "$NS" --no-headers | awk '{print $2"/"$3"/"$4}'; }
# until SECS CMD WANT: CMD's output is WANT.
until_eq() {
  local secs=$1 want=$3 got
  for _ in $(seq 1 $((secs * 5))); do
    got=$("$2" 2>/dev/null)
    [[ $got == "$want" ]] && return 0
    sleep 0.2
  done
  return 1
}

start_kuotad --gpus 0
{ two_flavors_yaml; echo ---; two_flavor_queue_yaml "$NS" cq-lws 30m 160m; } | k apply -f - >/dev/null ||
  { echo "FAIL apply queues"; exit 1; }

echo "== a bad manifest: 422 naming the field"
out=$(lws_yaml | sed 's/size: 2/size: 0/' | k create -f - 2>&1 >/dev/null)
contains "size 0 is refused, naming spec.leaderWorkerTemplate.size" \
  "spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater than 1" "$out"

echo "== queued while a filler holds the big flavor"
job_yaml "$NS" filler queue=lq priority=low backoff=0 grace=1 cmd="sleep 300; true $TAG" \
  requests="cpu: 160m" | k create -f - >/dev/null
eventually "the filler runs" 20 Running k get pods -n "$NS" -l job-name=filler
lws_yaml | k create -f - >/dev/null 2>"$TMP/err" || bad "create the LeaderWorkerSet" "$(cat "$TMP/err")"
reserved() { workloads | cut -d'|' -f1,2 | tr '\n' ' ' | sed 's/ $//'; }
until_eq 15 reserved "0|False 1|False"
expect_eq "one Workload per group, both waiting (QuotaReserved False)" "0|False 1|False" \
  "$(reserved)"
until_eq 15 gated 4
expect_eq "each group's leader and worker exist, gated" 4 "$(gated)"
expect_eq "no pod runs while queued" 0 "$(running)"
contains "kubectl get lws prints LWS's columns" "READY   DESIRED   UP-TO-DATE   AGE" "$(k get lws -n "$NS")"
expect_eq "kubectl get lws: 0 ready of 2, both groups up to date" "0/2/2" "$(lws_row)"
k delete job -n "$NS" filler --wait=false >/dev/null

echo "== admitted on the big flavor, with LWS's environment"
until_eq 40 running 4 || bad "the four pods did not all run" "$(pods)"
expect_eq "both groups admitted on flavor big" "0|True|big 1|True|big" \
  "$(workloads | cut -d'|' -f1-3 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "every pod runs with the flavor's node label" "big big big big" \
  "$(pods | cut -d'|' -f4 | tr '\n' ' ' | sed 's/ $//')"
logs() { k logs -n "$NS" "$1" 2>&1; }
wait_for 10 LWS_WORKER_INDEX logs serve-1-1
contains "the leader's address" "ENV LWS_LEADER_ADDRESS=127.0.0.1" "$(logs serve-1-1)"
contains "the group's size" "ENV LWS_GROUP_SIZE=2" "$(logs serve-1-1)"
contains "the worker's index" "ENV LWS_WORKER_INDEX=1" "$(logs serve-1-1)"
contains "the leader is worker 0" "ENV LWS_WORKER_INDEX=0" "$(logs serve-0)"
until_eq 10 lws_row 2/2/2
expect_eq "kubectl get lws: 2 ready of 2" "2/2/2" "$(lws_row)"
expect_eq "the Available condition" "True" \
  "$(k get lws -n "$NS" serve -o jsonpath='{.status.conditions[?(@.type=="Available")].status}')"

echo "== a high-priority Job preempts one group whole; it resumes after"
job_yaml "$NS" boss queue=lq priority=high backoff=0 grace=1 cmd="sleep 300; true $TAG" \
  requests="cpu: 80m" | k create -f - >/dev/null
eventually "the high-priority job runs" 30 Running k get pods -n "$NS" -l job-name=boss
until_eq 20 gated 2 || bad "one group was not gated again" "$(pods)"
p=$(pods)
g_gated=$(grep 'kueue.x-k8s.io/admission' <<<"$p" | cut -d'|' -f5 | sort -u)
g_running=$(grep '|Running|' <<<"$p" | cut -d'|' -f5 | sort -u)
expect_eq "the preempted group's two pods came back gated" 1 "$(wc -w <<<"$g_gated")"
expect_eq "the other group's two pods keep running" 2 "$(grep -c '|Running|' <<<"$p")"
[[ -n $g_gated && $g_gated != "$g_running" ]] && ok "a group is stopped whole, never in part" ||
  bad "a group is stopped whole, never in part" "$p"
contains "the preempted group's Workload says why" "Preempted" "$(workloads | grep "^$g_gated|")"
until_eq 10 lws_row 1/2/2
expect_eq "kubectl get lws: 1 ready of 2" "1/2/2" "$(lws_row)"
k delete job -n "$NS" boss --wait=false >/dev/null
until_eq 40 running 4 || bad "the preempted group did not resume" "$(pods)"
expect_eq "the preempted group resumed" 4 "$(running)"

echo "== replaced without Kueue's marks: Kueue's webhook puts them back"
k get lws -n "$NS" serve -o json | python3 -c "
import json, sys
o = json.load(sys.stdin)
for t in ('leaderTemplate', 'workerTemplate'):
    o['spec']['leaderWorkerTemplate'][t]['metadata'].pop('annotations', None)
print(json.dumps(o))" | k replace -f - >/dev/null || bad "kubectl replace the set"
expect_eq "the replaced set's worker template still names Kueue's LWS integration" \
  "leaderworkerset.x-k8s.io/leaderworkerset" \
  "$(k get lws -n "$NS" serve -o jsonpath='{.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent}')"

echo "== scaled down to one group: the other group's Workload and pods go"
contains "its scale subresource selects the leaders (for an HPA)" \
  '"selector":"leaderworkerset.sigs.k8s.io/name=serve,leaderworkerset.sigs.k8s.io/worker-index=0"' \
  "$(k get --raw "/apis/leaderworkerset.x-k8s.io/v1/namespaces/$NS/leaderworkersets/serve/scale")"
k scale lws -n "$NS" serve --replicas=1 >/dev/null || bad "kubectl scale the set to one group"
admitted_groups() { workloads | cut -d'|' -f1-3 | tr '\n' ' ' | sed 's/ $//'; }
until_eq 20 admitted_groups "0|True|big"
expect_eq "only group 0's Workload is left, admitted" "0|True|big" "$(admitted_groups)"
pod_names() { pods | cut -d'|' -f1 | sort | tr '\n' ' ' | sed 's/ $//'; }
until_eq 20 pod_names "serve-0 serve-0-1"
expect_eq "only group 0's pods are left" "serve-0 serve-0-1" "$(pod_names)"
expect_eq "the ClusterQueue admits one Workload" 1 "$(admitted)"

echo "== deleted: pods gone, quota released"
k delete lws -n "$NS" serve --wait=false >/dev/null
until_eq 30 admitted 0
expect_eq "the ClusterQueue admits nothing any more" 0 "$(admitted)"
until_eq 20 pods ""
expect_eq "every pod of the set is gone" "" "$(pods)"
expect_eq "its Workloads are gone" "" "$(workloads)"

echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
