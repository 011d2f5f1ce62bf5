#!/usr/bin/env bash
# Makes docs/ui-dashboard.png, the web dashboard (/ui) at 1400x1000: starts
# kuotad on a temporary directory, applies the two-team demo
# (examples/demo/teams.yaml) plus a GPU queue in their cohort (which also
# lends CPU), submits Jobs as scripts/demo.sh does (team-b's research borrows
# the idle CPU, then team-a's production Jobs reclaim theirs), and takes the picture in headless
# Chromium over the DevTools Protocol (tests/e2e/cdp.py) while the preemption
# is in progress: the research pods ignore SIGTERM, so their eviction lasts
# their 20 s grace period. The Jobs are deleted (and their processes gone)
# before kuotad stops; the whole run takes about 40 s.
# Usage: scripts/ui_screenshot.sh [OUT.png]   (KUOTAD=path/to/kuotad; default
#        build/kuotad, else build-test/kuotad)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/docs/ui-dashboard.png}
if [[ -z "${KUOTAD:-}" ]]; then
  for KUOTAD in "$ROOT/build/kuotad" "$ROOT/build-test/kuotad"; do [[ -x "$KUOTAD" ]] && break; done
fi
[[ -x "$KUOTAD" ]] || { echo "ui_screenshot: no kuotad (run scripts/build.sh, or set KUOTAD)" >&2; exit 1; }
command -v kubectl >/dev/null || { echo "ui_screenshot: kubectl is needed on PATH" >&2; exit 1; }
command -v chromium >/dev/null || { echo "ui_screenshot: chromium is needed (apt-get install chromium)" >&2; exit 1; }
source tests/e2e/lib.sh   # k, job_yaml

TMP=$(mktemp -d)
PID=
cleanup() {
  if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
    # Pods run under keepers that outlive kuotad: end them through the API first.
    k delete jobs --all -A --wait=false >/dev/null 2>&1 || true
    for _ in $(seq 1 300); do
      [[ -z "$(k get pods -A --no-headers 2>/dev/null)" ]] && break
      sleep 0.1
    done
    kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A session of its own: a Ctrl-C stops this script, whose cleanup then ends the
# pods through kuotad before stopping it.
setsid "$KUOTAD" --data-dir "$TMP" --port 0 --no-sync --gpus 4 --cpus 16 --memory 64Gi \
  >"$TMP/kuotad.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do [[ -s "$TMP/kubeconfig" ]] && break; sleep 0.1; done
until k get --raw /healthz >/dev/null 2>&1; do
  kill -0 "$PID" 2>/dev/null || { cat "$TMP/kuotad.log" >&2; exit 1; }
  sleep 0.1
done

k apply -f examples/demo/teams.yaml >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: local-gpu
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: ml-gpu-cq
spec:
  cohort: lab
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: local-cpu
      resources:
      - name: cpu
        nominalQuota: 2
      - name: memory
        nominalQuota: 4Gi
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: local-gpu
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 4
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: ml
  namespace: team-a
spec:
  clusterQueue: ml-gpu-cq
YAML

# job NAMESPACE QUEUE NAME PRIORITY CPU [GPUS]: a Job with one pod that sleeps;
# research pods ignore SIGTERM (and are killed after their grace period).
job() {
  local gpus="" grace=1 command='["sleep", "3600"]'
  [[ -n "${6:-}" ]] && gpus=", nvidia.com/gpu: $6"
  if [[ "$4" == research ]]; then
    grace=20 command='["sh", "-c", "trap \"\" TERM; while :; do sleep 1; done"]'
  fi
  job_yaml "$1" "$3" queue="$2" priority="$4" grace="$grace" command="$command" \
    requests="cpu: $5, memory: 128Mi$gpus" limits="memory: 128Mi$gpus" | k create -f - >/dev/null
}
job team-a ml finetune-1 production 500m 2
job team-a ml finetune-2 research 500m 1
job team-a ml sweep-1 research 500m 2
# team-b's research fills the cohort's idle CPU: 1 of its own, 2 borrowed.
for i in 1 2 3 4 5 6; do job team-b team-b "explore-$i" research 500m; done
sleep 3
# team-a reclaims its CPU: two of team-b's borrowers are preempted; a third
# production Job waits (team-a is at its nominal quota, the cohort is full).
job team-a team-a train-1 production 500m
job team-a team-a train-2 production 500m
job team-a team-a train-3 production 500m
sleep 1

TOKEN=$(k config view --raw -o jsonpath='{.users[0].user.token}')
SERVER=$(k config view --raw -o jsonpath='{.clusters[0].cluster.server}')
mkdir -p "$(dirname "$OUT")"
python3 tests/e2e/cdp.py screenshot "$SERVER/ui#token=$TOKEN" "$OUT" 1400 1000 \
  "document.body.dataset.live === 'true' && document.querySelector('#preemptions tr[data-workload]') !== null" 1.5
echo "ui_screenshot: wrote $OUT"
