#!/usr/bin/env bash
# End to end: kuotad as root on a shared machine, a second local user
# made with useradd. Checks: anonymous TCP requests get 401 (kube Status);
# `kuota login` over the Unix socket gives the user a kubeconfig only they can
# read and a namespace of their own; the user may submit there and not to
# another namespace, cannot touch ClusterQueues (403 naming verb, resource,
# namespace); their Job's process runs with their uid (/proc/PID/status);
# `kubectl auth can-i` answers as the bindings say, also after the admin grants
# more with `kubectl create role/rolebinding`; the admin's kubeconfig works;
# a Job or pod asking for another identity (runAsUser: 0, privileged, fsGroup,
# runAsNonRoot: false) is refused with 403 naming the field and the identity.
# Needs root (useradd, and kuotad changing to the user's uid).
# Usage: security_test.sh PATH/TO/kuotad PATH/TO/kuota
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
KUOTA=${2:?usage: $0 PATH/TO/kuotad PATH/TO/kuota}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl
if [[ $(id -u) -ne 0 ]]; then
  echo "FAIL: this test makes a user with useradd and runs kuotad as root; run it as root"
  exit 1
fi

scratch kuota-security
chmod 0711 "$TMP"   # the user reaches the socket and the binaries inside
U=kq$$              # the second user (short: login names are at most 32)
cleanup_more() {
  pkill -9 -u "$U" 2>/dev/null
  userdel -r "$U" >/dev/null 2>&1
}

useradd -m -s /bin/sh "$U" || { echo "FAIL: useradd $U"; exit 1; }
UID_U=$(id -u "$U")
UHOME=$(getent passwd "$U" | cut -d: -f6)
install -m 0755 "$KUOTA" "$TMP/kuota"
as_user() { runuser -u "$U" -- env HOME="$UHOME" "$@"; }
ku() { as_user kubectl --kubeconfig "$UHOME/.kube/kuota" "$@"; }

start_kuotad --gpus 0
PORT=$(sed -n 's/.*server: "https:\/\/127.0.0.1:\([0-9]*\)".*/\1/p' "$TMP/kubeconfig")
[[ -n "$PORT" ]] && ok "kuotad serves https (port $PORT)" || bad "kuotad serves https" "$(cat "$TMP/kubeconfig")"
expect_eq "the admin kubeconfig is the owner's alone" "600" "$(stat -c %a "$TMP/kubeconfig")"
contains "the admin's kubectl works" "cluster-admin" "$(k get clusterroles -o name 2>&1)"

# Anonymous and forged requests.
out=$(curl -sk -w '\n%{http_code}' "https://127.0.0.1:$PORT/api/v1/namespaces")
expect_eq "anonymous list: 401" "401" "$(tail -1 <<<"$out")"
contains "anonymous list: a kube Status" '"reason":"Unauthorized"' "$out"
out=$(curl -sk -w '\n%{http_code}' -H "Authorization: Bearer kuota1.0.$(printf '0%.0s' {1..64})" \
  "https://127.0.0.1:$PORT/api/v1/namespaces")
expect_eq "a forged root token: 401" "401" "$(tail -1 <<<"$out")"
expect_eq "plain http on the TLS port is refused" "000" \
  "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/api/v1/namespaces")"

# kuota login, as the user, over the socket.
out=$(as_user env KUOTA_SOCKET="$TMP/data/kuotad.sock" "$TMP/kuota" login 2>&1)
contains "kuota login as $U" "as $U (namespace $U)" "$out"
expect_eq "the user's kubeconfig is theirs alone" "600 $U" \
  "$(stat -c '%a %U' "$UHOME/.kube/kuota" 2>&1)"
contains "kubectl auth whoami" "$U" "$(ku auth whoami 2>&1)"
contains "the user's namespace exists" "$U" "$(k get namespace "$U" -o name 2>&1)"

# The admin sets up a queue the user's namespace may use.
{ cpu_queue_yaml default-flavor shared 4 "$U" user-queue; echo ---; echo "apiVersion: v1
kind: Namespace
metadata: {name: team-x}"; } | k apply -f - >/dev/null

job() {  # NAME NAMESPACE
  job_yaml "$2" "$1" queue=user-queue container=c requests="cpu: 500m" \
    cmd="pwd > \$HOME/where-$1; id -u > \$HOME/uid-$1; sleep 5; echo done # sec-$$-$1"
}

out=$(job mine "$U" | ku create -f - 2>&1)
contains "the user submits to their namespace" "job.batch/mine created" "$out"
if wait_for 30 "sec-$$-mine" pgrep -af "sec-$$-mine"; then
  jp=$(pgrep -f "sec-$$-mine" | head -1)
  uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$jp/status" 2>/dev/null)
  expect_eq "the Job's process runs as $U (/proc/$jp/status Uid)" "$UID_U $UID_U $UID_U $UID_U" "$uids"
  gid=$(awk '/^Gid:/ {print $2}' "/proc/$jp/status" 2>/dev/null)
  expect_eq "with the user's group" "$(id -g "$U")" "$gid"
else
  bad "the user's Job runs" "$(k describe job -n "$U" mine 2>&1 | tail -20)"
fi
wait_for 30 "Complete" k get job -n "$U" mine -o jsonpath='{.status.conditions[*].type}' \
  && ok "the user's Job completes" || bad "the user's Job completes" "$(k get job -n "$U" mine -o yaml)"
expect_eq "its command ran in the user's home" "$UHOME" "$(cat "$UHOME/where-mine" 2>&1)"
expect_eq "as the user's uid" "$UID_U" "$(cat "$UHOME/uid-mine" 2>&1)"
contains "the Job records its submitter" "\"kuota.dev/submitter-uid\":\"$UID_U\"" \
  "$(k get job -n "$U" mine -o json | tr -d ' \n')"

# A Secret of the user's (RBAC edit in their namespace; never readable where
# they have no rights), read by their Job through a mounted file that is the
# user's, with the Secret's mode, in a directory no other user can enter.
contains "the user creates a Secret (kubectl create secret: protobuf)" "secret/db created" \
  "$(ku create secret generic db -n "$U" --from-literal=password="pw-$$" 2>&1)"
expect_eq "can-i get secrets in default" "no" "$(ku auth can-i get secrets -n default 2>&1)"
cat <<YAML | ku create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: db-reader, namespace: $U, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: ["sh", "-c", "cat /etc/db/password; echo; stat -c '%u %a' /etc/db/password /etc/db"]
        resources: {requests: {cpu: 100m}}
        volumeMounts: [{name: db, mountPath: /etc/db}]
      volumes: [{name: db, secret: {secretName: db, defaultMode: 0400}}]
YAML
wait_for 30 "Complete" k get job -n "$U" db-reader -o jsonpath='{.status.conditions[*].type}' \
  && ok "the user's Job mounting the Secret completes" || bad "the user's Job mounting the Secret completes" \
  "$(k describe pods -n "$U" -l job-name=db-reader 2>&1 | tail -20)"
out=$(ku logs -n "$U" -l job-name=db-reader 2>&1)
contains "it read the Secret's key from the mounted file" "pw-$$" "$out"
contains "a file of the user's with the Secret's mode, in a directory of the user's" \
  "$UID_U 400"$'\n'"$UID_U 700" "$out"
f=$(ls -d "$TMP"/data/pods/*/volumes/db/password 2>/dev/null | head -1)
[[ -n $f ]] && ! runuser -u nobody -- cat "$f" >/dev/null 2>&1 \
  && ok "another user cannot read it" || bad "another user cannot read it" "${f:-no file}"

# The body cannot claim another submitter.
out=$(job forged "$U" | sed "s/  labels:/  annotations: {kuota.dev\/submitter-uid: \"0\"}\n  labels:/" \
  | ku create -f - -o jsonpath='{.metadata.annotations.kuota\.dev/submitter-uid}' 2>&1)
expect_eq "a submitter-uid in the body is replaced by the caller's" "$UID_U" "$out"

# Asking for another identity is refused at create, naming the field and
# the identity the processes would get; asking for one's own uid is fine.
ctx_job() {  # NAME POD_SECURITY_CONTEXT CONTAINER_SECURITY_CONTEXT
  job "$1" "$U" | sed "s/^    spec:$/    spec:\n      securityContext: $2/; s/^      - name: c$/      - name: c\n        securityContext: $3/"
}
out=$(ctx_job as-root "{runAsUser: 0}" "{privileged: true}" | ku create -f - 2>&1)
contains "runAsUser: 0 and privileged: refused with 403 Forbidden" \
  "jobs.batch \"as-root\" is forbidden: spec.template.spec.containers[0].securityContext.privileged: true asks for root's privileges; spec.template.spec.securityContext.runAsUser: asks to run as uid 0" "$out"
contains "the refusal names the identity it would get" "only as the user who submitted it, uid $UID_U ($U), gid $(id -g "$U")" "$out"
echo "$out" | sed 's/^/    /'
expect_eq "the refused Job is not stored" "" "$(k get job -n "$U" as-root -o name 2>/dev/null)"
out=$(ctx_job other-group "{fsGroup: 0}" "{runAsNonRoot: false}" | ku create -f - 2>&1)
contains "fsGroup naming root's group: refused" "spec.template.spec.securityContext.fsGroup: asks for gid 0, a group the submitter is not in" "$out"
contains "runAsNonRoot: false from a non-root user: refused" "securityContext.runAsNonRoot: false asks to be allowed to run as root" "$out"
out=$(ctx_job own-uid "{runAsUser: $UID_U, runAsGroup: $(id -g "$U")}" "{runAsNonRoot: true}" | ku create -f - 2>&1)
contains "asking for one's own uid and group is allowed" "job.batch/own-uid created" "$out"
out=$(ku run bare-root -n "$U" --image=busybox --restart=Never \
  --overrides='{"spec":{"securityContext":{"runAsUser":0}}}' -- sleep 1 2>&1)
contains "a plain pod asking for root: refused" "pods \"bare-root\" is forbidden: spec.securityContext.runAsUser: asks to run as uid 0" "$out"

# What the user may not do.
out=$(job theirs default | ku create -f - 2>&1)
contains "another namespace: 403 naming verb, resource, namespace" \
  "cannot create resource \"jobs\" in API group \"batch\" in the namespace \"default\"" "$out"
out=$(ku delete clusterqueue shared 2>&1)
contains "ClusterQueues: 403" "cannot delete resource \"clusterqueues\" in API group \"kueue.x-k8s.io\"" "$out"
out=$(ku create namespace sneaky 2>&1)
contains "namespaces: 403" "cannot create resource \"namespaces\"" "$out"
contains "the ClusterQueue is still there" "clusterqueue.kueue.x-k8s.io/shared" "$(k get cq shared -o name 2>&1)"

# kubectl auth can-i, as the bindings say (stdout only: kubectl warns on
# stderr that ClusterQueues are not namespaced, the kubeconfig naming one).
expect_eq "can-i create jobs in own namespace" "yes" "$(ku auth can-i create jobs -n "$U" 2>&1)"
expect_eq "can-i create jobs in default" "no" "$(ku auth can-i create jobs -n default 2>&1)"
expect_eq "can-i create clusterqueues" "no" "$(ku auth can-i create clusterqueues.kueue.x-k8s.io 2>/dev/null)"
expect_eq "can-i list clusterqueues (queues are readable)" "yes" \
  "$(ku auth can-i list clusterqueues.kueue.x-k8s.io 2>/dev/null)"
expect_eq "can-i list localqueues in default" "yes" \
  "$(ku auth can-i list localqueues.kueue.x-k8s.io -n default 2>&1)"
expect_eq "can-i create jobs in team-x (before the grant)" "no" \
  "$(ku auth can-i create jobs -n team-x 2>&1)"
k create role job-creator --verb=create,get,list --resource=jobs.batch -n team-x >/dev/null 2>&1 \
  && ok "kubectl create role" || bad "kubectl create role"
k create rolebinding job-creator --role=job-creator --user="$U" -n team-x >/dev/null 2>&1 \
  && ok "kubectl create rolebinding" || bad "kubectl create rolebinding"
wait_for 10 "yes" ku auth can-i create jobs -n team-x && ok "can-i create jobs in team-x after the grant" \
  || bad "can-i create jobs in team-x after the grant" "$(ku auth can-i create jobs -n team-x 2>&1)"
expect_eq "but not delete them" "no" "$(ku auth can-i delete jobs -n team-x 2>&1)"
k delete rolebinding job-creator -n team-x >/dev/null 2>&1
wait_for 10 "no" ku auth can-i create jobs -n team-x && ok "the grant is gone with its binding" \
  || bad "the grant is gone with its binding"
expect_eq "the admin: can-i '*' '*'" "yes" "$(k auth can-i '*' '*' 2>&1)"

# Files under the data dir are kuotad's alone (certificates are public), but
# for a pod's volumes, which are its user's alone; directories others may
# only enter (0711: the way to those volumes) list nothing.
expect_eq "the data dir: others may only enter it" "711" "$(stat -c %a "$TMP/data")"
bad_modes=$(find "$TMP/data" -mindepth 1 \( \( -type f -perm /077 \) -o \( -type d -perm /066 \) \) \
  ! -name kuotad.sock ! -name "*.crt" 2>/dev/null | head -5)
expect_eq "nothing else in it is readable by others" "" "$bad_modes"

stop_kuotad
echo "security: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
