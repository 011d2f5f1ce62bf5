#!/usr/bin/env bash
# v1beta2 storage: a data directory written by the kuotad that stored Kueue's
# kinds as v1beta1 (tests/testdata/v1beta1_store, made by its make.sh) opens
# with this kuotad and is migrated in place. A first start is killed (SIGKILL,
# the after-upgrade-batch fault point) with part of the store rewritten; the
# next start finishes the upgrade; every object is there with its uid and
# resourceVersion, now stored as kueue.x-k8s.io/v1beta2, decided as before,
# read in both versions through the real kubectl; discovery prefers v1beta2;
# the controller goes on working on the migrated store; a third start does
# not upgrade again. Usage: storage_migration_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
FIXTURE=$HERE/../testdata/v1beta1_store/kuota.db
source "$HERE/lib.sh"
need kubectl sqlite3
scratch kuota-storage-migration
mkdir -p "$TMP/data"
cp "$FIXTURE" "$TMP/data/kuota.db"
chmod 600 "$TMP/data/kuota.db"
DB=$TMP/data/kuota.db

rows() {  # rows SQL: the query's rows, one per line
  sqlite3 -readonly "$DB" "$1"
}
# Every object: resource, namespace/name, uid, resourceVersion (not the JSON).
identity() { rows "SELECT resource, namespace || '/' || name, uid, rv FROM objects ORDER BY id"; }
kueue_versions() {
  rows "SELECT json_extract(json, '\$.apiVersion'), count(*) FROM objects
        WHERE resource LIKE '%.kueue.x-k8s.io' GROUP BY 1 ORDER BY 1"
}
BEFORE=$(identity)
expect_eq "the fixture holds Kueue's kinds as v1beta1 only" "kueue.x-k8s.io/v1beta1|17" "$(kueue_versions)"

# --- killed mid-upgrade ---------------------------------------------------------
KUOTA_FAULT_POINT=after-upgrade-batch "$KUOTAD" --data-dir "$TMP/data" --port 0 \
  --kubeconfig-out "$TMP/kubeconfig" --no-run-pods >"$TMP/killed.log" 2>&1
rc=$?
expect_eq "kuotad armed at after-upgrade-batch is killed (SIGKILL)" "137" "$rc"
contains "it died after a batch of the upgrade" "fault point after-upgrade-batch reached" "$(cat "$TMP/killed.log")"
partial=$(kueue_versions)
contains "the kill left part of the store rewritten as v1beta2" "kueue.x-k8s.io/v1beta2|" "$partial"
contains "... and part still v1beta1" "kueue.x-k8s.io/v1beta1|" "$partial"
expect_eq "nothing was lost or renumbered by the kill" "$BEFORE" "$(identity)"

# --- the next start finishes ----------------------------------------------------
start_kuotad --no-run-pods
contains "the restart finishes the upgrade" "store upgrade:" "$(cat "$TMP/kuotad.log")"
expect_eq "every Kueue object is stored as v1beta2" "kueue.x-k8s.io/v1beta2|17" "$(kueue_versions)"
after=$(identity)
# The controller may have written statuses since it started (new
# resourceVersions); the objects and their uids are all there.
expect_eq "every object is still there, with its uid" \
  "$(cut -d'|' -f1-3 <<<"$BEFORE")" "$(cut -d'|' -f1-3 <<<"$after" | head -n "$(wc -l <<<"$BEFORE")")"
out=$(k get --raw /apis/kueue.x-k8s.io)
contains "discovery prefers v1beta2" '"preferredVersion":{"groupVersion":"kueue.x-k8s.io/v1beta2","version":"v1beta2"}' "$out"

out=$(k get clusterqueue team-a-cq -o jsonpath='{.apiVersion} {.spec.cohortName} {.spec.flavorFungibility.whenCanBorrow}')
expect_eq "a ClusterQueue reads as v1beta2 (cohortName; Borrow is MayStopSearch)" \
  "kueue.x-k8s.io/v1beta2 org MayStopSearch" "$out"
out=$(k get clusterqueues.v1beta1.kueue.x-k8s.io team-a-cq -o jsonpath='{.apiVersion} {.spec.cohort}')
expect_eq "... and as v1beta1 (cohort)" "kueue.x-k8s.io/v1beta1 org" "$out"
out=$(k get clusterqueue team-b-cq -o jsonpath='{.spec.admissionChecksStrategy.admissionChecks[0].name}')
expect_eq "v1beta1 admissionChecks became admissionChecksStrategy" "manual-check" "$out"
out=$(k get cohort org -o jsonpath='{.spec.parentName}')
expect_eq "a Cohort keeps its parent" "root" "$out"

wl() { k get workloads -n "$1" -o name | grep "job-$2-" | head -1; }
out=$(k get -n team-a "$(wl team-a running-high)" -o jsonpath='{.spec.priorityClassRef.group}/{.spec.priorityClassRef.kind}/{.spec.priorityClassRef.name}')
expect_eq "priorityClassName + priorityClassSource became priorityClassRef" \
  "kueue.x-k8s.io/WorkloadPriorityClass/high" "$out"
out=$(k get -n team-a "workloads.v1beta1.kueue.x-k8s.io/$(wl team-a running-high | cut -d/ -f2)" -o jsonpath='{.spec.priorityClassName} {.spec.priorityClassSource}')
expect_eq "... read back as v1beta1" "high kueue.x-k8s.io/workloadpriorityclass" "$out"
placed=$(wl team-a placed | cut -d/ -f2)
out=$(k get -n team-a workload "$placed" -o jsonpath='{.status.admission.podSetAssignments[0].topologyAssignment.slices[0].domainCount}')
expect_eq "a topologyAssignment is stored as v1beta2's slices" "1" "$out"
out=$(k get -n team-a "workloads.v1beta1.kueue.x-k8s.io/$placed" -o jsonpath='{.status.admission.podSetAssignments[0].topologyAssignment.domains[0].values[0]}={.status.admission.podSetAssignments[0].topologyAssignment.domains[0].count}')
expect_eq "... and reads back as v1beta1's domains" "node-1=2" "$out"
decided() {
  k get workloads -A -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}={.status.conditions[?(@.type=="QuotaReserved")].status} {end}'
}
expect_eq "each workload is decided as before the upgrade" \
  "placed=True running-high=True waiting=True checked=False " "$(decided)"

# The controller works on the migrated store: the waiting job's quota freed
# lets a new one in.
k delete job -n team-a waiting --wait=false >/dev/null
job_yaml team-a after queue=team-a-lq cmd="true" requests="cpu: 2" | k apply -f - >/dev/null
eventually "a job submitted after the upgrade is admitted" 20 "after=True" decided
stop_kuotad

# --- a third start does not upgrade again -----------------------------------------
: >"$TMP/kuotad.log"
start_kuotad --no-run-pods
out=$(cat "$TMP/kuotad.log")
if grep -q "store upgrade" <<<"$out"; then bad "an upgraded store is not upgraded again" "$out"; else ok "an upgraded store is not upgraded again"; fi
stop_kuotad

echo "storage migration: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
