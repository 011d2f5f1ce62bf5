#!/usr/bin/env bash
# End-to-end, one kuotad, every group job kind at once (each in its own
# namespace and ClusterQueue): with the real kubectl and real local processes,
# each kind is submitted, waits in the queue, is admitted on the right flavor,
# runs with the environment its operator gives (tests/e2e/job_kinds/probe.py
# prints it; PyTorch and XGBoost ranks meet at MASTER_ADDR:MASTER_PORT), is
# preempted by a high-priority Job (suspended, pods gone), resumes, finishes,
# and its quota is released. Invalid manifests get 422 with the field path.
# Usage: job_kinds_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
PROBE=$HERE/job_kinds/probe.py
source "$HERE/lib.sh"
need kubectl python3
scratch kuota-kinds   # TAG marks this run's processes (in their arguments)

KINDS=(pytorchjob tfjob mpijob jaxjob paddlejob xgboostjob raycluster rayservice rayjob jobset vcjob
  sparkapplication)

# CPU: each kind's ClusterQueue has a "tiny" flavor (30m) no pod set fits
# and a "big" one (150m) a whole job fits; a filler or boss Job takes all of
# big. Every kind's 150m must fit together on a 2-CPU machine (the local node).
# container NAME ARGS...: one probe container (40m CPU) waiting for the kind's
# release file; ARGS are the environment patterns it prints.
container() {
  local name=$1 kind=$2; shift 2
  local args=""
  for a in "$@"; do args+=", \"$a\""; done
  cat <<YAML
          - name: $name
            image: probe
            command: ["python3", "$PROBE", "--wait", "$TMP/release-$kind", "$TAG-$kind"$args]
            resources: {requests: {cpu: 40m}}
YAML
}

manifest() {
  local kind=$1 ns=ns-$1
  local meta="  namespace: $ns
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low}"
  case $kind in
    pytorchjob) cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: dist
$meta
spec:
  runPolicy: {suspend: true}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
$(container pytorch "$kind" --rendezvous "MASTER_ADDR" "MASTER_PORT" "RANK" "WORLD_SIZE" "PET_*")
    Worker:
      replicas: 1
      template:
        spec:
          containers:
$(container pytorch "$kind" --rendezvous "RANK" "WORLD_SIZE")
YAML
    ;;
    tfjob) cat <<YAML
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: dist
$meta
spec:
  tfReplicaSpecs:
    Chief:
      replicas: 1
      template:
        spec:
          containers:
$(container tensorflow "$kind" TF_CONFIG)
    Worker:
      replicas: 1
      template:
        spec:
          containers:
$(container tensorflow "$kind" TF_CONFIG)
YAML
    ;;
    mpijob) cat <<YAML
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: dist
$meta
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
$(container launcher "$kind" MPI_HOSTFILE_CONTENT K_MPI_JOB_ROLE)
    Worker:
      replicas: 2
      template:
        spec:
          containers:
$(container worker "$kind" K_MPI_JOB_ROLE)
YAML
    ;;
    jaxjob) cat <<YAML
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: dist
$meta
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
$(container jax "$kind" COORDINATOR_ADDRESS COORDINATOR_PORT NUM_PROCESSES PROCESS_ID)
YAML
    ;;
    paddlejob) cat <<YAML
apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata:
  name: dist
$meta
spec:
  paddleReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
$(container paddle "$kind" "PADDLE_*" POD_IP_DUMMY)
    Worker:
      replicas: 1
      template:
        spec:
          containers:
$(container paddle "$kind" "PADDLE_*" POD_IP_DUMMY)
YAML
    ;;
    xgboostjob) cat <<YAML
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata:
  name: dist
$meta
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
$(container xgboost "$kind" --rendezvous MASTER_ADDR MASTER_PORT RANK WORLD_SIZE "WORKER_*")
    Worker:
      replicas: 1
      template:
        spec:
          containers:
$(container xgboost "$kind" --rendezvous RANK WORLD_SIZE "WORKER_*")
YAML
    ;;
    raycluster) cat <<YAML
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: dist
$meta
spec:
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
$(container ray-head "$kind" RAY_PORT RAY_NODE_TYPE_NAME | sed 's/^  //')
  workerGroupSpecs:
  - groupName: workers
    replicas: 1
    minReplicas: 1
    maxReplicas: 1
    rayStartParams: {}
    template:
      spec:
        containers:
$(container ray-worker "$kind" RAY_ADDRESS RAY_NODE_TYPE_NAME | sed 's/^  //')
YAML
    ;;
    rayservice) cat <<YAML
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: dist
$meta
spec:
  serveConfigV2: |
    applications: []
  rayClusterConfig:
    enableInTreeAutoscaling: false
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
$(container ray-head "$kind" RAY_PORT RAY_CLUSTER_NAME)
    workerGroupSpecs:
    - groupName: workers
      replicas: 1
      rayStartParams: {}
      template:
        spec:
          containers:
$(container ray-worker "$kind" RAY_ADDRESS RAY_CLUSTER_NAME)
YAML
    ;;
    rayjob) cat <<YAML
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: dist
$meta
spec:
  entrypoint: python3 $PROBE --wait $TMP/release-$kind $TAG-$kind RAY_ADDRESS RAY_JOB_SUBMISSION_ID
  shutdownAfterJobFinishes: true
  submitterPodTemplate:
    spec:
      restartPolicy: Never
      containers:
      - name: submitter
        image: probe
        resources: {requests: {cpu: 40m}}
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
$(container ray-head "$kind" RAY_PORT)
    workerGroupSpecs:
    - groupName: workers
      replicas: 1
      rayStartParams: {}
      template:
        spec:
          containers:
$(container ray-worker "$kind" RAY_ADDRESS)
YAML
    ;;
    jobset) cat <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: dist
$meta
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 1
        completions: 1
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
$(container worker "$kind" "JOB_COMPLETION_INDEX" | sed 's/^/  /')
YAML
    ;;
    sparkapplication) cat <<YAML
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: dist
$meta
spec:
  type: Python
  mode: cluster
  sparkVersion: "3.5.0"
  image: probe
  mainApplicationFile: local:///opt/app/pi.py
  driver:
    coreRequest: 40m
    memory: 64m
    template:
      spec:
        containers:
$(container spark-kubernetes-driver "$kind" SPARK_APPLICATION_ID SPARK_DRIVER_BIND_ADDRESS | sed 's/^  //')
  executor:
    instances: 2
    coreRequest: 40m
    memory: 64m
    template:
      spec:
        containers:
$(container spark-kubernetes-executor "$kind" "SPARK_*" | sed 's/^  //')
YAML
    ;;
    vcjob) vcjob_yaml dist "$meta" "  plugins: {svc: [], env: []}" \
      "$(container worker "$kind" VC_TASK_INDEX VK_TASK_INDEX VC_WORKER_HOSTS VC_WORKER_NUM | sed 's/^  //')"
    ;;
  esac
}

# resource and suspend field of each kind, for kubectl get
res() {
  case $1 in
    vcjob) echo jobs.batch.volcano.sh ;;
    *) echo "$1" ;;
  esac
}
suspend_path() {
  case $1 in
    pytorchjob|tfjob|mpijob|jaxjob|paddlejob|xgboostjob) echo '{.spec.runPolicy.suspend}' ;;
    *) echo '{.spec.suspend}' ;;
  esac
}

# batch NS NAME CPU PRIORITY: a one-pod Job taking CPU from the queue.
batch() {
  job_yaml "$1" "$2" queue=lq priority="$4" backoff=0 grace=1 cmd="sleep 300; true $TAG-$2" requests="cpu: $3"
}

# One snapshot of every namespace's pods, workloads and suspend fields (a
# handful of kubectl calls, not a handful per kind); the accessors below read it.
snap() {
  k get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace}|{.metadata.labels.kuota\.dev/job-name}|{.metadata.labels.job-name}|{.metadata.name}|{.status.phase}|{.spec.nodeSelector.kuota\.dev/pool}|{.spec.tolerations[*].key}{"\n"}{end}' >"$TMP/pods" 2>/dev/null
  k get workloads -A -o jsonpath='{range .items[*]}{.metadata.namespace}|{.metadata.ownerReferences[0].name}|{.status.conditions[?(@.type=="QuotaReserved")].status}|{.status.conditions[?(@.type=="Finished")].status}|{.status.admission.podSetAssignments[0].flavors.cpu}|{.status.conditions[*].reason}|{.metadata.name}{"\n"}{end}' >"$TMP/workloads" 2>/dev/null
  { k get pytorchjobs,tfjobs,mpijobs,jaxjobs,paddlejobs,xgboostjobs -A -o jsonpath='{range .items[*]}{.metadata.namespace}|{.spec.runPolicy.suspend}{"\n"}{end}'
    k get rayclusters,rayjobs,jobsets,jobs.batch.volcano.sh,sparkapplications -A -o jsonpath='{range .items[*]}{.metadata.namespace}|{.spec.suspend}{"\n"}{end}'
    k get rayservices -A -o jsonpath='{range .items[*]}{.metadata.namespace}|{.spec.rayClusterConfig.suspend}{"\n"}{end}'
  } >"$TMP/suspend" 2>/dev/null
  k get clusterqueues -o jsonpath='{range .items[*]}{.metadata.name}|{.status.admittedWorkloads}{"\n"}{end}' >"$TMP/cqs" 2>/dev/null
}
pods_of() { awk -F'|' -v ns="ns-$1" '$1==ns && $2=="dist" {print $4"="$5}' "$TMP/pods"; }
running_pods() { pods_of "$1" | grep -c '=Running$'; }
batch_running() { awk -F'|' -v ns="ns-$1" -v j="$2" '$1==ns && $3==j && $5=="Running"' "$TMP/pods" | wc -l; }
pod_field() { awk -F'|' -v ns="ns-$1" -v f="$2" '$1==ns && $2=="dist" {print $f; exit}' "$TMP/pods"; }
wl_field() { awk -F'|' -v ns="ns-$1" -v f="$2" '$1==ns && $2=="dist" {print $f}' "$TMP/workloads"; }
suspended() { awk -F'|' -v ns="ns-$1" '$1==ns {print $2}' "$TMP/suspend"; }
admitted() { awk -F'|' -v cq="cq-$1" '$1==cq {print $2}' "$TMP/cqs"; }
want_pods() {
  case $1 in mpijob|rayjob|sparkapplication) echo 3 ;; *) echo 2 ;; esac
}
# every_kind SECS CHECK...: snapshots until `CHECK kind` succeeds for every kind.
every_kind() {
  local secs=$1 t0=$SECONDS; shift
  for _ in $(seq 1 $((secs * 4))); do
    snap
    local all=1
    for kind in "${KINDS[@]}"; do "$@" "$kind" || { all=0; break; }; done
    ((all)) && { echo "   ($* held after $((SECONDS - t0))s)"; return 0; }
    sleep 0.25
  done
  echo "   ($* did not hold in ${secs}s)"
  return 1
}
all_running() { [[ $(running_pods "$1") == "$(want_pods "$1")" ]]; }
no_pods() { [[ -z $(pods_of "$1") ]]; }
batch_runs() { [[ $(batch_running "$1" "$JOB") == 1 ]]; }
released() { [[ $(admitted "$1") == 0 ]]; }
# quota released and (but for a RayCluster or RayService, which serve until
# deleted) the Workload Finished: the two are written apart, so wait for both.
serves() { [[ $1 == raycluster || $1 == rayservice ]]; }
done_and_released() { released "$1" && { serves "$1" || [[ $(wl_field "$1" 4) == True ]]; }; }
queued() { [[ $(wl_field "$1" 3) == False ]]; }
is_suspended() { [[ $(suspended "$1") == true ]]; }

section() { echo "== $1 (at ${SECONDS}s)"; }
start_kuotad --gpus 0
# Two flavors: "tiny" is too small for any of the jobs, "big" fits one.
two_flavors_yaml | k apply -f - >/dev/null || { echo "FAIL apply flavors"; exit 1; }
# A SparkApplication's pods ask for memory as well (the operator's "memory"):
# its queue covers memory too, plenty of it on both flavors.
spark_memory() {
  sed -e 's/coveredResources: \[cpu\]/coveredResources: [cpu, memory]/' \
    -e 's/\(nominalQuota: [0-9]*m}\)\]/\1, {name: memory, nominalQuota: 4Gi}]/'
}
for kind in "${KINDS[@]}"; do
  two_flavor_queue_yaml "ns-$kind" "cq-$kind" 30m 150m |
    if [[ $kind == sparkapplication ]]; then spark_memory; else cat; fi | k apply -f - >/dev/null ||
    { echo "FAIL apply queues for $kind"; exit 1; }
done

# --- Invalid manifests: 422 naming the field -----------------------------------
section "Invalid manifests: 422 naming the field"
invalid() {
  local what=$1 want=$2 out
  out=$(k create -f - 2>&1 >/dev/null)
  contains "$what" "$want" "$out"
}
manifest pytorchjob | sed '/^    Master:/,/^    Worker:/{/^    Worker:/!d}' |
  invalid "a PyTorchJob without Master: 422 naming the field" "spec.pytorchReplicaSpecs.Master"
manifest vcjob | sed 's/minAvailable: 2/minAvailable: 3/' |
  invalid "a Volcano Job whose minAvailable exceeds its replicas: 422" "spec.minAvailable"
manifest raycluster | sed 's/^  headGroupSpec:/  headless:/' |
  invalid "a RayCluster without headGroupSpec: 422 naming the field" "spec.headGroupSpec"
manifest rayservice | sed 's/enableInTreeAutoscaling: false/enableInTreeAutoscaling: true/' |
  invalid "a queued RayService with autoscaling: 422 naming the field (Kueue's rule)" \
  "spec.rayClusterConfig.enableInTreeAutoscaling: Invalid value: true"
manifest xgboostjob | sed '/^    Master:/,/^    Worker:/{/^    Worker:/!d}' |
  invalid "an XGBoostJob without Master: 422 naming the field" \
  "spec.xgbReplicaSpecs.Master: Required value: must be present"
manifest jaxjob | sed 's/- name: jax$/- name: main/' |
  invalid "a JAXJob without a jax container: 422 naming the field" \
  "spec.jaxReplicaSpecs.Worker.template.spec.containers: Required value"
manifest sparkapplication | sed 's/mode: cluster/mode: client/' |
  invalid "a queued SparkApplication in client mode: 422 naming the field (Kueue's rule)" \
  "spec.mode: Invalid value: \"client\": only Cluster mode is supported for a kueue managed job"
manifest sparkapplication | sed 's/memory: 64m/memory: lots/' |
  invalid "a SparkApplication whose memory is no quantity: 422 naming the field" \
  "spec.driver.memory: Invalid value: \"lots\""
manifest jobset | sed 's/replicas: 2/replicas: -1/' |
  invalid "a JobSet with negative replicas: 422 naming the field" "spec.replicatedJobs[0].replicas"

# --- Queued: a filler takes the whole big flavor -------------------------------
section "Queued: a filler takes the whole big flavor"
for kind in "${KINDS[@]}"; do batch "ns-$kind" filler 150m low; echo ---; done | k create -f - >/dev/null
JOB=filler every_kind 30 batch_runs || bad "the fillers did not all start" "$(cat "$TMP/pods")"
for kind in "${KINDS[@]}"; do manifest "$kind"; echo ---; done | k create -f - >/dev/null 2>"$TMP/err" ||
  bad "create failed" "$(cat "$TMP/err")"
every_kind 10 queued
for kind in "${KINDS[@]}"; do
  expect_eq "$kind: waits in the queue while the quota is used (QuotaReserved)" "False" "$(wl_field "$kind" 3)"
  expect_eq "$kind: no pods while queued" "" "$(pods_of "$kind")"
  expect_eq "$kind: is suspended while queued" "true" "$(suspended "$kind")"
done
for kind in "${KINDS[@]}"; do echo "ns-$kind"; done | xargs -I{} -P ${#KINDS[@]} kubectl --kubeconfig "$TMP/kubeconfig" delete job -n {} filler --wait=false >/dev/null

# --- Admitted on the big flavor, every pod runs with its operator's env --------
section "Admitted on the big flavor, every pod runs with its operator's env"
every_kind 40 all_running || bad "the jobs' pods did not all run" "$(cat "$TMP/pods")"
for kind in "${KINDS[@]}"; do
  expect_eq "$kind: admitted, all $(want_pods "$kind") pods run" "$(want_pods "$kind")" "$(running_pods "$kind")"
  expect_eq "$kind: admitted on flavor big" "big" "$(wl_field "$kind" 5)"
  expect_eq "$kind: pod runs with the flavor's node label" "big" "$(pod_field "$kind" 6)"
  contains "$kind: pod tolerates the flavor's taint" "kuota.dev/big" "$(pod_field "$kind" 7)"
done
logs() { k logs -n "ns-$1" "$2" 2>&1; }
wait_for 30 RENDEZVOUS logs pytorchjob dist-worker-0
contains "pytorchjob: master env" "ENV MASTER_ADDR=127.0.0.1" "$(logs pytorchjob dist-master-0)"
contains "pytorchjob: master is rank 0 of 2" "ENV RANK=0" "$(logs pytorchjob dist-master-0)"
contains "pytorchjob: torchrun's PET_NNODES" "ENV PET_NNODES=2" "$(logs pytorchjob dist-master-0)"
contains "pytorchjob: worker is rank 1" "ENV RANK=1" "$(logs pytorchjob dist-worker-0)"
contains "pytorchjob: both ranks met at MASTER_ADDR:MASTER_PORT" "RENDEZVOUS rank=1 world=2 peers=0,1" \
  "$(logs pytorchjob dist-worker-0)"
contains "tfjob: TF_CONFIG names the chief and this task" '"task":{"index":0,"type":"worker"}' \
  "$(logs tfjob dist-worker-0 | tr -d ' ')"
contains "tfjob: TF_CONFIG lists the cluster" '"chief":[' "$(logs tfjob dist-chief-0 | tr -d ' ')"
jax1=$(logs jaxjob dist-worker-1)
contains "jaxjob: worker 1 is process 1" "ENV PROCESS_ID=1" "$jax1"
contains "jaxjob: of 2 processes" "ENV NUM_PROCESSES=2" "$jax1"
contains "jaxjob: the coordinator's address" "ENV COORDINATOR_ADDRESS=127.0.0.1" "$jax1"
contains "jaxjob: the coordinator's port (jaxjob-port)" "ENV COORDINATOR_PORT=6666" "$jax1"
contains "jaxjob: worker 0 is process 0" "ENV PROCESS_ID=0" "$(logs jaxjob dist-worker-0)"
paddle_m=$(logs paddlejob dist-master-0)
paddle_w=$(logs paddlejob dist-worker-0)
contains "paddlejob: the worker knows the master's endpoint" "ENV PADDLE_MASTER=127.0.0.1:36543" "$paddle_w"
contains "paddlejob: the master's endpoint is its own" "ENV PADDLE_MASTER=127.0.0.1:36543" "$paddle_m"
contains "paddlejob: the job's id" "ENV PADDLE_JOB_ID=dist" "$paddle_m"
contains "paddlejob: the job's size" "ENV PADDLE_NNODES=2" "$paddle_w"
contains "paddlejob: the master is the parameter server" "ENV PADDLE_SERVER_NUM=1" "$paddle_m"
contains "paddlejob: the worker is a trainer" "ENV PADDLE_TRAINER_NUM=1" "$paddle_w"
contains "paddlejob: the master has POD_IP_DUMMY" "ENV POD_IP_DUMMY=127.0.0.1" "$paddle_m"
wait_for 30 RENDEZVOUS logs xgboostjob dist-worker-0
contains "xgboostjob: the worker is rank 1, after the master" "ENV RANK=1" "$(logs xgboostjob dist-worker-0)"
contains "xgboostjob: worker addresses" "ENV WORKER_ADDRS=127.0.0.1" "$(logs xgboostjob dist-master-0)"
contains "xgboostjob: both ranks met at MASTER_ADDR:MASTER_PORT" "RENDEZVOUS rank=1 world=2 peers=0,1" \
  "$(logs xgboostjob dist-worker-0)"
contains "mpijob: the launcher gets the hostfile" "slots=1" "$(logs mpijob dist-launcher-0)"
contains "mpijob: the worker knows its role" "ENV K_MPI_JOB_ROLE=worker" "$(logs mpijob dist-worker-1)"
head=$(pods_of raycluster | grep head | cut -d= -f1)
worker=$(pods_of raycluster | grep worker | cut -d= -f1)
contains "raycluster: the head gets its port" "ENV RAY_PORT=6379" "$(logs raycluster "$head")"
contains "raycluster: workers get the head's address" "ENV RAY_ADDRESS=127.0.0.1:6379" "$(logs raycluster "$worker")"
head=$(pods_of rayservice | grep head | cut -d= -f1)
worker=$(pods_of rayservice | grep worker | cut -d= -f1)
contains "rayservice: the head gets its port" "ENV RAY_PORT=6379" "$(logs rayservice "$head")"
contains "rayservice: workers get the head's address" "ENV RAY_ADDRESS=127.0.0.1:6379" \
  "$(logs rayservice "$worker")"
contains "rayservice: its RayCluster's name" "ENV RAY_CLUSTER_NAME=dist-raycluster" \
  "$(logs rayservice "$worker")"
wait_for 10 Running k get rayservices -n ns-rayservice
contains "kubectl get rayservices shows Running" "Running" "$(k get rayservices -n ns-rayservice)"
sub=$(pods_of rayjob | grep -v -e head -e worker | cut -d= -f1)
contains "rayjob: the entrypoint runs against the cluster" "ENV RAY_ADDRESS=127.0.0.1:6379" \
  "$(logs rayjob "$sub")"
contains "jobset: each job knows its index" "ENV JOB_COMPLETION_INDEX=0" "$(logs jobset dist-workers-1-0)"
contains "vcjob: VC_TASK_INDEX" "ENV VC_TASK_INDEX=1" "$(logs vcjob dist-worker-1)"
contains "vcjob: the svc plugin's host list" "ENV VC_WORKER_NUM=2" "$(logs vcjob dist-worker-1)"
spark_id=$(k get sparkapplication -n ns-sparkapplication dist -o jsonpath='{.status.sparkApplicationId}')
contains "sparkapplication: the driver knows the application's id" \
  "ENV SPARK_APPLICATION_ID=$spark_id" "$(logs sparkapplication dist-driver)"
contains "sparkapplication: the driver binds here" "ENV SPARK_DRIVER_BIND_ADDRESS=127.0.0.1" \
  "$(logs sparkapplication dist-driver)"
spark_exec=$(logs sparkapplication dist-exec-2)
contains "sparkapplication: executor 2's id" "ENV SPARK_EXECUTOR_ID=2" "$spark_exec"
contains "sparkapplication: executors reach the driver" \
  "ENV SPARK_DRIVER_URL=spark://CoarseGrainedScheduler@127.0.0.1:7078" "$spark_exec"
contains "sparkapplication: executors share the id" "ENV SPARK_APPLICATION_ID=$spark_id" "$spark_exec"
contains "sparkapplication: the executor's memory, as Spark writes it" \
  "ENV SPARK_EXECUTOR_MEMORY=64m" "$spark_exec"
expect_eq "sparkapplication: Spark's role label on the executors" "dist-exec-1 dist-exec-2" \
  "$(k get pods -n ns-sparkapplication -l spark-role=executor,spark-app-selector="$spark_id" \
     -o jsonpath='{.items[*].metadata.name}')"
wait_for 10 RUNNING k get sparkapp -n ns-sparkapplication
contains "kubectl get sparkapp shows RUNNING" "RUNNING" "$(k get sparkapp -n ns-sparkapplication)"

# --- Preempted by a high-priority Job: the whole job stops, then resumes -------
section "Preempted by a high-priority Job: the whole job stops, then resumes"
for kind in "${KINDS[@]}"; do batch "ns-$kind" boss 150m high; echo ---; done | k create -f - >/dev/null
every_kind 30 no_pods
every_kind 10 is_suspended
JOB=boss every_kind 20 batch_runs
for kind in "${KINDS[@]}"; do
  expect_eq "$kind: preempted, every pod is gone" "" "$(pods_of "$kind")"
  expect_eq "$kind: suspended again while evicted" "true" "$(suspended "$kind")"
  contains "$kind: the workload says it was preempted" "Preempted" "$(wl_field "$kind" 6)"
  expect_eq "$kind: the high-priority job runs" 1 "$(batch_running "$kind" boss)"
done
for kind in "${KINDS[@]}"; do echo "ns-$kind"; done | xargs -I{} -P ${#KINDS[@]} kubectl --kubeconfig "$TMP/kubeconfig" delete job -n {} boss --wait=false >/dev/null
every_kind 40 all_running
for kind in "${KINDS[@]}"; do
  expect_eq "$kind: resumed after the high-priority job left" "$(want_pods "$kind")" "$(running_pods "$kind")"
done

# --- Finished: quota released --------------------------------------------------
section "Finished: quota released"
for kind in "${KINDS[@]}"; do
  serves "$kind" || touch "$TMP/release-$kind"
done
# A cluster or a service serves until deleted.
k delete raycluster -n ns-raycluster dist --wait=false >/dev/null
k delete rayservice -n ns-rayservice dist --wait=false >/dev/null
every_kind 40 done_and_released
for kind in "${KINDS[@]}"; do
  expect_eq "$kind: finished, quota released" "0" "$(admitted "$kind")"
  serves "$kind" && continue
  expect_eq "$kind: its workload is Finished" "True" "$(wl_field "$kind" 4)"
done
contains "kubectl get pytorchjob shows Succeeded" "Succeeded" "$(k get pytorchjob -n ns-pytorchjob dist)"
contains "kubectl get tfjobs shows Succeeded" "Succeeded" "$(k get tfjobs -n ns-tfjob)"
for kind in jaxjob paddlejob xgboostjob; do
  contains "kubectl get ${kind}s shows Succeeded" "Succeeded" "$(k get "${kind}s" -n "ns-$kind")"
done
# mpi-operator's CRD prints no status column: read the condition.
expect_eq "the MPIJob's Succeeded condition" "True" \
  "$(k get mpijob -n ns-mpijob dist -o jsonpath='{.status.conditions[?(@.type=="Succeeded")].status}')"
contains "kubectl get rayjobs shows SUCCEEDED" "SUCCEEDED" "$(k get rayjobs -n ns-rayjob)"
contains "kubectl get jobsets shows Completed" "True" "$(k get jobsets -n ns-jobset)"
contains "kubectl get vcjob shows Completed" "Completed" "$(k get jobs.batch.volcano.sh -n ns-vcjob)"
spark_row=$(k get sparkapplications -n ns-sparkapplication dist)
contains "kubectl get sparkapplications shows COMPLETED" "COMPLETED" "$spark_row"
contains "kubectl get sparkapplications prints the operator's columns" \
  "NAME SUSPEND STATUS ATTEMPTS START FINISH AGE" "$(head -1 <<<"$spark_row" | tr -s ' ')"
expect_eq "the SparkApplication ran twice (preempted once)" "2" \
  "$(k get sparkapplication -n ns-sparkapplication dist -o jsonpath='{.status.executionAttempts}')"

# --- A driver with no command of its own runs spark-submit ---------------------
section "A SparkApplication without a command runs spark-submit, or fails saying so"
manifest sparkapplication | sed -e 's/name: dist/name: nocmd/' -e '/kueue.x-k8s.io\/queue-name/d' \
  -e '/^    template:/,/^  executor:/{/^  executor:/!d}' -e '/^  executor:/,$d' >"$TMP/nocmd.yaml"
printf '  executor: {instances: 1, coreRequest: 40m, memory: 64m}\n' >>"$TMP/nocmd.yaml"
k create -f "$TMP/nocmd.yaml" >/dev/null || bad "create nocmd" "$(cat "$TMP/nocmd.yaml")"
if command -v spark-submit >/dev/null; then
  echo "   (spark-submit is installed here: not checking its absence)"
else
  wait_for 30 FAILED k get sparkapp -n ns-sparkapplication nocmd
  contains "without spark-submit the application FAILS, naming it" \
    'executable "spark-submit" not found' \
    "$(k get sparkapp -n ns-sparkapplication nocmd -o jsonpath='{.status.applicationState.errorMessage}')"
fi

echo "passed $PASS, failed $FAIL"
[[ $FAIL -eq 0 ]]
