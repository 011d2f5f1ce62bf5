#!/usr/bin/env bash
# Kuota's Kubernetes mode (kuotad --kubeconfig), end to end. No kube-apiserver
# can be installed here, so the cluster is kuotad itself in --serve-only mode
# (stores and serves objects like an API server: no engine, no job
# controllers, no pods, no webhooks), with Kuota's CRDs from deploy/crds
# applied by the real `kubectl apply --server-side`. Against it:
#   * two drivers at once: exactly one leads (its Lease), the other waits;
#   * seed 003 (GKE tutorial): Jobs created suspended, Workloads created and
#     owned by the driver (ownerReference, finalizer), admitted Jobs
#     unsuspended with the flavor's node labels, the rest kept suspended;
#     a Job finished (its status written as the Job controller would) frees
#     its quota for the next; a deleted Job's Workload goes (finalizer off);
#   * the leader killed (SIGKILL) mid-run: the standby takes over, nothing is
#     admitted twice, quota is never over-committed (sampled all along);
#   * seed 004 (cohort, reclaimWithinCohort): the borrowing Job is preempted
#     and suspended again, the reclaiming one admitted.
# Usage: kube_mode_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"
need kubectl
scratch kuota-kube-mode
DRIVERS=()
SAMPLER=
cleanup_more() {
  local p
  [[ -z "$SAMPLER" ]] || { kill "$SAMPLER"; wait "$SAMPLER"; }
  for p in "${DRIVERS[@]}"; do kill -9 "$p"; wait "$p"; done
}

# start_driver NAME PORT: a driver (kuotad --kubeconfig) logging to
# $TMP/NAME.log, its webhooks on PORT; sets DPID.
start_driver() {
  "$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --webhook-port "$2" --lease-duration 4 \
    --leader-election-namespace kuota-system >>"$TMP/$1.log" 2>&1 &
  DPID=$!
  DRIVERS+=("$DPID")
}
# metric NAME LOG: the driver's /metrics value of NAME.
metric() {
  local port
  port=$(grep -o 'http://127.0.0.1:[0-9]*/healthz' "$2" | tail -1 | sed 's/.*:\([0-9]*\)\/.*/\1/')
  curl -s "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m {print $2}'
}
holder() { k get lease -n kuota-system kuota-controller-leader -o jsonpath='{.spec.holderIdentity}'; }
identity() { sed -n 's/^kuotad: leader election: \([^ ]*\) .*/\1/p' "$1" | head -1; }

# --- the stand-in cluster and the CRDs ---------------------------------------
start_kuotad --serve-only
out=$(k apply --server-side -f "$CRDS" 2>&1)
for kind in resourceflavors clusterqueues cohorts localqueues workloads workloadpriorityclasses \
  admissionchecks; do
  contains "kubectl apply --server-side -f deploy/crds: $kind" \
    "customresourcedefinition.apiextensions.k8s.io/$kind.kueue.x-k8s.io serverside-applied" "$out"
done
expect_eq "kubectl get crd lists the 11 Kueue CRDs" 11 "$(k get crd --no-headers | grep -c kueue.x-k8s.io)"
for ns in kuota-system team-a team-b; do k create namespace "$ns" >/dev/null; done
# Both drivers serve the webhooks; the Service's Endpoints lead to A's for now.
PA=$(free_port)
PB=$(free_port)
webhook_endpoints "$PA"

# --- two drivers: exactly one leads ------------------------------------------
start_driver driver-a "$PA"
A=$DPID
eventually "driver A starts and leads" 20 "engine running on the cluster" cat "$TMP/driver-a.log"
start_driver driver-b "$PB"
B=$DPID
eventually "driver B waits" 10 "waits for lease" cat "$TMP/driver-b.log"
sleep 3  # several retry periods: B must still be waiting
expect_eq "the Lease names driver A" "$(identity "$TMP/driver-a.log")" "$(holder)"
expect_eq "driver B does not lead while A renews" 0 "$(grep -c ' leads ' "$TMP/driver-b.log")"
expect_eq "kuota_leader: A 1, B 0" "1 0" "$(metric kuota_leader "$TMP/driver-a.log") $(metric kuota_leader "$TMP/driver-b.log")"

# --- seed 003: queued Jobs, Workloads, admission with node labels ------------
G=$M/gke-tutorial
k apply -f "$M/kube/003-flavor-t4.yaml" -f "$G/cluster-queue.yaml" -f "$G/local-queue.yaml" >/dev/null ||
  bad "seed 003 queues apply"
for _ in 1 2 3 4; do k create -f "$G/job-team-a.yaml" >/dev/null; done
# 3 GPUs a Job against a quota of 10: three admitted, the fourth waits.
eventually "three of the four Workloads admitted" 20 "3" bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -n team-a --no-headers | grep -c ' True '"
# A Job is unsuspended after its Workload's admission is written (a write of
# its own, as Kueue's job reconciler does), so wait for it too.
job_states() {
  jobs=$(k get jobs -n team-a -o jsonpath='{range .items[*]}{.metadata.name} {.spec.suspend} {.spec.template.spec.nodeSelector.cloud\.google\.com/gke-accelerator}{"\n"}{end}')
  echo "$(grep -c ' false ' <<<"$jobs") $(grep -c ' true' <<<"$jobs")"
}
eventually "003: three Jobs unsuspended, one still suspended" 20 "3 1" job_states
job_states >/dev/null
expect_eq "003: the admitted Jobs carry the flavor's node label" 3 "$(grep -c ' false nvidia-tesla-t4' <<<"$jobs")"
wl=$(k get workloads -n team-a -o json)
expect_eq "003: each Workload is owned by its Job (controller ownerReference)" "4" \
  "$(python3 -c 'import json,sys; print(sum(1 for w in json.load(sys.stdin)["items"] for r in w["metadata"].get("ownerReferences",[]) if r.get("kind")=="Job" and r.get("controller")))' <<<"$wl")"
expect_eq "003: each Workload has Kueue's resource-in-use finalizer" "4" \
  "$(grep -o '"kueue.x-k8s.io/resource-in-use"' <<<"$wl" | wc -l)"
contains "003: the waiting Workload says why" "insufficient unused quota for nvidia.com/gpu" \
  "$(k get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[0].message}{"\n"}{end}')"
contains "003: kubectl get cq shows the pending one" "cluster-queue" "$(k get cq)"

# Finish one admitted Job as the Job controller would: its quota goes to the fourth.
first=$(awk '$2 == "false" {print $1; exit}' <<<"$jobs")
k patch job -n team-a "$first" --subresource=status --type=merge \
  -p '{"status":{"succeeded":3,"conditions":[{"type":"Complete","status":"True"}]}}' >/dev/null ||
  bad "patch the Job's status Complete"
eventually "003: the finished Job's quota admits the fourth" 20 "4" bash -c "kubectl --kubeconfig $TMP/kubeconfig get jobs -n team-a -o jsonpath='{range .items[*]}{.spec.suspend}{\"\\n\"}{end}' | grep -c false"
contains "003: the finished Job's Workload is Finished" "True" \
  "$(k get workloads -n team-a -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$first\")].status.conditions[?(@.type==\"Finished\")].status}")"

# A deleted Job's Workload goes too (the driver takes its finalizer off).
k delete job -n team-a "$first" >/dev/null
eventually "003: the deleted Job's Workload is deleted" 20 "3" bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -n team-a --no-headers | wc -l"

# --- the leader killed mid-run ----------------------------------------------
# Sample quota use all along: GPUs reserved in cluster-queue must never pass 10.
cat >"$TMP/sample.py" <<'EOF'
import json, subprocess, sys, time
kc, out = sys.argv[1], sys.argv[2]
def gpus(q):
    n = q.get("nvidia.com/gpu", "0")
    return int(n)
while True:
    try:
        r = subprocess.run(["kubectl", "--kubeconfig", kc, "get", "workloads", "-A", "-o", "json"],
                           capture_output=True, text=True, timeout=10)
        items = json.loads(r.stdout)["items"]
    except Exception:
        time.sleep(0.2); continue
    used = 0
    for w in items:
        conds = {c["type"]: c["status"] for c in w.get("status", {}).get("conditions", [])}
        adm = w.get("status", {}).get("admission")
        if conds.get("QuotaReserved") == "True" and conds.get("Finished") != "True" and adm \
                and adm.get("clusterQueue") == "cluster-queue":
            for ps in adm.get("podSetAssignments", []):
                used += gpus(ps.get("resourceUsage", {}))
    with open(out, "a") as f:
        f.write(f"{used}\n")
    time.sleep(0.2)
EOF
python3 "$TMP/sample.py" "$TMP/kubeconfig" "$TMP/samples" &
SAMPLER=$!
for _ in 1 2 3 4; do k create -f "$G/job-team-a.yaml" >/dev/null; done
sleep 0.5
{ kill -9 "$A"; wait "$A"; } 2>/dev/null
webhook_endpoints "$PB"  # as the endpoints controller drops a dead pod
# More work while nobody leads; then B takes over after the Lease expires.
for _ in 1 2; do k create -f "$G/job-team-b.yaml" >/dev/null; done
eventually "driver B takes over after A is killed" 20 "engine running on the cluster" cat "$TMP/driver-b.log"
expect_eq "the Lease names driver B" "$(identity "$TMP/driver-b.log")" "$(holder)"
start_driver driver-a2 "$PA"
eventually "a restarted A waits as standby" 10 "waits for lease" cat "$TMP/driver-a2.log"
# Finish every admitted Job, round after round, until all have run.
for _ in $(seq 1 12); do
  for j in $(k get jobs -A -o jsonpath='{range .items[?(@.spec.suspend==false)]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}'); do
    k patch job -n "${j%%/*}" "${j##*/}" --subresource=status --type=merge \
      -p '{"status":{"succeeded":3,"conditions":[{"type":"Complete","status":"True"}]}}' >/dev/null 2>&1
  done
  left=$(k get workloads -A -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' | grep -vc True)
  [[ "$left" == 0 ]] && break
  sleep 1
done
expect_eq "every Job admitted and finished across the takeover" 0 "$left"
kill "$SAMPLER" 2>/dev/null
wait "$SAMPLER" 2>/dev/null
SAMPLER=
max=$(sort -n "$TMP/samples" | tail -1)
n=$(wc -l <"$TMP/samples")
if [[ "$n" -gt 5 && "$max" -le 10 ]]; then
  ok "quota never over-committed: at most $max of 10 GPUs reserved ($n samples)"
else
  bad "quota never over-committed" "max $max of 10 over $n samples"
fi
# Nothing admitted twice: one Admitted event per Workload, never more.
twice=$(k get events -A -o jsonpath='{range .items[?(@.reason=="Admitted")]}{.involvedObject.namespace}/{.involvedObject.name}{"\n"}{end}' | sort | uniq -d)
admitted=$(k get events -A -o jsonpath='{range .items[?(@.reason=="Admitted")]}{.involvedObject.name}{"\n"}{end}' | sort -u | wc -l)
expect_eq "no Workload admitted twice ($admitted admitted)" "" "$twice"
[[ "$admitted" -ge 9 ]] && ok "the Admitted events cover every Workload ($admitted)" ||
  bad "the Admitted events cover every Workload" "$admitted"

# --- seed 004: reclaim within the cohort -------------------------------------
k apply -f "$M/kube/004-queues.yaml" >/dev/null || bad "seed 004 queues apply"
k apply -f <(sed -n '1,/^---$/p' "$M/kube/004-jobs.yaml" | sed '$d') >/dev/null
eventually "004: job-1 admitted by borrowing" 20 "false" k get job -n team-b job-1 -o jsonpath='{.spec.suspend}'
contains "004: job-1 borrows (admitted in cohort-queue on cohort-flavor)" "cohort-flavor" \
  "$(k get workloads -n team-b -o jsonpath='{.items[0].status.admission.podSetAssignments[0].flavors}')"
contains "004: job-1's pods get the flavor's node label" "on-demand" \
  "$(k get job -n team-b job-1 -o jsonpath='{.spec.template.spec.nodeSelector}')"
k apply -f "$M/kube/004-jobs.yaml" >/dev/null
eventually "004: job-2 admitted by reclaiming" 20 "false" k get job -n team-a job-2 -o jsonpath='{.spec.suspend}'
expect_eq "004: the borrowing job-1 is suspended again" "true" \
  "$(k get job -n team-b job-1 -o jsonpath='{.spec.suspend}')"
contains "004: job-1's Workload was preempted to reclaim quota" "InCohortReclamation" \
  "$(k get workloads -n team-b -o jsonpath='{.items[0].status.conditions}')"

# No webhook here: a queued Job created running is suspended by the driver
# (reclaim-queue's quota is job-2's now).
sed -e 's/name: job-2/name: job-3/' -e '/suspend: true/d' "$M/kube/004-jobs.yaml" |
  awk '/^---$/{p=1; next} p' | k apply -f - >/dev/null
eventually "a queued Job created unsuspended is suspended by the driver" 20 "true" \
  k get job -n team-a job-3 -o jsonpath='{.spec.suspend}'

for p in "${DRIVERS[@]}"; do kill "$p" 2>/dev/null; done
echo "kube mode: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
