#!/usr/bin/env bash
# The demo: installs what it needs, builds kuotad, starts it on a temporary
# data directory, applies a two-team setup (a shared cohort, priorities,
# preemption: examples/demo/teams.yaml), submits a stream of short Jobs with
# kubectl, and prints what happens as it happens — jobs queueing, admitted,
# one preempted by a higher-priority job and resumed later, all finishing.
# Then it stops kuotad and removes the temporary directory.
# Usage: scripts/demo.sh            (DEMO_SKIP_SETUP=1 to skip apt/build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

if [[ -z "${DEMO_SKIP_SETUP:-}" ]]; then
  bash scripts/setup.sh
  echo "== building kuotad (build-demo/)"
  # -O2 without debug info: the quickest build that is still fast (GCC 12's
  # -O3 also raises false -Wrestrict errors).
  cmake -S . -B build-demo -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DKUOTA_BUILD_TESTS=OFF -DKUOTA_BUILD_BENCH=OFF >/dev/null
  if ! ninja -C build-demo kuotad >build-demo/build.log 2>&1; then
    tail -40 build-demo/build.log >&2
    echo "demo: the build failed (full log: build-demo/build.log)" >&2
    exit 1
  fi
fi
KUOTAD=${KUOTAD:-$ROOT/build-demo/kuotad}
source tests/e2e/lib.sh   # start_kuotad, k, job_yaml
need kubectl
scratch kuota-demo   # TAG marks the demo's processes; all stopped, TMP removed, on exit
# Up to 20 s for the kubeconfig and /healthz; a kuotad that exits or never
# answers ends the demo with its log, not a wait forever.
start_kuotad
sed -n 's/^kuotad: /  /p' "$TMP/kuotad.log" | head -3

T0=$(date +%s.%N)
say() { awk -v t0="$T0" -v t="$(date +%s.%N)" -v m="$*" 'BEGIN { printf "%6.1fs  %s\n", t - t0, m }'; }

echo "== two teams share 2 CPUs through cohort 'lab' (1 CPU each, borrowing allowed)"
k apply -f examples/demo/teams.yaml >/dev/null

# job TEAM NAME PRIORITY SECONDS: a Job with one 500m pod that sleeps.
job() {
  job_yaml "$1" "$2" queue="$1" priority="$3" backoff=0 grace=1 cmd="sleep $4; true $TAG" \
    requests="cpu: 500m, memory: 128Mi" | k create -f - >/dev/null
  say "submit  $1/$2 ($3, ${4}s)"
}

# Prints each workload's changes: queued, admitted, preempted, finished.
declare -A LAST
watch_once() {
  local line ns name state
  while IFS='|' read -r ns name cq admitted finished evicted reason msg pmsg; do
    [[ -z "$name" ]] && continue
    job=${name#job-}; job=${job%-*}
    if [[ "$finished" == "True" ]]; then state="finished"
    elif [[ "$admitted" == "True" ]]; then
      state="admitted in $cq"
      [[ "${LAST[$ns/$job]:-}" == preempted* || "${LAST[$ns/$job]:-}" == resumed* ]] && state="resumed in $cq"
    elif [[ "$evicted" == "True" && "$reason" == "Preempted" ]]; then
      state="preempted: $(sed -E 's/ \(UID: [^,]*, name: ([^)]*)\)/ \1/' <<<"$pmsg")"
    else state="waiting: ${msg:-queued}"; fi
    if [[ "${LAST[$ns/$job]:-}" != "$state" ]]; then
      LAST[$ns/$job]=$state
      say "$(printf '%-24s %s' "$ns/$job" "$state")"
    fi
  done < <(k get workloads -A -o jsonpath='{range .items[*]}{.metadata.namespace}|{.metadata.name}|{.status.admission.clusterQueue}|{.status.conditions[?(@.type=="Admitted")].status}|{.status.conditions[?(@.type=="Finished")].status}|{.status.conditions[?(@.type=="Evicted")].status}|{.status.conditions[?(@.type=="Evicted")].reason}|{.status.conditions[?(@.type=="QuotaReserved")].message}|{.status.conditions[?(@.type=="Preempted")].message}{"\n"}{end}' 2>/dev/null)
}
watch_for() {  # watch_for SECONDS
  local end=$(( $(date +%s) + $1 ))
  while (( $(date +%s) < end )); do watch_once; sleep 0.3; done
}

echo "== team-b starts four research jobs: two on its own CPU, two on team-a's idle CPU"
for i in 1 2 3 4; do job team-b "explore-$i" research 6; done
watch_for 3
echo "== team-a needs its CPU back for production training: the borrowers are preempted"
job team-a train-1 production 5
job team-a train-2 production 5
watch_for 4
echo "== team-b queues one more research job behind its own"
job team-b explore-5 research 3
# Until every job has finished (or 120 s).
for _ in $(seq 1 400); do
  watch_once
  total=$(k get workloads -A --no-headers 2>/dev/null | wc -l)
  done_n=$(k get workloads -A -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' | grep -c True || true)
  (( total > 0 && done_n == total )) && break
  sleep 0.3
done
echo "== all $done_n jobs finished"
k get workloads -A
echo
echo "== the story of a preempted job (kubectl describe workload, events):"
victim=$(k get workloads -n team-b -o jsonpath='{range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Preempted")].status}{"\n"}{end}' | awk '$2=="False"||$2=="True"{print $1; exit}')
if [[ -n "$victim" ]]; then
  k get events -n team-b --field-selector "involvedObject.name=$victim" \
    -o custom-columns=REASON:.reason,MESSAGE:.message --sort-by=.metadata.creationTimestamp
fi
echo "== stopping kuotad"
