#!/usr/bin/env bash
# Elastic Jobs on kuotad with the real kubectl (Kueue's
# ElasticJobsViaWorkloadSlices; docs/job-kinds.md): a batch Job annotated
# kueue.x-k8s.io/elastic-job: "true" waits behind a filler, is admitted on
# the flavor that fits (big), runs 2 pods; scaled to 4 while big is short it
# gets a replacement slice that waits (the 2 new pods gated, the first 2
# running on); once quota frees the slice is admitted, the old one finished
# as WorkloadSliceReplaced, the new pods ungated, and the first two pods
# never restarted (same PIDs, alive); the ClusterQueue counts 4 pods, never
# 6. A scale-down updates the slice in place and frees quota at once;
# preemption suspends the Job whole and it comes back; the finished Job
# releases everything.
# Usage: elastic_job_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-elastic
start_kuotad
{ two_flavors_yaml; echo ---; two_flavor_queue_yaml ml cq 100m 500m; } | k apply -f - >/dev/null ||
  { echo "FAIL apply queues"; exit 1; }
DIR=$TMP/pods
mkdir -p "$DIR"
# A filler of all of big's 500m.
job_yaml ml filler queue=lq cmd="sleep 1000" requests="cpu: 500m" | k apply -f - >/dev/null
eventually "the filler is admitted" 20 "True" \
  k get workloads -n ml -o jsonpath='{.items[0].status.conditions[?(@.type=="Admitted")].status}'
# Each pod writes its PID (exec keeps it) and runs until $DIR/done exists
# (\$\$\$\$: Kubernetes' command expansion makes it the shell's $$).
k apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: elastic
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        env: [{name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
        command: ["sh", "-c", "echo \$\$\$\$ > $DIR/pid-\$POD; exec sh -c 'while [ ! -e $DIR/done ]; do sleep 0.2; done'"]
        resources: {requests: {cpu: 100m}}
YAML
gates=$(k get job -n ml elastic -o jsonpath='{.spec.template.spec.schedulingGates[*].name}')
expect_eq "Kueue's webhook gates the elastic Job's pods" "kueue.x-k8s.io/elastic-job" "$gates"
wls() { k get workloads -n ml -o name | sed 's|.*/||' | grep "^job-elastic-"; }
eventually "the elastic Job's slice waits behind the filler" 20 "insufficient unused quota" \
  k get workload -n ml "$(wls | head -1)" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}'
first=$(wls)
contains "its Workload is marked elastic" "true" \
  "$(k get workload -n ml "$first" -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/elastic-job}')"
k delete job -n ml filler --wait=false >/dev/null
eventually "the elastic Job is admitted once the filler is gone" 20 "True" \
  k get workload -n ml "$first" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
expect_eq "... on big (tiny's 100m is too small for 2 pods)" "big" \
  "$(k get workload -n ml "$first" -o jsonpath='{.status.admission.podSetAssignments[0].flavors.cpu}')"
pid_files() { ls "$DIR" | grep -c '^pid-'; }
eventually "its 2 pods run" 20 "2" pid_files
declare -A PID_OF
for f in "$DIR"/pid-*; do PID_OF[${f##*/pid-}]=$(cat "$f"); done
expect_eq "two pods, two PIDs" 2 "${#PID_OF[@]}"

# A second filler takes 200m of big: a scale-up to 4 pods (200m more) waits.
job_yaml ml filler2 queue=lq cmd="sleep 1000" requests="cpu: 200m" | k apply -f - >/dev/null
wl_of() { k get workloads -n ml -o name | sed 's|.*/||' | grep "^job-$1-"; }
eventually "the second filler is admitted (on big, 400m of 500m used)" 20 "True" \
  k get workload -n ml "$(wl_of filler2)" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
k patch job -n ml elastic --type=merge -p '{"spec":{"parallelism":4}}' >/dev/null
slices() { wls | wc -l; }
eventually "the scale-up makes a second slice" 20 "2" slices
second=$(wls | grep -v "^$first$")
expect_eq "it replaces the admitted one" "ml/$first" \
  "$(k get workload -n ml "$second" -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/workload-slice-replacement-for}')"
eventually "it waits for the 200m more it needs" 20 "insufficient unused quota for cpu in flavor big" \
  k get workload -n ml "$second" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}'
gated() {
  k get pods -n ml -l job-name=elastic -o jsonpath='{range .items[*]}{.spec.schedulingGates[*].name}{"\n"}{end}' | grep -c elastic-job
}
eventually "the 2 new pods are made, gated" 20 "2" gated
sleep 1
expect_eq "... and not started" 2 "$(pid_files)"
expect_eq "the job runs on (not suspended)" "false" "$(k get job -n ml elastic -o jsonpath='{.spec.suspend}')"
expect_eq "the old slice keeps its admission meanwhile" "True" \
  "$(k get workload -n ml "$first" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}')"

k delete job -n ml filler2 --wait=false >/dev/null
eventually "the slice is admitted once quota frees" 20 "True" \
  k get workload -n ml "$second" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
expect_eq "... on the old slice's flavor" "big" \
  "$(k get workload -n ml "$second" -o jsonpath='{.status.admission.podSetAssignments[0].flavors.cpu}')"
eventually "the old slice is finished as replaced" 20 "WorkloadSliceReplaced" \
  k get workload -n ml "$first" -o jsonpath='{.status.conditions[?(@.type=="Finished")].reason}'
eventually "the new pods are ungated and run" 20 "4" pid_files
still=""
for pod in "${!PID_OF[@]}"; do
  now=$(cat "$DIR/pid-$pod" 2>/dev/null)
  if [[ "$now" == "${PID_OF[$pod]}" ]] && kill -0 "$now" 2>/dev/null &&
     k get pod -n ml "$pod" >/dev/null 2>&1; then still+=x; fi
done
expect_eq "the first two pods were never restarted (same pods, same PIDs, alive)" xx "$still"
usage() {
  k get clusterqueue cq -o jsonpath='{range .status.flavorsUsage[*]}{.name}={.resources[0].total}{" "}{end}'
}
eventually "the ClusterQueue counts the 4 pods once (400m on big)" 20 "big=400m" usage
expect_eq "kueue_replaced_workload_slices_total counts the replacement" \
  'kueue_replaced_workload_slices_total{cluster_queue="cq"} 1' \
  "$(k get --raw /metrics | grep '^kueue_replaced_workload_slices_total')"
holding=$(k get workloads -n ml -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Admitted")].status}/{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' | grep -c '^True/$')
expect_eq "one Workload not finished holds the quota" 1 "$holding"

# Scale-down: the slice is updated in place, the quota freed at once.
k patch job -n ml elastic --type=merge -p '{"spec":{"parallelism":3}}' >/dev/null
eventually "a scale-down rewrites the admitted slice's count" 20 "3" \
  k get workload -n ml "$second" -o jsonpath='{.spec.podSets[0].count}'
eventually "... and frees its quota at once (300m)" 20 "big=300m" usage
expect_eq "no new slice for it" 2 "$(slices)"
expect_eq "the slice stays admitted" "True" \
  "$(k get workload -n ml "$second" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}')"

out=$(k annotate job -n ml elastic kueue.x-k8s.io/elastic-job- 2>&1)
contains "the elastic-job annotation cannot be taken off" \
  'metadata.annotations[kueue.x-k8s.io/elastic-job]: Invalid value: false: field is immutable' "$out"

# Preemption takes the elastic Job whole: suspended, every pod stopped;
# back once the preemptor is gone, its 3 pods started again.
job_yaml ml urgent queue=lq priority=high cmd="sleep 1000" requests="cpu: 400m" | k apply -f - >/dev/null
eventually "a higher-priority job preempts the elastic one" 20 "True" \
  k get workload -n ml "$second" -o jsonpath='{.status.conditions[?(@.type=="Preempted")].status}'
eventually "... which is suspended" 20 "true" k get job -n ml elastic -o jsonpath='{.spec.suspend}'
alive() { local n=0 f; for f in "$DIR"/pid-*; do kill -0 "$(cat "$f")" 2>/dev/null && n=$((n+1)); done; echo "$n"; }
eventually "... with every pod stopped" 20 "0" alive
expect_eq "no slice is made for the eviction" 2 "$(slices)"
rm -f "$DIR"/pid-*
k delete job -n ml urgent --wait=false >/dev/null
eventually "the elastic Job is admitted again once the preemptor is gone" 20 "True" \
  k get workload -n ml "$second" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
eventually "... and runs its 3 pods again" 20 "3" pid_files

out=$(k apply -f - 2>&1 <<'YAML'
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: tf
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: tensorflow, image: busybox}]}}
YAML
)
contains "a kind that cannot scale by slices is refused the annotation" \
  'metadata.annotations[kueue.x-k8s.io/elastic-job]: Forbidden: elastic job is not supported for "kubeflow.org/v1, Kind=TFJob"' "$out"

touch "$DIR/done"
eventually "the Job completes" 30 "Complete" \
  k get job -n ml elastic -o jsonpath='{.status.conditions[*].type}'
eventually "its slice is finished" 20 "True" \
  k get workload -n ml "$second" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
eventually "and the quota released" 20 "big=0" usage
echo "elastic job: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
