#!/usr/bin/env bash
# End-to-end, one kuotad: a CodeFlare AppWrapper (workload.codeflare.dev/v1beta2)
# wrapping an Indexed batch Job and a PyTorchJob, with the real kubectl and
# real local processes. Invalid AppWrappers get 422 naming the field. The
# AppWrapper waits, suspended and without components, while a filler holds
# the quota; once admitted on the big flavor kuotad (playing the AppWrapper
# controller) creates both components, owned by the AppWrapper, with the
# flavor's placement injected, and they run without Workloads of their own;
# the pods print the operators' environment (tests/e2e/job_kinds/probe.py).
# A high-priority Job preempts the AppWrapper whole (components deleted,
# Suspended) and it resumes; it finishes Succeeded and its quota is released.
# One whose component kuotad cannot create fails (CreateFailed) and frees its
# quota; one whose Job fails is reset (components made again) up to its
# retryLimit, then fails, at once when its exit code is declared terminal.
# One wrapping a Deployment (its pod set inferred from replicas) runs its
# replicas on the admitted flavor with no Workload of their own, and deleting
# it takes the Deployment and its pods.
# Usage: appwrapper_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
PROBE=$HERE/job_kinds/probe.py
source "$HERE/lib.sh"
need kubectl python3
scratch kuota-appwrapper

NS=team-aw
start_kuotad --gpus 0
{ two_flavors_yaml; echo ---; two_flavor_queue_yaml "$NS" cq-aw 30m 200m; } |
  k apply -f - >/dev/null || { echo "FAIL apply queues"; exit 1; }

# probe NAME ARGS...: a probe container (40m CPU) waiting for the release
# file; ARGS are the environment patterns it prints.
probe() {
  local name=$1 args=""
  shift
  for a in "$@"; do args+=", \"$a\""; done
  echo "[{name: $name, image: probe, resources: {requests: {cpu: 40m}},
    command: [python3, $PROBE, --wait, $TMP/release, $TAG$args]}]"
}
# appwrapper NAME: an AppWrapper of an Indexed Job (2 pods, its pod set
# declared) and a PyTorchJob (Master and Worker, inferred).
appwrapper() {
  cat <<YAML
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: $1
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low}
spec:
  components:
  - podSets: [{replicas: 2, path: template.spec.template}]
    template:
      apiVersion: batch/v1
      kind: Job
      # A queue name on a component is ignored: the AppWrapper's Workload
      # covers it (Kueue queues the outermost managed job only).
      metadata: {name: $1-side, labels: {kueue.x-k8s.io/queue-name: lq}}
      spec:
        completionMode: Indexed
        completions: 2
        parallelism: 2
        template:
          spec:
            restartPolicy: Never
            containers: $(probe main JOB_COMPLETION_INDEX)
  - template:
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: $1-torch}
      spec:
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            template:
              spec:
                containers: $(probe pytorch MASTER_ADDR MASTER_PORT RANK WORLD_SIZE)
          Worker:
            replicas: 1
            template:
              spec:
                containers: $(probe pytorch MASTER_ADDR RANK WORLD_SIZE)
YAML
}
batch() {
  job_yaml "$NS" "$1" queue=lq priority="$3" backoff=0 grace=1 cmd="sleep 300; true $TAG-$1" \
    requests="cpu: $2"
}
pods() {
  k get pods -n "$NS" -l workload.codeflare.dev/appwrapper=aw \
    -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}' 2>/dev/null | sort
}
running() { pods | grep -c '=Running$'; }
aw() { k get appwrapper -n "$NS" aw -o jsonpath="{$1}" 2>/dev/null; }
wl() {
  k get workloads -n "$NS" -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"aw\")]}{$1}{end}" 2>/dev/null
}
components() {
  echo "$(k get job -n "$NS" aw-side -o name 2>/dev/null) $(k get pytorchjob -n "$NS" aw-torch -o name 2>/dev/null)"
}
admitted() { k get clusterqueue cq-aw -o jsonpath='{.status.admittedWorkloads}' 2>/dev/null; }
until_eq() {  # until_eq SECS WANT CMD...: polls CMD until it prints WANT
  local secs=$1 want=$2; shift 2
  for _ in $(seq 1 $((secs * 5))); do
    [[ $("$@") == "$want" ]] && return 0
    sleep 0.2
  done
  return 1
}

echo "== Invalid AppWrappers: 422 naming the field (the AppWrapper webhook)"
out=$(appwrapper bad | sed 's/path: template.spec.template/path: template.spec.tmpl/' | k create -f - 2>&1 >/dev/null)
contains "a declared pod set path that leads nowhere: 422" \
  "spec.components[0].podSets[0].path: Invalid value: \"template.spec.tmpl\": path does not refer to a v1.PodSpecTemplate" "$out"
out=$(appwrapper bad | sed 's/replicas: 2, path/replicas: 3, path/' | k create -f - 2>&1 >/dev/null)
contains "declared replicas that differ from the Job's: 422" \
  "replica count 3 differs from inferred count 2" "$out"
out=$(appwrapper bad | sed "s/metadata: {name: bad-torch}/metadata: {name: bad-torch, namespace: other}/" | k create -f - 2>&1 >/dev/null)
contains "a component in another namespace: 422" \
  "spec.components[1].template.metadata.namespace: Forbidden" "$out"

echo "== Queued: a filler takes the whole big flavor"
batch filler 200m low | k create -f - >/dev/null
until_eq 20 Running k get pods -n "$NS" -l job-name=filler -o jsonpath='{.items[0].status.phase}' ||
  bad "the filler did not start"
appwrapper aw | k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
until_eq 10 False wl '.status.conditions[?(@.type=="QuotaReserved")].status'
expect_eq "waits in the queue while the quota is used" "False" \
  "$(wl '.status.conditions[?(@.type=="QuotaReserved")].status')"
expect_eq "one Workload pod set per AppWrapper pod set (Job 2, Master 1, Worker 1)" \
  "aw-0:2 aw-1:1 aw-2:1" \
  "$(wl '.spec.podSets[*].name' | tr ' ' '\n' | paste -d: - <(wl '.spec.podSets[*].count' | tr ' ' '\n') | xargs)"
expect_eq "the PyTorchJob's pod sets carry its index label for topology" \
  "training.kubeflow.org/replica-index" "$(wl '.spec.podSets[1].topologyRequest.podIndexLabel')"
expect_eq "suspended while queued" "true" "$(aw '.spec.suspend')"
expect_eq "labelled with its submitter, as the AppWrapper webhook does" "root 0" \
  "$(aw '.metadata.labels.workload\.codeflare\.dev/user') $(aw '.metadata.labels.workload\.codeflare\.dev/userid')"
until_eq 10 Suspended aw '.status.phase'
expect_eq "the AppWrapper controller says Suspended" "Suspended" "$(aw '.status.phase')"
expect_eq "no components while queued" " " "$(components)"

echo "== Admitted on the big flavor: the components run with the placement injected"
k delete job -n "$NS" filler --wait=false >/dev/null
until_eq 40 4 running || bad "the AppWrapper's pods did not all run" "$(pods)"
expect_eq "admitted: the Job's 2 pods and the PyTorchJob's 2 run" 4 "$(running)"
expect_eq "admitted on flavor big" "big" "$(wl '.status.admission.podSetAssignments[0].flavors.cpu')"
contains "Kueue's placement went into spec.components[].podSetInfos" "kuota.dev/pool" \
  "$(aw '.spec.components[1].podSetInfos[1].nodeSelector')"
expect_eq "the components are owned by the AppWrapper" "AppWrapper AppWrapper" \
  "$(k get job -n "$NS" aw-side -o jsonpath='{.metadata.ownerReferences[0].kind}') $(k get pytorchjob -n "$NS" aw-torch -o jsonpath='{.metadata.ownerReferences[0].kind}')"
expect_eq "and labelled with it" "aw" \
  "$(k get job -n "$NS" aw-side -o jsonpath='{.metadata.labels.workload\.codeflare\.dev/appwrapper}')"
expect_eq "the pods run with the flavor's node label" "big big big big" \
  "$(k get pods -n "$NS" -l workload.codeflare.dev/appwrapper=aw -o jsonpath='{.items[*].spec.nodeSelector.kuota\.dev/pool}')"
contains "and tolerate its taint" "kuota.dev/big" \
  "$(k get pods -n "$NS" aw-torch-worker-0 -o jsonpath='{.spec.tolerations[*].key}')"
expect_eq "the components get no Workloads of their own (their parent's covers them)" "1" \
  "$(k get workloads -n "$NS" -o name | grep -c .)"
until_eq 10 Running aw '.status.phase'
expect_eq "phase Running" "Running" "$(aw '.status.phase')"
until_eq 10 True aw '.status.conditions[?(@.type=="PodsReady")].status'
expect_eq "PodsReady" "True" "$(aw '.status.conditions[?(@.type=="PodsReady")].status')"
until_eq 10 True wl '.status.conditions[?(@.type=="PodsReady")].status'
expect_eq "the Workload's PodsReady follows" "True" "$(wl '.status.conditions[?(@.type=="PodsReady")].status')"
table=$(k get aw -n "$NS")
contains "kubectl get aw (its short name) prints the CRD's columns" "QUOTA RESERVED" "$table"
contains "and its phase" "Running" "$table"
logs() { k logs -n "$NS" "$1" 2>&1; }
wait_for 10 WORLD_SIZE logs aw-torch-worker-0
master=$(logs aw-torch-master-0)
worker=$(logs aw-torch-worker-0)
contains "the PyTorchJob's master has rank 0" "ENV RANK=0" "$master"
contains "its worker rank 1" "ENV RANK=1" "$worker"
contains "WORLD_SIZE counts both" "ENV WORLD_SIZE=2" "$worker"
contains "MASTER_ADDR is this machine" "ENV MASTER_ADDR=127.0.0.1" "$worker"
contains "MASTER_PORT is the operator's" "ENV MASTER_PORT=23456" "$master"
side=$(for p in $(k get pods -n "$NS" -l job-name=aw-side -o name); do k logs -n "$NS" "$p"; done 2>&1)
contains "the Job's pods have their completion index" "ENV JOB_COMPLETION_INDEX=1" "$side"
out=$(k patch appwrapper -n "$NS" aw --type json -p '[{"op":"replace","path":"/spec/components/0/template/spec/template/spec/containers/0/image","value":"other"}]' 2>&1)
contains "its components are immutable (the AppWrapper webhook)" \
  "spec.components[0].template.raw: Forbidden: attempt to change immutable field" "$out"

echo "== Preempted by a high-priority Job: the whole AppWrapper stops, then resumes"
batch boss 200m high | k create -f - >/dev/null
until_eq 30 "" pods || bad "the AppWrapper's pods are not gone" "$(pods)"
expect_eq "preempted: every pod is gone" "" "$(pods)"
until_eq 10 " " components
expect_eq "its components are deleted" " " "$(components)"
until_eq 10 Suspended aw '.status.phase'
expect_eq "suspended again, phase Suspended" "true Suspended" "$(aw '.spec.suspend') $(aw '.status.phase')"
contains "the workload says it was preempted" "Preempted" "$(wl '.status.conditions[*].reason')"
expect_eq "Kueue's podSetInfos are cleared" "" "$(aw '.spec.components[1].podSetInfos')"
k delete job -n "$NS" boss --wait=false >/dev/null
until_eq 40 4 running
expect_eq "resumed after the high-priority job left: components made again" 4 "$(running)"

echo "== Finished: Succeeded, quota released"
touch "$TMP/release"
until_eq 30 Succeeded aw '.status.phase'
expect_eq "the AppWrapper Succeeded" "Succeeded" "$(aw '.status.phase')"
until_eq 20 0 admitted
expect_eq "quota released" "0" "$(admitted)"
until_eq 10 True wl '.status.conditions[?(@.type=="Finished")].status'
expect_eq "its workload is Finished" "True" "$(wl '.status.conditions[?(@.type=="Finished")].status')"
k delete appwrapper -n "$NS" aw --wait=false >/dev/null
until_eq 10 " " components
expect_eq "deleting the AppWrapper deletes its components" " " "$(components)"
echo "== Success TTL: a Succeeded AppWrapper's components are deleted once it passed"
cat <<YAML | k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: brief
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {workload.codeflare.dev.appwrapper/successTTLDuration: 2s}
spec:
  components:
  - template:
      apiVersion: v1
      kind: Pod
      metadata: {name: brief}
      spec:
        restartPolicy: Never
        containers: [{name: main, image: busybox, command: [sh, -c, "true $TAG"],
                      resources: {requests: {cpu: 40m}}}]
YAML
brief() { k get appwrapper -n "$NS" brief -o jsonpath="{$1}" 2>/dev/null; }
brief_pod() { k get pod -n "$NS" brief -o name 2>/dev/null; }
until_eq 30 Succeeded brief '.status.phase'
expect_eq "a Pod component that exits 0: Succeeded" "Succeeded" "$(brief '.status.phase')"
until_eq 15 "" brief_pod
expect_eq "its pod is deleted once the 2s success TTL passed" "" "$(brief_pod)"
until_eq 5 False brief '.status.conditions[?(@.type=="ResourcesDeployed")].status'
contains "ResourcesDeployed says so" "Time to live after success of 2s expired" \
  "$(brief '.status.conditions[?(@.type=="ResourcesDeployed")].message')"

echo "== A Deployment component (serving behind an AppWrapper): admitted whole, it runs its replicas"
cat <<YAML | k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: serve
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  components:
  - template:
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: serve-web}
      spec:
        replicas: 2
        selector: {matchLabels: {app: serve-web}}
        template:
          metadata: {labels: {app: serve-web}}
          spec:
            terminationGracePeriodSeconds: 1
            containers: [{name: main, image: busybox, command: [sh, -c, "sleep 300; true $TAG"],
                          resources: {requests: {cpu: 40m}}}]
YAML
serve() { k get appwrapper -n "$NS" serve -o jsonpath="{$1}" 2>/dev/null; }
serve_wl() {
  k get workloads -n "$NS" -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="serve")]}{.spec.podSets[*].name}:{.spec.podSets[*].count}{"\n"}{end}'
}
serve_running() { k get pods -n "$NS" -l app=serve-web --no-headers 2>/dev/null | grep -c Running; }
until_eq 20 "serve-0:2" serve_wl
expect_eq "its Workload has the Deployment's pod set, inferred (replicas 2)" "serve-0:2" "$(serve_wl)"
until_eq 30 Running serve '.status.phase'
expect_eq "the AppWrapper runs" "Running" "$(serve '.status.phase')"
until_eq 20 2 serve_running
expect_eq "the Deployment's 2 pods run" 2 "$(serve_running)"
expect_eq "they run on the big flavor" "big big" \
  "$(k get pods -n "$NS" -l app=serve-web -o jsonpath='{.items[*].spec.nodeSelector.kuota\.dev/pool}')"
expect_eq "no Workload of their own (the AppWrapper's covers them)" "1" \
  "$(k get workloads -n "$NS" --no-headers | grep -c -- '-serve-\|serve-web')"
k delete appwrapper -n "$NS" serve --wait=false >/dev/null
until_eq 20 0 serve_running
expect_eq "deleting the AppWrapper stops the Deployment's pods" 0 "$(serve_running)"
expect_eq "... and deletes the Deployment" "" "$(k get deploy -n "$NS" serve-web -o name 2>/dev/null)"

echo "== A component kuotad cannot create: the AppWrapper fails and frees its quota"
cat <<YAML | k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: widget
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  components:
  - podSets: [{replicas: 1, path: template.spec.template}]
    template:
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: widget}
      spec:
        template:
          spec:
            containers: $(probe main)
YAML
widget() { k get appwrapper -n "$NS" widget -o jsonpath="{$1}" 2>/dev/null; }
until_eq 20 Failed widget '.status.phase'
expect_eq "an unknown component kind fails the AppWrapper" "Failed" "$(widget '.status.phase')"
contains "Unhealthy says why (CreateFailed, the API's NoMatch)" \
  'CreateFailed error creating components: no matches for kind "Widget" in version "example.com/v1"' \
  "$(widget '.status.conditions[?(@.type=="Unhealthy")].reason') $(widget '.status.conditions[?(@.type=="Unhealthy")].message')"
until_eq 20 0 admitted
expect_eq "its quota is released" "0" "$(admitted)"
echo "== Fault tolerance: a failed component resets the AppWrapper, up to its retryLimit"
cat <<YAML | k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: flaky
  namespace: $NS
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations:
    workload.codeflare.dev.appwrapper/retryLimit: "1"
    workload.codeflare.dev.appwrapper/retryPausePeriodDuration: 1s
spec:
  components:
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: flaky}
      spec:
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers: [{name: main, image: busybox, command: [sh, -c, "exit 3"],
                          resources: {requests: {cpu: 40m}}}]
YAML
flaky() { k get appwrapper -n "$NS" flaky -o jsonpath="{$1}" 2>/dev/null; }
until_eq 40 Failed flaky '.status.phase'
expect_eq "the failed Job reset the AppWrapper once, then it failed" "Failed 1" \
  "$(flaky '.status.phase') $(flaky '.status.resettingCount')"
expect_eq "Unhealthy: FailedComponent" "FailedComponent" \
  "$(flaky '.status.conditions[?(@.type=="Unhealthy")].reason')"
contains "the reset is in the AppWrapper's events" "Found 1 failed components" \
  "$(k get events -n "$NS" --field-selector involvedObject.name=flaky 2>&1)"
flaky_job() { k get job -n "$NS" flaky -o name 2>/dev/null; }
until_eq 10 "" flaky_job
expect_eq "its component is deleted" "" "$(flaky_job)"
until_eq 20 0 admitted
expect_eq "its quota is released" "0" "$(admitted)"
# The same with exit code 3 declared terminal: no reset at all.
k get appwrapper -n "$NS" flaky -o json |
  python3 -c 'import json,sys; o=json.load(sys.stdin); a=o["metadata"]["annotations"]; a.pop("workload.codeflare.dev.appwrapper/retryLimit"); a["workload.codeflare.dev.appwrapper/terminalExitCodes"]="3"; a["workload.codeflare.dev.appwrapper/deletionOnFailureGracePeriodDuration"]="3s"; print(json.dumps({"apiVersion": o["apiVersion"], "kind": o["kind"], "metadata": {"name": "terminal", "namespace": o["metadata"]["namespace"], "labels": {"kueue.x-k8s.io/queue-name": "lq"}, "annotations": a}, "spec": {"components": [{"template": dict(o["spec"]["components"][0]["template"], metadata={"name": "terminal"})}]}}))' |
  k create -f - >/dev/null 2>"$TMP/err" || bad "create failed" "$(cat "$TMP/err")"
terminal() { k get appwrapper -n "$NS" terminal -o jsonpath="{$1}" 2>/dev/null; }
until_eq 40 Failed terminal '.status.phase'
expect_eq "a terminal exit code (terminalExitCodes) fails it without a reset" "Failed " \
  "$(terminal '.status.phase') $(terminal '.status.resettingCount')"
terminal_job() { k get job -n "$NS" terminal -o name 2>/dev/null; }
expect_eq "deletionOnFailureGracePeriodDuration keeps its Job for debugging" "job.batch/terminal" \
  "$(terminal_job)"
expect_eq "and its quota meanwhile" "1" "$(admitted)"
until_eq 15 "" terminal_job
expect_eq "then deletes it" "" "$(terminal_job)"
until_eq 10 0 admitted
expect_eq "and releases the quota" "0" "$(admitted)"
echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
