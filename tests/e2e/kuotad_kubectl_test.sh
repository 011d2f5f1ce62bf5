#!/usr/bin/env bash
# End-to-end: starts kuotad on a temporary data directory and drives it with
# the real kubectl, following the seeds' walkthroughs (GKE batch tutorial, two
# teams sharing a cohort with priorities and preemption). Also restarts kuotad
# (after kill -9) and checks nothing acknowledged was lost and scheduling goes on.
# Runs kuotad with --no-run-pods: the API and scheduling only (the GKE jobs ask
# for GPUs this machine lacks); local_runtime_test.sh covers running pods.
# Usage: kuotad_kubectl_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
command -v kubectl >/dev/null || { echo "FAIL: kubectl not found on PATH"; exit 1; }

TMP=$(mktemp -d)
PID=
cleanup() { [[ -n "$PID" ]] && kill -9 "$PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

PASS=0
FAIL=0
ok()   { PASS=$((PASS+1)); echo "ok   $1"; }
bad()  { FAIL=$((FAIL+1)); echo "FAIL $1"; [[ -n "${2:-}" ]] && echo "$2" | sed 's/^/     | /'; }
check() {  # check NAME COMMAND... : passes when the command succeeds
  local name=$1; shift
  local out; out=$("$@" 2>&1) && ok "$name" || bad "$name" "$out"
}
contains() {  # contains NAME NEEDLE TEXT
  if grep -qF -- "$2" <<<"$3"; then ok "$1"; else bad "$1" "want: $2"$'\n'"got:"$'\n'"$3"; fi
}

start_kuotad() {
  rm -f "$TMP/kubeconfig"
  "$KUOTAD" --data-dir "$TMP/data" --port 0 --kubeconfig-out "$TMP/kubeconfig" --no-run-pods \
    >"$TMP/kuotad.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 200); do
    if [[ -s "$TMP/kubeconfig" ]] && kubectl --kubeconfig "$TMP/kubeconfig" get --raw /healthz >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.05
  done
  echo "kuotad did not start:"; cat "$TMP/kuotad.log"; exit 1
}
k() { kubectl --kubeconfig "$TMP/kubeconfig" "$@"; }
# Waits until COMMAND's output contains NEEDLE (up to ~10 s).
wait_for() {
  local needle=$1; shift
  for _ in $(seq 1 100); do
    # Not `"$@" | grep -q`: under pipefail the writer's SIGPIPE fails the test.
    local out; out=$("$@" 2>/dev/null)
    if grep -qF -- "$needle" <<<"$out"; then return 0; fi
    sleep 0.1
  done
  return 1
}

start_kuotad

# --- GKE batch tutorial (shared/seeds/003) ---
check "create namespaces" k create namespace team-a
check "create namespace team-b" k create namespace team-b
check "apply flavors" k apply -f "$M/gke-tutorial/flavors.yaml"
check "apply cluster queue" k apply -f "$M/gke-tutorial/cluster-queue.yaml"
check "apply local queues" k apply -f "$M/gke-tutorial/local-queue.yaml"
out=$(k apply -f "$M/gke-tutorial/cluster-queue.yaml" 2>&1)
contains "re-apply is unchanged" "clusterqueue.kueue.x-k8s.io/cluster-queue unchanged" "$out"

# Each job needs 3 GPUs of the queue's 10: three fit, the fourth waits.
for i in 1 2 3 4; do
  check "create job-team-a #$i (generateName)" k create -f "$M/gke-tutorial/job-team-a.yaml"
  sleep 0.05
done
wait_for "4" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-a get workloads --no-headers | wc -l" \
  && ok "a Workload per Job" || bad "a Workload per Job" "$(k -n team-a get workloads 2>&1)"
wait_for "3" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-a get workloads --no-headers | grep -c True" \
  && ok "three workloads admitted" || bad "three workloads admitted" "$(k -n team-a get workloads 2>&1)"

out=$(k -n team-a get workloads 2>&1)
contains "workloads table has Kueue's columns" "QUEUE" "$out"
contains "workloads table: RESERVED IN" "RESERVED IN" "$out"
contains "workloads admitted into cluster-queue" "cluster-queue" "$out"

wait_for "1" bash -c "kubectl --kubeconfig $TMP/kubeconfig get clusterqueue cluster-queue -o jsonpath='{.status.pendingWorkloads}'" \
  && ok "cluster queue status counts the pending workload" \
  || bad "cluster queue status counts the pending workload" "$(k get cq cluster-queue -o yaml 2>&1)"
out=$(k get clusterqueue cluster-queue -o wide 2>&1)
contains "cq -o wide: COHORT column" "COHORT" "$out"
contains "cq -o wide: STRATEGY column" "STRATEGY" "$out"
contains "cq -o wide: BestEffortFIFO" "BestEffortFIFO" "$out"
contains "cq -o wide: ADMITTED WORKLOADS column" "ADMITTED WORKLOADS" "$out"
out=$(k -n team-a get localqueue 2>&1)
contains "localqueue table shows its cluster queue" "cluster-queue" "$out"

pending=$(k -n team-a get workloads -o jsonpath='{range .items[?(@.status.admission)]}{""}{end}{range .items[*]}{.metadata.name}{" "}{.status.admission.clusterQueue}{"\n"}{end}' | awk 'NF==1{print $1}' | head -1)
[[ -n "$pending" ]] && ok "found the pending workload ($pending)" || bad "found the pending workload" "$(k -n team-a get workloads -o yaml)"
out=$(k -n team-a describe workload "$pending" 2>&1)
contains "describe shows why it waits" "insufficient unused quota for nvidia.com/gpu in flavor default-flavor" "$out"
out=$(k -n team-a get workloads -o yaml 2>&1)
contains "-o yaml shows the admission" "podSetAssignments" "$out"
contains "-o yaml shows QuotaReserved" "QuotaReserved" "$out"
admitted_wl=$(k -n team-a get workloads -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.admission.clusterQueue}{"\n"}{end}' | awk 'NF==2{print $1}' | head -1)
out=$(k -n team-a describe workload "$admitted_wl" 2>&1)
contains "describe tells the story (QuotaReserved event)" "Quota reserved in ClusterQueue cluster-queue" "$out"
out=$(k -n team-a get jobs -o jsonpath='{range .items[*]}{.spec.suspend}{"\n"}{end}' 2>&1)
[[ $(grep -c false <<<"$out") == 3 && $(grep -c true <<<"$out") == 1 ]] \
  && ok "admitted jobs are unsuspended, the waiting one stays suspended" \
  || bad "admitted jobs are unsuspended, the waiting one stays suspended" "$out"

# Watch sees the pending workload admitted when an admitted job is deleted.
k -n team-a get workloads -w >"$TMP/watch.out" 2>&1 &
WPID=$!
sleep 0.5
owner=$(k -n team-a get workload "$admitted_wl" -o jsonpath='{.metadata.ownerReferences[0].name}')
check "delete an admitted job" k -n team-a delete job "$owner"
wait_for "cluster-queue" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-a get workload $pending -o jsonpath='{.status.admission.clusterQueue}'" \
  && ok "freed quota admits the waiting workload" || bad "freed quota admits the waiting workload" "$(k -n team-a get workloads 2>&1)"
sleep 0.5
kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
if grep "$pending" "$TMP/watch.out" | grep -q "True"; then ok "get -w saw the admission as it happened"; else bad "get -w saw the admission as it happened" "$(cat "$TMP/watch.out")"; fi

# Editing the quota re-evaluates waiting workloads at once.
for i in 1 2; do k create -f "$M/gke-tutorial/job-team-b.yaml" >/dev/null 2>&1; done
wait_for "2" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-b get workloads --no-headers | wc -l" || true
nb=$(k -n team-b get workloads --no-headers 2>/dev/null | grep -c True)
check "raise the GPU quota" k patch clusterqueue cluster-queue --type=json \
  -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/2/nominalQuota","value":"20"}]'
wait_for "2" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-b get workloads --no-headers | grep -c True" \
  && ok "quota edit admits waiting workloads (was $nb admitted)" || bad "quota edit admits waiting workloads" "$(k -n team-b get workloads 2>&1)"

# --- Bad input gets kube-apiserver's answers and changes nothing ---
cat >"$TMP/bad-cq.yaml" <<'Y'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: bad-cq
spec:
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: -5
Y
out=$(k apply -f "$TMP/bad-cq.yaml" 2>&1)
contains "negative quota is rejected with the field path" "nominalQuota" "$out"
out=$(k get clusterqueue bad-cq 2>&1)
contains "rejected object was not stored" "NotFound" "$out"
out=$(k create namespace Bad_Name 2>&1)
contains "non-DNS name is rejected" "Invalid value" "$out"
out=$(k get --raw /apis/kueue.x-k8s.io/v1beta1/nosuchthings 2>&1)
contains "unknown resource is NotFound" "NotFound" "$out"

# --- Two teams, priorities and preemption (shared/seeds/001) ---
check "apply two-team queues" k apply -f "$M/two-teams/queues.yaml"
check "create team-b dev job" k apply -f "$M/two-teams/job-team-b-dev.yaml"
wait_for "team-b-cq" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-b get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name==\"dev-job\")].status.admission.clusterQueue}'" \
  && ok "dev job admitted, borrowing the shared CPU" || bad "dev job admitted" "$(k -n team-b get workloads -o wide 2>&1)"
check "create team-a prod job" k apply -f "$M/two-teams/job-team-a-prod.yaml"
wait_for "team-a-cq" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-a get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name==\"prod-job\")].status.admission.clusterQueue}'" \
  && ok "prod job admitted after preempting dev" || bad "prod job admitted after preempting dev" "$(k -n team-a get workloads 2>&1; k -n team-b get workloads -o yaml 2>&1 | tail -40)"
devwl=$(k -n team-b get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="dev-job")].metadata.name}')
out=$(k -n team-b describe workload "$devwl" 2>&1)
contains "dev workload shows it was preempted" "Preempted" "$out"
out=$(k -n team-b get job dev-job -o jsonpath='{.spec.suspend}')
contains "preempted job is suspended again" "true" "$out"
out=$(k -n team-a get job prod-job -o jsonpath='{.spec.template.spec.nodeSelector}')
contains "prod job got the GPU flavor's node labels" "nvidia.com/gpu.present" "$out"

# --- Crash and restart: nothing acknowledged is lost, scheduling resumes ---
before=$(k get workloads -A --no-headers 2>/dev/null | wc -l)
kill -9 "$PID"; wait "$PID" 2>/dev/null; PID=
start_kuotad
after=$(k get workloads -A --no-headers 2>/dev/null | wc -l)
[[ "$before" == "$after" && "$after" -gt 0 ]] && ok "restart after kill -9 keeps all $after workloads" \
  || bad "restart keeps workloads" "before=$before after=$after"
out=$(k -n team-a get job prod-job -o jsonpath='{.spec.suspend}')
contains "admitted job still running after restart" "false" "$out"
check "delete prod job after restart" k -n team-a delete job prod-job
wait_for "team-b-cq" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n team-b get workload $devwl -o jsonpath='{.status.admission.clusterQueue}'" \
  && ok "scheduling resumes after restart: dev job readmitted" || bad "scheduling resumes after restart" "$(k -n team-b get workloads -o yaml 2>&1 | tail -30)"

# --- Kueue's default LocalQueue: a job without a queue name, in a namespace
# with a LocalQueue named "default", is labelled for it at creation ---
k create namespace defaulted >/dev/null
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: default-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: defaulted}
spec: {clusterQueue: default-cq}
EOF
unlabelled_job() {  # unlabelled_job NS NAME: a Job naming no queue
  k apply -f - >/dev/null <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: $2, namespace: $1}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 1}}}]
EOF
}
unlabelled_job defaulted unlabelled
out=$(k -n defaulted get job unlabelled -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/queue-name}')
contains "a job created without a queue name gets queue-name: default" "default" "$out"
wait_for "default-cq" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n defaulted get workloads -o jsonpath='{.items[*].status.admission.clusterQueue}'" \
  && ok "... and is admitted through the default LocalQueue" || bad "the defaulted job is admitted" "$(k -n defaulted get workloads 2>&1)"
unlabelled_job team-b elsewhere
out=$(k -n team-b get job elsewhere -o jsonpath='{.metadata.labels}|{.spec.suspend}')
[[ "$out" == "|" || "$out" == "|false" ]] && ok "without a LocalQueue named default: no label, not suspended" \
  || bad "without a LocalQueue named default: no label, not suspended" "$out"

# --- Kueue's max-exec-time-seconds: the job's Workload gets the limit and is
# deactivated (evicted, the job suspended again) once admitted that long ---
k apply -f - >/dev/null <<'EOF'
apiVersion: batch/v1
kind: Job
metadata:
  name: limited
  namespace: defaulted
  labels: {kueue.x-k8s.io/queue-name: default, kueue.x-k8s.io/max-exec-time-seconds: "2"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["sleep", "1000"], resources: {requests: {cpu: 1}}}]
EOF
limited_wl() { k -n defaulted get workloads -o name | sed 's|.*/||' | grep '^job-limited-'; }
wait_for "job-limited-" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n defaulted get workloads -o name"
contains "the label becomes spec.maximumExecutionTimeSeconds" "2" \
  "$(k -n defaulted get workload "$(limited_wl)" -o jsonpath='{.spec.maximumExecutionTimeSeconds}')"
wait_for "false Deactivated" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n defaulted get workload $(limited_wl) -o jsonpath='{.spec.active} {.status.conditions[?(@.type==\"Evicted\")].reason}'" \
  && ok "after 2 s admitted it is deactivated and evicted" \
  || bad "after 2 s admitted it is deactivated and evicted" "$(k -n defaulted get workload "$(limited_wl)" -o yaml 2>&1 | tail -30)"
wait_for "true" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n defaulted get job limited -o jsonpath='{.spec.suspend}'" \
  && ok "... and its job is suspended again" || bad "its job is suspended again" "$(k -n defaulted get job limited -o yaml 2>&1 | tail -20)"
contains "an event says so, in Kueue's words" "The maximum execution time (2s) exceeded" \
  "$(k -n defaulted get events --field-selector reason=MaximumExecutionTimeExceeded -o jsonpath='{.items[*].message}')"

# --- A workload the scheduler deactivates (a Rejected admission check) has
# spec.active: false written, as Kueue's workload controller writes it, so a
# restart keeps it inactive ---
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: manual}
spec: {controllerName: example.com/manual}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: checked-cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy: {admissionChecks: [{name: manual}]}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 1}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: checked, namespace: defaulted}
spec: {clusterQueue: checked-cq}
EOF
k apply -f - >/dev/null <<'EOF'
apiVersion: batch/v1
kind: Job
metadata: {name: checked, namespace: defaulted, labels: {kueue.x-k8s.io/queue-name: checked}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 1}}}]
EOF
checked_wl() { k -n defaulted get workloads -o name | sed 's|.*/||' | grep '^job-checked-'; }
wait_for "UnsatisfiedChecks" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n defaulted get workloads -o jsonpath='{.items[*].status.conditions[?(@.type==\"Admitted\")].reason}'" \
  && ok "the checked job reserves quota and waits for its check" || bad "the checked job waits for its check" "$(k -n defaulted get workloads -o yaml 2>&1 | tail -30)"
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
out=$(k -n defaulted patch workload "$(checked_wl)" --subresource=status --type=merge \
  -p "{\"status\":{\"admissionChecks\":[{\"name\":\"manual\",\"state\":\"Rejected\",\"message\":\"denied\",\"lastTransitionTime\":\"$now\"}]}}" 2>&1)
contains "the check controller rejects it" "patched" "$out"
wait_for "false" bash -c "kubectl --kubeconfig $TMP/kubeconfig -n defaulted get workload $(checked_wl) -o jsonpath='{.spec.active}'" \
  && ok "a Rejected check writes spec.active: false" || bad "a Rejected check writes spec.active: false" "$(k -n defaulted get workload "$(checked_wl)" -o yaml 2>&1 | tail -30)"
kill -9 "$PID"; wait "$PID" 2>/dev/null; PID=
start_kuotad
sleep 2
out=$(k -n defaulted get workload "$(checked_wl)" -o jsonpath='{.spec.active} {.status.conditions[?(@.type=="QuotaReserved")].status}')
contains "after a restart it is still inactive and holds no quota" "false False" "$out"

# --- Kuota's minimum runtime annotations are checked at admission ---
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: protected-cq
  annotations: {kuota.dev/minimum-runtime: ten minutes}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 1}]}]
EOF
)
contains "a malformed kuota.dev/minimum-runtime is refused naming it" \
  'metadata.annotations[kuota.dev/minimum-runtime]: Invalid value: "ten minutes": must be a non-negative duration' "$out"

# --- Cleanup as the tutorial does ---
check "delete local queues" k delete -n team-a localqueue lq-team-a
check "delete cluster queue" k delete clusterqueue cluster-queue
out=$(k get clusterqueues 2>&1)
if grep -q "^cluster-queue " <<<"$out"; then bad "cluster queue gone" "$out"; else ok "cluster queue gone"; fi

echo "$PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
