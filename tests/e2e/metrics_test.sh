#!/usr/bin/env bash
# kuotad's /metrics scraped by the real Prometheus (Debian's package), end to
# end: kuotad with 2 fake GPUs (--fake-gpus), the two-team demo's scenario
# (examples/demo/teams.yaml: team B borrows team A's idle CPU, team A's
# production jobs reclaim it by preemption) plus a GPU queue, then
# Prometheus' HTTP API is asked and its answers compared with what kubectl
# shows: pending / admitted counts, preemptions and quota usage per
# ClusterQueue, and per-queue GPU utilization through the
# kuota_gpu_allocation join. Every Kueue metric name with its label set, the
# DCGM-exporter series and Kuota's own are checked to be scraped.
# Usage: metrics_test.sh PATH/TO/kuotad PATH/TO/examples/demo/teams.yaml
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/teams.yaml}
TEAMS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/teams.yaml}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl prometheus curl python3
scratch kuota-metrics-test   # TAG marks this run's processes (in their arguments)
PROM=
cleanup_more() { [[ -z "$PROM" ]] || { kill -9 "$PROM"; wait "$PROM"; }; }

# 2 fake GPUs; CPUs declared so that every pod of the scenario fits the machine.
start_kuotad --fake-gpus 2 --cpus 16
creds
printf '%s' "$TOKEN" >"$TMP/token"

# --- Prometheus, scraping every second -------------------------------------
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: kuotad
  scheme: https
  authorization: {type: Bearer, credentials_file: $TMP/token}
  tls_config: {ca_file: $TMP/ca.crt}
  static_configs: [{targets: ["${URL#https://}"]}]
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
  --web.listen-address="127.0.0.1:$PORT" >"$TMP/prometheus.log" 2>&1 &
PROM=$!
# q PROMQL: the value of an instant query (the sum of its series), "" if none.
q() {
  curl -s --get "http://127.0.0.1:$PORT/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print("" if not r else "%g" % sum(float(x["value"][1]) for x in r))'
}
wait_for 30 '"health":"up"' curl -s "http://127.0.0.1:$PORT/api/v1/targets" ||
  { bad "Prometheus scrapes kuotad" "$(curl -s "http://127.0.0.1:$PORT/api/v1/targets"; tail -5 "$TMP/prometheus.log")"; }
ok "Prometheus scrapes kuotad's /metrics over TLS with the bearer token"

# --- the two-team demo's scenario, and a GPU queue ---------------------------
k apply -f "$TEAMS" >/dev/null || bad "apply the demo's teams"
k create namespace gpu-team >/dev/null
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: fake-gpu}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: gpu-cq}
spec:
  cohort: gpus
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
    - name: fake-gpu
      resources:
      - {name: cpu, nominalQuota: 1}
      - {name: memory, nominalQuota: 1Gi}
      - {name: nvidia.com/gpu, nominalQuota: 2, borrowingLimit: 0, lendingLimit: 1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: gpus, namespace: gpu-team}
spec: {clusterQueue: gpu-cq}
EOF
# job NS NAME QUEUE PRIORITY SECONDS CPU [GPUS]
job() {
  local gpu=""
  [[ -n "${7:-}" ]] && gpu=", nvidia.com/gpu: \"$7\""
  job_yaml "$1" "$2" queue="$3" priority="$4" backoff=0 grace=1 cmd="sleep $5; true $TAG" \
    requests="cpu: $6, memory: 64Mi$gpu" | k create -f - >/dev/null
}
# Team B: 4 x 500m on its 1 CPU, so two borrow team A's idle CPU.
for i in 1 2 3 4; do job team-b "explore-$i" team-b research 300 500m; done
wait_for 20 "4" bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -n team-b --no-headers | grep -c ' True '" ||
  bad "team B's four research jobs admitted (two borrowing)"
# Team A takes its CPU back: the two borrowers are preempted.
job team-a train-1 team-a production 300 500m
job team-a train-2 team-a production 300 500m
job gpu-team gpu-long gpus production 300 250m 1
job gpu-team gpu-short gpus production 1 250m 1
# Settled: team A holds its CPU again, team B's borrowers wait, the short GPU job finished.
wait_for 30 "2" bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -n team-a --no-headers | grep -c ' True '" ||
  bad "team A's production jobs admitted by reclaiming" "$(k get workloads -A)"
wait_for 30 "True" k get workloads -n gpu-team -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="gpu-short")].status.conditions[?(@.type=="Finished")].status}' ||
  bad "the short GPU job finishes" "$(k get workloads -n gpu-team -o yaml | tail -20)"
sleep 3  # the controller's status write and two scrapes

# --- Prometheus' answers against kubectl's -----------------------------------
for cq in team-a-cq team-b-cq gpu-cq; do
  st=$(k get clusterqueue "$cq" -o json)
  want=$(python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; print(s.get("pendingWorkloads",0), s.get("admittedWorkloads",0))' <<<"$st")
  got="$(q "sum(kueue_pending_workloads{cluster_queue=\"$cq\"})") $(q "kueue_admitted_active_workloads{cluster_queue=\"$cq\"}")"
  expect_eq "$cq: pending and admitted workloads (Prometheus = kubectl: $want)" "$want" "$got"
  want=$(python3 -c '
import json,sys
s=json.load(sys.stdin)["status"]
def units(q):
    suf={"m":1e-3,"Ki":1024,"Mi":1024**2,"Gi":1024**3}
    for k,v in suf.items():
        if q.endswith(k): return float(q[:-len(k)])*v
    return float(q)
print(" ".join("%g" % units(r["total"]) for f in s.get("flavorsUsage",[]) for r in f["resources"] if r["name"] in ("cpu","memory")))' <<<"$st")
  got="$(q "kueue_cluster_queue_resource_usage{cluster_queue=\"$cq\",resource=\"cpu\"}") $(q "kueue_cluster_queue_resource_usage{cluster_queue=\"$cq\",resource=\"memory\"}")"
  expect_eq "$cq: cpu and memory in use (Prometheus = kubectl flavorsUsage: $want)" "$want" "$got"
done
preempted=$(k get events -A -o jsonpath='{range .items[?(@.reason=="Preempted")]}{.involvedObject.name}{"\n"}{end}' | grep -c .)
[[ "$preempted" -ge 1 ]] && ok "kubectl shows $preempted preemption(s)" || bad "the scenario preempts"
expect_eq "kueue_preempted_workloads_total{preempting_cluster_queue=team-a-cq} = kubectl's Preempted events" \
  "$preempted" "$(q 'sum(kueue_preempted_workloads_total{preempting_cluster_queue="team-a-cq"})')"
expect_eq "kueue_evicted_workloads_total{cluster_queue=team-b-cq,reason=Preempted} = the same" \
  "$preempted" "$(q 'kueue_evicted_workloads_total{cluster_queue="team-b-cq",reason="Preempted"}')"
expect_eq "kueue_finished_workloads_total{cluster_queue=gpu-cq}" 1 \
  "$(q 'kueue_finished_workloads_total{cluster_queue="gpu-cq"}')"
expect_eq "gpu-cq: 1 GPU reserved (kueue_cluster_queue_resource_reservation)" 1 \
  "$(q 'kueue_cluster_queue_resource_reservation{cluster_queue="gpu-cq",resource="nvidia.com/gpu"}')"
expect_eq "2 fake GPUs found (kuota_gpus)" 2 "$(q 'kuota_gpus')"
expect_eq "the GPU held by gpu-long is attributed to its pod and queues" 1 \
  "$(q 'count(kuota_gpu_allocation{namespace="gpu-team",local_queue="gpus",cluster_queue="gpu-cq",flavor="fake-gpu"})')"
util=$(q 'avg by (cluster_queue) (DCGM_FI_DEV_GPU_UTIL * on(UUID) group_left(cluster_queue) kuota_gpu_allocation)')
[[ -n "$util" ]] && ok "GPU utilization per ClusterQueue in one PromQL expression ($util%)" ||
  bad "GPU utilization per ClusterQueue joins DCGM_FI_DEV_GPU_UTIL with kuota_gpu_allocation"

# --- every metric name with its label set ------------------------------------
series=$(curl -s --get "http://127.0.0.1:$PORT/api/v1/series" \
  --data-urlencode 'match[]={__name__=~"kueue_.*|kuota_.*|DCGM_.*"}')
check=$(python3 - "$series" <<'EOF'
import json, sys
want = {
 "kueue_admission_attempts_total": "result",
 "kueue_admission_attempt_duration_seconds_bucket": "le,result",
 "kueue_pending_workloads": "cluster_queue,status",
 "kueue_quota_reserved_workloads_total": "cluster_queue",
 "kueue_quota_reserved_wait_time_seconds_bucket": "cluster_queue,le",
 "kueue_admitted_workloads_total": "cluster_queue",
 "kueue_admission_wait_time_seconds_bucket": "cluster_queue,le",
 "kueue_evicted_workloads_total": "cluster_queue,reason",
 "kueue_preempted_workloads_total": "preempting_cluster_queue,reason",
 "kueue_reserving_active_workloads": "cluster_queue",
 "kueue_admitted_active_workloads": "cluster_queue",
 "kueue_finished_workloads_total": "cluster_queue",
 "kueue_cluster_queue_status": "cluster_queue,status",
 "kueue_cluster_queue_resource_reservation": "cluster_queue,cohort,flavor,resource",
 "kueue_cluster_queue_resource_usage": "cluster_queue,cohort,flavor,resource",
 "kueue_cluster_queue_nominal_quota": "cluster_queue,cohort,flavor,resource",
 "kueue_cluster_queue_borrowing_limit": "cluster_queue,cohort,flavor,resource",
 "kueue_cluster_queue_lending_limit": "cluster_queue,cohort,flavor,resource",
 "kueue_cluster_queue_weighted_share": "cluster_queue",
 "kueue_cohort_weighted_share": "cohort",
 "kueue_local_queue_pending_workloads": "name,namespace,status",
 "kueue_local_queue_reserving_active_workloads": "name,namespace",
 "kueue_local_queue_admitted_active_workloads": "name,namespace",
 "kueue_local_queue_status": "active,name,namespace",
 "kueue_local_queue_resource_reservation": "flavor,name,namespace,resource",
 "kueue_local_queue_resource_usage": "flavor,name,namespace,resource",
 "kueue_local_queue_quota_reserved_workloads_total": "name,namespace",
 "kueue_local_queue_admitted_workloads_total": "name,namespace",
 "kueue_local_queue_evicted_workloads_total": "name,namespace,reason",
 "kueue_local_queue_finished_workloads_total": "name,namespace",
 "kueue_local_queue_admission_wait_time_seconds_bucket": "le,name,namespace",
 "kueue_local_queue_quota_reserved_wait_time_seconds_bucket": "le,name,namespace",
 "DCGM_FI_DEV_GPU_UTIL": "Hostname,UUID,gpu,modelName",
 "DCGM_FI_DEV_FB_USED": "Hostname,UUID,gpu,modelName",
 "DCGM_FI_DEV_FB_FREE": "Hostname,UUID,gpu,modelName",
 "DCGM_FI_DEV_GPU_TEMP": "Hostname,UUID,gpu,modelName",
 "DCGM_FI_DEV_POWER_USAGE": "Hostname,UUID,gpu,modelName",
 "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": "Hostname,UUID,gpu,modelName",
 "DCGM_FI_PROF_SM_ACTIVE": "Hostname,UUID,gpu,modelName",
 "kuota_gpu_allocation": "Hostname,UUID,cluster_queue,flavor,gpu,local_queue,namespace,pod",
 "kuota_gpus": "Hostname",
 "kuota_build_info": "version",
 "kuota_controller_rounds_total": "",
 "kuota_controller_loop_seconds_total": "step",
 "kuota_controller_status_flush_seconds_total": "",
 "kuota_store_transactions_total": "",
 "kuota_store_writes_total": "",
 "kuota_store_transaction_seconds_total": "",
 "kuota_store_commit_seconds_total": "",
 "kuota_store_transaction_cpu_seconds_total": "",
}
got = {}
for s in json.loads(sys.argv[1])["data"]:
    keys = ",".join(sorted(k for k in s if k not in ("__name__", "job", "instance")))
    got.setdefault(s["__name__"], set()).add(keys)
bad = [f"{n}: want labels {{{l}}}, got {sorted(got.get(n, []))}" for n, l in want.items()
       if got.get(n) != {l}]
print(f"{len(want) - len(bad)} of {len(want)} metric names with their label sets")
for b in bad: print(b)
EOF
)
first=$(head -1 <<<"$check")
if [[ -n "$first" && "$(awk '{print $1}' <<<"$first")" == "$(awk '{print $3}' <<<"$first")" ]]; then
  ok "every metric name with its label set is scraped: $first"
else
  bad "every metric name with its label set is scraped" "$check"
fi

# The OpenMetrics form when asked for.
om=$(curl -s --cacert "$TMP/ca.crt" -H "Authorization: Bearer $(cat "$TMP/token")" \
  -H 'Accept: application/openmetrics-text;version=1.0.0' "$URL/metrics")
expect_eq "OpenMetrics when asked: ends with # EOF" "# EOF" "$(tail -1 <<<"$om")"
contains "OpenMetrics: counter families named without _total" "# TYPE kueue_admitted_workloads counter" "$om"
expect_eq "/metrics without a token is 401" 401 \
  "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/ca.crt" "$URL/metrics")"

echo "metrics: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
