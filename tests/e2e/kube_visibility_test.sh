#!/usr/bin/env bash
# Kueue's visibility API on a cluster, end to end: kuotad --serve-only (the
# stand-in kube-apiserver) proxies visibility.kueue.x-k8s.io to the driver as
# kube-apiserver's aggregator does, and the driver (kuotad --kubeconfig)
# answers from its engine on its HTTPS webhook port.
#   * the stand-in serves APIService objects with kube-apiserver's
#     validation, and publishes its proxy client CA in
#     kube-system/extension-apiserver-authentication;
#   * the APIServices (as deploy/ ships them) route to the Service
#     kuota-webhook-service, resolved through its Endpoints (a Service
#     without a selector: its Endpoints are written by hand, as Kubernetes
#     documents; here they point at the driver's port on loopback);
#   * the driver sets its CA as the APIServices' caBundle; the stand-in
#     verifies the driver's certificate with it;
#   * `kubectl get --raw .../clusterqueues/CQ/pendingworkloads` lists the
#     pending workloads with their positions (v1beta2 and v1beta1, LocalQueue,
#     limit/offset), the same ones kubectl shows pending;
#   * kubectl get / wait on the APIServices: their Available condition, as
#     kube-apiserver's availability check sets it;
#   * the stand-in answers SubjectAccessReviews (the driver's second
#     authorization of each user) from its RBAC;
#   * the driver refuses a visibility request without the aggregator's
#     client certificate (401); discovery lists the group; the driver
#     stopped: 503 from the stand-in.
# Usage: kube_visibility_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/manifests
source "$HERE/lib.sh"
need kubectl curl openssl
scratch kuota-kube-visibility
DRIVER=
cleanup_more() { [[ -z "$DRIVER" ]] || { kill -9 "$DRIVER"; wait "$DRIVER"; }; }
SVC=kuota-webhook-service.kuota-system.svc
WPORT=$(free_port)
V=/apis/visibility.kueue.x-k8s.io

start_kuotad --serve-only
k apply --server-side -f "$CRDS" >/dev/null || bad "kubectl apply --server-side deploy/crds"
for ns in kuota-system team-a team-b; do k create namespace "$ns" >/dev/null; done

# --- APIService validation, as kube-apiserver's ------------------------------
out=$(k apply -f - 2>&1 <<'EOF'
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.wrong.example.com}
spec:
  group: other.example.com
  version: v1
  groupPriorityMinimum: 0
  versionPriority: 100
  insecureSkipTLSVerify: true
  caBundle: Zm9v
  service: {name: x, namespace: default}
EOF
)
contains "a bad APIService: the name must be version.group" \
  'metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.other.example.com"' "$out"
contains "a bad APIService: groupPriorityMinimum" \
  "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000" "$out"
contains "a bad APIService: insecureSkipTLSVerify with a caBundle" \
  "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present" "$out"
auth=$(k get configmap -n kube-system extension-apiserver-authentication -o json)
contains "the stand-in publishes its proxy client CA" "BEGIN CERTIFICATE" "$auth"
contains "... and the header names" 'X-Remote-User' "$auth"

# --- the Service, its Endpoints and the APIServices --------------------------
webhook_endpoints "$WPORT"  # the Service, its Endpoints and the webhook Secret (lib.sh)
for v in v1beta2 v1beta1; do
  k apply -f - >/dev/null <<EOF || bad "APIService $v.visibility.kueue.x-k8s.io applies"
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: $v.visibility.kueue.x-k8s.io}
spec:
  group: visibility.kueue.x-k8s.io
  version: $v
  groupPriorityMinimum: 100
  versionPriority: 100
  service: {name: kuota-webhook-service, namespace: kuota-system}
EOF
done
expect_eq "spec.service.port defaults to 443" 443 \
  "$(k get apiservice v1beta2.visibility.kueue.x-k8s.io -o jsonpath='{.spec.service.port}')"
out=$(k get --raw "$V/v1beta2/clusterqueues/cluster-queue/pendingworkloads" 2>&1)
contains "no driver yet: 503 from the stand-in" "ServiceUnavailable" "$out"
eventually "no driver yet: kubectl get apiservice says it is not available" 10 "False (FailedDiscoveryCheck)" \
  k get apiservice v1beta2.visibility.kueue.x-k8s.io

# --- the driver: its CA in the APIServices, the visibility API served ---------
"$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --no-leader-elect \
  --webhook-port "$WPORT" >>"$TMP/driver.log" 2>&1 &
DRIVER=$!
if ! wait_for 30 "engine running on the cluster" cat "$TMP/driver.log"; then
  bad "the driver starts" "$(tail -20 "$TMP/driver.log")"
  exit 1
fi
contains "the driver serves the visibility API" "visibility API at https://127.0.0.1:$WPORT" \
  "$(cat "$TMP/driver.log")"
k get secret -n kuota-system kuota-webhook-server-cert -o jsonpath='{.data.ca\.crt}' >"$TMP/ca.b64"
expect_eq "the driver sets its CA as caBundle of both APIServices" \
  "$(cat "$TMP/ca.b64") $(cat "$TMP/ca.b64")" \
  "$(k get apiservice v1beta2.visibility.kueue.x-k8s.io -o jsonpath='{.spec.caBundle}') $(k get apiservice v1beta1.visibility.kueue.x-k8s.io -o jsonpath='{.spec.caBundle}')"

out=$(k wait --for=condition=Available --timeout=15s apiservice/v1beta2.visibility.kueue.x-k8s.io \
  apiservice/v1beta1.visibility.kueue.x-k8s.io 2>&1)
contains "kubectl wait --for=condition=Available: both APIServices pass the discovery check" \
  "apiservice.apiregistration.k8s.io/v1beta1.visibility.kueue.x-k8s.io condition met" "$out"
contains "kubectl get apiservice: the Service and True" "kuota-system/kuota-webhook-service   True" \
  "$(k get apiservice v1beta2.visibility.kueue.x-k8s.io)"

G=$M/gke-tutorial
k apply -f "$M/kube/003-flavor-t4.yaml" -f "$G/cluster-queue.yaml" -f "$G/local-queue.yaml" \
  >/dev/null || bad "seed 003 queues apply"
# 3 GPUs a Job against a quota of 10: three admitted, three pending.
for _ in 1 2 3 4 5 6; do k create -f "$G/job-team-a.yaml" >/dev/null; done
eventually "kubectl get cq shows 3 pending" 20 "3" \
  k get cq cluster-queue -o jsonpath='{.status.pendingWorkloads}'
want=$(k get workloads -n team-a -o json | python3 -c 'import json,sys
for w in json.load(sys.stdin)["items"]:
    c={x["type"]:x["status"] for x in w.get("status",{}).get("conditions",[])}
    if c.get("QuotaReserved")!="True": print(w["metadata"]["name"])' | sort | tr '\n' ' ')

summary() {  # summary PATH: "name:positionInClusterQueue:positionInLocalQueue ..." in order
  k get --raw "$1" | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(d["apiVersion"], " ".join("%s:%d:%d" % (i["metadata"]["name"], i["positionInClusterQueue"], i["positionInLocalQueue"]) for i in d["items"]))'
}
out=$(summary "$V/v1beta2/clusterqueues/cluster-queue/pendingworkloads")
names=$(tr ' ' '\n' <<<"${out#* }" | cut -d: -f1 | sort | tr '\n' ' ')
expect_eq "v1beta2 clusterqueues/pendingworkloads: the workloads kubectl shows pending" "$want" "$names"
expect_eq "... in order, with positions 0, 1, 2" "0:0 1:1 2:2" \
  "$(tr ' ' '\n' <<<"${out#* }" | cut -d: -f2,3 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "... as a visibility.kueue.x-k8s.io/v1beta2 PendingWorkloadsSummary" \
  "visibility.kueue.x-k8s.io/v1beta2" "${out%% *}"
first=$(tr ' ' '\n' <<<"${out#* }" | head -1 | cut -d: -f1)
third=$(tr ' ' '\n' <<<"${out#* }" | sed -n 3p | cut -d: -f1)
out1=$(summary "$V/v1beta1/clusterqueues/cluster-queue/pendingworkloads?limit=1")
expect_eq "v1beta1 with limit=1: the first" "visibility.kueue.x-k8s.io/v1beta1 $first:0:0" "$out1"
out2=$(summary "$V/v1beta2/namespaces/team-a/localqueues/lq-team-a/pendingworkloads?offset=2")
expect_eq "LocalQueue with offset=2: the third" "visibility.kueue.x-k8s.io/v1beta2 $third:2:2" "$out2"
out=$(k get --raw "$V/v1beta2/clusterqueues/nope/pendingworkloads" 2>&1)
contains "an unknown ClusterQueue: NotFound from the driver" 'clusterqueue.visibility.kueue.x-k8s.io "nope" not found' "$out"

# Discovery: the group and its versions, as the APIServices register them.
contains "/apis lists the group, v1beta2 preferred" \
  '{"name":"visibility.kueue.x-k8s.io","preferredVersion":{"groupVersion":"visibility.kueue.x-k8s.io/v1beta2","version":"v1beta2"},"versions":[{"groupVersion":"visibility.kueue.x-k8s.io/v1beta2","version":"v1beta2"},{"groupVersion":"visibility.kueue.x-k8s.io/v1beta1","version":"v1beta1"}]}' \
  "$(k get --raw /apis)"
creds
agg=$(curl -s --cacert "$TMP/ca.crt" -H "Authorization: Bearer $TOKEN" \
  -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' "$URL/apis" |
  python3 -c 'import json,sys
for i in json.load(sys.stdin)["items"]:
    if i["metadata"]["name"] == "visibility.kueue.x-k8s.io":
        for v in i["versions"]:
            print(v["version"], v["freshness"], " ".join(r["resource"] + "/" + s["subresource"] for r in v["resources"] for s in r.get("subresources", [])))')
expect_eq "aggregated discovery: both versions' resources, read from the driver" \
  "v1beta2 Current clusterqueues/pendingworkloads localqueues/pendingworkloads
v1beta1 Current clusterqueues/pendingworkloads localqueues/pendingworkloads" "$agg"

# The driver authorizes each user again with a SubjectAccessReview, which the
# stand-in answers from its RBAC as kube-apiserver does.
k apply -f - >/dev/null <<'EOF' || bad "a pending-workloads viewer role bound to bob"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cq-pending-viewer}
rules:
- apiGroups: [visibility.kueue.x-k8s.io]
  resources: [clusterqueues/pendingworkloads]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bob-cq-pending-viewer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cq-pending-viewer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
EOF
sar() {  # sar USER: may USER get cluster-queue's pendingworkloads?
  curl -s --cacert "$TMP/ca.crt" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    "$URL/apis/authorization.k8s.io/v1/subjectaccessreviews" -d '{"apiVersion":"authorization.k8s.io/v1",
    "kind":"SubjectAccessReview","spec":{"user":"'"$1"'","groups":["team-x"],
    "resourceAttributes":{"group":"visibility.kueue.x-k8s.io","version":"v1beta2","verb":"get",
    "resource":"clusterqueues","subresource":"pendingworkloads","name":"cluster-queue"}}}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["allowed"])'
}
expect_eq "SubjectAccessReview on the stand-in: bob (bound) may, alice may not" "True False" \
  "$(sar bob) $(sar alice)"

# The driver believes only the aggregator's client certificate.
code=$(curl -s -o "$TMP/direct.json" -w '%{http_code}' --max-time 10 -k \
  -H 'X-Remote-User: system:admin' -H 'X-Remote-Group: system:masters' \
  "https://127.0.0.1:$WPORT$V/v1beta2/clusterqueues/cluster-queue/pendingworkloads")
expect_eq "without the proxy's client certificate: 401, whatever the headers say" 401 "$code"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=front-proxy-client \
  -keyout "$TMP/fake.key" -out "$TMP/fake.crt" 2>/dev/null
code=$(curl -s -o "$TMP/direct.json" -w '%{http_code}' --max-time 10 -k \
  --cert "$TMP/fake.crt" --key "$TMP/fake.key" -H 'X-Remote-User: system:admin' \
  "https://127.0.0.1:$WPORT$V/v1beta2/clusterqueues/cluster-queue/pendingworkloads")
expect_eq "with a certificate of another CA (the allowed name): 401" 401 "$code"

# A caBundle of another CA: the stand-in does not trust the driver.
k get apiservice v1beta1.visibility.kueue.x-k8s.io -o json |
  python3 -c 'import json,sys,base64,subprocess
o=json.load(sys.stdin)
o["spec"]["caBundle"]=base64.b64encode(open(sys.argv[1],"rb").read()).decode()
print(json.dumps(o))' "$TMP/fake.crt" | k replace -f - >/dev/null || bad "replace the v1beta1 caBundle"
out=$(k get --raw "$V/v1beta1/clusterqueues/cluster-queue/pendingworkloads" 2>&1)
contains "a caBundle of another CA: the driver's certificate is refused (503)" "ServiceUnavailable" "$out"

kill "$DRIVER"; wait "$DRIVER" 2>/dev/null; DRIVER=
out=$(k get --raw "$V/v1beta2/clusterqueues/cluster-queue/pendingworkloads" 2>&1)
contains "the driver stopped: 503 from the stand-in" "ServiceUnavailable" "$out"

echo "kube visibility: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
