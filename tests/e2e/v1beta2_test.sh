#!/usr/bin/env bash
# kueue.x-k8s.io/v1beta2 beside v1beta1, with the real kubectl: v1beta2 copies
# of the e2e manifests (README's two-teams and GKE tutorial queues, the seeds'
# queues; ClusterQueue spec.cohort -> spec.cohortName) apply on one kuotad,
# the v1beta1 originals on another, the same Jobs go to both, and every
# Workload is decided the same (admitted / pending per job). One stored object
# answers each client in its version: get clusterqueues.v1beta2 shows
# cohortName, v1beta1 shows cohort. Usage: v1beta2_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"
need kubectl
scratch kuota-v1beta2   # ROOT: one TMP per kuotad

# The v1beta2 copy of a manifest, as Kueue's conversion makes it (the same
# converter the seeds' v1beta2 walkthroughs use).
to_v1beta2() {
  python3 "$HERE/v1beta2_convert.py" "$1"
}

QUEUES=("$M/two-teams/queues.yaml" "$M/gke-tutorial/flavors.yaml"
        "$M/gke-tutorial/cluster-queue.yaml" "$M/gke-tutorial/local-queue.yaml")
JOBS=("$M/two-teams/job-team-b-dev.yaml" "$M/two-teams/job-team-a-prod.yaml"
      "$M/gke-tutorial/job-team-a.yaml" "$M/gke-tutorial/job-team-b.yaml"
      "$M/gke-tutorial/job-team-a.yaml")

# decisions: one line per Workload: namespace, queue, job (generateName's
# prefix for generated names), QuotaReserved, sorted.
decisions() {
  k get workloads -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.spec.queueName} {.metadata.ownerReferences[0].name} {.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}' |
    sed -E 's/(sample-job-team-[ab]-)[a-z0-9]+/\1*/' | sort
}

run_set() {  # run_set NAME v1beta1|v1beta2
  TMP=$ROOT/$1
  start_kuotad --no-run-pods
  PIDS+=("$PID")
  for ns in team-a team-b; do k create namespace "$ns" >/dev/null; done
  for f in "${QUEUES[@]}"; do
    if [[ $2 == v1beta2 ]]; then
      out=$(to_v1beta2 "$f" | k apply -f - 2>&1) || bad "$2: apply $(basename "$f")" "$out"
      if grep -q v1beta1 <(to_v1beta2 "$f"); then bad "$2: the copy of $f still says v1beta1"; fi
    else
      out=$(k apply -f "$f" 2>&1) || bad "$2: apply $(basename "$f")" "$out"
    fi
  done
  for f in "${JOBS[@]}"; do
    if grep -q generateName "$f"; then k create -f "$f" >/dev/null; else k apply -f "$f" >/dev/null; fi
    sleep 1
  done
  wait_for 20 "True" bash -c "kubectl --kubeconfig $TMP/kubeconfig get workloads -A -o jsonpath='{.items[*].status.conditions[*].status}'"
  sleep 2
}

echo "== v1beta1 originals"
run_set v1 v1beta1
V1=$(decisions)
V1_KUBECONFIG=$TMP/kubeconfig
echo "$V1"
echo "== v1beta2 copies"
run_set v2 v1beta2
V2=$(decisions)
echo "$V2"
expect_eq "every Workload is decided the same from the v1beta2 copies" "$V1" "$V2"
n=$(grep -c " True$" <<<"$V2")
[[ $n -ge 2 ]] && ok "some Workloads were admitted ($n)" || bad "too few admitted: $n" "$V2"

# One stored object, each client in its version.
y2=$(k get clusterqueues.v1beta2.kueue.x-k8s.io team-a-cq -o yaml)
contains "v1beta2 get shows apiVersion v1beta2" "apiVersion: kueue.x-k8s.io/v1beta2" "$y2"
contains "v1beta2 get shows cohortName" "cohortName: team-ab" "$y2"
y1=$(k get clusterqueues.v1beta1.kueue.x-k8s.io team-a-cq -o yaml)
contains "v1beta1 get of the same object shows cohort" "  cohort: team-ab" "$y1"
s1=$(k get clusterqueues.v1beta1.kueue.x-k8s.io team-a-cq -o jsonpath='{.spec.cohort}/{.spec.cohortName}')
expect_eq "v1beta1 spec has cohort, no cohortName" "team-ab/" "$s1"
# The v1beta1-applied objects are served in v1beta2 too.
y=$(KUBECONFIG= kubectl --kubeconfig "$V1_KUBECONFIG" get clusterqueues.v1beta2.kueue.x-k8s.io team-b-cq -o jsonpath='{.spec.cohortName}')
expect_eq "a v1beta1-applied ClusterQueue read as v1beta2" "team-ab" "$y"
# Tables (kubectl's default output) for both versions.
t=$(k get clusterqueues.v1beta2.kueue.x-k8s.io)
contains "v1beta2 table lists the cohort" "team-ab" "$t"
t=$(k get workloads.v1beta2.kueue.x-k8s.io -A)
contains "v1beta2 workloads table" "team-a" "$t"
# Watch in v1beta2.
w=$(k get --raw '/apis/kueue.x-k8s.io/v1beta2/clusterqueues?watch=1&timeoutSeconds=1' 2>/dev/null)
contains "watch in v1beta2 serves each object as v1beta2" '"cohortName":"team-ab"' "$w"
contains "watch in v1beta2 names v1beta2" '"apiVersion":"kueue.x-k8s.io/v1beta2"' "$w"
# A v1beta2 Workload with priorityClassRef (stored as sent) reads back in v1beta1.
out=$(k apply -f "$M/v1beta2/priority-class-ref.yaml" 2>&1)
contains "a v1beta2 Workload with priorityClassRef applies" "workload.kueue.x-k8s.io/direct created" "$out"
src=$(k get workloads.v1beta1.kueue.x-k8s.io -n team-a direct -o jsonpath='{.spec.priorityClassName}/{.spec.priorityClassSource}')
expect_eq "read as v1beta1 priorityClassName/Source" "high/kueue.x-k8s.io/workloadpriorityclass" "$src"
ref=$(k get workloads.v1beta2.kueue.x-k8s.io -n team-a direct -o jsonpath='{.spec.priorityClassRef.name}')
expect_eq "read back as v1beta2 priorityClassRef" "high" "$ref"
out=$(sed 's/kind: WorkloadPriorityClass, name/kind: PriorityClass, name/; s/name: direct/name: wrong/' "$M/v1beta2/priority-class-ref.yaml" | k apply -f - 2>&1)
contains "a bad priorityClassRef is refused naming the field" "spec.priorityClassRef.kind" "$out"
# Discovery: both versions, v1beta2 preferred (Kueue v0.20 stores and serves v1beta2 first).
g=$(k get --raw /apis/kueue.x-k8s.io)
contains "discovery lists v1beta2" '"version":"v1beta2"' "$g"
contains "discovery prefers v1beta2" '"preferredVersion":{"groupVersion":"kueue.x-k8s.io/v1beta2"' "$g"
o=$(k get --raw /openapi/v3/apis/kueue.x-k8s.io/v1beta2)
contains "OpenAPI v3 for v1beta2" "io.x-k8s.kueue.v1beta2.ClusterQueue" "$o"
out=$(k explain clusterqueues.v1beta2.kueue.x-k8s.io 2>&1 | head -3)
contains "kubectl explain v1beta2" "ClusterQueue" "$out"

echo "PASS $PASS, FAIL $FAIL"
[[ $FAIL -eq 0 ]]
