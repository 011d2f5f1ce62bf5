#!/usr/bin/env bash
# End-to-end with real processes: kuotad runs admitted Jobs as local
# processes, driven by the real kubectl. Checks that quota holds at every
# sampled instant, preemption kills the victim's processes and requeues it,
# Indexed jobs see their index, GPUs are never shared, a kill -9'd kuotad
# adopts its running pods without running them twice or leaking quota, and
# bad input (missing command, 1000 GPUs, a log flood) gets a clear status.
# Usage: local_runtime_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests/local
source "$HERE/lib.sh"
need kubectl
scratch kuota-e2e   # TAG marks this run's processes (in their arguments)
LOCAL=(--gpus 4 --max-log-bytes 1048576)

# Processes of this run whose arguments contain MARK.
count() { pgrep -f -- "$TAG-$1" | wc -l; }

# job NAME CPU PRIORITY CMD [GPUS]: a queued Job with one pod.
job() {
  local gpus=${5:-0}
  job_yaml ml "$1" queue=lq priority="$3" backoff=0 grace=2 cmd="$4" \
    requests="cpu: \"$2\", memory: 100Mi, nvidia.com/gpu: \"$gpus\"" limits="nvidia.com/gpu: \"$gpus\""
}

start_kuotad "${LOCAL[@]}"
k create namespace ml >/dev/null
k apply -f "$M/queues.yaml" >/dev/null || { echo "FAIL apply queues"; exit 1; }
contains "the machine is published as a Node with declared GPUs" "nvidia.com/gpu" \
  "$(k get nodes -o jsonpath='{.items[0].status.capacity}')"

# --- Quota at every instant: six 500m jobs on a 1-CPU quota -----------------
for i in 1 2 3 4 5 6; do
  job "q$i" 500m low "sleep 1.5; true $TAG-quota" | k create -f - >/dev/null
done
max=0; seen_two=0
for _ in $(seq 1 300); do
  n=$(count quota)
  (( n > max )) && max=$n
  (( n == 2 )) && seen_two=1
  done_jobs=$(k get jobs -n ml -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Complete")].status}{"\n"}{end}' 2>/dev/null | grep -c True)
  (( done_jobs == 6 )) && break
  sleep 0.05
done
# Each pod's `sh -c` carries the tag: one process per running pod.
if (( max <= 2 )); then ok "never more than 1 CPU of pods running (max $max pods)"; else bad "quota exceeded: $max pods ran at once"; fi
expect_eq "the quota was used fully (2 pods at once)" 1 "$seen_two"
expect_eq "all six quota jobs completed" 6 "$done_jobs"
wait_for 5 "0" k get cq cq -o jsonpath="{.status.admittedWorkloads}"
expect_eq "finished workloads released their quota" "0" \
  "$(k get cq cq -o jsonpath='{.status.admittedWorkloads}')"

# --- Preemption kills the victim's processes and requeues it ----------------
job victim 1 low "sleep 300; true $TAG-victim" | k create -f - >/dev/null
wait_for 10 1 count victim && ok "victim runs" || bad "victim did not start"
job boss 1 high "sleep 4; true $TAG-boss" | k create -f - >/dev/null
if wait_for 10 0 count victim; then ok "preemption killed the victim's processes"; else bad "victim still running"; fi
wl_victim=$(k get workloads -n ml -o name | grep victim)
contains "the victim's workload says it was preempted" "Preempted" \
  "$(k get -n ml "$wl_victim" -o jsonpath='{.status.conditions[*].reason}')"
wait_for 10 1 count boss && ok "the high-priority job runs" || bad "boss did not start"
contains "the victim's Job is suspended while it waits" "true" \
  "$(k get job -n ml victim -o jsonpath='{.spec.suspend}')"
if wait_for 20 1 count victim; then ok "the victim was re-admitted and runs again after boss finished"; else bad "victim not resumed"; fi
k delete job -n ml victim --wait=false >/dev/null
if wait_for 10 0 count victim; then ok "deleting a running Job stops its processes"; else bad "victim survived its Job"; fi

# --- Indexed jobs see their index; GPUs are never shared ---------------------
job_yaml ml indexed queue=lq indexed=2 requests="cpu: 100m" limits="nvidia.com/gpu: 1" \
  cmd="echo index=\$JOB_COMPLETION_INDEX gpu=\$CUDA_VISIBLE_DEVICES; sleep 1; true $TAG-idx" | k create -f - >/dev/null
wait_for 15 Complete k get job -n ml indexed && ok "the Indexed job completed" || bad "Indexed job did not complete"
logs=""
for p in $(k get pods -n ml -l batch.kubernetes.io/job-name=indexed -o name); do logs+=$(k logs -n ml "$p")$'\n'; done
contains "index 0 ran" "index=0" "$logs"
contains "index 1 ran" "index=1" "$logs"
gpus=$(grep -o 'gpu=[0-9]*' <<<"$logs" | sort -u | wc -l)
expect_eq "each pod got its own GPU" 2 "$gpus"

# --- kill -9 kuotad: running pods are adopted, not run twice ---------------
# survivor outlives a kill -9 and a sanitized kuotad's restart on a loaded machine.
job survivor 500m low "sleep 30; true $TAG-survivor" | k create -f - >/dev/null
wait_for 10 1 count survivor || bad "survivor did not start"
# The pod's shell (the oldest match: while it forks `sleep`, the child is
# briefly a second copy of it).
before=$(pgrep -o -f -- "$TAG-survivor")
kill -9 "$PID"; wait "$PID" 2>/dev/null
expect_eq "the pod's processes outlive kuotad" "$before" "$(pgrep -o -f -- "$TAG-survivor")"
start_kuotad "${LOCAL[@]}"
contains "restarted kuotad adopts the running pod" "Running" \
  "$(k get pods -n ml -l batch.kubernetes.io/job-name=survivor)"
expect_eq "the pod is not started a second time" "$before" "$(pgrep -f -- "$TAG-survivor" | paste -sd' ')"
wait_for 40 Complete k get job -n ml survivor && ok "the adopted pod's Job completes" || bad "survivor did not complete"
wait_for 5 "0" k get cq cq -o jsonpath='{.status.admittedWorkloads}' && ok "no quota leaked after the restart" || bad "quota still held"

# --- Bad input -----------------------------------------------------------------
job nocmd 100m low "exec /no/such/program-$TAG" | k create -f - >/dev/null
wait_for 10 Failed k get job -n ml nocmd && ok "a missing program fails the Job" || bad "nocmd not failed"
contains "the pod says the program was not found" "not found" \
  "$(k get pods -n ml -l batch.kubernetes.io/job-name=nocmd -o jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode} {.items[0].status.containerStatuses[0].state}') $(k logs -n ml -l batch.kubernetes.io/job-name=nocmd 2>&1)"
job greedy 100m low "true" 1000 | k create -f - >/dev/null
wait_for 10 "even when it is empty" k get workloads -n ml -o jsonpath='{.items[*].status.conditions[*].message}' \
  && ok "a job asking for 1000 GPUs stays pending with the reason" || bad "greedy: no reason" "$(k get workloads -n ml -o yaml | grep -i message)"
job flood 100m low "head -c 30000000 /dev/zero | tr '\\\\0' x; sleep 2; true $TAG-flood" | k create -f - >/dev/null
wait_for 15 Complete k get job -n ml flood || bad "flood did not complete"
size=$(du -b "$TMP"/data/pods/*/main.log 2>/dev/null | sort -n | tail -1 | cut -f1)
if [[ -n "$size" ]] && (( size <= 4 * 1048576 )); then ok "a 30 MB log flood is capped (largest log $size bytes)"; else bad "log not capped: $size"; fi
k get --raw /healthz >/dev/null && ok "kuotad is still healthy" || bad "kuotad unhealthy"

# --- waitForPodsReady: a workload whose pods cannot all run is evicted --------
kill "$PID"; wait "$PID" 2>/dev/null
cat >"$TMP/config.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: true
  timeout: 2s
  requeuingStrategy:
    timestamp: Eviction
    backoffBaseSeconds: 1
YAML
start_kuotad "${LOCAL[@]}" --config "$TMP/config.yaml"
# A Job outside Kueue takes every CPU of the machine, so the queued job's pod
# cannot be placed although its workload is admitted.
cpus=$(k get nodes -o jsonpath='{.items[0].status.allocatable.cpu}')
job_yaml ml hog grace=1 cmd="sleep 300; true $TAG-hog" requests="cpu: \"$cpus\"" | k create -f - >/dev/null
wait_for 10 1 count hog && ok "a Job without a queue runs at once" || bad "hog did not start"
job starved 500m low "sleep 1; true $TAG-starved" | k create -f - >/dev/null
wl_starved=$(for _ in $(seq 1 50); do k get workloads -n ml -o name | grep starved && break; sleep 0.1; done)
wait_for 10 PodsReadyTimeout k get -n ml "$wl_starved" -o jsonpath='{.status.conditions[*].reason}' \
  && ok "its pods never ready: evicted with PodsReadyTimeout" \
  || bad "no PodsReadyTimeout" "$(k get -n ml "$wl_starved" -o yaml)"
contains "requeued with back-off" "count" "$(k get -n ml "$wl_starved" -o jsonpath='{.status.requeueState}')"
k delete job -n ml hog --wait=false >/dev/null
wait_for 30 Complete k get job -n ml starved && ok "once the machine is free it runs and completes" \
  || bad "starved never completed" "$(k get -n ml "$wl_starved" -o yaml)"

if (( FAIL > 0 )); then
  echo "--- state at the end"; k get cq,wl,jobs,pods -A 2>&1 | sed 's/^/     | /'
  echo "--- kuotad log"; tail -20 "$TMP/kuotad.log" | sed 's/^/     | /'
fi
echo "passed $PASS, failed $FAIL"
(( FAIL == 0 ))
