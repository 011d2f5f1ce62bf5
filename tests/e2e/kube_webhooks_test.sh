#!/usr/bin/env bash
# Kueue's admission webhooks as the Kubernetes-mode driver serves them, on the
# conversion webhook's HTTPS port, called the way kube-apiserver calls them
# (admission.k8s.io/v1 AdmissionReview, TLS verified against the CA kuotad
# keeps in the webhook Secret):
#   * a queued Job created without suspend gets a JSONPatch that suspends it,
#     and nothing else; an unqueued one none; a dryRun review the same answer
#   * a queued plain pod (the pod integration on) gets Kueue's scheduling gate
#   * a ClusterQueue Kueue's webhook refuses is refused (403) with Kueue's
#     message; a good one gets Kueue's defaults patched in v1beta2
#   * an update that breaks a queued Job's rules is refused, read with the old
#     object; malformed reviews are answered 400
# and through the stand-in cluster (kuotad --serve-only with deploy/crds and
# deploy/manifests.yaml's two webhook configurations applied, which calls
# them as kube-apiserver does):
#   * before the driver runs, a queued Job's create fails closed
#     (failurePolicy Fail) while a pod without a queue name is not held up
#   * the driver sets its CA as every webhook's caBundle
#   * kubectl create of a queued Job without suspend answers with the Job
#     already suspended, and the controller's Workload for it is admitted by
#     the Workload webhook; a queued plain pod is created gated; a
#     ClusterQueue Kueue refuses is refused with Kueue's message; with quota
#     the controller unsuspends the Job and ungates the pod (the plain-pod
#     integration runs in the Kubernetes mode once its webhook is served)
#   * a JAXJob, a TrainJob and a SparkApplication are created suspended and
#     started once admitted;
#     a queued RayService with autoscaling is refused; a LeaderWorkerSet's
#     templates are marked by Kueue's webhook, its group gets a Workload, and
#     the group's pods (made here as LWS's StatefulSets make them) are created
#     gated, named for that Workload by the controller and ungated
#   * the driver stopped: creates of queued Jobs fail closed again
# Usage: kube_webhooks_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl curl
scratch kuota-webhooks
DRIVER=
cleanup_more() { [[ -z "$DRIVER" ]] || { kill -9 "$DRIVER"; wait "$DRIVER"; }; }
SVC=kuota-webhook-service.kuota-system.svc
WPORT=$(free_port)

MANIFESTS=$(dirname "$CRDS")/manifests.yaml

# --- the stand-in cluster and the driver ------------------------------------
start_kuotad --serve-only
mkdir "$TMP/crds"
for f in "$CRDS"/*.yaml; do sed "s/^          port: 443\$/          port: $WPORT/" "$f" >"$TMP/crds/${f##*/}"; done
k apply --server-side -f "$TMP/crds" >/dev/null || bad "kubectl apply --server-side the CRDs"
for ns in kuota-system team-a; do k create namespace "$ns" >/dev/null; done
k create -f - >/dev/null <<'EOF2' || bad "create the chart's empty Secret"
apiVersion: v1
kind: Secret
metadata: {name: kuota-webhook-server-cert, namespace: kuota-system}
type: Opaque
EOF2
cat >"$TMP/config.yaml" <<'EOF2'
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
integrations:
  frameworks: [batch/job, pod, kubeflow.org/jaxjob, trainer.kubeflow.org/trainjob, ray.io/rayservice,
               leaderworkerset.x-k8s.io/leaderworkerset, deployment, statefulset,
               sparkoperator.k8s.io/sparkapplication]
EOF2
# deploy/'s webhook configurations; the stand-in reaches a Service at
# 127.0.0.1 on its port, here the driver's.
mkdir "$TMP/webhooks"
python3 - "$MANIFESTS" "$WPORT" "$TMP/webhooks" <<'PY'
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d.get("kind", "").endswith("WebhookConfiguration")]
for d in docs:
    for w in d["webhooks"]:
        w["clientConfig"]["service"]["port"] = int(sys.argv[2])
    with open(f"{sys.argv[3]}/{d['metadata']['name']}.json", "w") as f:
        json.dump(d, f)
    # How many webhooks each holds: the driver must set the CA in all of them.
    with open(f"{sys.argv[3]}.{d['metadata']['name']}.count", "w") as f:
        f.write(str(len(d["webhooks"])))
PY
out=$(k apply -f "$TMP/webhooks" 2>&1)
contains "kubectl apply deploy/'s MutatingWebhookConfiguration" \
  "mutatingwebhookconfiguration.admissionregistration.k8s.io/kuota-mutating-webhook-configuration created" "$out"
contains "kubectl apply deploy/'s ValidatingWebhookConfiguration" \
  "validatingwebhookconfiguration.admissionregistration.k8s.io/kuota-validating-webhook-configuration created" "$out"
queued_job() {  # queued_job NAME: a queued Job without suspend
  cat <<EOF2
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
EOF2
}
out=$(queued_job early | k create -f - 2>&1)
contains "no driver yet: a queued Job's create fails closed" 'failed calling webhook "mjob.kb.io"' "$out"
out=$(k run plain --image=busybox -n team-a -o jsonpath='{.metadata.name}' 2>&1)
expect_eq "no driver yet: a pod without a queue name is not held up" "plain" "$out"

"$KUOTAD" --kubeconfig "$TMP/kubeconfig" --config "$TMP/config.yaml" --health-port 0 \
  --no-leader-elect --webhook-port "$WPORT" >>"$TMP/driver.log" 2>&1 &
DRIVER=$!
if ! wait_for 30 "engine running on the cluster" cat "$TMP/driver.log"; then
  bad "the driver starts" "$(tail -20 "$TMP/driver.log")"
  exit 1
fi
for cfg in mutating validating; do
  n=$(cat "$TMP/webhooks.kuota-$cfg-webhook-configuration.count")
  contains "the driver sets the CA in the $n $cfg webhooks" \
    "admission webhooks' CA set in $n webhook(s) of kuota-$cfg-webhook-configuration" "$(cat "$TMP/driver.log")"
done
if grep -q "integration pod skipped" "$TMP/driver.log"; then
  bad "the pod integration stays on while the webhooks are served" "$(cat "$TMP/driver.log")"
else
  ok "the pod integration stays on while the webhooks are served"
fi
k get secret -n kuota-system kuota-webhook-server-cert -o jsonpath='{.data.ca\.crt}' | base64 -d >"$TMP/webhook-ca.crt"

# review PATH: POSTs stdin as kube-apiserver does; prints the response.
review() {
  curl -sS --max-time 10 --cacert "$TMP/webhook-ca.crt" --resolve "$SVC:$WPORT:127.0.0.1" \
    -H 'Content-Type: application/json' --data-binary @- "https://$SVC:$WPORT$1"
}
# admission_review OP GROUP VERSION RESOURCE OBJECT_JSON [OLD_JSON] [DRYRUN]
admission_review() {
  python3 - "$@" <<'PY'
import json, sys
op, group, version, resource, obj = sys.argv[1:6]
old = sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] else None
req = {"uid": "e2e-" + op.lower(), "operation": op, "namespace": "team-a",
       "resource": {"group": group, "version": version, "resource": resource},
       "object": json.loads(obj), "dryRun": len(sys.argv) > 7}
if old:
    req["oldObject"] = json.loads(old)
print(json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}))
PY
}
# patched OBJECT_JSON: the object after stdin's response's JSONPatch (python's
# own RFC 6902 add/replace/remove on the object), one line of JSON.
cat >"$TMP/patched.py" <<'PY'
import base64, json, sys
obj = json.loads(sys.argv[1])
r = json.load(sys.stdin)["response"]
assert r["allowed"] is True, r
ops = json.loads(base64.b64decode(r["patch"])) if "patch" in r else []
if ops:
    assert r["patchType"] == "JSONPatch", r
def walk(doc, ptr):
    parts = [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]
    for p in parts[:-1]:
        doc = doc[int(p)] if isinstance(doc, list) else doc[p]
    return doc, parts[-1]
for o in ops:
    parent, key = walk(obj, o["path"])
    if isinstance(parent, list):
        i = len(parent) if key == "-" else int(key)
        if o["op"] == "add": parent.insert(i, o["value"])
        elif o["op"] == "replace": parent[i] = o["value"]
        else: del parent[i]
    elif o["op"] in ("add", "replace"): parent[key] = o["value"]
    else: del parent[key]
print(json.dumps(obj, sort_keys=True))
PY
patched() { python3 "$TMP/patched.py" "$1"; }
field() { python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d = d.get(k) if isinstance(d, dict) else None
print(json.dumps(d) if not isinstance(d, str) else d)' "$1"; }

JOB='{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"sample","namespace":"team-a",
 "labels":{"kueue.x-k8s.io/queue-name":"user-queue"}},"spec":{"parallelism":1,"template":{"spec":{
 "restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1"}}}]}}}}'
PLAIN_JOB=$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); del j["metadata"]["labels"]; print(json.dumps(j))' "$JOB")

# --- jobs ---------------------------------------------------------------------
out=$(admission_review CREATE batch v1 jobs "$JOB" | review /mutate-batch-v1-job)
expect_eq "/mutate-batch-v1-job: the response answers the review's uid" "e2e-create" "$(field response.uid <<<"$out")"
after=$(patched "$JOB" <<<"$out")
expect_eq "/mutate-batch-v1-job: a queued Job is patched suspended" "true" "$(field spec.suspend <<<"$after")"
expect_eq "/mutate-batch-v1-job: and nothing else changes" \
  "$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); j["spec"]["suspend"]=True; print(json.dumps(j, sort_keys=True))' "$JOB")" "$after"
dry=$(admission_review CREATE batch v1 jobs "$JOB" "" dry | review /mutate-batch-v1-job)
expect_eq "/mutate-batch-v1-job: a dryRun review gets the same answer" "$out" "$dry"
out=$(admission_review CREATE batch v1 jobs "$PLAIN_JOB" | review /mutate-batch-v1-job)
expect_eq "/mutate-batch-v1-job: a Job without a queue is allowed untouched" "true null" \
  "$(field response.allowed <<<"$out") $(field response.patch <<<"$out")"
BAD_JOB=$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); j["spec"]["template"]["spec"]["restartPolicy"]="Always"; print(json.dumps(j))' "$JOB")
out=$(admission_review CREATE batch v1 jobs "$BAD_JOB" | review /validate-batch-v1-job)
expect_eq "/validate-batch-v1-job: a bad queued Job is refused 403" "false 403" \
  "$(field response.allowed <<<"$out") $(field response.status.code <<<"$out")"
contains "/validate-batch-v1-job: the refusal names the field" "spec.template.spec.restartPolicy" "$(field response.status.message <<<"$out")"
SUSPENDED=$(patched "$JOB" <<<"$(admission_review CREATE batch v1 jobs "$JOB" | review /mutate-batch-v1-job)")
out=$(admission_review UPDATE batch v1 jobs "$SUSPENDED" "$SUSPENDED" | review /validate-batch-v1-job)
expect_eq "/validate-batch-v1-job: an unchanged update is allowed" "true" "$(field response.allowed <<<"$out")"
out=$(admission_review UPDATE batch v1 jobs "$BAD_JOB" "$SUSPENDED" | review /validate-batch-v1-job)
expect_eq "/validate-batch-v1-job: an update that breaks the rules is refused" "false 403" \
  "$(field response.allowed <<<"$out") $(field response.status.code <<<"$out")"

# --- plain pods ---------------------------------------------------------------
POD='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team-a",
 "labels":{"kueue.x-k8s.io/queue-name":"user-queue"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}'
after=$(patched "$POD" <<<"$(admission_review CREATE "" v1 pods "$POD" | review /mutate--v1-pod)")
expect_eq "/mutate--v1-pod: a queued pod gets Kueue's scheduling gate" '[{"name": "kueue.x-k8s.io/admission"}]' \
  "$(field spec.schedulingGates <<<"$after")"

# --- Kueue's kinds ------------------------------------------------------------
cq() {
  echo '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},
   "spec":{"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default",
   "resources":[{"name":"'"$1"'","nominalQuota":"4"}]}]}]}}'
}
out=$(admission_review CREATE kueue.x-k8s.io v1beta2 clusterqueues "$(cq memory)" | review /validate-kueue-x-k8s-io-v1beta2-clusterqueue)
expect_eq "/validate-kueue-x-k8s-io-v1beta2-clusterqueue: refused 403 Forbidden" "false 403 Forbidden" \
  "$(field response.allowed <<<"$out") $(field response.status.code <<<"$out") $(field response.status.reason <<<"$out")"
expect_eq "/validate-kueue-x-k8s-io-v1beta2-clusterqueue: Kueue's message" \
  'spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: "memory": must match the name in coveredResources' \
  "$(field response.status.message <<<"$out")"
out=$(admission_review CREATE kueue.x-k8s.io v1beta2 clusterqueues "$(cq cpu)" | review /validate-kueue-x-k8s-io-v1beta2-clusterqueue)
expect_eq "/validate-kueue-x-k8s-io-v1beta2-clusterqueue: a good one is allowed" "true" "$(field response.allowed <<<"$out")"
after=$(patched "$(cq cpu)" <<<"$(admission_review CREATE kueue.x-k8s.io v1beta2 clusterqueues "$(cq cpu)" | review /mutate-kueue-x-k8s-io-v1beta2-clusterqueue)")
expect_eq "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue: Kueue's defaults, in v1beta2" "kueue.x-k8s.io/v1beta2 BestEffortFIFO Never" \
  "$(field apiVersion <<<"$after") $(field spec.queueingStrategy <<<"$after") $(field spec.preemption.withinClusterQueue <<<"$after")"

# --- malformed reviews --------------------------------------------------------
out=$(review /validate-batch-v1-job <<<'not json')
expect_eq "a body that is not JSON: 400" "false 400" "$(field response.allowed <<<"$out") $(field response.status.code <<<"$out")"
out=$(review /validate-batch-v1-job <<<'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}')
contains "a review without a request: 400 naming it" '"code":400,"message":"request: Required value' "$out"
out=$(admission_review CREATE kubeflow.org v1 pytorchjobs "$JOB" | review /validate-batch-v1-job)
contains "a review of another resource: 400 naming it" 'request.resource: Invalid value: \"pytorchjobs.kubeflow.org\"' "$out"
code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$TMP/webhook-ca.crt" \
  --resolve "$SVC:$WPORT:127.0.0.1" -H 'Content-Type: application/json' -d '{}' "https://$SVC:$WPORT/mutate-batch-v1-jobs")
expect_eq "a path Kueue does not serve: 404" "404" "$code"

# --- through the stand-in, as kubectl users see it -----------------------------
out=$(queued_job sample | k create -f - -o jsonpath='{.spec.suspend}' 2>&1)
expect_eq "kubectl create of a queued Job without suspend: the response is already suspended" "true" "$out"
eventually "the controller's Workload for it passes the Workload webhook" 20 "job-sample-" \
  k get workloads -n team-a -o name
out=$(k create -f - -o jsonpath='{.spec.schedulingGates[*].name}' 2>&1 <<'EOF2'
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec: {containers: [{name: c, image: busybox}]}
EOF2
)
expect_eq "kubectl create of a queued plain pod: created gated" "kueue.x-k8s.io/admission" "$out"
out=$(cq memory | k create -f - 2>&1)
contains "a ClusterQueue Kueue refuses is refused with Kueue's message" \
  'spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: "memory": must match the name in coveredResources' "$out"
out=$(cq cpu | k create -f - -o jsonpath='{.spec.queueingStrategy}' 2>&1)
expect_eq "a good ClusterQueue is created with Kueue's defaults" "BestEffortFIFO" "$out"

# The whole loop: with quota the controller admits both, unsuspends the Job
# and ungates the pod (its update passes the pod webhook).
k apply -f - >/dev/null <<'EOF2' || bad "a ResourceFlavor and a LocalQueue apply through the webhooks"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: team-a}
spec: {clusterQueue: cq}
EOF2
eventually "the queued Job is admitted and unsuspended" 20 "false" \
  k get job sample -n team-a -o jsonpath='{.spec.suspend}'
pod_gates() {  # the pod's gates as "name=[...]"; nothing when it is not there
  k get pod gated -n team-a -o json 2>/dev/null |
    python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["metadata"]["name"] + "=" + json.dumps(p["spec"].get("schedulingGates", [])))'
}
eventually "the gated pod is admitted and ungated" 20 "gated=[]" pod_gates

# Kinds Kueue integrates since (the job kinds issue): through the webhooks each
# is created suspended, gets its Workload, and is started once admitted, as
# on a cluster where their operators run.
k apply -f - >/dev/null <<'EOF2' || bad "a training runtime applies"
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: jax-distributed}
spec:
  mlPolicy: {numNodes: 1, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec: {containers: [{name: node, image: jax, resources: {requests: {cpu: 100m}}}]}
EOF2
out=$(k create -f - -o jsonpath='{.spec.runPolicy.suspend}' 2>&1 <<'EOF2'
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: jx, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec: {containers: [{name: jax, image: jax, resources: {requests: {cpu: 100m}}}]}
EOF2
)
expect_eq "kubectl create of a queued JAXJob: created suspended (runPolicy.suspend)" "true" "$out"
out=$(k create -f - -o jsonpath='{.spec.suspend}' 2>&1 <<'EOF2'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  runtimeRef: {name: jax-distributed}
  trainer: {numNodes: 2}
EOF2
)
expect_eq "kubectl create of a queued TrainJob: created suspended" "true" "$out"
out=$(k create -f - 2>&1 <<'EOF2'
apiVersion: ray.io/v1
kind: RayService
metadata: {name: rs, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  rayClusterConfig:
    enableInTreeAutoscaling: true
    headGroupSpec:
      template: {spec: {containers: [{name: ray-head, image: ray}]}}
EOF2
)
contains "a queued RayService with autoscaling is refused with Kueue's message" \
  "spec.rayClusterConfig.enableInTreeAutoscaling: Invalid value: true" "$out"
eventually "the JAXJob is admitted and started" 20 "false" \
  k get jaxjob jx -n team-a -o jsonpath='{.spec.runPolicy.suspend}'
expect_eq "its Workload has the JAXJob's Worker pod set" "worker:2" \
  "$(k get workloads -n team-a -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="jx")]}{.spec.podSets[0].name}:{.spec.podSets[0].count}{end}')"
eventually "the TrainJob is admitted and started" 20 "false" \
  k get trainjob tj -n team-a -o jsonpath='{.spec.suspend}'
contains "its placement went through Kueue's runtime patch" "kueue.x-k8s.io/manager" \
  "$(k get trainjob tj -n team-a -o jsonpath='{.spec.runtimePatches[*].manager}')"
# A SparkApplication (sparkConf sets the memory, so its Workload asks for cpu
# only, all this queue covers).
out=$(k create -f - -o jsonpath='{.spec.suspend}' 2>&1 <<'EOF2'
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: pi, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  type: Scala
  mode: cluster
  sparkVersion: "3.5.0"
  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples.jar
  sparkConf: {spark.driver.memory: 512m, spark.executor.memory: 512m}
  driver: {coreRequest: 100m}
  executor: {instances: 2, coreRequest: 100m}
EOF2
)
expect_eq "kubectl create of a queued SparkApplication: created suspended" "true" "$out"
eventually "the SparkApplication is admitted and started" 20 "false" \
  k get sparkapplication pi -n team-a -o jsonpath='{.spec.suspend}'
expect_eq "its Workload has Kueue's driver and executor pod sets" "driver:1 executor:2" \
  "$(k get workloads -n team-a -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="pi")]}{.spec.podSets[0].name}:{.spec.podSets[0].count} {.spec.podSets[1].name}:{.spec.podSets[1].count}{end}')"

# A LeaderWorkerSet: one Workload per group; LWS's controllers make the pods.
out=$(k create -f - -o jsonpath='{.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent}' 2>&1 <<'EOF2'
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: w, image: nginx, resources: {requests: {cpu: 100m}}}]}
EOF2
)
expect_eq "kubectl create of a queued LeaderWorkerSet: Kueue's webhook marks its template" \
  "leaderworkerset.x-k8s.io/leaderworkerset" "$out"
eventually "its group's Workload (main:2) is made and admitted" 20 "main:2 True" \
  k get workloads -n team-a -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="lws")]}{.spec.podSets[0].name}:{.spec.podSets[0].count} {.status.conditions[?(@.type=="Admitted")].status}{end}'
lws_pod() {  # lws_pod NAME WORKER: a pod of group 0 as LWS's StatefulSets make it
  cat <<EOF2
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: user-queue, leaderworkerset.sigs.k8s.io/name: lws,
           leaderworkerset.sigs.k8s.io/group-index: "0", leaderworkerset.sigs.k8s.io/worker-index: "$2"}
  annotations: {kueue.x-k8s.io/pod-suspending-parent: leaderworkerset.x-k8s.io/leaderworkerset,
                kueue.x-k8s.io/pod-group-serving: "true", leaderworkerset.sigs.k8s.io/size: "2"}
spec: {containers: [{name: w, image: nginx, resources: {requests: {cpu: 100m}}}]}
EOF2
}
out=$(lws_pod lws-0 0 | k create -f - -o jsonpath='{.spec.schedulingGates[*].name}|{.metadata.labels.kueue\.x-k8s\.io/managed}' 2>&1)
expect_eq "a LeaderWorkerSet's pod is created gated, not yet managed" "kueue.x-k8s.io/admission|" "$out"
lws_pod lws-0-1 1 | k create -f - >/dev/null || bad "create the group's second pod"
lws_pods() {
  k get pods -n team-a -l leaderworkerset.sigs.k8s.io/name=lws -o jsonpath='{range .items[*]}{.metadata.name}={.spec.schedulingGates[*].name}/{.metadata.labels.kueue\.x-k8s\.io/managed} {end}'
}
eventually "the controller names the group's Workload on both pods and ungates them" 20 \
  "lws-0=/true lws-0-1=/true" lws_pods
contains "each pod's group is its group's Workload" "leaderworkerset-lws-0-" \
  "$(k get pod lws-0-1 -n team-a -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/pod-group-name}')"

# A StatefulSet (Kueue's statefulset integration): its template is marked, the
# pods its controller makes are gated, then named for the set's serving pod
# group by the controller (Kueue's StatefulSet pod reconciler) and admitted.
out=$(k create -f - -o jsonpath='{.spec.template.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent}' 2>&1 <<'EOF2'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
EOF2
)
expect_eq "kubectl create of a queued StatefulSet: Kueue's webhook marks its template" "statefulset" "$out"
sts_uid=$(k get sts db -n team-a -o jsonpath='{.metadata.uid}')
sts_pod() {  # sts_pod ORDINAL: a pod of db as the StatefulSet controller makes it
  cat <<EOF2
apiVersion: v1
kind: Pod
metadata:
  name: db-$1
  namespace: team-a
  labels: {app: db, kueue.x-k8s.io/queue-name: user-queue, apps.kubernetes.io/pod-index: "$1"}
  annotations: {kueue.x-k8s.io/pod-suspending-parent: statefulset}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: "$sts_uid", controller: true}]
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
EOF2
}
out=$(sts_pod 0 | k create -f - -o jsonpath='{.spec.schedulingGates[*].name}' 2>&1)
expect_eq "a StatefulSet's pod is created gated" "kueue.x-k8s.io/admission" "$out"
sts_pod 1 | k create -f - >/dev/null || bad "create the set's second pod"
sts_pods() {
  k get pods -n team-a -l app=db -o jsonpath='{range .items[*]}{.metadata.name}={.spec.schedulingGates[*].name}/{.metadata.labels.kueue\.x-k8s\.io/managed} {end}'
}
eventually "the controller names the set's pod group on both pods and ungates them" 20 \
  "db-0=/true db-1=/true" sts_pods
expect_eq "the group is the set's Workload, main × replicas" "main:2" \
  "$(k get workloads -n team-a "$(k get pod db-1 -n team-a -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/pod-group-name}')" -o jsonpath='{.spec.podSets[0].name}:{.spec.podSets[0].count}')"

{ kill "$DRIVER"; wait "$DRIVER"; } 2>/dev/null
DRIVER=
out=$(queued_job late | k create -f - 2>&1)
contains "the driver stopped: a queued Job's create fails closed" 'failed calling webhook "mjob.kb.io"' "$out"
expect_eq "and nothing was stored" "" "$(k get job late -n team-a -o name 2>/dev/null)"

echo "kube webhooks: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
