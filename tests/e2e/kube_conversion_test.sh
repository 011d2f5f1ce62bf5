#!/usr/bin/env bash
# The Kubernetes mode's CRD conversion webhook, end to end, as a cluster runs
# it: kuotad --serve-only (the stand-in kube-apiserver) with deploy/crds
# applied (spec.conversion.strategy Webhook, clientConfig.service), and a
# driver (kuotad --kubeconfig) serving POST /convert over HTTPS on loopback.
#   * the driver fills the chart's empty Secret with a CA and a certificate
#     for kuota-webhook-service.kuota-system.svc and sets the CA as caBundle
#     in the 11 Kueue CRDs; a restarted driver reuses the Secret;
#   * /convert itself answers a good and a bad ConversionReview;
#   * the CRDs store v1beta2 (as Kueue v0.20's): before the driver runs, a
#     v1beta2 object applies and a v1beta1 one is refused (its conversion
#     needs the webhook);
#   * v1beta1 manifests (the seeds': ClusterQueue with cohort, LocalQueue,
#     Workload) applied with the real kubectl are stored as v1beta2 and
#     decided like their v1beta2 twins; -o yaml in each version shows that
#     version's fields;
#   * a CRD whose caBundle is another CA: v1beta1 reads fail TLS verification;
#   * the driver stopped: v1beta1 reads and writes fail as kube-apiserver's do
#     ("conversion webhook ... failed"), v1beta2 reads still work.
# Usage: kube_conversion_test.sh PATH/TO/kuotad PATH/TO/deploy/crds
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
CRDS=${2:?usage: $0 PATH/TO/kuotad PATH/TO/deploy/crds}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
scratch kuota-conversion
DRIVER=
cleanup_more() { [[ -z "$DRIVER" ]] || { kill -9 "$DRIVER"; wait "$DRIVER"; }; }
SVC=kuota-webhook-service.kuota-system.svc
WPORT=$(free_port)

# start_driver LOG: the driver with its webhook on $WPORT; sets DRIVER.
start_driver() {
  "$KUOTAD" --kubeconfig "$TMP/kubeconfig" --health-port 0 --no-leader-elect \
    --webhook-port "$WPORT" >>"$TMP/$1" 2>&1 &
  DRIVER=$!
  if ! wait_for 30 "engine running on the cluster" cat "$TMP/$1"; then
    bad "the driver starts" "$(tail -20 "$TMP/$1")"
    exit 1
  fi
}
stop_driver() { { kill "$DRIVER"; wait "$DRIVER"; } 2>/dev/null; DRIVER=; }
b64() { base64 -w0 <"$1"; }

# --- the stand-in cluster: CRDs naming the webhook Service ------------------
start_kuotad --serve-only
# kube-apiserver reaches the Service's port 443, which forwards to the pod's
# 9443; here the Service is 127.0.0.1 (--service-address) at the driver's port.
mkdir "$TMP/crds"
for f in "$CRDS"/*.yaml; do sed "s/^          port: 443\$/          port: $WPORT/" "$f" >"$TMP/crds/${f##*/}"; done
expect_eq "every CRD's clientConfig names the Service's port" 11 "$(grep -l "port: $WPORT" "$TMP"/crds/*.yaml | wc -l)"
k apply --server-side -f "$TMP/crds" >/dev/null || bad "kubectl apply --server-side the CRDs"
for ns in kuota-system team-a team-b; do k create namespace "$ns" >/dev/null; done
# The chart creates the Secret empty; kuotad fills it.
k create -f - >/dev/null <<'EOF2' || bad "create the chart's empty Secret"
apiVersion: v1
kind: Secret
metadata: {name: kuota-webhook-server-cert, namespace: kuota-system}
type: Opaque
EOF2

# No webhook yet: v1beta2 (stored as it is) applies; v1beta1 is refused, not
# silently converted.
k apply -f - >/dev/null <<'EOF2' || bad "a v1beta2 ResourceFlavor applies without the webhook"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
EOF2
out=$(k apply -f - 2>&1 <<'EOF2'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: other-flavor}
EOF2
)
contains "before the driver: a v1beta1 write fails (webhook unreachable)" \
  "conversion webhook for kueue.x-k8s.io/v1beta1, Kind=ResourceFlavor failed" "$out"
out=$(k get resourceflavors.v1beta1.kueue.x-k8s.io 2>&1)
contains "before the driver: a v1beta1 list fails" \
  "conversion webhook for kueue.x-k8s.io/v1beta2, Kind=ResourceFlavor failed" "$out"

# --- the driver: certificate in the Secret, CA in the CRDs -------------------
start_driver driver.log
contains "the driver serves the webhook" "conversion webhook at https://127.0.0.1:$WPORT/convert" "$(cat "$TMP/driver.log")"
contains "the driver sets the CA in the 11 CRDs" "conversion webhook's CA set in 11 CRD(s)" "$(cat "$TMP/driver.log")"
k get secret -n kuota-system kuota-webhook-server-cert -o jsonpath='{.data.ca\.crt}' | base64 -d >"$TMP/ca.crt"
k get secret -n kuota-system kuota-webhook-server-cert -o jsonpath='{.data.tls\.crt}' | base64 -d >"$TMP/tls.crt"
contains "the Secret holds the serving certificate" "BEGIN CERTIFICATE" "$(cat "$TMP/tls.crt")"
contains "the certificate is for $SVC" "DNS:$SVC" "$(openssl x509 -in "$TMP/tls.crt" -noout -ext subjectAltName 2>&1)"
contains "the certificate is the Secret's CA's" "OK" "$(openssl verify -CAfile "$TMP/ca.crt" "$TMP/tls.crt" 2>&1)"
bundles=$(k get crd -o jsonpath='{range .items[*]}{.spec.conversion.webhook.clientConfig.caBundle}{"\n"}{end}' | sort | uniq -c)
expect_eq "all 11 CRDs carry the Secret's CA as caBundle" "11 $(b64 "$TMP/ca.crt")" "$(awk '{print $1, $2}' <<<"$bundles")"

# /convert itself, as kube-apiserver calls it (TLS verified against the CA).
convert() {
  curl -sS --max-time 10 --cacert "$TMP/ca.crt" --resolve "$SVC:$WPORT:127.0.0.1" \
    -H 'Content-Type: application/json' --data-binary @- "https://$SVC:$WPORT/convert"
}
out=$(convert <<'EOF2'
{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u-1",
 "desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[{"apiVersion":"kueue.x-k8s.io/v1beta1",
 "kind":"ClusterQueue","metadata":{"name":"x"},"spec":{"cohort":"team"}}]}}
EOF2
)
expect_eq "/convert: a good review" "u-1 Success team" \
  "$(python3 -c 'import json,sys; r=json.load(sys.stdin)["response"]; print(r["uid"], r["result"]["status"], r["convertedObjects"][0]["spec"]["cohortName"])' <<<"$out")"
out=$(convert <<<'{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u-2","desiredAPIVersion":"kueue.x-k8s.io/v9","objects":[]}}')
contains "/convert: a wrong desiredAPIVersion is a Failure naming it" \
  '"message":"request.desiredAPIVersion: Unsupported value: \"kueue.x-k8s.io/v9\"' "$out"
out=$(convert <<<'not json at all')
contains "/convert: a body that is not JSON is a Failure" '"status":"Failure"' "$out"

# --- v1beta1 manifests, stored as v1beta2, decided like their v1beta2 twins ---
# team-a: v1beta1. team-b: the same in v1beta2 (cohortName, priorityClassRef).
queues() {  # queues VERSION NS COHORT_FIELD
  cat <<EOF2
apiVersion: kueue.x-k8s.io/$1
kind: ClusterQueue
metadata: {name: cq-$2}
spec:
  $3: cohort-$2
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/$1
kind: LocalQueue
metadata: {name: lq, namespace: $2}
spec: {clusterQueue: cq-$2}
EOF2
}
workload() {  # workload VERSION NS NAME CPUS
  cat <<EOF2
apiVersion: kueue.x-k8s.io/$1
kind: Workload
metadata: {name: $3, namespace: $2}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: "$4"}}
EOF2
}
queues v1beta1 team-a cohort | k apply -f - >/dev/null || bad "v1beta1 queues apply"
out=$(queues v1beta2 team-b cohortName | k apply -f - 2>&1)
contains "kubectl apply of a v1beta2 ClusterQueue with cohortName" "clusterqueue.kueue.x-k8s.io/cq-team-b created" "$out"
for ns in team-a team-b; do
  v=$([[ $ns == team-a ]] && echo v1beta1 || echo v1beta2)
  { workload "$v" "$ns" small 3; echo ---; workload "$v" "$ns" big 3; } | k apply -f - >/dev/null || bad "$v Workloads apply"
done
decision() {  # the Workloads of NS: name, QuotaReserved, flavor
  k get "workloads.$2.kueue.x-k8s.io" -n "$1" -o jsonpath='{range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="QuotaReserved")].status} {.status.admission.podSetAssignments[0].flavors.cpu}{"\n"}{end}' | sort
}
eventually "v1beta1 twin: one Workload admitted" 20 "default-flavor" decision team-a v1beta1
eventually "v1beta2: one Workload admitted" 20 "default-flavor" decision team-b v1beta2
sleep 1  # a cycle more: the second must stay pending in both
expect_eq "v1beta2 Workloads decided as their v1beta1 twins" "$(decision team-a v1beta1)" "$(decision team-b v1beta2)"
expect_eq "one admitted and one pending" "1 1" \
  "$(decision team-b v1beta2 | grep -c ' True default-flavor') $(decision team-b v1beta2 | grep -c ' False ')"

v2=$(k get clusterqueues.v1beta2.kueue.x-k8s.io cq-team-b -o yaml)
v1=$(k get clusterqueues.v1beta1.kueue.x-k8s.io cq-team-b -o yaml)
contains "kubectl get clusterqueues.v1beta2 -o yaml shows cohortName" "cohortName: cohort-team-b" "$v2"
contains "... as apiVersion v1beta2" "apiVersion: kueue.x-k8s.io/v1beta2" "$v2"
contains "kubectl get clusterqueues.v1beta1 -o yaml shows cohort" "cohort: cohort-team-b" "$v1"
# (-o yaml also shows kubectl's last-applied annotation, which is the v1beta2 manifest)
expect_eq "... and no cohortName in v1beta1's spec" 0 \
  "$(k get clusterqueues.v1beta1.kueue.x-k8s.io cq-team-b -o jsonpath='{.spec}' | grep -c cohortName)"
expect_eq "the v1beta1 original reads as v1beta2 too" "cohort-team-a" \
  "$(k get clusterqueues.v1beta2.kueue.x-k8s.io cq-team-a -o jsonpath='{.spec.cohortName}')"
w=$(k get --raw '/apis/kueue.x-k8s.io/v1beta1/clusterqueues?watch=true&timeoutSeconds=2' 2>&1)
expect_eq "a v1beta1 watch's events are converted (cohort, both queues)" "2 2" \
  "$(grep -c '"type":"ADDED"' <<<"$w") $(grep -o '"cohort":"cohort-team-' <<<"$w" | wc -l)"

# --- a caBundle that is not the webhook's CA: TLS verification fails ---------
k apply -f - >/dev/null <<'EOF2'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: team}
EOF2
k patch crd cohorts.kueue.x-k8s.io --type=merge -p "{\"spec\":{\"conversion\":{\"webhook\":{\"clientConfig\":{\"caBundle\":\"$(b64 "$TMP/data/pki/ca.crt")\"}}}}}" >/dev/null
out=$(k get cohorts.v1beta1.kueue.x-k8s.io 2>&1)
contains "a CRD trusting another CA: the v1beta1 read fails TLS verification" "certificate signed by unknown authority" "$out"
# A restarted driver reuses the Secret and puts the right CA back.
before=$(k get secret -n kuota-system kuota-webhook-server-cert -o jsonpath='{.data.tls\.crt}')
stop_driver
start_driver driver2.log
expect_eq "a restarted driver keeps the Secret's certificate" "$before" \
  "$(k get secret -n kuota-system kuota-webhook-server-cert -o jsonpath='{.data.tls\.crt}')"
contains "... and sets the CA in the one CRD that lacked it" "conversion webhook's CA set in 1 CRD(s)" "$(cat "$TMP/driver2.log")"
eventually "the cohort reads as v1beta1 again" 15 "team" \
  k get cohorts.v1beta1.kueue.x-k8s.io team -o jsonpath='{.metadata.name}'


# --- the driver stopped: v1beta1 fails like kube-apiserver's, v1beta2 works ---
stop_driver
out=$(k get clusterqueues.v1beta1.kueue.x-k8s.io cq-team-a -o yaml 2>&1)
contains "driver stopped: a v1beta1 read fails" \
  "conversion webhook for kueue.x-k8s.io/v1beta2, Kind=ClusterQueue failed" "$out"
expect_eq "... rather than being converted silently" 0 "$(grep -c '  cohort:' <<<"$out")"
out=$(workload v1beta1 team-a late 1 | k apply -f - 2>&1)
contains "driver stopped: a v1beta1 write fails" \
  "conversion webhook for kueue.x-k8s.io/v1beta1, Kind=Workload failed" "$out"
expect_eq "... and stores nothing" "" "$(k get workloads -n team-a late -o name 2>/dev/null)"
expect_eq "v1beta2 reads need no webhook" "cohort-team-a" \
  "$(k get clusterqueues.v1beta2.kueue.x-k8s.io cq-team-a -o jsonpath='{.spec.cohortName}')"

echo "kube conversion: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
