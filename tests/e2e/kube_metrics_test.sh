#!/usr/bin/env bash
# Kueue's metrics on the Kubernetes mode's /metrics (the driver's health port),
# end to end: kuotad --serve-only (the stand-in cluster) with deploy/crds,
# a driver (kuotad --kubeconfig) running the engine, seed 003's queues and
# four Jobs of 3 GPUs against a quota of 10 (three admitted, one pending).
# The driver's Kueue families (the controller's KueueMetrics, as kuotad's)
# must agree with what kubectl shows: admitted and pending counts, quota and
# usage per flavor and resource, LocalQueue counts; the standby has none.
# Usage: kube_metrics_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"
need kubectl curl
scratch kuota-kube-metrics
DRIVERS=()
cleanup_more() { local p; for p in "${DRIVERS[@]}"; do kill -9 "$p"; wait "$p"; done; }

# start_driver LOG PORT: a driver with leader election, its webhooks on PORT; its
# /metrics port in the log.
start_driver() {
  "$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --webhook-port "$2" --lease-duration 4 \
    --leader-election-namespace kuota-system >>"$TMP/$1" 2>&1 &
  DRIVERS+=("$!")
}
# scrape LOG: the /metrics text of the driver logging to LOG.
scrape() {
  local port
  port=$(grep -o 'http://127.0.0.1:[0-9]*/healthz' "$TMP/$1" | tail -1 | sed 's/.*:\([0-9]*\)\/.*/\1/')
  curl -s "http://127.0.0.1:$port/metrics"
}
# sample TEXT NAME LABELS: the value of the sample NAME{LABELS} in TEXT (exact labels).
sample() { awk -v s="$2{$3}" '$1 == s {print $2}' <<<"$1"; }

start_kuotad --serve-only
k apply --server-side -f "$CRDS" >/dev/null || bad "kubectl apply --server-side deploy/crds"
for ns in kuota-system team-a team-b; do k create namespace "$ns" >/dev/null; done
# The CRDs store v1beta2: the seeds' v1beta1 manifests go through the leader's
# conversion webhook.
LPORT=$(free_port)
webhook_endpoints "$LPORT"
start_driver leader.log "$LPORT"
if ! wait_for 30 "engine running on the cluster" cat "$TMP/leader.log"; then
  bad "the driver starts" "$(tail -20 "$TMP/leader.log")"
  exit 1
fi
start_driver standby.log "$(free_port)"
wait_for 10 "waits for lease" cat "$TMP/standby.log" >/dev/null || bad "the standby waits"

G=$M/gke-tutorial
k apply -f "$M/kube/003-flavor-t4.yaml" -f "$G/cluster-queue.yaml" -f "$G/local-queue.yaml" \
  >/dev/null || bad "seed 003 queues apply"
for _ in 1 2 3 4; do k create -f "$G/job-team-a.yaml" >/dev/null; done
eventually "three of the four Workloads admitted" 20 "3" bash -c \
  "kubectl --kubeconfig $TMP/kubeconfig get workloads -n team-a --no-headers | grep -c ' True '"
eventually "kubectl get cq shows 1 pending" 20 "1" \
  k get cq cluster-queue -o jsonpath='{.status.pendingWorkloads}'

# What kubectl shows, counted from the Workloads' conditions.
wl=$(k get workloads -A -o json)
count() {
  python3 -c 'import json,sys
t=sys.argv[1]; want=sys.argv[2]
n=0
for w in json.load(sys.stdin)["items"]:
    c={x["type"]:x["status"] for x in w.get("status",{}).get("conditions",[])}
    if c.get(t,"False")==want: n+=1
print(n)' "$1" "$2" <<<"$wl"
}
admitted=$(count Admitted True)
pending=$(count QuotaReserved False)
expect_eq "kubectl: 3 admitted, 1 pending" "3 1" "$admitted $pending"

# Counters move at once; the gauges are published at most once a second.
cq='cluster_queue="cluster-queue"'
wait_for 10 "kueue_admitted_workloads_total{$cq} $admitted" scrape leader.log >/dev/null
wait_for 10 "kueue_admitted_active_workloads{$cq} $admitted" scrape leader.log >/dev/null
m=$(scrape leader.log)
expect_eq "kueue_admitted_workloads_total matches kubectl" "$admitted" \
  "$(sample "$m" kueue_admitted_workloads_total "$cq")"
expect_eq "kueue_quota_reserved_workloads_total matches kubectl" "$admitted" \
  "$(sample "$m" kueue_quota_reserved_workloads_total "$cq")"
active=$(sample "$m" kueue_pending_workloads "$cq,status=\"active\"")
inadmissible=$(sample "$m" kueue_pending_workloads "$cq,status=\"inadmissible\"")
expect_eq "kueue_pending_workloads (active + inadmissible) matches kubectl" "$pending" \
  "$((${active:-0} + ${inadmissible:-0}))"
expect_eq "kueue_pending_workloads matches the ClusterQueue's status.pendingWorkloads" \
  "$(k get cq cluster-queue -o jsonpath='{.status.pendingWorkloads}')" \
  "$((${active:-0} + ${inadmissible:-0}))"
expect_eq "kueue_admitted_active_workloads matches the ClusterQueue's status.admittedWorkloads" \
  "$(k get cq cluster-queue -o jsonpath='{.status.admittedWorkloads}')" \
  "$(sample "$m" kueue_admitted_active_workloads "$cq")"
gpu="cohort=\"\",$cq,flavor=\"default-flavor\",resource=\"nvidia.com/gpu\""
contains "kueue_cluster_queue_nominal_quota: 10 GPUs, as the ClusterQueue's spec" \
  "kueue_cluster_queue_nominal_quota{$gpu} 10" "$m"
used=$(k get cq cluster-queue -o jsonpath='{.status.flavorsUsage[0].resources[?(@.name=="nvidia.com/gpu")].total}')
expect_eq "kueue_cluster_queue_resource_usage: the GPUs in the ClusterQueue's status.flavorsUsage" \
  "$used" "$(sample "$m" kueue_cluster_queue_resource_usage "$gpu")"
expect_eq "kueue_cluster_queue_status: active" 1 \
  "$(sample "$m" kueue_cluster_queue_status "$cq,status=\"active\"")"
lq='name="lq-team-a",namespace="team-a"'
expect_eq "kueue_local_queue_admitted_workloads_total matches kubectl" "$admitted" \
  "$(sample "$m" kueue_local_queue_admitted_workloads_total "$lq")"
contains "kueue_admission_wait_time_seconds has an observation per admission" \
  "kueue_admission_wait_time_seconds_count{$cq} $admitted" "$m"
contains "kueue_admission_attempts_total counts successes" \
  'kueue_admission_attempts_total{result="success"}' "$m"
expect_eq "the driver's own gauges stay: kuota_leader 1" 1 "$(awk '$1 == "kuota_leader" {print $2}' <<<"$m")"
expect_eq "the standby exports no Kueue samples" 0 \
  "$(scrape standby.log | grep -c '^kueue_admitted_workloads_total{')"

# Finishing a Job moves the counters as Kueue's would.
first=$(k get jobs -n team-a -o jsonpath='{range .items[?(@.spec.suspend==false)]}{.metadata.name}{"\n"}{end}' | head -1)
k patch job -n team-a "$first" --subresource=status --type=merge \
  -p '{"status":{"succeeded":3,"conditions":[{"type":"Complete","status":"True"}]}}' >/dev/null ||
  bad "patch the Job's status Complete"
eventually "the pending Workload is admitted once one finishes" 20 "4" bash -c \
  "kubectl --kubeconfig $TMP/kubeconfig get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type==\"Admitted\")].status}{\"\\n\"}{end}' | grep -c True"
# (Counters move at once; the gauges are published at most once a second.)
wait_for 10 "kueue_admitted_workloads_total{$cq} 4" scrape leader.log >/dev/null
wait_for 10 "kueue_pending_workloads{$cq,status=\"inadmissible\"} 0" scrape leader.log >/dev/null
m=$(scrape leader.log)
expect_eq "kueue_admitted_workloads_total: 4 after the fourth admission" 4 \
  "$(sample "$m" kueue_admitted_workloads_total "$cq")"
expect_eq "kueue_finished_workloads_total: 1" 1 "$(sample "$m" kueue_finished_workloads_total "$cq")"
expect_eq "kueue_pending_workloads: none left" "0 0" \
  "$(sample "$m" kueue_pending_workloads "$cq,status=\"active\"") $(sample "$m" kueue_pending_workloads "$cq,status=\"inadmissible\"")"

echo "kube metrics: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
