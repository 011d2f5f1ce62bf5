#!/usr/bin/env python3
"""Hostile requests against a running kuotad (issue 15's findings), as a
careless or malicious client would send them. Prints one line per check
("ok ..." / "FAIL ...") and exits non-zero when any failed.

Usage: hostile_requests.py BASE_URL KUOTAD_PID [MUTATIONS]
"""
import copy
import json
import os
import random
import ssl
import sys
import time
import urllib.error
import urllib.request

BASE, PID = sys.argv[1], int(sys.argv[2])
# The admin's credentials (hostile_input_test.sh reads them from kuotad's kubeconfig).
TOKEN = os.environ.get("KUOTA_TOKEN", "")
CA_FILE = os.environ.get("KUOTA_CA_FILE", "")
TLS = ssl.create_default_context(cafile=CA_FILE) if CA_FILE else None
MUTATIONS = int(sys.argv[3]) if len(sys.argv) > 3 else 600
failures = 0


def report(ok, name, detail=""):
    global failures
    if ok:
        print("ok   " + name)
    else:
        failures += 1
        print("FAIL " + name + ("\n     | " + detail.replace("\n", "\n     | ") if detail else ""))


def request(method, path, body=None, ctype="application/json", timeout=30, accept=None):
    data = body if isinstance(body, (bytes, type(None))) else body.encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", ctype)
    if accept:
        req.add_header("Accept", accept)
    if TOKEN:
        req.add_header("Authorization", "Bearer " + TOKEN)
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=TLS) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def rss_kib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def alive():
    try:
        os.kill(PID, 0)
    except OSError:
        return False
    status, _ = request("GET", "/healthz", timeout=10)
    return status == 200


JOBS = "/apis/batch/v1/namespaces/default/jobs"

# --- the 239-byte Indexed Job with a numeric env name: 422 naming the field.
bad_job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "idx"},
           "spec": {"completionMode": "Indexed", "completions": 2, "template": {"spec": {
               "restartPolicy": "Never",
               "containers": [{"name": "c", "image": "busybox", "command": ["true"],
                               "env": [{"name": 1, "value": "x"}]}]}}}}
status, body = request("POST", JOBS, json.dumps(bad_job))
report(status == 422 and "spec.template.spec.containers[0].env[0].name" in body,
       "Indexed Job with a numeric env name: 422 naming the field", f"{status} {body[:300]}")

# --- 60,000 nested objects inside spec: a 4xx, and kuotad lives.
deep = '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"deep"},"spec":' + \
    '{"a":' * 60000 + '1' + '}' * 60000 + '}'
status, body = request("POST", "/api/v1/namespaces", deep)
report(400 <= status < 500 and "limit of 1000 levels" in body,
       "60,000-deep nesting: 4xx naming the limit",
       f"{status} {body[:300]}")
# 60,000-deep arrays as a patch body, and as a merge patch value.
status, body = request("PATCH", "/api/v1/namespaces/default", '[' * 60000 + ']' * 60000,
                       "application/json-patch+json")
report(400 <= status < 500, "60,000-deep JSON patch: 4xx", f"{status} {body[:300]}")
# Just under the limit: stored, then read back and run by every loop.
d = 990
deep_pod = ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep"},"spec":{'
            '"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",'
            '"command":["true"]}],"future":' + '[' * d + ']' * d + '}}')
status, body = request("POST", "/api/v1/namespaces/default/pods", deep_pod)
report(status == 201, "a pod nesting 990 levels (under the limit) is stored", f"{status} {body[:200]}")
status, body = request("GET", "/api/v1/namespaces/default/pods/deep")
report(status == 200, "and read back", f"{status} {body[:200]}")
time.sleep(1)
report(alive(), "kuotad alive after deep nesting")

# --- the copy-doubling JSON patch: 4xx within seconds (unbounded, 40 doublings
# of 3 KiB would take minutes and terabytes), RSS bounded. The bound is loose:
# sanitized kuotad beside other tests on 2 cores once took 1.26 s.
padding = {f"k{i}": "x" * 100 for i in range(30)}
status, body = request("POST", "/api/v1/namespaces", json.dumps(
    {"apiVersion": "v1", "kind": "Namespace",
     "metadata": {"name": "bomb", "annotations": padding}}))
report(status == 201, "namespace for the patch bomb created", f"{status} {body[:200]}")
ops = [{"op": "add", "path": "/spec", "value": {"a": padding}}]
for i in range(40):
    ops.append({"op": "copy", "from": "/spec", "path": f"/spec/c{i}"})
before = rss_kib()
t0 = time.monotonic()
status, body = request("PATCH", "/api/v1/namespaces/bomb", json.dumps(ops),
                       "application/json-patch+json")
elapsed = time.monotonic() - t0
growth_mib = (rss_kib() - before) / 1024
report(400 <= status < 500 and "limit" in body, "copy-doubling patch: 4xx naming the limit",
       f"{status} {body[:300]}")
report(elapsed < 5.0, f"copy-doubling patch answered in {elapsed:.3f}s (< 5 s)")
report(growth_mib < 64, f"copy-doubling patch grew RSS by {growth_mib:.1f} MiB (< 64 MiB)")
too_many = [{"op": "test", "path": "/kind", "value": "Namespace"}] * 10001
status, body = request("PATCH", "/api/v1/namespaces/bomb", json.dumps(too_many),
                       "application/json-patch+json")
report(status == 422 and "10000" in body, "10,001 patch operations: 422 naming the limit",
       f"{status} {body[:300]}")

# --- smaller findings.
status, body = request("POST", JOBS, "1e400")
report(status == 400, "bare 1e400: 400", f"{status} {body[:200]}")
status, body = request("GET", "/api/v1/pods?fieldSelector=spec.bogus%3Dx")
report(status == 400 and "field label not supported: spec.bogus" in body,
       "unsupported field selector: 400", f"{status} {body[:200]}")
status, body = request("GET", "/api/v1/pods?fieldSelector=status.phase%3DRunning")
report(status == 200, "supported field selector: 200", f"{status} {body[:200]}")

# --- random mutation of valid bodies: never a 5xx, never a dead kuotad.
VALID = [
    (JOBS, {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "m", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"parallelism": 2, "completions": 4, "completionMode": "Indexed",
                     "backoffLimit": 1, "activeDeadlineSeconds": 60,
                     "template": {"metadata": {"labels": {"a": "b"}}, "spec": {
                         "restartPolicy": "Never",
                         "nodeSelector": {"n": "v"},
                         "tolerations": [{"key": "k", "operator": "Exists"}],
                         "containers": [{"name": "c", "image": "busybox",
                                         "command": ["sh", "-c", "exit 0"], "args": ["x"],
                                         "env": [{"name": "A", "value": "1"},
                                                 {"name": "B", "valueFrom": {"fieldRef": {
                                                     "fieldPath": "metadata.name"}}}],
                                         "resources": {"requests": {"cpu": "1m",
                                                                    "memory": "1Mi"}}}]}}}}),
    ("/api/v1/namespaces/default/pods",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "m"},
      "spec": {"restartPolicy": "Never", "containers": [
          {"name": "c", "image": "busybox", "command": ["true"],
           "resources": {"limits": {"cpu": "1m"}}}]}}),
    ("/apis/kueue.x-k8s.io/v1beta1/clusterqueues",
     {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "m"},
      "spec": {"namespaceSelector": {}, "cohort": "c", "resourceGroups": [
          {"coveredResources": ["cpu"], "flavors": [
              {"name": "f", "resources": [{"name": "cpu", "nominalQuota": "1",
                                           "borrowingLimit": "1"}]}]}]}}),
    ("/apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads",
     {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "m"},
      "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {
          "spec": {"containers": [{"name": "c", "image": "i",
                                   "resources": {"requests": {"cpu": "1"}}}]}}}]}}),
    ("/apis/kueue.x-k8s.io/v1beta1/namespaces/default/localqueues",
     {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "m"},
      "spec": {"clusterQueue": "cq"}}),
]
ODD = [None, True, False, 0, -1, 1.5, 2**63, -2**63 - 1, 1e308, "", "x", "1e400", "-1",
       "\u0000", "\udcff", [], {}, [1, "a", None], {"a": {"b": [1]}}, "9" * 400,
       [[[[[[[[[[]]]]]]]]]]]


def nodes(v, path=()):
    yield path, v
    if isinstance(v, dict):
        for k in list(v):
            yield from nodes(v[k], path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from nodes(x, path + (i,))


def mutate(obj, rng):
    obj = copy.deepcopy(obj)
    for _ in range(rng.randint(1, 3)):
        all_nodes = [p for p, _ in nodes(obj) if p and p[0] != "apiVersion" and p[0] != "kind"]
        if not all_nodes:
            break
        path = rng.choice(all_nodes)
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        r = rng.random()
        if r < 0.7:
            parent[path[-1]] = copy.deepcopy(rng.choice(ODD))
        elif r < 0.85 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[path[-1]]))
        else:
            parent[path[-1] + "x" if isinstance(path[-1], str) else path[-1]] = rng.choice(ODD)
    return obj


rng = random.Random(15)
server_errors = []
for i in range(MUTATIONS):
    url, valid = VALID[i % len(VALID)]
    body = mutate(valid, rng)
    if isinstance(body.get("metadata"), dict) and isinstance(body["metadata"].get("name"), str):
        body["metadata"]["name"] = f"m{i}"
    text = json.dumps(body)
    status, resp = request("POST", url, text)
    if status >= 500:
        server_errors.append(f"POST {url} {text[:300]} -> {status} {resp[:200]}")
    if status == 201 and i % 3 == 0:
        # and as a merge patch onto what was stored
        name = body["metadata"]["name"]
        patch = mutate({"spec": valid["spec"]}, rng)
        status, resp = request("PATCH", f"{url}/{name}", json.dumps(patch),
                               "application/merge-patch+json")
        if status >= 500:
            server_errors.append(f"PATCH {url}/{name} {json.dumps(patch)[:300]} -> {status} "
                                 f"{resp[:200]}")
# Reading back whatever was stored, as kubectl get does (Tables) and as JSON.
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
for url, _ in VALID:
    for accept in (TABLE, "application/json"):
        status, _ = request("GET", url, accept=accept)
        if status >= 500:
            server_errors.append(f"GET {url} (Accept {accept}) -> {status}")
report(not server_errors, f"{MUTATIONS} mutated bodies: no 5xx answer",
       "\n".join(server_errors[:10]) + (f"\n... {len(server_errors)} in all"
                                        if len(server_errors) > 10 else ""))
time.sleep(2)  # give the background loops time to read what was stored
report(alive(), "kuotad alive after the mutated bodies")
sys.exit(1 if failures else 0)
