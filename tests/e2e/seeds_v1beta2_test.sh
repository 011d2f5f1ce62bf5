#!/usr/bin/env bash
# kueue.x-k8s.io/v1beta2 copies of the seeds' walkthroughs and of the README's
# remaining Kueue manifests decide as their v1beta1 originals, with the real
# kubectl (issue 14). The copies are made by v1beta2_convert.py (Kueue's
# conversion, shared with tests/simulate/v1beta2_twins_test.py).
#   1. seeds_test.sh's walkthroughs of seeds 000 (PyTorchJob; the seed's
#      Configuration, its queues as written and corrected) and 001 (RayClusters,
#      prod preempts dev) with the v1beta2 copies: every check passes (the
#      v1beta2 run also checks kubectl get in v1beta2: cohortName,
#      priorityClassRef) and every Workload's state at each recorded step is
#      the same as in the v1beta1 walk, whose record (DECISIONS_V1BETA1) the
#      ctest kuotad_seeds_e2e writes (or this script makes it when not given).
#      (Seed 002's Volcano jobs use no Kueue manifest.)
#   2. Each on a kuotad of its own, v1beta1 then v1beta2 (--no-run-pods): seed
#      002's Kueue section (read out of the seed, with its Job), seed 004's
#      queues and jobs (manifests/kube/004-*, reclamation), the README demo's
#      examples/demo/teams.yaml with the demo's Jobs: the same apply output
#      (version names aside) and the same decisions.
#   3. The README's `kuota simulate -f examples/two-teams.yaml --cycles 2`:
#      the v1beta2 copy gives the same table and JSON.
# Usage: seeds_v1beta2_test.sh PATH/TO/kuotad PATH/TO/kuota [DECISIONS_V1BETA1]
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota [DECISIONS_V1BETA1]}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota [DECISIONS_V1BETA1]}
DECISIONS_V1BETA1=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
PROJECT=$(cd "$HERE/../.." && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-seeds-v1beta2   # ROOT: one TMP per kuotad

# --- 1. seeds_test.sh both ways --------------------------------------------------
APIS=(v1beta2)
if [[ -n $DECISIONS_V1BETA1 ]]; then
  if [[ ! -s $DECISIONS_V1BETA1 ]]; then
    bad "the v1beta1 walk's record $DECISIONS_V1BETA1 is missing or empty (run kuotad_seeds_e2e first)"
    DECISIONS_V1BETA1=/dev/null
  fi
  grep -E '^00[01] ' "$DECISIONS_V1BETA1" >"$ROOT/decisions-v1beta1"
else
  APIS=(v1beta1 v1beta2)
fi
for api in "${APIS[@]}"; do
  echo "== seeds_test.sh $api (seeds 000, 001)"
  SEEDS="000 001" DECISIONS=$ROOT/decisions-$api \
    bash "$HERE/seeds_test.sh" "$KUOTAD" "$api" >"$ROOT/walk-$api.log" 2>&1
  rc=$?
  sed 's/^/     /' "$ROOT/walk-$api.log"
  summary=$(tail -1 "$ROOT/walk-$api.log")
  if [[ $rc -eq 0 ]]; then ok "seeds 000 and 001 with the $api manifests: $summary"
  else bad "seeds 000 and 001 with the $api manifests: $summary"; fi
done
echo "     decisions (v1beta1):"
sed 's/^/     | /' "$ROOT/decisions-v1beta1"
expect_eq "the v1beta2 copies decide every Workload the same at every step" \
  "$(cat "$ROOT/decisions-v1beta1")" "$(cat "$ROOT/decisions-v1beta2")"
d=$(cat "$ROOT/decisions-v1beta1")
for step in "000 mnist and big submitted" "000 mnist finished" "001 dev running" \
            "001 prod preempted dev" "001 dev back"; do
  contains "a decision was recorded at '$step'" "$step: " "$d"
done
contains "000's admitted and pending PyTorchJobs were recorded" \
  "PyTorchJob/pytorch-big reserved=False" "$d"
contains "001's preemption was recorded" \
  "001 prod preempted dev: team-b RayCluster/raycluster-dev reserved=False admitted=False evicted=Preempted" "$d"

# --- 2. The other walkthrough manifests, on kuotad per version -------------------
# decisions: one line per Workload (namespace, owning Job, QuotaReserved,
# Admitted, eviction reason), generated name suffixes dropped.
decisions() {
  k get workloads -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.ownerReferences[0].name} reserved={.status.conditions[?(@.type=="QuotaReserved")].status} admitted={.status.conditions[?(@.type=="Admitted")].status} evicted={.status.conditions[?(@.type=="Evicted")].reason}{"\n"}{end}' |
    sed -E 's/(sample-job-team-[ab]-)[a-z0-9]+/\1*/' | sort
}
# kueue_apply API FILE: kubectl apply of FILE (API v1beta1) or of its v1beta2
# copy; prints kubectl's output with the version names made alike.
kueue_apply() {
  local f=$2
  if [[ $1 == v1beta2 ]]; then
    f=$TMP/$(basename "$2")
    python3 "$HERE/v1beta2_convert.py" "$2" >"$f" || { bad "$1: no v1beta2 copy of $2"; return; }
  fi
  k apply -f "$f" 2>&1 | sed 's/v1beta[12]/VERSION/g'
}
# Seed 002's Kueue section, read out of the seed (its yaml blocks with Kueue
# objects, then its batch/v1 Job).
SEED002=$(ls "$PROJECT"/../shared/seeds/002_*.txt 2>/dev/null | head -1)
mkdir -p "$ROOT/seed002"
if [[ -n "$SEED002" ]]; then
  python3 - "$SEED002" "$ROOT/seed002" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
queues = [b for b in blocks if "apiVersion: kueue.x-k8s.io/" in b]
jobs = [b for b in blocks if "apiVersion: batch/v1\n" in b and "queue-name" in b]
open(f"{sys.argv[2]}/queues.yaml", "w", encoding="utf-8").write("---\n".join(queues))
open(f"{sys.argv[2]}/job.yaml", "w", encoding="utf-8").write("---\n".join(jobs))
PY
else
  bad "002: seed 002 not found beside the project (../shared/seeds)"
fi

walk() {  # walk SET API: applies SET's manifests in API's version; leaves APPLY
  local set=$1 api=$2
  TMP=$ROOT/$set-$api
  start_kuotad --no-run-pods --gpus 4
  case $set in
    seed002)
      k create namespace ml-training >/dev/null
      APPLY=$(kueue_apply "$api" "$ROOT/seed002/queues.yaml")
      k create -f "$ROOT/seed002/job.yaml" >/dev/null || bad "$api: seed 002's Job"
      sleep 2 ;;
    seed004)
      for ns in team-a team-b; do k create namespace "$ns" >/dev/null; done
      APPLY=$(kueue_apply "$api" "$PROJECT/tests/e2e/manifests/kube/004-queues.yaml")
      # job-1 (the file's first document) borrows first, then job-2 reclaims.
      sed '/^---$/,$d' "$PROJECT/tests/e2e/manifests/kube/004-jobs.yaml" | k apply -f - >/dev/null ||
        bad "$api: seed 004's job-1"
      wait_for 20 True k get workloads -n team-b -o jsonpath='{.items[*].status.conditions[?(@.type=="Admitted")].status}'
      sed -n '/^---$/,$p' "$PROJECT/tests/e2e/manifests/kube/004-jobs.yaml" | k apply -f - >/dev/null ||
        bad "$api: seed 004's job-2"
      wait_for 20 True k get workloads -n team-a -o jsonpath='{.items[*].status.conditions[?(@.type=="Admitted")].status}'
      sleep 1 ;;
    demo)
      APPLY=$(kueue_apply "$api" "$PROJECT/examples/demo/teams.yaml")
      # The demo's Jobs: research ones fill team-b and borrow, production ones reclaim.
      local i
      # (a second apart, so that which borrower is the newest is never a tie)
      for i in 1 2 3 4; do demo_job team-b "explore-$i" research; sleep 1; done
      sleep 1
      for i in 1 2; do demo_job team-a "train-$i" production; done
      wait_for 20 True k get workloads -n team-a -o jsonpath='{.items[*].status.conditions[?(@.type=="Admitted")].status}'
      sleep 2 ;;
  esac
}
demo_job() {  # as scripts/demo.sh's job(): one 500m pod
  job_yaml "$1" "$2" queue="$1" priority="$3" backoff=0 cmd="sleep 60" requests="cpu: 500m, memory: 128Mi" |
    k create -f - >/dev/null
}

for set in seed002 seed004 demo; do
  echo "== $set"
  walk "$set" v1beta1
  A1=$APPLY; D1=$(decisions)
  stop_kuotad
  walk "$set" v1beta2
  A2=$APPLY; D2=$(decisions)
  echo "$A1" | sed 's/^/     apply: /'
  echo "$D1" | sed 's/^/     | /'
  expect_eq "$set: kubectl apply answers the v1beta2 copy as the original" "$A1" "$A2"
  expect_eq "$set: every Workload is decided the same from the v1beta2 copy" "$D1" "$D2"
  [[ -n "$D1" ]] && ok "$set: there were Workloads to decide" || bad "$set: no Workloads"
  case $set in
    seed004)
      contains "seed004: job-1 was preempted by reclamation" "team-b job-1 reserved=False admitted=False evicted=Preempted" "$D2"
      contains "seed004: job-2 was admitted" "team-a job-2 reserved=True admitted=True" "$D2"
      expect_eq "seed004: kubectl get clusterqueues.v1beta2 shows cohortName" "same-keyword same-keyword" \
        "$(k get clusterqueues.v1beta2.kueue.x-k8s.io -o jsonpath='{.items[*].spec.cohortName}')" ;;
    demo)
      n=$(grep -c "reserved=True" <<<"$D2")
      expect_eq "demo: 4 CPUs' worth of 500m Jobs hold quota" 4 "$n"
      contains "demo: a borrowing research Job was preempted" "evicted=Preempted" "$D2"
      expect_eq "demo: kubectl get clusterqueues.v1beta2 shows cohortName" "lab lab" \
        "$(k get clusterqueues.v1beta2.kueue.x-k8s.io -o jsonpath='{.items[*].spec.cohortName}')" ;;
  esac
  stop_kuotad
done

# --- 3. The README's kuota simulate example ---------------------------------------
echo "== examples/two-teams.yaml (kuota simulate)"
EX=$PROJECT/examples/two-teams.yaml
python3 "$HERE/v1beta2_convert.py" "$EX" >"$ROOT/two-teams-v1beta2.yaml" || bad "no v1beta2 copy of $EX"
contains "its copy uses cohortName" "cohortName: team-ab" "$(cat "$ROOT/two-teams-v1beta2.yaml")"
contains "its copy uses priorityClassRef" "priorityClassRef:" "$(cat "$ROOT/two-teams-v1beta2.yaml")"
NOW=2026-01-01T00:05:00Z
for fmt in text json; do
  s1=$("$KUOTA" simulate -f "$EX" --cycles 2 --now "$NOW" -o "$fmt" 2>&1)
  s2=$("$KUOTA" simulate -f "$ROOT/two-teams-v1beta2.yaml" --cycles 2 --now "$NOW" -o "$fmt" 2>&1)
  expect_eq "kuota simulate -o $fmt: the v1beta2 copy decides as the original" "$s1" "$s2"
done
contains "as the README says: prod preempts the borrowing dev workload" "by team-a/prod-train" \
  "$("$KUOTA" simulate -f "$ROOT/two-teams-v1beta2.yaml" --cycles 2 --now "$NOW")"

echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
