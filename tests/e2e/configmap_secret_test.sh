#!/usr/bin/env bash
# End-to-end of ConfigMaps and Secrets with the real kubectl (which sends
# protobuf for `create secret`, `create configmap` and `create job`) and real
# processes: kubectl create secret generic/tls/docker-registry and configmap
# --from-literal/--from-file, get (kube's columns, label and field
# selectors), describe, edit, watch, delete; kube-apiserver's validation
# (required keys, key names, immutable); a queued Job reading a key of each
# through env and through mounted files (with the Secret's mode), checked
# with kubectl logs; a Job whose ConfigMap does not exist yet waits
# (CreateContainerConfigError / FailedMount Events naming it) and runs once
# it is created.
# Usage: configmap_secret_test.sh PATH/TO/kuotad
set -uo pipefail
KUOTAD=${1:?usage: $0 PATH/TO/kuotad}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
need kubectl openssl
scratch kuota-config-e2e

start_kuotad --no-cgroups
k create namespace apps >/dev/null
cpu_queue_yaml default cq 4 apps lq | k apply -f - >/dev/null || { echo "FAIL apply queues"; exit 1; }

# --- kubectl create secret / configmap ------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=web.example \
  -keyout "$TMP/tls.key" -out "$TMP/tls.crt" 2>/dev/null
printf '[server]\nport = 8080\n' >"$TMP/settings.ini"
contains "kubectl create secret generic" "secret/creds created" \
  "$(k create secret generic creds -n apps --from-literal=token=s3cret --from-literal=user=alice 2>&1)"
contains "kubectl create secret tls" "secret/web-tls created" \
  "$(k create secret tls web-tls -n apps --cert="$TMP/tls.crt" --key="$TMP/tls.key" 2>&1)"
contains "kubectl create secret docker-registry" "secret/regcred created" \
  "$(k create secret docker-registry regcred -n apps --docker-server=registry.example \
       --docker-username=u --docker-password=p 2>&1)"
contains "kubectl create configmap --from-literal --from-file" "configmap/app-config created" \
  "$(k create configmap app-config -n apps --from-literal=greeting=hello \
       --from-file="$TMP/settings.ini" 2>&1)"

expect_eq "kubectl get secrets: NAME TYPE DATA as kube" \
  "creds Opaque 2|regcred kubernetes.io/dockerconfigjson 1|web-tls kubernetes.io/tls 2" \
  "$(k get secrets -n apps --no-headers | awk '{print $1, $2, $3}' | paste -sd'|')"
expect_eq "kubectl get configmaps: NAME DATA as kube" "NAME DATA AGE|app-config 2" \
  "$(k get cm -n apps | awk '{print $1, $2, (NR == 1 ? $3 : "")}' | sed 's/ $//' | paste -sd'|')"
expect_eq "Secret values are stored base64" "s3cret" \
  "$(k get secret creds -n apps -o jsonpath='{.data.token}' | base64 -d)"
expect_eq "a Secret's field selector (type)" "secret/web-tls" \
  "$(k get secrets -n apps --field-selector type=kubernetes.io/tls -o name 2>&1)"
k label cm app-config -n apps tier=web >/dev/null
expect_eq "a ConfigMap's label selector" "configmap/app-config" \
  "$(k get cm -n apps -l tier=web -o name 2>&1)"
out=$(k describe secret creds -n apps 2>&1)
contains "kubectl describe secret (sizes, not values)" "token:  6 bytes" "$out"
out=$(k describe configmap app-config -n apps 2>&1)
contains "kubectl describe configmap" "port = 8080" "$out"

# --- kube-apiserver's validation ------------------------------------------------
out=$(k create secret tls half -n apps --cert="$TMP/tls.crt" --key="$TMP/tls.key" \
        --dry-run=client -o json | sed '/"tls.key"/d; s/\("tls.crt": "[^"]*"\),/\1/' |
      k create -f - 2>&1)
contains "a kubernetes.io/tls Secret needs tls.key" 'data[tls.key]: Required value' "$out"
out=$(printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":{"a b":"x"}}' |
      k create -n apps -f - 2>&1)
contains "a key name is checked" 'data[a b]: Invalid value: "a b"' "$out"
k create configmap frozen -n apps --from-literal=a=1 >/dev/null
k patch cm frozen -n apps --type=merge -p '{"immutable":true}' >/dev/null
out=$(k patch cm frozen -n apps --type=merge -p '{"data":{"a":"2"}}' 2>&1)
contains "an immutable ConfigMap keeps its data" \
  'data: Forbidden: field is immutable when `immutable` is set' "$out"
out=$(k patch secret creds -n apps --type=merge -p '{"type":"example.com/other"}' 2>&1)
contains "a Secret's type never changes" 'type: Invalid value: "example.com/other": field is immutable' \
  "$out"

# --- edit, watch, delete --------------------------------------------------------
k create configmap scratch -n apps --from-literal=mode=slow >/dev/null
printf '#!/bin/sh\nsed -i "s/mode: slow/mode: fast/" "$1"\n' >"$TMP/editor.sh"
chmod +x "$TMP/editor.sh"
EDITOR="$TMP/editor.sh" k edit cm scratch -n apps >/dev/null 2>&1
expect_eq "kubectl edit configmap" "fast" "$(k get cm scratch -n apps -o jsonpath='{.data.mode}')"
k get cm -n apps --watch-only -o name >"$TMP/watch.out" 2>&1 &
WATCH=$!
sleep 1
k delete cm scratch -n apps >/dev/null
wait_for 10 "configmap/scratch" cat "$TMP/watch.out" && ok "kubectl get configmaps --watch" ||
  bad "the watch saw nothing" "$(cat "$TMP/watch.out")"
kill "$WATCH" 2>/dev/null; wait "$WATCH" 2>/dev/null

# --- a queued Job reads them through env and mounted files ----------------------
cat <<'YAML' | k apply -f - >/dev/null || bad "apply the reader Job"
apiVersion: batch/v1
kind: Job
metadata:
  name: reader
  namespace: apps
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "echo env: $GREETING $TOKEN; echo file: `cat /etc/app/greeting` `cat /etc/creds/token`; cat /etc/app/settings.ini; echo mode: `stat -c %a /etc/creds/token`"]
        env:
        - name: GREETING
          valueFrom: {configMapKeyRef: {name: app-config, key: greeting}}
        - name: TOKEN
          valueFrom: {secretKeyRef: {name: creds, key: token}}
        resources: {requests: {cpu: 500m}}
        volumeMounts:
        - {name: config, mountPath: /etc/app}
        - {name: creds, mountPath: /etc/creds, readOnly: true}
      volumes:
      - name: config
        configMap: {name: app-config}
      - name: creds
        secret: {secretName: creds, defaultMode: 0400}
YAML
eventually "the reader Job completes" 60 1 k get job reader -n apps -o jsonpath='{.status.succeeded}'
# (By label: kuotad leaves a Job's spec.selector empty, so `kubectl logs
# job/NAME` may pick another Job's pod.)
out=$(k logs -n apps -l job-name=reader 2>&1)
contains "a ConfigMap key and a Secret key through env" "env: hello s3cret" "$out"
contains "the same keys through mounted files" "file: hello s3cret" "$out"
contains "a key from --from-file" "port = 8080" "$out"
contains "the Secret's file has its defaultMode" "mode: 400" "$out"

# kubectl create job sends a batch/v1 Job as protobuf.
contains "kubectl create job (protobuf)" "job.batch/quick created" \
  "$(k create job quick -n apps --image=busybox -- sh -c 'echo from kubectl create job' 2>&1)"
eventually "it runs" 60 1 k get job quick -n apps -o jsonpath='{.status.succeeded}'
contains "and its log is there" "from kubectl create job" "$(k logs -n apps -l job-name=quick 2>&1)"

# --- a Job whose ConfigMap does not exist yet waits, then runs ------------------
late_job() {  # NAME: reads late-config through env (env) or a volume (volume)
  local how=$2 env="" mount="" volume=""
  if [[ $how == env ]]; then
    env="        env: [{name: LEVEL, valueFrom: {configMapKeyRef: {name: late-config, key: level}}}]"
  else
    mount="        volumeMounts: [{name: late, mountPath: /etc/late}]"
    volume="      volumes: [{name: late, configMap: {name: late-config}}]"
  fi
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: apps
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "echo level=\$LEVEL; cat /etc/late/level 2>/dev/null; true"]
        resources: {requests: {cpu: 500m}}
$env
$mount
$volume
YAML
}
late_job waiter env | k apply -f - >/dev/null || bad "apply the waiter Job"
late_job mounter volume | k apply -f - >/dev/null || bad "apply the mounter Job"
waiting() { k get pods -n apps -l "job-name=$1" -o jsonpath='{.items[0].status.containerStatuses[0].state.waiting.reason}'; }
eventually "env naming a missing ConfigMap: CreateContainerConfigError" 30 \
  CreateContainerConfigError waiting waiter
eventually "a volume of a missing ConfigMap: ContainerCreating" 30 ContainerCreating waiting mounter
expect_eq "the pod stays Pending" "Pending" \
  "$(k get pods -n apps -l job-name=waiter -o jsonpath='{.items[0].status.phase}')"
eventually "an Event names what is missing (kubectl get events)" 10 \
  'Error: configmap "late-config" not found' k get events -n apps
pod=$(k get pods -n apps -l job-name=mounter -o name)
eventually "kubectl describe pod shows FailedMount" 10 \
  'MountVolume.SetUp failed for volume "late" : configmap "late-config" not found' \
  k describe -n apps "$pod"
k create configmap late-config -n apps --from-literal=level=3 >/dev/null
eventually "once it exists, the env Job runs" 30 1 k get job waiter -n apps -o jsonpath='{.status.succeeded}'
eventually "and so does the volume Job" 30 1 k get job mounter -n apps -o jsonpath='{.status.succeeded}'
contains "with the value" "level=3" "$(k logs -n apps -l job-name=waiter 2>&1)"
expect_eq "and the file" "3" "$(k logs -n apps -l job-name=mounter 2>&1 | tail -1)"

# --- delete ---------------------------------------------------------------------
contains "kubectl delete secret" 'secret "regcred" deleted' \
  "$(k delete secret creds web-tls regcred -n apps 2>&1)"
contains "kubectl delete configmap" 'configmap "app-config" deleted' \
  "$(k delete configmap app-config -n apps 2>&1)"
expect_eq "no Secret is left" "" "$(k get secrets -n apps -o name 2>&1)"

echo "configmap/secret e2e: $PASS passed, $FAIL failed"
(( FAIL == 0 ))
