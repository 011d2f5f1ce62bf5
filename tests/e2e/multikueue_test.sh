#!/usr/bin/env bash
# MultiKueue on three machines' worth of kuotad, end to end with the real
# kubectl: one manager and two workers on loopback, each with its own data
# directory, TLS and tokens. The manager reaches each worker as a local user
# made with useradd, whose token the worker issued (`kuota login`) and whose
# RBAC there is confined to namespace team-a; the kubeconfigs are Secrets in
# the manager's kueue-system namespace. Checks:
#   * MultiKueueClusters turn Active, the AdmissionCheck Active; a cluster
#     whose Secret is missing says why (BadConfig);
#   * a batch Job and the seeds' PyTorchJob submitted on the manager run on
#     exactly one worker each (pods are processes there, none on the
#     manager), the check says where, and their status (Complete /
#     Succeeded) comes back to the manager's job;
#   * an AppWrapper's component runs on one worker (created there by its
#     AppWrapper controller), its status (Succeeded) comes back;
#   * a plain pod runs on a worker while the manager's copy stays gated, and
#     its status (Succeeded) comes back;
#   * a second Job lands on the other worker when the first is full;
#   * deleting a Job on the manager deletes it on its worker;
#   * a LeaderWorkerSet's two group Workloads both go to one worker (group 1
#     follows group 0 and is never copied elsewhere), where one copy of the
#     set runs its pods as the manager's group Workloads; deleting it on the
#     manager deletes it there;
#   * a StatefulSet's two pods run on one worker (the second, made after
#     its Workload, follows), its status comes back to the manager's set;
#   * a worker SIGKILLed mid-run: after workerLostTimeout its workload is
#     dispatched to the survivor and finishes there; never admitted on two
#     workers at once (sampled all along);
#   * kueue_multikueue_* metrics on the manager's /metrics.
# Needs root (useradd; pods run as that user). Usage:
# multikueue_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl python3 curl
if [[ $(id -u) -ne 0 ]]; then
  echo "FAIL: this test makes a user with useradd and runs kuotad as root; run it as root"
  exit 1
fi
scratch kuota-multikueue
chmod 0711 "$TMP"
U=mk$$
SAMPLER=
LWS_SAMPLER=
cleanup_more() {
  [[ -z "$SAMPLER" ]] || { kill "$SAMPLER"; wait "$SAMPLER"; }
  [[ -z "$LWS_SAMPLER" ]] || { kill "$LWS_SAMPLER"; wait "$LWS_SAMPLER"; }
  pkill -9 -u "$U"
  userdel -r "$U"
}
useradd -m -s /bin/sh "$U" || { echo "FAIL: useradd $U"; exit 1; }
UHOME=$(getent passwd "$U" | cut -d: -f6)
install -m 0755 "$KUOTA" "$TMP/kuota"
install -m 0755 "$HERE/job_kinds/probe.py" "$TMP/probe.py"

declare -A PIDOF
# start NAME [FLAGS...]: a kuotad with data in $TMP/NAME; kubectl: kc NAME ...
start() {
  local name=$1
  shift
  mkdir -p "$TMP/$name"
  "$KUOTAD" --data-dir "$TMP/$name/data" --port 0 --kubeconfig-out "$TMP/$name/kubeconfig" \
    --no-sync "$@" >>"$TMP/$name.log" 2>&1 &
  PIDOF[$name]=$!
  PIDS+=("$!")
  for _ in $(seq 1 400); do
    if [[ -s "$TMP/$name/kubeconfig" ]] && kc "$name" get --raw /healthz >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.05
  done
  echo "FAIL kuotad $name did not start:"
  tail -30 "$TMP/$name.log"
  exit 1
}
kc() { local n=$1; shift; kubectl --kubeconfig "$TMP/$n/kubeconfig" "$@"; }
# gone W WHAT PATTERN: "gone" when no WHAT (kubectl get's kinds) in team-a on W matches PATTERN.
gone() {
  local n
  n=$(kc "$1" get "$2" -n team-a --no-headers 2>/dev/null | grep -c -- "$3")
  [[ $n -eq 0 ]] && echo gone || echo "$n left"
}

# Plain pods are queued only where the "pod" framework is on (as in Kueue),
# on the manager and on the workers alike.
cat >"$TMP/worker-config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: [batch/job, kubeflow.org/pytorchjob, pod, workload.codeflare.dev/appwrapper, leaderworkerset.x-k8s.io/leaderworkerset, statefulset]
EOF

# --- two workers: queues, and the manager's identity there -------------------
for w in w1 w2; do
  start "$w" --cpus 4 --fake-gpus 4 --config "$TMP/worker-config.yaml"
  kc "$w" create namespace team-a >/dev/null
  kc "$w" apply -f - >/dev/null <<EOF
$(cpu_queue_yaml default worker-cq 1 team-a team-a-queue | sed 's/coveredResources: \[cpu\]/coveredResources: [cpu, nvidia.com\/gpu]/; s/resources: \[{name: cpu, nominalQuota: 1}\]/resources: [{name: cpu, nominalQuota: 1}, {name: nvidia.com\/gpu, nominalQuota: 4}]/')
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: multikueue-manager}
rules:
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads, workloads/status]
  verbs: [create, delete, get, list, watch, update, patch]
- apiGroups: [batch]
  resources: [jobs, jobs/status]
  verbs: [create, delete, get, list, watch]
- apiGroups: [kubeflow.org]
  resources: [pytorchjobs, pytorchjobs/status]
  verbs: [create, delete, get, list, watch]
- apiGroups: [workload.codeflare.dev]
  resources: [appwrappers, appwrappers/status]
  verbs: [create, delete, get, list, watch]
- apiGroups: [leaderworkerset.x-k8s.io]
  resources: [leaderworkersets, leaderworkersets/status]
  verbs: [create, delete, get, list, watch]
- apiGroups: [""]
  resources: [pods]
  verbs: [create, delete, get, list, watch]
EOF
  kc "$w" create rolebinding multikueue-manager -n team-a --clusterrole=multikueue-manager \
    --user="$U" >/dev/null
  out=$(runuser -u "$U" -- env HOME="$UHOME" KUOTA_SOCKET="$TMP/$w/data/kuotad.sock" \
    "$TMP/kuota" login -o "$UHOME/$w.kubeconfig" 2>&1)
  contains "$w: kuota login as $U gives the manager's credential" "as $U" "$out"
  cp "$UHOME/$w.kubeconfig" "$TMP/$U-$w.kubeconfig"
done
expect_eq "a worker confines the manager to team-a" "no" \
  "$(kubectl --kubeconfig "$TMP/$U-w1.kubeconfig" auth can-i create workloads.kueue.x-k8s.io -n default 2>/dev/null)"

# --- the manager ------------------------------------------------------------------
cat >"$TMP/manager-config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: [batch/job, kubeflow.org/pytorchjob, pod, workload.codeflare.dev/appwrapper, leaderworkerset.x-k8s.io/leaderworkerset, statefulset]
multiKueue:
  gcInterval: 3s
  workerLostTimeout: 5s
EOF
start m --no-run-pods --config "$TMP/manager-config.yaml"
kc m create namespace kueue-system >/dev/null
kc m create namespace team-a >/dev/null
for w in w1 w2; do
  kc m create secret generic "$w-secret" -n kueue-system \
    --from-file=kubeconfig="$TMP/$U-$w.kubeconfig" >/dev/null
done
# A credential w1 did not issue (the token's signature altered): refused.
# The first signature digit becomes another one (0 if it was f, else f): never
# the same token by chance.
sed -e 's/\(token: *"\{0,1\}kuota1\.[0-9]*\.\)f/\1F/' \
  -e 's/\(token: *"\{0,1\}kuota1\.[0-9]*\.\)[0-9a-e]/\1f/' \
  -e 's/\(token: *"\{0,1\}kuota1\.[0-9]*\.\)F/\10/' "$TMP/$U-w1.kubeconfig" >"$TMP/forged.kubeconfig"
grep -q 'kuota1\.' "$TMP/forged.kubeconfig" && ! cmp -s "$TMP/forged.kubeconfig" "$TMP/$U-w1.kubeconfig" ||
  bad "make a forged kubeconfig"
kc m create secret generic forged-secret -n kueue-system --from-file=kubeconfig="$TMP/forged.kubeconfig" >/dev/null
kc m apply -f - >/dev/null <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1}
spec: {clusterSource: {kubeConfig: {location: w1-secret, locationType: Secret}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueCluster
metadata: {name: w2}
spec: {kubeConfig: {location: w2-secret, locationType: Secret}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w3-missing}
spec: {clusterSource: {kubeConfig: {location: no-such-secret}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1-forged}
spec: {clusterSource: {kubeConfig: {location: forged-secret}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: lab}
spec: {clusters: [w1, w2]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: lab-check}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: lab}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: lab-cq}
spec:
  namespaceSelector: {}
  admissionChecks: [lab-check]
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 10}, {name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-a-queue, namespace: team-a}
spec: {clusterQueue: lab-cq}
EOF
active() { kc m get multikueuecluster "$1" -o jsonpath='{.status.conditions[?(@.type=="Active")].status}/{.status.conditions[?(@.type=="Active")].reason}'; }
eventually "MultiKueueCluster w1 turns Active" 15 "True/Active" active w1
eventually "MultiKueueCluster w2 (written in v1beta1) turns Active" 15 "True/Active" active w2
eventually "a cluster whose Secret is missing is not Active, and says why" 15 "False/BadConfig" active w3-missing
contains "... naming the Secret" 'secrets "no-such-secret" not found in namespace "kueue-system"' \
  "$(kc m get multikueuecluster w3-missing -o jsonpath='{.status.conditions[0].message}')"
eventually "a cluster whose token w1 did not issue is refused by w1" 15 "False/ClientConnectionFailed" active w1-forged
contains "... with w1's answer" "Unauthorized" \
  "$(kc m get multikueuecluster w1-forged -o jsonpath='{.status.conditions[0].message}')"
eventually "the AdmissionCheck is Active" 15 "True" \
  kc m get admissioncheck lab-check -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
out=$(kc m apply -f - 2>&1 <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: twice}
spec: {clusters: [w1, w1]}
EOF
)
contains "a MultiKueueConfig naming a cluster twice is refused" \
  'spec.clusters: Invalid value: "array": must be unique' "$out"

# Never admitted on two workers at once: sampled every 0.5 s.
sample() {
  while true; do
    a=$(kc w1 get workloads -n team-a -o jsonpath='{range .items[?(@.status.admission)]}{.metadata.name}{"\n"}{end}' 2>/dev/null)
    b=$(kc w2 get workloads -n team-a -o jsonpath='{range .items[?(@.status.admission)]}{.metadata.name}{"\n"}{end}' 2>/dev/null)
    both=$(comm -12 <(sort <<<"$a" | sed '/^$/d') <(sort <<<"$b" | sed '/^$/d'))
    # Only a job's copies count: a copy the manager is removing may be admitted on both for an instant
    # before it has a job; a job on both is a workload running twice.
    for wl in $both; do
      j1=$(kc w1 get jobs,pytorchjobs -n team-a -l "kueue.x-k8s.io/prebuilt-workload-name=$wl" --no-headers 2>/dev/null | wc -l)
      j2=$(kc w2 get jobs,pytorchjobs -n team-a -l "kueue.x-k8s.io/prebuilt-workload-name=$wl" --no-headers 2>/dev/null | wc -l)
      if [[ $j1 -gt 0 && $j2 -gt 0 ]]; then echo "$wl runs on w1 and w2" >>"$TMP/twice"; fi
    done
    sleep 0.5
  done
}
sample &
SAMPLER=$!

# --- a batch Job runs on one worker, its status comes back -------------------
job_yaml team-a hello queue=team-a-queue "cmd=echo hello from \$(hostname); sleep 2; : $TAG" \
  "requests=cpu: 1" | kc m apply -f - >/dev/null
eventually "the manager's Job gets managedBy kueue.x-k8s.io/multikueue" 5 "kueue.x-k8s.io/multikueue" \
  kc m get job hello -n team-a -o jsonpath='{.spec.managedBy}'
eventually "its check turns Ready, naming the worker" 20 'The workload was admitted on "w' \
  kc m get workloads -n team-a -o jsonpath='{.items[0].status.admissionChecks[0].message}'
where=$(kc m get workloads -n team-a -o jsonpath='{.items[0].status.clusterName}')
other=$([[ $where == w1 ]] && echo w2 || echo w1)
contains "status.clusterName is that worker" "w" "$where"
eventually "the Job's pod runs on $where" 20 "hello" kc "$where" get pods -n team-a
expect_eq "no Job hello on $other" "" "$(kc "$other" get jobs -n team-a --no-headers 2>/dev/null | grep hello)"
expect_eq "no pod on the manager" "" "$(kc m get pods -A --no-headers 2>/dev/null)"
eventually "the pod ran as $U on $where" 20 "hello from" kc "$where" logs -n team-a job/hello
eventually "the manager's Job turns Complete (its status came back)" 30 "True" \
  kc m get job hello -n team-a -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
eventually "the manager's Workload finishes" 15 "True" \
  kc m get workloads -n team-a -o jsonpath='{.items[0].status.conditions[?(@.type=="Finished")].status}'
eventually "the copy is removed from $where once finished" 15 gone gone "$where" workloads .
contains "an Event on the manager says where it ran" "The workload was admitted on \"$where\"" \
  "$(kc m get events -n team-a --field-selector reason=MultiKueue -o jsonpath='{.items[*].message}')"
kc m delete job hello -n team-a >/dev/null

# --- an AppWrapper: its component runs on one worker, its status comes back ------
kc m apply -f - >/dev/null <<EOF
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: wrapped, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: team-a-queue}}
spec:
  components:
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: wrapped-side}
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, command: [sh, -c, "echo wrapped; sleep 2; : $TAG"],
                          resources: {requests: {cpu: 500m}}}]
EOF
eventually "the manager's AppWrapper gets managedBy kueue.x-k8s.io/multikueue" 5 \
  "kueue.x-k8s.io/multikueue" kc m get appwrapper wrapped -n team-a -o jsonpath='{.spec.managedBy}'
both_jobs() { kc w1 get jobs -n team-a --no-headers 2>/dev/null; kc w2 get jobs -n team-a --no-headers 2>/dev/null; }
eventually "a worker's AppWrapper controller creates its component Job" 20 wrapped-side both_jobs
expect_eq "on one worker only" 1 "$(both_jobs | grep -c wrapped-side)"
expect_eq "no component on the manager" "" "$(kc m get jobs -n team-a --no-headers 2>/dev/null | grep wrapped)"
eventually "the manager's AppWrapper turns Succeeded (its status came back)" 30 Succeeded \
  kc m get appwrapper wrapped -n team-a -o jsonpath='{.status.phase}'
kc m delete appwrapper wrapped -n team-a >/dev/null

# --- a plain pod: run on a worker, gated on the manager, status back -------------
kc m apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: lone-pod, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: team-a-queue}}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: [sh, -c, "echo pod ran; : $TAG"], resources: {requests: {cpu: 1}}}
EOF
podwl() { kc m get workloads -n team-a -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"lone-pod\")].status.$1}"; }
eventually "a plain pod's check turns Ready" 20 "Ready" podwl 'admissionChecks[0].state'
eventually "its status comes back from the worker: Succeeded" 30 "Succeeded" \
  kc m get pod lone-pod -n team-a -o jsonpath='{.status.phase}'
expect_eq "the manager's pod stayed gated" "kueue.x-k8s.io/admission" \
  "$(kc m get pod lone-pod -n team-a -o jsonpath='{.spec.schedulingGates[*].name}')"
eventually "its Workload finishes on the manager" 20 "True" podwl 'conditions[?(@.type=="Finished")].status'
kc m delete pod lone-pod -n team-a >/dev/null

# --- full on one worker: the next goes to the other; delete propagates ------
job_yaml team-a long-a queue=team-a-queue "cmd=sleep 60; : $TAG" "requests=cpu: 1" | kc m apply -f - >/dev/null
eventually "long-a is admitted on a worker" 20 "Ready" \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="long-a")].status.admissionChecks[0].state}'
wa=$(kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="long-a")].status.clusterName}')
wb=$([[ $wa == w1 ]] && echo w2 || echo w1)
eventually "long-a runs on $wa" 20 "Running" kc "$wa" get pods -n team-a
job_yaml team-a long-b queue=team-a-queue "cmd=sleep 60; : $TAG" "requests=cpu: 1" | kc m apply -f - >/dev/null
eventually "long-b lands on the other worker, $wb ($wa is full)" 20 "$wb" \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="long-b")].status.clusterName}'
eventually "long-b runs on $wb" 20 "Running" kc "$wb" get pods -n team-a
eventually "the manager's long-b reports the worker's active pod" 20 "1" \
  kc m get job long-b -n team-a -o jsonpath='{.status.active}'
out=$("$KUOTA" get multikueueclusters --kubeconfig "$TMP/m/kubeconfig" 2>&1)
contains "kuota get multikueueclusters has a WORKLOADS column" "WORKLOADS" "$out"
expect_eq "... $wa: connected, running long-a" "True 1" "$(awk -v w="$wa" '$1 == w {print $2, $3}' <<<"$out")"
expect_eq "... $wb: connected, running long-b" "True 1" "$(awk -v w="$wb" '$1 == w {print $2, $3}' <<<"$out")"
expect_eq "... the forged one: refused" "False ClientConnectionFailed" \
  "$(awk '$1 == "w1-forged" {print $2, $3}' <<<"$out")"
contains "kuota describe workload says where long-b runs" "Runs on:" \
  "$("$KUOTA" describe workload -n team-a --kubeconfig "$TMP/m/kubeconfig" \
    "$(kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="long-b")].metadata.name}')" 2>&1)"
kc m delete job long-a -n team-a >/dev/null
eventually "deleting long-a on the manager deletes its Job on $wa" 20 gone gone "$wa" jobs long-a
eventually "... its Workload there" 20 gone gone "$wa" workloads long-a
eventually "... and its pod there" 20 gone gone "$wa" pods long-a

# --- the seeds' PyTorchJob --------------------------------------------------------
RELEASE=$TMP/release
# (Debian's python3: the pods run as $U, who cannot read root's own.)
sed -e "s|PROBE|$TMP/probe.py|g" -e "s|RELEASE|$RELEASE|g" -e 's|"python3"|"/usr/bin/python3"|' \
  "$HERE/manifests/seeds/000-pytorch-job.yaml" | kc m apply -f - >/dev/null
eventually "the PyTorchJob is admitted on a worker" 20 "w" \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="PyTorchJob")].status.clusterName}'
wp=$(kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="PyTorchJob")].status.clusterName}')
wq=$([[ $wp == w1 ]] && echo w2 || echo w1)
eventually "its 3 pods run on $wp" 30 "3" \
  bash -c "kubectl --kubeconfig $TMP/$wp/kubeconfig get pods -n team-a --no-headers | grep pytorch-dist-mnist | grep -c Running"
expect_eq "no PyTorchJob on $wq" "" "$(kc "$wq" get pytorchjobs -n team-a --no-headers 2>/dev/null)"
eventually "the ranks met on $wp" 20 "RENDEZVOUS rank=2 world=3" kc "$wp" logs -n team-a pytorch-dist-mnist-worker-1
touch "$RELEASE"
eventually "the manager's PyTorchJob turns Succeeded" 30 "Succeeded" \
  kc m get pytorchjob pytorch-dist-mnist -n team-a
kc m delete pytorchjob pytorch-dist-mnist -n team-a >/dev/null

# --- a job MultiKueue does not manage is rejected, never run twice -------------------
job_yaml team-a own-controller queue=team-a-queue "cmd=true" "requests=cpu: 1" |
  sed 's/^spec:/spec:\n  managedBy: kubernetes.io\/job-controller/' | kc m apply -f - >/dev/null
eventually "a Job managed by another controller is rejected by the check" 20 \
  'Rejected The owner is not managed by Kueue: Expecting spec.managedBy to be "kueue.x-k8s.io/multikueue" not "kubernetes.io/job-controller"' \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="own-controller")].status.admissionChecks[0].state} {.items[?(@.metadata.ownerReferences[0].name=="own-controller")].status.admissionChecks[0].message}'
eventually "... and its Workload deactivated" 10 "false" \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="own-controller")].spec.active}'
expect_eq "... with no copy on any worker" "gone gone" "$(gone w1 workloads own-controller) $(gone w2 workloads own-controller)"
kc m delete job own-controller -n team-a >/dev/null

kc m delete job long-b -n team-a >/dev/null
eventually "long-b is gone from $wb" 20 gone gone "$wb" jobs long-b

# --- a LeaderWorkerSet: its group Workloads go to one worker, the set once ----------
# (Kueue's multi-workload adapter: group 0 is dispatched first, group 1
# follows it; the worker's LWS controller makes the pods, which join the
# copies of the manager's group Workloads.)
lws_container() {
  printf '          containers:\n          - {name: %s, image: probe, command: [sh, -c, "echo size=$LWS_GROUP_SIZE worker=$LWS_WORKER_INDEX; sleep 300; : %s"], resources: {requests: {cpu: 200m}}}\n' "$1" "$TAG"
}
# Which group Workloads each worker ever held, sampled.
( while :; do
    for w in w1 w2; do
      kc "$w" get workloads -n team-a --no-headers 2>/dev/null | awk -v w="$w" '/leaderworkerset-serve-/ {print w, $1}'
    done
    sleep 0.1
  done >"$TMP/lws-seen" ) &
LWS_SAMPLER=$!
kc m apply -f - >/dev/null <<EOF
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: team-a-queue}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
$(lws_container leader)
    workerTemplate:
      spec:
$(lws_container worker)
EOF
# The workers the set's group Workloads were admitted on, one line each.
lws_clusters() {
  kc m get workloads -n team-a \
    -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].kind=="LeaderWorkerSet")]}{.status.clusterName}{"\n"}{end}'
}
same_worker() {
  local c
  c=$(lws_clusters)
  [[ $(grep -c w <<<"$c") -eq 2 && $(sort -u <<<"$c" | wc -l) -eq 1 ]] && echo yes || echo "no: $c"
}
eventually "both of the set's group Workloads are admitted on one worker" 40 "yes" same_worker
wl=$(lws_clusters | head -1)
wo=$([[ $wl == w1 ]] && echo w2 || echo w1)
sleep 1
kill "$LWS_SAMPLER"; wait "$LWS_SAMPLER" 2>/dev/null; LWS_SAMPLER=
expect_eq "the sampler saw both group Workloads on $wl" "2" \
  "$(awk -v w="$wl" '$1 == w {sub(/-[^-]*$/, "", $2); print $2}' "$TMP/lws-seen" | sort -u | wc -l)"
expect_eq "group 1 was never copied to $wo: it followed group 0" "" \
  "$(awk -v w="$wo" '$1 == w && $2 ~ /^leaderworkerset-serve-1-/' "$TMP/lws-seen" | head -1)"
eventually "the set's 4 pods run on $wl" 30 "4" \
  bash -c "kubectl --kubeconfig $TMP/$wl/kubeconfig get pods -n team-a -l leaderworkerset.sigs.k8s.io/name=serve --no-headers | grep -c Running"
expect_eq "one copy of the set on $wl" "serve" "$(kc "$wl" get leaderworkersets -n team-a -o jsonpath='{.items[*].metadata.name}')"
expect_eq "... none on $wo" "" "$(kc "$wo" get leaderworkersets -n team-a -o jsonpath='{.items[*].metadata.name}' 2>/dev/null)"
expect_eq "$wl runs the manager's 2 group Workloads, none of its own" "2" \
  "$(kc "$wl" get workloads -n team-a --no-headers | grep -c leaderworkerset-serve-)"
eventually "group 1's worker runs with LWS's environment there" 20 "size=2 worker=1" \
  kc "$wl" logs -n team-a serve-1-1
expect_eq "the manager's pods stay gated" "4" \
  "$(kc m get pods -n team-a -l leaderworkerset.sigs.k8s.io/name=serve -o jsonpath='{range .items[*]}{.spec.schedulingGates[*].name}{"\n"}{end}' | grep -c kueue.x-k8s.io/admission)"
kc m delete leaderworkerset serve -n team-a >/dev/null
eventually "deleting the set on the manager deletes it on $wl" 20 gone gone "$wl" leaderworkersets serve
eventually "... its Workloads there" 20 gone gone "$wl" workloads leaderworkerset-serve-
eventually "... and its pods there" 30 gone gone "$wl" pods serve-

# --- a StatefulSet: its pod group's pods run on one worker --------------------------
# (Kuota dispatches the set's serving pod group as plain pods, as for any pod
# group: the manager's pods stay gated, copies run on the worker, their
# status comes back, so the manager's StatefulSet controller makes the next
# ordinal. Kueue's StatefulSet adapter creates the set on the worker instead.)
kc m apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: team-a-queue}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: main, image: busybox, command: [sh, -c, "echo pod=\$POD; sleep 300; : $TAG"], env: [{name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}], resources: {requests: {cpu: 200m}}}
EOF
sts_cluster() {
  kc m get workloads -n team-a -o jsonpath='{range .items[*]}{.metadata.name}={.status.clusterName}{"\n"}{end}' |
    grep '^statefulset-db-' | cut -d= -f2
}
eventually "the StatefulSet's Workload is admitted on a worker" 30 "w" sts_cluster
ws=$(sts_cluster)
eventually "both of its pods run on $ws" 40 "2" \
  bash -c "kubectl --kubeconfig $TMP/$ws/kubeconfig get pods -n team-a --no-headers db-0 db-1 2>/dev/null | grep -c Running"
eventually "db-1 says so there" 20 "pod=db-1" kc "$ws" logs -n team-a db-1
eventually "the manager's StatefulSet counts them ready (their status came back)" 20 "2" \
  kc m get sts db -n team-a -o jsonpath='{.status.readyReplicas}'
expect_eq "the manager's pods stay gated" "2" \
  "$(kc m get pods -n team-a db-0 db-1 -o jsonpath='{range .items[*]}{.spec.schedulingGates[*].name}{"\n"}{end}' | grep -c kueue.x-k8s.io/admission)"
kc m delete sts db -n team-a >/dev/null
eventually "deleting the set on the manager deletes its pods on $ws" 30 gone gone "$ws" pods db-

# --- a worker lost mid-run ----------------------------------------------------------
job_yaml team-a survivor queue=team-a-queue "cmd=sleep 4; echo done; : $TAG" "requests=cpu: 1" | kc m apply -f - >/dev/null
eventually "survivor is admitted on a worker" 20 "Ready" \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="survivor")].status.admissionChecks[0].state}'
lost=$(kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="survivor")].status.clusterName}')
alive=$([[ $lost == w1 ]] && echo w2 || echo w1)
eventually "survivor runs on $lost" 20 "Running" kc "$lost" get pods -n team-a
{ kill -9 "${PIDOF[$lost]}"; wait "${PIDOF[$lost]}"; } 2>/dev/null
t0=$(date +%s)
eventually "MultiKueueCluster $lost turns inactive" 10 "False/ClientConnectionFailed" active "$lost"
eventually "after workerLostTimeout survivor is dispatched to $alive" 30 "$alive" \
  kc m get workloads -n team-a -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="survivor")].status.clusterName}'
t1=$(date +%s)
if (( t1 - t0 >= 5 )); then ok "not before workerLostTimeout (5s): $((t1 - t0))s"; else bad "re-dispatched after $((t1 - t0))s, before workerLostTimeout"; fi
eventually "survivor's pod runs on $alive" 30 "survivor" kc "$alive" get pods -n team-a -o name
eventually "survivor finishes on $alive and the manager's Job completes" 40 "True" \
  kc m get job survivor -n team-a -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
contains "the manager recorded the lost worker" "Worker cluster \"$lost\" lost" \
  "$(kc m get events -n team-a --field-selector reason=MultiKueue -o jsonpath='{.items[*].message}')"

kill "$SAMPLER"; wait "$SAMPLER" 2>/dev/null; SAMPLER=
if [[ -s $TMP/twice ]]; then bad "a workload ran on two workers at once" "$(sort -u "$TMP/twice")"; else ok "never admitted with a job on two workers at once (sampled)"; fi

# --- metrics -------------------------------------------------------------------------
m=$(kc m get --raw /metrics)
contains "kueue_multikueue_workloads_dispatched_total" "kueue_multikueue_workloads_dispatched_total{cluster_queue=\"lab-cq\",cluster=\"$alive\"}" "$m"
contains "kueue_multikueue_workloads_admitted_total" "kueue_multikueue_workloads_admitted_total{cluster_queue=\"lab-cq\",cluster=\"$alive\"}" "$m"

echo "PASS: $PASS  FAIL: $FAIL"
[[ $FAIL -eq 0 ]]
