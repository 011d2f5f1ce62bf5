#!/usr/bin/env bash
# Dynamic admission control on the stand-in cluster (kuotad --serve-only), end
# to end with the real kubectl and a small HTTPS webhook
# (admission_webhook_server.py, its CA given as caBundle):
#   * webhook configurations apply with kubectl apply -f, list with their
#     webhook count, and a bad one is refused naming the field as
#     kube-apiserver does;
#   * a mutating webhook's label shows in the create response and is stored;
#     the AdmissionReview names the operation, namespace and authenticated user;
#   * a validating webhook's denial reaches kubectl wrapped as
#     'admission webhook "NAME" denied the request: MESSAGE', with its code;
#     its warnings are printed by kubectl;
#   * the webhook down: failurePolicy Fail refuses ('failed calling webhook'),
#     Ignore lets the request through unchanged.
# Usage: admission_webhooks_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl openssl python3
scratch kuota-admission
HOOK=
cleanup_more() { [[ -z "$HOOK" ]] || { kill -9 "$HOOK"; wait "$HOOK"; }; }
WPORT=$(free_port)

# A CA and the webhook's certificate for 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=hook-ca \
  -keyout "$TMP/ca.key" -out "$TMP/hook-ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
  -keyout "$TMP/hook.key" -out "$TMP/hook.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$TMP/san.ext"
openssl x509 -req -in "$TMP/hook.csr" -CA "$TMP/hook-ca.crt" -CAkey "$TMP/ca.key" \
  -CAcreateserial -days 1 -extfile "$TMP/san.ext" -out "$TMP/hook.crt" 2>/dev/null
CA_B64=$(base64 -w0 <"$TMP/hook-ca.crt")

start_hook() {
  python3 "$HERE/admission_webhook_server.py" "$WPORT" "$TMP/hook.crt" "$TMP/hook.key" \
    "$TMP/reviews.jsonl" >"$TMP/hook.log" 2>&1 &
  HOOK=$!
  wait_for 10 serving cat "$TMP/hook.log" || { bad "the webhook starts" "$(cat "$TMP/hook.log")"; exit 1; }
}
stop_hook() { { kill "$HOOK"; wait "$HOOK"; } 2>/dev/null; HOOK=; }

start_kuotad --serve-only
start_hook
k create namespace team-a >/dev/null

# config KIND NAME HOOK PATH [FAILURE_POLICY]: a webhook configuration for
# configmaps in namespaces labelled admission=on.
config() {
  cat <<EOF2
apiVersion: admissionregistration.k8s.io/v1
kind: $1
metadata: {name: $2}
webhooks:
- name: $3
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: ${5:-Fail}
  timeoutSeconds: 5
  clientConfig:
    url: https://127.0.0.1:$WPORT$4
    caBundle: $CA_B64
  namespaceSelector:
    matchLabels: {admission: "on"}
  rules:
  - operations: [CREATE, UPDATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [configmaps]
EOF2
}

# --- configurations: applied, listed, validated -----------------------------
out=$(config MutatingWebhookConfiguration stamp label.kuota.test /label | k apply -f - 2>&1)
contains "kubectl apply -f a MutatingWebhookConfiguration" \
  "mutatingwebhookconfiguration.admissionregistration.k8s.io/stamp created" "$out"
out=$(config ValidatingWebhookConfiguration policy deny.kuota.test /deny | k apply -f - 2>&1)
contains "kubectl apply -f a ValidatingWebhookConfiguration" \
  "validatingwebhookconfiguration.admissionregistration.k8s.io/policy created" "$out"
out=$(k get mutatingwebhookconfigurations 2>&1)
contains "kubectl get lists the webhook count" "stamp   1" "$out"
out=$(config ValidatingWebhookConfiguration broken broken.kuota.test /deny | sed '/sideEffects/d' |
  k apply -f - 2>&1)
contains "a webhook without sideEffects is refused naming the field" \
  'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun' "$out"

# --- the namespaceSelector: team-a is not selected yet -----------------------
out=$(k -n team-a create configmap before --from-literal=k=v -o jsonpath='{.metadata.labels}' 2>&1)
expect_eq "a namespace the selector does not match is not sent to the webhooks" "" "$out"
k label namespace team-a admission=on >/dev/null

# --- mutating: the label shows in the create response ------------------------
out=$(k -n team-a create configmap a --from-literal=k=v -o jsonpath='{.metadata.labels.stamped-by}' 2>&1)
expect_eq "the mutating webhook's label is in the create response" "webhook" "$out"
out=$(k -n team-a get configmap a -o jsonpath='{.metadata.labels.stamped-by}' 2>&1)
expect_eq "and is stored" "webhook" "$out"
who=$(k auth whoami -o jsonpath='{.status.userInfo.username}' 2>&1)
[[ -n $who ]] || bad "kubectl auth whoami names the user"
review=$(python3 - "$TMP/reviews.jsonl" <<'EOF2'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in rs if x["path"].startswith("/label") and x["review"]["request"]["name"] == "a"][0]
q = r["review"]["request"]
print(q["operation"], q["namespace"], q["resource"]["resource"], q["userInfo"]["username"], r["path"])
EOF2
)
expect_eq "the AdmissionReview names the request and the authenticated user" \
  "CREATE team-a configmaps $who /label?timeout=5s" "$review"

# --- validating: a denial, wrapped -------------------------------------------
out=$(k create -f - 2>&1 <<'EOF2'
apiVersion: v1
kind: ConfigMap
metadata: {name: forbidden-b, namespace: team-a}
data: {k: v}
EOF2
)
contains "a denial reaches kubectl with the webhook's code and wrapped message" \
  'Error from server (Forbidden): error when creating "STDIN": admission webhook "deny.kuota.test" denied the request: name forbidden by policy' "$out"
k -n team-a get configmap forbidden-b >/dev/null 2>&1 && bad "the denied ConfigMap is not stored" || ok "the denied ConfigMap is not stored"

out=$(k -n team-a create configmap warn-d --from-literal=k=v 2>&1)
contains "a webhook's warning is printed by kubectl" \
  "Warning: the test webhook warns about warn-d" "$out"

# --- failurePolicy with the webhook down --------------------------------------
stop_hook
out=$(k -n team-a create configmap c --from-literal=k=v 2>&1)
contains "failurePolicy Fail with the webhook down refuses" \
  'failed calling webhook "label.kuota.test": failed to call webhook: Post "https://127.0.0.1:'"$WPORT"'/label?timeout=5s"' "$out"
for kind in mutatingwebhookconfiguration/stamp validatingwebhookconfiguration/policy; do
  k patch "$kind" --type=json -p '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]' >/dev/null ||
    bad "kubectl patch $kind to failurePolicy Ignore"
done
out=$(k -n team-a create configmap c --from-literal=k=v -o jsonpath='{.metadata.name} {.metadata.labels}' 2>&1)
expect_eq "failurePolicy Ignore with the webhook down lets the request through unchanged" "c " "$out"

echo "PASS=$PASS FAIL=$FAIL"
[[ $FAIL -eq 0 ]]
