# Shared helpers for the end-to-end scripts (and scripts/demo.sh,
# scripts/ui_screenshot.sh): sourced, not run. Each script sets KUOTAD (the
# binary) and calls scratch (or sets TMP, its scratch directory) first.
#   need TOOL...             fail at once when a tool is not on PATH
#   scratch MARK             ROOT and TMP (a fresh directory), PID, PIDS (a
#                            script's other kuotads), TAG=MARK-PID marking this
#                            run's processes; on exit: cleanup_more (when the
#                            script defines it; quietly), PID, PIDS, every
#                            process carrying TAG and the process groups of
#                            the pods left running (kill_pod_groups) killed,
#                            ROOT removed
#                            (KEEP_TMP=1 keeps it)
#   start_kuotad [FLAGS...]  kuotad on $TMP/data, sets PID; kubectl via k()
#   stop_kuotad              SIGTERM, reaped
#   creds                    URL and TOKEN of its admin, its CA in $TMP/ca.crt
#   k ARGS...                the real kubectl against it
#   wait_for SECS NEEDLE CMD...  until CMD's output contains NEEDLE
#   eventually DESC SECS NEEDLE CMD...  ok DESC once wait_for does, else bad
#   ok / bad / expect_eq / contains  count PASS and FAIL
#   job_yaml NS NAME [KEY=VALUE...]  a one-container Job's manifest
#   cpu_queue_yaml FLAVOR CQ CPUS NS LQ  a flavor, a ClusterQueue, a LocalQueue
#   vcjob_yaml NAME METADATA SPEC CONTAINERS  a Volcano Job of 2 workers
#   free_port                a TCP port free on loopback now
#   webhook_endpoints PORT   (Kubernetes mode) the chart's Service
#                            kuota-webhook-service, its empty certificate
#                            Secret, and Endpoints routing the Service to a
#                            driver's --webhook-port PORT on loopback
PASS=0
FAIL=0
ok()  { PASS=$((PASS+1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL+1)); echo "FAIL $1"; [[ -n "${2:-}" ]] && echo "$2" | sed 's/^/     | /'; }
expect_eq() { if [[ "$2" == "$3" ]]; then ok "$1"; else bad "$1" "want: $2"$'\n'"got:  $3"; fi; }
contains() { if grep -qF -- "$2" <<<"$3"; then ok "$1"; else bad "$1" "want: $2"$'\n'"got:"$'\n'"$3"; fi; }

need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool not found on PATH (scripts/setup.sh installs it)"; exit 1; }
  done
}

scratch() {
  ROOT=$(mktemp -d)
  TMP=$ROOT
  PID=
  PIDS=()
  TAG=$1-$$
  trap scratch_cleanup EXIT
}
# (Safe under set -e too: scripts/demo.sh uses it.)
scratch_cleanup() {
  local p
  if declare -F cleanup_more >/dev/null; then { cleanup_more; } 2>/dev/null || true; fi
  # (Reaped here, quietly: else bash reports each as Killed after the summary.)
  { for p in "$PID" "${PIDS[@]}"; do [[ -z $p ]] || { kill -9 "$p"; wait "$p"; }; done; } 2>/dev/null || true
  # The pods' groups first: killing a pod's command alone (pkill) ends its
  # keeper and orphans the rest of the group.
  kill_pod_groups
  pkill -9 -f "$TAG" 2>/dev/null || true
  if [[ -n "${KEEP_TMP:-}" ]]; then echo "kept $ROOT"; else rm -rf "$ROOT"; fi
}

# Pods outlive their kuotad by design (a restarted kuotad adopts them), so a
# test's kuotads leave their keepers behind: processes with kuotad's command
# line, which names ROOT. Each keeper's process group and its command's are
# killed (not this script's own group, which holds its kuotads).
kill_pod_groups() {
  [[ -n ${ROOT:-} && $ROOT == /*/* ]] || return 0
  local me p c g
  me=$(ps -o pgid= -p $$ | tr -d ' ')
  for p in $(pgrep -f -- "$ROOT/"); do
    for c in $(pgrep -P "$p") "$p"; do
      g=$(ps -o pgid= -p "$c" | tr -d ' ')
      [[ -n $g && $g != "$me" ]] && kill -9 -- "-$g"
    done
  done 2>/dev/null
  return 0
}

k() { kubectl --kubeconfig "$TMP/kubeconfig" "$@"; }

start_kuotad() {
  mkdir -p "$TMP"
  rm -f "$TMP/kubeconfig"
  "$KUOTAD" --data-dir "$TMP/data" --port 0 --kubeconfig-out "$TMP/kubeconfig" --no-sync \
    "$@" >>"$TMP/kuotad.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 400); do
    if [[ -s "$TMP/kubeconfig" ]] && k get --raw /healthz >/dev/null 2>&1; then return 0; fi
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "FAIL kuotad did not start:"; tail -30 "$TMP/kuotad.log"; exit 1
}
stop_kuotad() { kill -TERM "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; PID=; }

# The admin's server and token from kuotad's kubeconfig, its CA as a file.
creds() {
  URL=$(sed -n 's/^ *server: *"\{0,1\}\([^" ]*\)"\{0,1\}.*/\1/p' "$TMP/kubeconfig")
  TOKEN=$(sed -n 's/^ *token: *"\{0,1\}\([^" ]*\)"\{0,1\}.*/\1/p' "$TMP/kubeconfig")
  sed -n 's/^ *certificate-authority-data: *"\{0,1\}\([^" ]*\)"\{0,1\}.*/\1/p' \
    "$TMP/kubeconfig" | base64 -d >"$TMP/ca.crt" 2>/dev/null
}

wait_for() {
  local secs=$1 needle=$2; shift 2
  local out
  for _ in $(seq 1 $((secs * 10))); do
    # Not `"$@" | grep -q`: under pipefail the writer's SIGPIPE fails the test.
    out=$("$@" 2>/dev/null)
    if grep -qF -- "$needle" <<<"$out"; then return 0; fi
    sleep 0.1
  done
  return 1
}
eventually() {
  local desc=$1; shift
  if wait_for "$@"; then ok "$desc"; else bad "$desc" "$("${@:3}" 2>&1 | tail -20)"; fi
}

# job_yaml NS NAME [KEY=VALUE...]: a batch/v1 Job of one busybox container.
# KEY: queue, priority (Kueue's labels); backoff (backoffLimit); indexed=N (N
# completions, N in parallel); grace (terminationGracePeriodSeconds);
# container (its name, default main); cmd (run by sh -c) or command (a YAML
# list); requests, limits (the inside of the YAML maps, e.g. "cpu: 500m").
job_yaml() {
  local ns=$1 name=$2 queue="" priority="" backoff="" indexed="" grace="" container=main
  local command="" requests="" limits="" labels="" kv
  shift 2
  for kv in "$@"; do
    case $kv in
      queue=*) queue=${kv#*=} ;;
      priority=*) priority=${kv#*=} ;;
      backoff=*) backoff=${kv#*=} ;;
      indexed=*) indexed=${kv#*=} ;;
      grace=*) grace=${kv#*=} ;;
      container=*) container=${kv#*=} ;;
      cmd=*) command="[\"sh\", \"-c\", \"${kv#*=}\"]" ;;
      command=*) command=${kv#*=} ;;
      requests=*) requests=${kv#*=} ;;
      limits=*) limits=${kv#*=} ;;
      *) echo "job_yaml: unknown $kv" >&2; return 1 ;;
    esac
  done
  if [[ -n $queue ]]; then labels="kueue.x-k8s.io/queue-name: $queue"; fi
  if [[ -n $priority ]]; then labels+="${labels:+, }kueue.x-k8s.io/priority-class: $priority"; fi
  echo "apiVersion: batch/v1
kind: Job
metadata:
  name: $name
  namespace: $ns"
  if [[ -n $labels ]]; then echo "  labels: {$labels}"; fi
  echo "spec:"
  if [[ -n $backoff ]]; then echo "  backoffLimit: $backoff"; fi
  if [[ -n $indexed ]]; then
    echo "  completionMode: Indexed
  completions: $indexed
  parallelism: $indexed"
  fi
  echo "  template:
    spec:
      restartPolicy: Never"
  if [[ -n $grace ]]; then echo "      terminationGracePeriodSeconds: $grace"; fi
  echo "      containers:
      - name: $container
        image: busybox
        command: $command
        resources:
          requests: {$requests}"
  if [[ -n $limits ]]; then echo "          limits: {$limits}"; fi
}

# cpu_queue_yaml FLAVOR CQ CPUS NS LQ: ResourceFlavor FLAVOR, ClusterQueue CQ
# (any namespace) with CPUS of cpu on it, LocalQueue LQ in NS for CQ.
cpu_queue_yaml() {
  echo "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: $1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: $2}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: $1
      resources: [{name: cpu, nominalQuota: $3}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: $5, namespace: $4}
spec: {clusterQueue: $2}"
}

# two_flavors_yaml: the job-kind tests' flavors and priority classes:
# ResourceFlavor "tiny" (kuota.dev/pool: tiny) and "big" (kuota.dev/pool: big,
# with a kuota.dev/big toleration), WorkloadPriorityClasses "low" (10) and
# "high" (1000).
two_flavors_yaml() {
  echo "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: tiny}
spec: {nodeLabels: {kuota.dev/pool: tiny}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: big}
spec:
  nodeLabels: {kuota.dev/pool: big}
  tolerations: [{key: kuota.dev/big, operator: Exists, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000"
}

# two_flavor_queue_yaml NS CQ TINY BIG: Namespace NS, ClusterQueue CQ
# (preempting lower priorities within it) with TINY cpu on flavor tiny and BIG
# on flavor big (two_flavors_yaml), and LocalQueue "lq" in NS for it.
two_flavor_queue_yaml() {
  echo "apiVersion: v1
kind: Namespace
metadata: {name: $1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: $2}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tiny
      resources: [{name: cpu, nominalQuota: $3}]
    - name: big
      resources: [{name: cpu, nominalQuota: $4}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: $1}
spec: {clusterQueue: $2}"
}

# vcjob_yaml NAME METADATA SPEC CONTAINERS: a Volcano Job, a gang of 2
# "worker" pods restarted together when one is evicted. METADATA and SPEC:
# more lines of its metadata and spec (indented 2); CONTAINERS: the pods'
# containers list (indented 8).
vcjob_yaml() {
  echo "apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: $1
$2
spec:
  minAvailable: 2
  schedulerName: volcano
$3
  policies:
  - {event: PodEvicted, action: RestartJob}
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers:
$4"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# webhook_endpoints PORT: what the chart and the endpoints controller give a
# cluster, so that the stand-in reaches the driver's conversion and admission
# webhooks (the CRDs store v1beta2: a v1beta1 manifest needs the conversion
# webhook) and its aggregated API: the Service kuota-webhook-service (in
# kuota-system, which must exist), the chart's empty certificate Secret the
# driver fills, and the Service's Endpoints at 127.0.0.1:PORT. Run again with
# another PORT to move the Endpoints (as when a driver's pod is replaced).
webhook_endpoints() {
  k apply -f - >/dev/null <<EOF || bad "the webhook Service, its Endpoints and Secret apply"
apiVersion: v1
kind: Service
metadata: {name: kuota-webhook-service, namespace: kuota-system}
spec:
  ports: [{name: https, port: 443, targetPort: 9443}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: kuota-webhook-service, namespace: kuota-system}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: $1}]
EOF
  k get secret -n kuota-system kuota-webhook-server-cert >/dev/null 2>&1 ||
    k create secret generic -n kuota-system kuota-webhook-server-cert >/dev/null
}
