#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target (fuzz/corpus/<target>/) from
the project's own test inputs: the manifests under examples/ and tests/, the
perf configs, and the selectors, quantities, patches and paths the unit tests
use. Run from anywhere; rewrites the generated directories (http_json's
hand-written corpus is left alone). docs/fuzzing.md says when to re-run it."""
import glob
import json
import os
import shutil
import struct
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")

def write(target, items):
    d = os.path.join(OUT, target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    seen = set()
    n = 0
    for item in items:
        data = item if isinstance(item, bytes) else item.encode()
        if data in seen or len(data) > 64 * 1024:
            continue
        seen.add(data)
        with open(os.path.join(d, "seed-%03d" % n), "wb") as f:
            f.write(data)
        n += 1
    print("%s: %d seeds" % (target, n))

def manifests():
    paths = sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.yaml"), recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, "tests", "**", "*.yaml"), recursive=True))
    return paths

def main():
    texts = []
    for p in manifests():
        with open(p, encoding="utf-8", errors="replace") as f:
            texts.append(f.read())
    # The perf configs are not manifests; the YAML decoder gets the rest.
    kube = [t for t in texts if "apiVersion" in t]
    write("yaml_decode", kube[:150])

    docs = []
    for t in kube:
        try:
            docs.extend(d for d in yaml.safe_load_all(t) if isinstance(d, dict))
        except yaml.YAMLError:
            pass
    write("json_decode", [json.dumps(d) for d in docs[:200]])

    write("quantity", ["0", "1", "500m", "1.5", "2e3", "10Gi", "128Mi", "1k", "1M", "100n",
                       "0.001", "-1", "1e-3", "9223372036854775807", "1Ei", "3.25Ki", "+5",
                       ".5", "8u", "1E", "2P"])

    selectors = []
    for d in docs:
        spec = d.get("spec") if isinstance(d.get("spec"), dict) else {}
        sel = spec.get("namespaceSelector")
        if isinstance(sel, dict):
            selectors.append(yaml.safe_dump(sel))
    selectors += [
        "matchLabels:\n  team: a\n",
        "matchExpressions:\n- key: env\n  operator: In\n  values: [prod, dev]\n",
        "matchExpressions:\n- key: tier\n  operator: NotIn\n  values: [x]\n- key: gpu\n  operator: Exists\n",
        "matchExpressions:\n- key: old\n  operator: DoesNotExist\n",
        "{}\n",
    ]
    write("label_selector", selectors)

    labels = '{"app":"web","env":"prod","tier":"1"}'
    write("list_label_selector", [s + "\n" + labels for s in [
        "app=web", "app==web,env!=dev", "env in (prod,dev)", "tier notin (2,3)", "!gone",
        "app", "tier>0", "tier<5", "", "kueue.x-k8s.io/queue-name=user-queue",
        "a.b/c-d_e=f.g,h"]])

    obj = json.dumps({"apiVersion": "batch/v1", "kind": "Job",
                      "metadata": {"name": "j", "namespace": "default",
                                   "labels": {"kueue.x-k8s.io/queue-name": "q"}},
                      "spec": {"suspend": True, "parallelism": 2},
                      "status": {"phase": "Running"}})
    write("field_selector", [s + "\n" + obj for s in [
        "metadata.name=j", "metadata.namespace!=kube-system", "status.phase=Running",
        "metadata.name=j,metadata.namespace=default", "metadata.name=a\\,b", "spec.suspend=true",
        "metadata.name==j", ""]])

    pod = json.dumps({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "p", "namespace": "default", "labels": {"a": "b"},
                                   "finalizers": ["f"]},
                      "spec": {"containers": [{"name": "c", "image": "busybox",
                                               "env": [{"name": "X", "value": "1"}],
                                               "resources": {"requests": {"cpu": "1"}}}]}})
    jp = [
        [{"op": "add", "path": "/metadata/labels/x", "value": "y"}],
        [{"op": "remove", "path": "/metadata/finalizers/0"}],
        [{"op": "replace", "path": "/spec/containers/0/image", "value": "alpine"}],
        [{"op": "test", "path": "/metadata/name", "value": "p"}],
        [{"op": "move", "from": "/metadata/labels/a", "path": "/metadata/labels/c"}],
        [{"op": "copy", "from": "/metadata/labels", "path": "/metadata/annotations"}],
        [{"op": "add", "path": "/spec/containers/-", "value": {"name": "d"}}],
        [{"op": "replace", "path": "/metadata/labels/a~1b", "value": "z"}],
    ]
    write("json_patch", [pod + "\n--\n" + json.dumps(p) for p in jp] + ["--\n[]"])
    mp = [
        {"metadata": {"labels": {"a": None, "x": "y"}}},
        {"spec": {"containers": [{"name": "c", "image": "alpine"}]}},
        {"metadata": {"finalizers": None}},
        {"spec": {"suspend": False}},
    ]
    write("merge_patch", [pod + "\n--\n" + json.dumps(p) for p in mp] + [obj + "\n--\n" + json.dumps(mp[3])])
    smp = [
        {"spec": {"containers": [{"name": "c", "image": "alpine"}]}},
        {"spec": {"containers": [{"name": "c", "$patch": "delete"}]}},
        {"spec": {"containers": [{"name": "c", "env": [{"name": "Y", "value": "2"}]}]}},
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["f"]}},
        {"spec": {"$setElementOrder/containers": [{"name": "c"}], "containers": [{"name": "c"}]}},
        {"spec": {"$retainKeys": ["containers"], "containers": [{"name": "c"}]}},
        {"metadata": {"labels": {"$patch": "replace", "z": "1"}}},
    ]
    write("strategic_merge_patch", [pod + "\n--\n" + json.dumps(p) for p in smp])

    # kubectl's protobuf envelope (protobuf_body_test.cc's builders).
    def varint(v):
        out = b""
        while v >= 0x80:
            out += bytes([(v & 0x7F) | 0x80])
            v >>= 7
        return out + bytes([v])
    def field(n, value):
        return varint((n << 3) | 2) + varint(len(value)) + value
    def number(n, v):
        return varint(n << 3) + varint(v)
    def envelope(api_version, kind, raw):
        return (b"k8s\0" + field(1, field(1, api_version) + field(2, kind)) + field(2, raw)
                + field(3, b"") + field(4, b""))
    meta = field(1, b"team-a") + field(11, field(1, b"env") + field(2, b"prod")) + field(14, b"f1")
    ns = field(1, meta) + field(2, field(1, b"kubernetes"))
    pc = field(1, field(1, b"high")) + number(2, 1000) + number(3, 1) + field(4, b"top") + field(5, b"Never")
    neg = field(1, field(1, b"low")) + number(2, (1 << 64) - 5)
    write("protobuf_body", [b"\0" + envelope(b"v1", b"Namespace", ns),
                            b"\1" + envelope(b"scheduling.k8s.io/v1", b"PriorityClass", pc),
                            b"\1" + envelope(b"scheduling.k8s.io/v1", b"PriorityClass", neg),
                            b"\2" + envelope(b"v1", b"Pod", meta),
                            # What kubectl v1.32 sends for `create job j1 --image=busybox --
                            # sh -c 'echo hi'`, `create secret generic s1 --from-literal=a=b
                            # --from-literal=c=d --type=foo`, `create configmap c1
                            # --from-literal=a=b` (protobuf_body_test.cc has them too).
                            b"\3" + bytes.fromhex(
                                "6b3873000a0f0a0862617463682f763112034a6f62128b010a120a026a3112"
                                "001a0022002a00320038004200126b32690a100a0012001a0022002a003200"
                                "38004200125512320a026a31120762757379626f781a0273681a022d631a07"
                                "6563686f2068692a0042006a007200800100880100900100a201001a054e65"
                                "766572320042004a0052005800600068008201008a01009a0100c201001a08"
                                "2000280030003a001a002200"),
                            b"\4" + bytes.fromhex(
                                "6b3873000a0c0a027631120653656372657412290a120a02733112001a0022"
                                "002a0032003800420012060a016112016212060a01631201641a03666f6f1a"
                                "002200"),
                            b"\5" + bytes.fromhex(
                                "6b3873000a0f0a0276311209436f6e6669674d6170121c0a120a0263311200"
                                "1a0022002a0032003800420012060a01611201621a002200"),
                            b"\6" + envelope(b"kueue.x-k8s.io/v1beta1", b"ClusterQueue", meta)])

    write("request_target", [
        "/", "/api", "/apis", "/version", "/healthz", "/readyz", "/livez", "/openapi/v2",
        "/openapi/v3", "/api/v1", "/api/v1/namespaces", "/api/v1/namespaces/default",
        "/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/pods/p/log",
        "/api/v1/namespaces/default/pods/p/status", "/apis/batch/v1/namespaces/a/jobs/j",
        "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq/status",
        "/apis/kueue.x-k8s.io/v1beta1/namespaces/ns/workloads",
        "/apis/kueue.x-k8s.io/v1beta1/watch/namespaces/ns/localqueues",
        "/api/v1/watch/pods", "/apis/kueue.x-k8s.io", "/apis/scheduling.k8s.io/v1/priorityclasses",
        "//api//v1//pods//", "/api/v1/nodes/n"])

    perf = sorted(glob.glob(os.path.join(ROOT, "tests", "perf", "*.yaml")))
    perf += sorted(glob.glob(os.path.join(ROOT, "..", "shared", "perf", "*.yaml")))
    pt = []
    for p in perf:
        with open(p, encoding="utf-8") as f:
            pt.append(f.read())
    if not pt:
        sys.exit("no perf configs found (tests/perf, ../shared/perf)")
    write("perf_config", pt)

if __name__ == "__main__":
    main()
