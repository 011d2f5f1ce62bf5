#!/usr/bin/env python3
"""Checks deploy/ (Kuota's Kubernetes install) without a cluster and without Helm:

  * deploy/crds and the chart's crds/ hold the same files; each CRD is a structural
    apiextensions.k8s.io/v1 CRD with Kueue's names, scope, status subresource,
    printer columns and defaults, and matches what kuotad itself serves
    (src/server/resource_info.cc);
  * the chart (deploy/helm/kuota) passes lint-like checks and renders, with
    tests/deploy/render_chart.py, with default values, with seed 000's Kueue values
    file (only the Configuration's frameworks change) and in another namespace;
  * the rendered objects: names, namespaces, the Deployment's args, probes and
    security context, the metrics Service, least-privilege RBAC (exactly the rules
    the controller needs, no wildcards, no Secrets) and Kueue-style aggregated roles;
  * deploy/manifests.yaml equals a fresh deploy/generate.py output;
  * the renderer refuses template constructs it does not support, naming file and line.

Prints one summary line: deploy: N objects rendered, M CRDs checked
Usage: chart_test.py   (python3 with PyYAML: Debian's python3-yaml)
"""
import glob
import os
import re
import shutil
import sys
import tempfile

import yaml

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "deploy"))
import crd_schema  # noqa: E402
import generate  # noqa: E402
import render_chart  # noqa: E402

DEPLOY = os.path.join(ROOT, "deploy")
CHART = os.path.join(DEPLOY, "helm", "kuota")
SEED_VALUES = os.path.join(HERE, "seed000-values.yaml")
RELEASE, NAMESPACE = "kuota", "kuota-system"

FAILURES = []


def fail(msg):
    FAILURES.append(msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


# --- What Kueue's CRDs have (names, scope, status, printer columns, defaults) ---

def cols(*c):
    return [{"name": n, "jsonPath": p, "priority": pr} for n, p, pr in c]


CRDS = {
    "ResourceFlavor": dict(plural="resourceflavors", scope="Cluster", status=True,
                           short={"flavor", "flavors", "rf"}, columns=[]),
    "ClusterQueue": dict(plural="clusterqueues", scope="Cluster", status=True, short={"cq"},
                         columns=cols(("Cohort", ".spec.cohort", 0),
                                      ("Strategy", ".spec.queueingStrategy", 1),
                                      ("Pending Workloads", ".status.pendingWorkloads", 0),
                                      ("Admitted Workloads", ".status.admittedWorkloads", 1))),
    "Cohort": dict(plural="cohorts", scope="Cluster", status=True, short=set(), columns=[]),
    "LocalQueue": dict(plural="localqueues", scope="Namespaced", status=True,
                       short={"queue", "queues", "lq"},
                       columns=cols(("ClusterQueue", ".spec.clusterQueue", 0),
                                    ("Pending Workloads", ".status.pendingWorkloads", 0),
                                    ("Admitted Workloads", ".status.admittedWorkloads", 0))),
    "WorkloadPriorityClass": dict(plural="workloadpriorityclasses", scope="Cluster",
                                  status=False, short=set(), columns=cols(("Value", ".value", 0))),
    "AdmissionCheck": dict(plural="admissionchecks", scope="Cluster", status=True, short=set(),
                           columns=[]),
    "Workload": dict(plural="workloads", scope="Namespaced", status=True, short={"wl"},
                     columns=cols(("Queue", ".spec.queueName", 0),
                                  ("Reserved in", ".status.admission.clusterQueue", 0),
                                  ("Admitted", ".status.conditions[?(@.type=='Admitted')].status", 0),
                                  ("Finished", ".status.conditions[?(@.type=='Finished')].status", 0),
                                  ("Age", ".metadata.creationTimestamp", 0))),
    "Topology": dict(plural="topologies", scope="Cluster", status=False, short={"topo"},
                     columns=[]),
    "MultiKueueCluster": dict(plural="multikueueclusters", scope="Cluster", status=True,
                              short=set(),
                              columns=cols(("Connected",
                                            ".status.conditions[?(@.type=='Active')].status", 0),
                                           ("Age", ".metadata.creationTimestamp", 0))),
    "MultiKueueConfig": dict(plural="multikueueconfigs", scope="Cluster", status=False,
                             short=set(), columns=[]),
    "ProvisioningRequestConfig": dict(plural="provisioningrequestconfigs", scope="Cluster",
                                      status=False, short={"prc"}, columns=[]),
}
# (kind, schema path, type, default) as Kueue's API types them.
FIELDS = [
    ("ClusterQueue", "spec.queueingStrategy", "string", "BestEffortFIFO"),
    ("ClusterQueue", "spec.preemption.withinClusterQueue", "string", "Never"),
    ("ClusterQueue", "spec.preemption.reclaimWithinCohort", "string", "Never"),
    ("ClusterQueue", "spec.preemption.borrowWithinCohort.policy", "string", "Never"),
    ("ClusterQueue", "spec.flavorFungibility.whenCanBorrow", "string", "Borrow"),
    ("ClusterQueue", "spec.flavorFungibility.whenCanPreempt", "string", "TryNextFlavor"),
    ("ClusterQueue", "spec.stopPolicy", "string", "None"),
    ("ClusterQueue", "spec.cohort", "string", None),
    ("ClusterQueue", "spec.resourceGroups[].flavors[].resources[].nominalQuota", None, None),
    ("ClusterQueue", "spec.namespaceSelector", "object", None),
    ("Cohort", "spec.parentName", "string", None),
    ("Cohort", "spec.resourceGroups[].coveredResources", "array", None),
    ("LocalQueue", "spec.clusterQueue", "string", None),
    ("LocalQueue", "spec.stopPolicy", "string", "None"),
    ("Workload", "spec.active", "boolean", True),
    ("Workload", "spec.podSets[].count", "integer", 1),
    ("Workload", "spec.podSets[].name", "string", "main"),
    ("Workload", "spec.queueName", "string", None),
    ("Workload", "spec.priorityClassName", "string", None),
    ("ResourceFlavor", "spec.nodeLabels", "object", None),
    ("ResourceFlavor", "spec.tolerations", "array", None),
    ("WorkloadPriorityClass", "value", "integer", None),
    ("AdmissionCheck", "spec.controllerName", "string", None),
    ("Topology", "spec.levels", "array", None),
    ("Topology", "spec.levels[].nodeLabel", "string", None),
    ("ProvisioningRequestConfig", "spec.provisioningClassName", "string", None),
    ("ProvisioningRequestConfig", "spec.parameters", "object", None),
    ("ProvisioningRequestConfig", "spec.managedResources", "array", None),
    ("ProvisioningRequestConfig", "spec.retryStrategy", "object",
     dict(backoffLimitCount=3, backoffBaseSeconds=60, backoffMaxSeconds=1800)),
    ("ProvisioningRequestConfig", "spec.retryStrategy.backoffLimitCount", "integer", 3),
    ("ProvisioningRequestConfig", "spec.retryStrategy.backoffBaseSeconds", "integer", 60),
    ("ProvisioningRequestConfig", "spec.retryStrategy.backoffMaxSeconds", "integer", 1800),
    ("ProvisioningRequestConfig", "spec.podSetUpdates.nodeSelector[].key", "string", None),
    ("ProvisioningRequestConfig", "spec.podSetMergePolicy", "string", None),
]
# The v1beta2 version's schema, with v1beta2's field names: (kind, path, type, default);
# type None: the path must not be there (a v1beta1-only field).
V1BETA2_FIELDS = [
    ("ClusterQueue", "spec.cohortName", "string", None),
    ("ClusterQueue", "spec.cohort", None, None),
    ("ClusterQueue", "spec.admissionChecks", None, None),
    ("ClusterQueue", "spec.admissionChecksStrategy", "object", None),
    ("ClusterQueue", "spec.flavorFungibility.whenCanBorrow", "string", "MayStopSearch"),
    ("Workload", "spec.priorityClassRef.name", "string", None),
    ("Workload", "spec.priorityClassName", None, None),
    ("Workload", "spec.priorityClassSource", None, None),
    ("AdmissionCheck", "spec.retryDelayMinutes", None, None),
    ("LocalQueue", "spec.clusterQueue", "string", None),
    ("Topology", "spec.levels[].nodeLabel", "string", None),
    ("ProvisioningRequestConfig", "spec.provisioningClassName", "string", None),
    ("ProvisioningRequestConfig", "spec.retryStrategy.backoffLimitCount", "integer", 3),
    ("ProvisioningRequestConfig", "spec.podSetUpdates.nodeSelector[].key", "string", None),
]
# Kueue's Topology CRD (apis/kueue/*/topology_types.go): spec.levels's bounds, nodeLabel's
# bounds and pattern, and the CEL rules on levels, in each version. Both versions have the
# same rules but the transition rule: v1beta1's levels are immutable; v1beta2's may change
# only when kubernetes.io/hostname is the lowest level before and after.
TOPOLOGY_LEVELS = dict(minItems=1, maxItems=16, listType="atomic")
TOPOLOGY_NODE_LABEL = dict(
    minLength=1, maxLength=316,
    pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
            r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
TOPOLOGY_RULES = [
    ("size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0", "must be unique"),
    ("size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || "
     "self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'",
     "the kubernetes.io/hostname label can only be used at the lowest level of topology"),
]
TOPOLOGY_TRANSITION = {
    "v1beta1": ("self == oldSelf", "field is immutable"),
    "v1beta2": ("self == oldSelf || (self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'"
                " && oldSelf[size(oldSelf) - 1].nodeLabel == 'kubernetes.io/hostname')",
                "levels are mutable only when kubernetes.io/hostname is the lowest level both"
                " before and after the change"),
}
# Every Kueue CRD converts through kuotad's webhook, behind the chart's Service.
CONVERSION = {"strategy": "Webhook",
              "webhook": {"conversionReviewVersions": ["v1"],
                          "clientConfig": {"service": {"namespace": NAMESPACE,
                                                       "name": "kuota-webhook-service",
                                                       "path": "/convert", "port": 443}}}}


def kuotad_served_kinds():
    """{kind: (plural, singular, scope, status, shortNames, categories)} from kuotad's own
    discovery table, so the CRDs say what kuotad serves standalone."""
    path = os.path.join(ROOT, "src", "server", "resource_info.cc")
    if not os.path.exists(path):
        return {}
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r'Make\(\s*kKueue,\s*"v1beta2",\s*"(\w+)",\s*"(\w+)",\s*"(\w+)",\s*'
                         r'(kCluster|kNamespaced),\s*(kStatus|kNoStatus),\s*\{([^}]*)\},\s*'
                         r'\{([^}]*)\}\)', text):
        kind, plural, singular, scope, status, short, cats = m.groups()
        out[kind] = (plural, singular, "Cluster" if scope == "kCluster" else "Namespaced",
                     status == "kStatus", set(re.findall(r'"([^"]+)"', short)),
                     set(re.findall(r'"([^"]+)"', cats)))
    return out


def check_crds():
    files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(DEPLOY, "crds", "*")))
    copies = sorted(os.path.basename(p) for p in glob.glob(os.path.join(CHART, "crds", "*")))
    check(files == copies, f"deploy/crds {files} and deploy/helm/kuota/crds {copies} differ"
                           f" (run deploy/generate.py)")
    for name in set(files) & set(copies):
        a = open(os.path.join(DEPLOY, "crds", name), encoding="utf-8").read()
        b = open(os.path.join(CHART, "crds", name), encoding="utf-8").read()
        check(a == b, f"deploy/helm/kuota/crds/{name} is not a copy of deploy/crds/{name}"
                      f" (run deploy/generate.py)")
    served = kuotad_served_kinds()
    check(served, "found no kueue.x-k8s.io kinds in src/server/resource_info.cc: update"
                  " kuotad_served_kinds() in tests/deploy/chart_test.py")
    seen = {}
    for name in files:
        where = f"deploy/crds/{name}"
        text = open(os.path.join(DEPLOY, "crds", name), encoding="utf-8").read()
        check(text.startswith("#"), f"{where}: start with a comment saying what it is")
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
        if not check(len(docs) == 1, f"{where}: want exactly one YAML document, got {len(docs)}"):
            continue
        crd = docs[0]
        for e in crd_schema.crd_errors(crd):
            fail(f"{where}: {e}")
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        kind = names.get("kind")
        check(name == f"{crd['metadata']['name']}.yaml", f"{where}: name the file"
                                                         f" {crd['metadata']['name']}.yaml")
        if not check(kind in CRDS, f"{where}: unexpected kind {kind!r}"):
            continue
        seen[kind] = crd
        want = CRDS[kind]
        check(spec.get("group") == "kueue.x-k8s.io", f"{where}: group must be kueue.x-k8s.io")
        check(names.get("plural") == want["plural"], f"{where}: plural must be {want['plural']}")
        check(spec.get("scope") == want["scope"], f"{where}: scope must be {want['scope']}")
        check(set(names.get("shortNames") or []) == want["short"],
              f"{where}: shortNames {names.get('shortNames')} != Kueue's {sorted(want['short'])}")
        check(names.get("categories") == ["kueue"], f"{where}: categories must be [kueue]")
        versions = spec.get("versions") or []
        if not check(len(versions) == 2 and versions[0].get("name") == "v1beta1" and
                     versions[0].get("served") is True and versions[0].get("storage") is False and
                     versions[1].get("name") == "v1beta2" and
                     versions[1].get("served") is True and versions[1].get("storage") is True,
                     f"{where}: want v1beta1 (served, not storage) and v1beta2 (served, storage:"
                     f" Kueue v0.20 stores v1beta2)"):
            continue
        check(spec.get("conversion") == CONVERSION,
              f"{where}: spec.conversion must be {CONVERSION}, is {spec.get('conversion')}")
        v2 = versions[1]
        check(("status" in (v2.get("subresources") or {})) == want["status"],
              f"{where}: v1beta2's status subresource differs from v1beta1's")
        v2_cols = [{"name": c.get("name"), "jsonPath": c.get("jsonPath"),
                    "priority": c.get("priority", 0)} for c in v2.get("additionalPrinterColumns") or []]
        want_v2 = [dict(c, jsonPath=".spec.cohortName") if c["jsonPath"] == ".spec.cohort" else c
                   for c in want["columns"]]
        check(v2_cols == want_v2, f"{where}: v1beta2 printer columns {v2_cols} != {want_v2}")
        v = versions[0]
        has_status = "status" in (v.get("subresources") or {})
        check(has_status == want["status"],
              f"{where}: status subresource {'missing' if want['status'] else 'unexpected'}")
        got_cols = [{"name": c.get("name"), "jsonPath": c.get("jsonPath"),
                     "priority": c.get("priority", 0)} for c in v.get("additionalPrinterColumns") or []]
        check(got_cols == want["columns"], f"{where}: printer columns {got_cols}"
                                           f" != Kueue's {want['columns']}")
        if kind in served:
            plural, singular, scope, status, short, cats = served[kind]
            got = (names.get("plural"), names.get("singular"), spec.get("scope"), has_status,
                   set(names.get("shortNames") or []), set(names.get("categories") or []))
            check(got == served[kind], f"{where}: kuotad serves {kind} as {served[kind]}"
                                       f" (src/server/resource_info.cc), the CRD says {got}")
    check(set(seen) == set(CRDS), f"deploy/crds: missing CRDs for {sorted(set(CRDS) - set(seen))}")
    for kind, path, typ, default in FIELDS:
        if kind not in seen:
            continue
        schema = seen[kind]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        node = crd_schema.schema_at(schema, path)
        if not check(node is not None, f"{kind} CRD: no schema for {path}"):
            continue
        if typ is None:
            check(node.get("x-kubernetes-int-or-string") is True,
                  f"{kind} CRD: {path} must be a quantity (int-or-string)")
        else:
            check(node.get("type") == typ, f"{kind} CRD: {path} must be a {typ}")
        if default is not None:
            check(node.get("default") == default, f"{kind} CRD: {path} must default to"
                                                  f" {default!r}, has {node.get('default')!r}")
    for kind, path, typ, default in V1BETA2_FIELDS:
        if kind not in seen or len(seen[kind]["spec"]["versions"]) < 2:
            continue
        schema = seen[kind]["spec"]["versions"][1]["schema"]["openAPIV3Schema"]
        node = crd_schema.schema_at(schema, path)
        if typ is None:
            check(node is None, f"{kind} CRD v1beta2: {path} is v1beta1's; v1beta2 has no such field")
            continue
        if check(node is not None, f"{kind} CRD v1beta2: no schema for {path}"):
            check(node.get("type") == typ, f"{kind} CRD v1beta2: {path} must be a {typ}")
            if default is not None:
                check(node.get("default") == default, f"{kind} CRD v1beta2: {path} must default"
                                                      f" to {default!r}, has {node.get('default')!r}")
    if "Topology" in seen:
        check_topology_crd(seen["Topology"])
    if "ProvisioningRequestConfig" in seen:
        check_provisioning_crd(seen["ProvisioningRequestConfig"])
    return len(seen)


def check_topology_crd(crd):
    for v in crd["spec"]["versions"]:
        where = f"Topology CRD {v.get('name')}"
        schema = v["schema"]["openAPIV3Schema"]
        check("levels" in ((schema_at_or_empty(schema, "spec")).get("required") or []),
              f"{where}: spec.levels must be required")
        levels = schema_at_or_empty(schema, "spec.levels")
        got = dict(minItems=levels.get("minItems"), maxItems=levels.get("maxItems"),
                   listType=levels.get("x-kubernetes-list-type"))
        check(got == TOPOLOGY_LEVELS, f"{where}: spec.levels {got} != Kueue's {TOPOLOGY_LEVELS}")
        label = schema_at_or_empty(schema, "spec.levels[].nodeLabel")
        got = {k: label.get(k) for k in TOPOLOGY_NODE_LABEL}
        check(got == TOPOLOGY_NODE_LABEL,
              f"{where}: spec.levels[].nodeLabel {got} != Kueue's {TOPOLOGY_NODE_LABEL}")
        check("nodeLabel" in ((levels.get("items") or {}).get("required") or []),
              f"{where}: spec.levels[].nodeLabel must be required")
        rules = [(r.get("rule"), r.get("message"))
                 for r in levels.get("x-kubernetes-validations") or []]
        want = TOPOLOGY_RULES + [TOPOLOGY_TRANSITION.get(v.get("name"), ("?", "?"))]
        check(sorted(rules) == sorted(want),
              f"{where}: spec.levels's x-kubernetes-validations {rules} != Kueue's {want}")


# Kueue's ProvisioningRequestConfig CRD (apis/kueue/*/provisioningrequestconfig_types.go):
# (path, {key: value}) in each version; v1beta2 also wants a non-empty provisioningClassName
# and podSetUpdates.nodeSelector as a list map keyed by key. kuotad's admission
# (src/control/provisioning_config_rules.cc) enforces the same bounds.
DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
PROVISIONING_BOUNDS = [
    ("spec.provisioningClassName", dict(maxLength=253, pattern=DNS_SUBDOMAIN)),
    ("spec.parameters", dict(maxProperties=100)),
    ("spec.managedResources", {"maxItems": 100, "x-kubernetes-list-type": "set"}),
    ("spec.podSetUpdates.nodeSelector", dict(maxItems=8)),
    ("spec.podSetUpdates.nodeSelector[].key", dict(minLength=1, maxLength=317,
                                                   pattern=TOPOLOGY_NODE_LABEL["pattern"])),
    ("spec.podSetUpdates.nodeSelector[].valueFromProvisioningClassDetail",
     dict(minLength=1, maxLength=32768)),
    ("spec.podSetMergePolicy",
     dict(enum=["IdenticalPodTemplates", "IdenticalWorkloadSchedulingRequirements"])),
]
PROVISIONING_V1BETA2_BOUNDS = [
    ("spec.provisioningClassName", dict(minLength=1)),
    ("spec.podSetUpdates.nodeSelector", {"x-kubernetes-list-type": "map",
                                         "x-kubernetes-list-map-keys": ["key"]}),
]


def check_provisioning_crd(crd):
    for v in crd["spec"]["versions"]:
        where = f"ProvisioningRequestConfig CRD {v.get('name')}"
        schema = v["schema"]["openAPIV3Schema"]
        spec = schema_at_or_empty(schema, "spec")
        check(spec.get("required") == ["provisioningClassName"],
              f"{where}: spec.provisioningClassName must be required (and only it)")
        values = schema_at_or_empty(schema, "spec.parameters").get("additionalProperties") or {}
        check({k: x for k, x in values.items() if k != "description"} ==
              {"type": "string", "maxLength": 255},
              f"{where}: spec.parameters' values must be strings of at most 255")
        bounds = PROVISIONING_BOUNDS + (PROVISIONING_V1BETA2_BOUNDS
                                        if v.get("name") == "v1beta2" else [])
        for path, want in bounds:
            node = schema_at_or_empty(schema, path)
            got = {k: node.get(k) for k in want}
            check(got == want, f"{where}: {path} has {got}, Kueue's has {want}")
        if v.get("name") == "v1beta1":
            check("minLength" not in schema_at_or_empty(schema, "spec.provisioningClassName"),
                  f"{where}: Kueue's v1beta1 has no minLength on provisioningClassName")


def schema_at_or_empty(schema, path):
    return crd_schema.schema_at(schema, path) or {}


# --- The chart -----------------------------------------------------------------

NAMESPACED = {"ServiceAccount", "ConfigMap", "Deployment", "Service", "Role", "RoleBinding",
              "Secret"}
CLUSTER = {"ClusterRole", "ClusterRoleBinding", "APIService", "MutatingWebhookConfiguration",
           "ValidatingWebhookConfiguration"}


def lint_chart(chart):
    meta = chart.meta
    check(meta.get("apiVersion") == "v2", "Chart.yaml: apiVersion must be v2")
    check(meta.get("name") == "kuota", "Chart.yaml: name must be kuota")
    check(str(meta.get("version")) == "0.1.0", "Chart.yaml: version must be 0.1.0")
    check(str(meta.get("appVersion")) == "0.1.0", "Chart.yaml: appVersion must be 0.1.0")
    check(re.match(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$", str(meta.get("version"))),
          "Chart.yaml: version must be SemVer 2")
    check(meta.get("type", "application") == "application", "Chart.yaml: type must be application")
    check(bool(meta.get("description")), "Chart.yaml: description is required")
    check(isinstance(chart.values, dict), "values.yaml must be a mapping")
    for rel in chart.templates:
        check(rel.endswith(".yaml") or rel.endswith("NOTES.txt"),
              f"{rel}: templates are .yaml files or NOTES.txt (no helpers: include is unsupported)")
        text = chart.text(rel)
        check(text.startswith("#") or rel.endswith("NOTES.txt"),
              f"{rel}: start with a comment saying what it is for")
    check("templates/NOTES.txt" in chart.templates, "templates/NOTES.txt is missing")
    refs = render_chart.values_references(chart)
    for path, line, vpath in refs:
        node = chart.values
        for i, key in enumerate(vpath):
            if not isinstance(node, dict) or key not in node:
                fail(f"{os.path.relpath(path, ROOT)}:{line}: .Values.{'.'.join(vpath)} is not in"
                     f" values.yaml (.Values.{'.'.join(vpath[:i + 1])} missing)")
                break
            node = node[key]
    used = {r[2] for r in refs}

    def walk(node, prefix):
        if not isinstance(node, dict) or any(prefix == u for u in used):
            return
        for k, v in node.items():
            p = prefix + (k,)
            if not any(u[:len(p)] == p for u in used):
                fail(f"values.yaml: .Values.{'.'.join(p)} is used by no template")
            else:
                walk(v, p)
    walk(chart.values, ())


def render(chart, namespace=NAMESPACE, values=()):
    """{(kind, name): object}, the NOTES text, and the raw rendered text."""
    objs, notes, raw = {}, "", ""
    for src, text in render_chart.render_chart(chart, RELEASE, namespace, values):
        if src.endswith("NOTES.txt"):
            notes = text
            continue
        raw += text
        for doc in render_chart.split_documents(text):
            try:
                obj = yaml.safe_load(doc)
            except yaml.YAMLError as e:
                fail(f"{src}: renders invalid YAML: {e}")
                continue
            if not check(isinstance(obj, dict) and obj.get("apiVersion") and obj.get("kind") and
                         (obj.get("metadata") or {}).get("name"),
                         f"{src}: an object without apiVersion, kind or metadata.name: {obj!r:.200}"):
                continue
            key = (obj["kind"], obj["metadata"]["name"])
            check(key not in objs, f"{src}: {key} rendered twice")
            objs[key] = obj
    return objs, notes, raw


# The one object outside the release namespace: as Kueue's visibility server, kuotad reads
# the aggregator's client CA in kube-system/extension-apiserver-authentication through
# the built-in Role kube-system/extension-apiserver-authentication-reader.
AUTH_READER = ("RoleBinding", "kuota-visibility-server-auth-reader")


def check_scopes(objs, namespace, label):
    for (kind, name), obj in objs.items():
        ns = obj["metadata"].get("namespace")
        if (kind, name) == AUTH_READER:
            check(ns == "kube-system" and obj.get("roleRef") ==
                  {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                   "name": "extension-apiserver-authentication-reader"},
                  f"{label}: {kind}/{name} must bind kube-system's built-in"
                  f" extension-apiserver-authentication-reader Role, is {obj}")
            for s in obj.get("subjects") or []:
                check(s == {"kind": "ServiceAccount", "name": "kuota-controller-manager",
                            "namespace": namespace},
                      f"{label}: {kind}/{name} must bind only the chart's ServiceAccount, binds {s}")
            continue
        if kind in NAMESPACED:
            check(ns == namespace, f"{label}: {kind}/{name} must be in the release namespace"
                                   f" {namespace}, is in {ns!r}")
        elif kind in CLUSTER:
            check(ns is None, f"{label}: cluster-scoped {kind}/{name} must not set a namespace")
        else:
            fail(f"{label}: {kind}/{name}: a kind chart_test.py does not know; add it to"
                 f" NAMESPACED or CLUSTER")
        for s in obj.get("subjects") or []:
            if s.get("kind") == "ServiceAccount":
                check(s.get("namespace") == namespace and
                      ("ServiceAccount", s.get("name")) in objs,
                      f"{label}: {kind}/{name} binds {s} (not the chart's ServiceAccount in"
                      f" {namespace})")
        ref = obj.get("roleRef")
        if ref:
            check((ref.get("kind"), ref.get("name")) in objs,
                  f"{label}: {kind}/{name} refers to {ref.get('kind')}/{ref.get('name')},"
                  f" which the chart does not render")


def config_of(objs):
    cm = objs.get(("ConfigMap", "kuota-manager-config"))
    if not check(cm is not None, "ConfigMap kuota-manager-config is not rendered"):
        return {}
    text = (cm.get("data") or {}).get("controller_manager_config.yaml")
    if not check(isinstance(text, str), "ConfigMap kuota-manager-config has no"
                                        " controller_manager_config.yaml"):
        return {}
    return yaml.safe_load(text) or {}


def kuota_job_kinds():
    """[(framework, group, plural)] of the job kinds kuotad implements (src/jobs/*.cc)."""
    kinds = []
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "jobs", "*.cc"))):
        text = open(path, encoding="utf-8").read()
        fw = re.search(r'\.framework = "([^"]+)"', text)
        group = re.search(r'\.group = "([^"]*)"', text)
        plural = re.search(r'\.plural = "([^"]+)"', text)
        if fw and group and plural:
            kinds.append((fw.group(1), group.group(1), plural.group(1)))
        # A kind served as its CRD names it (jobs/kind_info.h, CrdKindInfo):
        # singular = lower-cased kind, plural = singular + "s", framework =
        # "<group>/<singular>".
        for m in re.finditer(r'CrdKindInfo\(\s*"([^"]*)",\s*"[^"]*",\s*"([^"]+)"', text):
            singular = m.group(2).lower()
            kinds.append((f"{m.group(1)}/{singular}", m.group(1), singular + "s"))
    return kinds


# Configuration sections kuotad's decoder accepts (src/api/codec/configuration_decoder.cc).
CONFIG_KEYS = {"apiVersion", "kind", "fairSharing", "waitForPodsReady", "integrations",
               "manageJobsWithoutQueueName", "namespace", "managedJobsNamespaceSelector",
               "internalCertManagement", "clientConnection", "queueVisibility", "multiKueue",
               "resources", "featureGates", "objectRetentionPolicies", "admissionFairSharing",
               "webhook", "leaderElection", "metrics", "health", "pprofBindAddress", "controller"}


def check_config(config, label, supported):
    check(config.get("apiVersion") == "config.kueue.x-k8s.io/v1beta1" and
          config.get("kind") == "Configuration",
          f"{label}: the ConfigMap must hold a config.kueue.x-k8s.io/v1beta1 Configuration")
    for k in config:
        check(k in CONFIG_KEYS, f"{label}: Configuration key {k!r} is one kuotad refuses")
    for fw in ((config.get("integrations") or {}).get("frameworks") or []):
        check(fw in supported, f"{label}: framework {fw!r} is one kuotad refuses at startup"
                               f" (it supports {sorted(supported)})")


def container(objs):
    dep = objs.get(("Deployment", "kuota-controller-manager"))
    if not check(dep is not None, "Deployment kuota-controller-manager is not rendered"):
        return None, None
    cs = dep["spec"]["template"]["spec"].get("containers") or []
    check(len(cs) == 1, "the Deployment must have one container")
    return dep, cs[0] if cs else {}


def check_deployment(objs):
    dep, c = container(objs)
    if dep is None:
        return
    pod = dep["spec"]["template"]["spec"]
    check(dep["spec"].get("replicas") == 1, "Deployment: replicas must default to 1")
    check(c.get("image") == "ghcr.io/kuota/kuotad:0.1.0",
          f"Deployment: default image must be ghcr.io/kuota/kuotad:0.1.0, is {c.get('image')}")
    args = c.get("args") or []
    for a in ["--in-cluster", "--config=/controller_manager_config.yaml", "--health-port=8081",
              "--address=0.0.0.0", "--webhook-port=9443", "--leader-elect",
              "--leader-election-namespace=$(POD_NAMESPACE)"]:
        check(a in args, f"Deployment: args {args} lack {a}")
    env = {e.get("name"): e for e in c.get("env") or []}
    check(((env.get("POD_NAMESPACE") or {}).get("valueFrom") or {}).get("fieldRef", {})
          .get("fieldPath") == "metadata.namespace",
          "Deployment: POD_NAMESPACE must come from the downward API (metadata.namespace)")
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = (c.get(probe) or {}).get("httpGet") or {}
        check(get.get("path") == path and get.get("port") == 8081,
              f"Deployment: {probe} must GET {path} on 8081, is {c.get(probe)}")
    sc = c.get("securityContext") or {}
    check(sc.get("runAsNonRoot") is True or (pod.get("securityContext") or {}).get("runAsNonRoot")
          is True, "Deployment: runAsNonRoot must be set")
    check(sc.get("readOnlyRootFilesystem") is True, "Deployment: readOnlyRootFilesystem")
    check(sc.get("allowPrivilegeEscalation") is False, "Deployment: allowPrivilegeEscalation false")
    check((sc.get("capabilities") or {}).get("drop") == ["ALL"], "Deployment: drop ALL capabilities")
    check(bool((c.get("resources") or {}).get("requests")), "Deployment: resources from values")
    check(pod.get("serviceAccountName") == "kuota-controller-manager",
          "Deployment: must run as ServiceAccount kuota-controller-manager")
    mounts = {m.get("mountPath"): m for m in c.get("volumeMounts") or []}
    cfg = mounts.get("/controller_manager_config.yaml") or {}
    vols = {v.get("name"): v for v in pod.get("volumes") or []}
    check(((vols.get(cfg.get("name")) or {}).get("configMap") or {}).get("name") ==
          "kuota-manager-config" and cfg.get("subPath") == "controller_manager_config.yaml",
          "Deployment: /controller_manager_config.yaml must be the ConfigMap's file")
    pod_labels = dep["spec"]["template"]["metadata"].get("labels") or {}
    sel = dep["spec"]["selector"].get("matchLabels") or {}
    check(sel and sel.items() <= pod_labels.items(), "Deployment: selector must match pod labels")
    svc = objs.get(("Service", "kuota-controller-manager-metrics-service"))
    if check(svc is not None, "Service kuota-controller-manager-metrics-service is not rendered"):
        ports = svc["spec"].get("ports") or []
        check(len(ports) == 1 and ports[0].get("name") == "metrics" and
              ports[0].get("port") == 8080 and ports[0].get("targetPort") == 8081,
              f"metrics Service: want port 8080 named metrics, targetPort 8081; got {ports}")
        check((svc["spec"].get("selector") or {}).items() <= pod_labels.items() and
              svc["spec"].get("selector"), "metrics Service: selector must match the pod")
    # The conversion webhook: a container port, the Service the CRDs name, the empty Secret.
    ports = {p.get("name"): p for p in c.get("ports") or []}
    check((ports.get("webhook-server") or {}).get("containerPort") == 9443,
          f"Deployment: want containerPort 9443 named webhook-server, got {c.get('ports')}")
    svc = objs.get(("Service", "kuota-webhook-service"))
    if check(svc is not None, "Service kuota-webhook-service is not rendered"):
        ports = svc["spec"].get("ports") or []
        check(len(ports) == 1 and ports[0].get("port") == 443 and
              ports[0].get("targetPort") == 9443,
              f"webhook Service: want port 443, targetPort 9443; got {ports}")
        check(svc["spec"].get("selector") and
              (svc["spec"].get("selector") or {}).items() <= pod_labels.items(),
              "webhook Service: selector must match the pod")
    secret = objs.get(("Secret", "kuota-webhook-server-cert"))
    if check(secret is not None, "Secret kuota-webhook-server-cert is not rendered"):
        check(not secret.get("data") and not secret.get("stringData"),
              "Secret kuota-webhook-server-cert must be created empty (kuotad fills it)")


READ = {"get", "list", "watch"}
WRITE_JOB = READ | {"update", "patch"}
STATUS = {"get", "update", "patch"}
KUEUE_KINDS = ["resourceflavors", "clusterqueues", "cohorts", "localqueues",
               "workloadpriorityclasses", "admissionchecks", "workloads", "topologies",
               "multikueueclusters", "multikueueconfigs", "provisioningrequestconfigs"]
# Kueue's kinds without status
NO_STATUS = {"workloadpriorityclasses", "topologies", "multikueueconfigs",
             "provisioningrequestconfigs"}
# The job kinds the ClusterRole covers: (group, plural); every kind in src/jobs must be here.
JOB_KINDS = [("batch", "jobs"), ("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "tfjobs"),
             ("kubeflow.org", "mpijobs"), ("kubeflow.org", "jaxjobs"),
             ("kubeflow.org", "paddlejobs"), ("kubeflow.org", "xgboostjobs"),
             ("ray.io", "rayjobs"), ("ray.io", "rayclusters"), ("ray.io", "rayservices"),
             ("jobset.x-k8s.io", "jobsets"), ("batch.volcano.sh", "jobs"),
             ("trainer.kubeflow.org", "trainjobs"),
             ("leaderworkerset.x-k8s.io", "leaderworkersets"),
             ("workload.codeflare.dev", "appwrappers"),
             ("sparkoperator.k8s.io", "sparkapplications")]


def needed_rules():
    """{(apiGroup, resource): verbs}: exactly what the controller needs."""
    need = {
        ("", "namespaces"): READ,
        # Topology-aware scheduling: Nodes are the domains of Kueue's Topologies.
        ("", "nodes"): READ,
        ("", "pods"): READ | {"update", "patch", "delete"},
        ("", "pods/finalizers"): {"update"},
        ("", "events"): {"create", "patch"},
        ("events.k8s.io", "events"): {"create", "patch"},
        ("scheduling.k8s.io", "priorityclasses"): READ,
        ("kueue.x-k8s.io", "workloads"): READ | {"create", "update", "patch", "delete"},
        ("kueue.x-k8s.io", "workloads/finalizers"): {"update"},
        # The conversion webhook's CA into Kueue's CRDs' caBundle (resourceNames: check_rbac).
        ("apiextensions.k8s.io", "customresourcedefinitions"): {"get", "patch"},
        # The same CA into the visibility APIServices' caBundle (resourceNames: check_rbac).
        ("apiregistration.k8s.io", "apiservices"): {"get", "patch"},
        # The visibility API's second authorization of each user (delegated, as Kueue's).
        ("authorization.k8s.io", "subjectaccessreviews"): {"create"},
        # The same CA into the admission webhooks' caBundle (resourceNames: check_rbac).
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): {"get", "patch"},
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): {"get", "patch"},
        # Kueue's ProvisioningRequest admission check (its controller's kubebuilder:rbac).
        ("kueue.x-k8s.io", "provisioningrequestconfigs"): READ,
        ("", "podtemplates"): READ | {"create", "delete", "update"},
        ("autoscaling.x-k8s.io", "provisioningrequests"):
            READ | {"create", "update", "patch", "delete"},
        ("autoscaling.x-k8s.io", "provisioningrequests/status"): {"get"},
        # A TrainJob's pod sets come from the runtime it names.
        ("trainer.kubeflow.org", "trainingruntimes"): READ,
        ("trainer.kubeflow.org", "clustertrainingruntimes"): READ,
        # Kueue's deployment and statefulset integrations read the sets (their pods are gated).
        ("apps", "deployments"): READ,
        ("apps", "replicasets"): READ,
        ("apps", "statefulsets"): READ,
    }
    for k in KUEUE_KINDS:
        need.setdefault(("kueue.x-k8s.io", k), READ)
        if k not in NO_STATUS:
            need[("kueue.x-k8s.io", k + "/status")] = STATUS
    for g, r in JOB_KINDS:
        need[(g, r)] = WRITE_JOB
        need[(g, r + "/status")] = STATUS
        need[(g, r + "/finalizers")] = {"update"}
    return need


def grants(role):
    out = {}
    for rule in role.get("rules") or []:
        check(not rule.get("nonResourceURLs"), f"{role['metadata']['name']}: no nonResourceURLs")
        for g in rule.get("apiGroups") or []:
            for r in rule.get("resources") or []:
                out.setdefault((g, r), set()).update(rule.get("verbs") or [])
    return out


def check_rbac(objs):
    for (kind, name), obj in objs.items():
        if kind not in ("ClusterRole", "Role"):
            continue
        for rule in obj.get("rules") or []:
            for field in ("apiGroups", "resources", "verbs"):
                check("*" not in (rule.get(field) or []) and
                      not any("*" in x for x in rule.get(field) or []),
                      f"{kind}/{name}: '*' in {field}")
            # Secrets: the conversion webhook keeps its CA and certificate in one Secret that
            # the chart creates; kuotad reads it and fills it. Least privilege: only a
            # namespaced Role, only that Secret by name, only get and update (no list or
            # watch, which would show every Secret; no create, which cannot be limited by
            # name). Anything else on secrets is a leak.
            # MultiKueue's kubeconfig Secrets have names the admin chooses: get (no list or
            # watch), in the release namespace only (a Role).
            if any(r.split("/")[0] == "secrets" for r in rule.get("resources") or []) and \
                    name == "kuota-multikueue-secrets":
                check(kind == "Role" and rule.get("resources") == ["secrets"] and
                      set(rule.get("verbs") or []) == {"get"},
                      f"{kind}/{name}: may only get secrets in the release namespace")
            elif any(r.split("/")[0] == "secrets" for r in rule.get("resources") or []):
                check(kind == "Role" and name == "kuota-webhook-cert-role" and
                      rule.get("resources") == ["secrets"] and
                      rule.get("resourceNames") == ["kuota-webhook-server-cert"] and
                      set(rule.get("verbs") or []) <= {"get", "update"},
                      f"{kind}/{name}: grants access to secrets beyond Role"
                      f" kuota-webhook-cert-role's get/update of kuota-webhook-server-cert")
            if "customresourcedefinitions" in (rule.get("resources") or []):
                check(sorted(rule.get("resourceNames") or []) ==
                      sorted(k + ".kueue.x-k8s.io" for k in KUEUE_KINDS),
                      f"{kind}/{name}: customresourcedefinitions must be limited by resourceNames"
                      f" to Kueue's CRDs, is {rule.get('resourceNames')}")
            if {"mutatingwebhookconfigurations", "validatingwebhookconfigurations"} & \
                    set(rule.get("resources") or []):
                check(sorted(rule.get("resourceNames") or []) == sorted(WEBHOOK_CONFIGURATIONS),
                      f"{kind}/{name}: webhook configurations must be limited by resourceNames"
                      f" to Kuota's two, is {rule.get('resourceNames')}")
            if "apiservices" in (rule.get("resources") or []):
                check(sorted(rule.get("resourceNames") or []) == sorted(VISIBILITY_APISERVICES),
                      f"{kind}/{name}: apiservices must be limited by resourceNames to the"
                      f" visibility API's, is {rule.get('resourceNames')}")
            check(set(rule.get("verbs") or []) <=
                  {"get", "list", "watch", "create", "update", "patch", "delete"},
                  f"{kind}/{name}: unusual verbs {rule.get('verbs')}")
    role = objs.get(("ClusterRole", "kuota-manager-role"))
    if check(role is not None, "ClusterRole kuota-manager-role is not rendered"):
        got, need = grants(role), needed_rules()
        for key in sorted(set(got) | set(need)):
            g, r = key
            check(got.get(key, set()) == need.get(key, set()),
                  f"kuota-manager-role: on {g or 'core'}/{r} grants"
                  f" {sorted(got.get(key, set()))}, the controller needs"
                  f" {sorted(need.get(key, set()))} (chart_test.py's needed_rules() is the list)")
    kinds = kuota_job_kinds()
    check(kinds, "found no job kinds in src/jobs/*.cc: update kuota_job_kinds() in chart_test.py")
    for fw, g, r in kinds:
        check((g, r) in JOB_KINDS, f"kuotad manages {fw} ({g}/{r}), which kuota-manager-role"
                                   f" does not cover: add it to the chart and to JOB_KINDS")
    lease = objs.get(("Role", "kuota-leader-election-role"))
    if check(lease is not None, "Role kuota-leader-election-role is not rendered"):
        check(grants(lease) == {("coordination.k8s.io", "leases"):
                                READ | {"create", "update", "patch", "delete"}},
              f"kuota-leader-election-role: want leases get..delete only, got {grants(lease)}")
    cert = objs.get(("Role", "kuota-webhook-cert-role"))
    if check(cert is not None, "Role kuota-webhook-cert-role is not rendered"):
        check(grants(cert) == {("", "secrets"): {"get", "update"}},
              f"kuota-webhook-cert-role: want get and update of its Secret, got {grants(cert)}")
        check(("RoleBinding", "kuota-webhook-cert-rolebinding") in objs,
              "RoleBinding kuota-webhook-cert-rolebinding is not rendered")
    # Kueue-style aggregation.
    roles = {n: o for (k, n), o in objs.items() if k == "ClusterRole"}
    for agg in ("kuota-batch-admin-role", "kuota-batch-user-role"):
        obj = roles.get(agg)
        if not check(obj is not None and obj.get("aggregationRule"),
                     f"ClusterRole {agg} with an aggregationRule is not rendered"):
            continue
        for sel in obj["aggregationRule"].get("clusterRoleSelectors") or []:
            members = [n for n, o in roles.items() if (sel.get("matchLabels") or {}).items() <=
                       (o["metadata"].get("labels") or {}).items()]
            check(members, f"{agg}: selector {sel} matches no ClusterRole")
            if agg == "kuota-batch-user-role":
                for n in members:
                    for (g, r), verbs in grants(roles[n]).items():
                        check(g != "kueue.x-k8s.io" or verbs <= READ,
                              f"{n} (part of {agg}): batch users must not write {r}")
    cluster_kinds = {"clusterqueues", "resourceflavors", "cohorts", "workloadpriorityclasses",
                     "admissionchecks", "topologies", "multikueueclusters", "multikueueconfigs",
                     "provisioningrequestconfigs"}
    # Kueue's per-kind roles (config/components/rbac/<kind>_{viewer,editor}_role.yaml): a
    # viewer and an editor for every kind, both part of the batch admin role; the viewer
    # reads the kind, the editor also writes it; cluster-scoped kinds' viewers aggregate to
    # the built-in admin role only.
    for kind, spec in CRDS.items():
        plural, singular = spec["plural"], kind.lower()
        for role, verbs in (("viewer", READ), ("editor", READ | {"create", "update", "patch",
                                                                   "delete"})):
            name = f"kuota-{singular}-{role}-role"
            o = roles.get(name)
            if not check(o is not None, f"ClusterRole {name} (Kueue's {singular}-{role}-role)"
                                        f" is not rendered"):
                continue
            labels = o["metadata"].get("labels") or {}
            check(labels.get("rbac.kueue.x-k8s.io/batch-admin") == "true",
                  f"{name}: must be part of kuota-batch-admin-role (rbac.kueue.x-k8s.io/batch-admin)")
            check(grants(o).get(("kueue.x-k8s.io", plural)) == verbs,
                  f"{name}: want {sorted(verbs)} on {plural}, got"
                  f" {sorted(grants(o).get(('kueue.x-k8s.io', plural), set()))}")
            if role == "viewer" and spec["scope"] == "Cluster":
                check(labels.get("rbac.authorization.k8s.io/aggregate-to-admin") == "true",
                      f"{name}: Kueue aggregates cluster-scoped kinds' viewers to admin")
    for n, o in roles.items():
        labels = o["metadata"].get("labels") or {}
        for to in ("view", "edit"):
            if labels.get(f"rbac.authorization.k8s.io/aggregate-to-{to}") == "true":
                for (g, r), verbs in grants(o).items():
                    # Kueue aggregates the pending-workloads viewers (visibility API) to
                    # view and edit, ClusterQueues' included.
                    check(verbs <= READ and (r.split("/")[0] not in cluster_kinds or
                                             g == "visibility.kueue.x-k8s.io"),
                          f"{n}: aggregated to {to}, so it must only read namespaced kinds"
                          f" (grants {sorted(verbs)} on {r})")
    check(any(l.get("rbac.authorization.k8s.io/aggregate-to-admin") == "true"
              for l in (o["metadata"].get("labels") or {} for o in roles.values())),
          "no ClusterRole aggregates to admin (Kueue's viewer roles do)")


VISIBILITY_APISERVICES = ["v1beta2.visibility.kueue.x-k8s.io", "v1beta1.visibility.kueue.x-k8s.io"]


def check_visibility(objs, namespace):
    """Kueue's config/components/visibility: the APIServices route the group to kuotad's
    webhook Service (kuotad serves the visibility API there and sets its CA as their
    caBundle, so TLS is verified); Kueue's pending-workloads viewer roles."""
    for name in VISIBILITY_APISERVICES:
        svc = objs.get(("APIService", name))
        if not check(svc is not None, f"APIService {name} is not rendered"):
            continue
        spec = svc.get("spec") or {}
        version = name.split(".")[0]
        check(spec.get("group") == "visibility.kueue.x-k8s.io" and spec.get("version") == version,
              f"APIService {name}: want group visibility.kueue.x-k8s.io, version {version}")
        check(spec.get("service") == {"name": "kuota-webhook-service", "namespace": namespace,
                                      "port": 443},
              f"APIService {name}: must route to kuota-webhook-service:443 in {namespace},"
              f" is {spec.get('service')}")
        check(not spec.get("insecureSkipTLSVerify") and not spec.get("caBundle"),
              f"APIService {name}: TLS must be verified (kuotad sets caBundle), not skipped")
        check(0 < (spec.get("groupPriorityMinimum") or 0) <= 20000 and
              0 < (spec.get("versionPriority") or 0) <= 1000,
              f"APIService {name}: priorities out of kube-apiserver's ranges")
    check(("Service", "kuota-webhook-service") in objs,
          "the APIServices name Service kuota-webhook-service, which is not rendered")
    check(AUTH_READER in objs, f"{AUTH_READER[0]} {AUTH_READER[1]} is not rendered")
    for scope, users in (("cq", False), ("lq", True)):
        name = f"kuota-pending-workloads-{scope}-viewer-role"
        role = objs.get(("ClusterRole", name))
        if not check(role is not None, f"ClusterRole {name} is not rendered"):
            continue
        resource = ("clusterqueues" if scope == "cq" else "localqueues") + "/pendingworkloads"
        check(grants(role) == {("visibility.kueue.x-k8s.io", resource): READ},
              f"{name}: want get/list/watch on {resource}, got {grants(role)}")
        labels = role["metadata"].get("labels") or {}
        check(labels.get("rbac.kueue.x-k8s.io/batch-admin") == "true" and
              (labels.get("rbac.kueue.x-k8s.io/batch-user") == "true") == users,
              f"{name}: Kueue's batch-admin{' and batch-user' if users else ''} labels")


# The admission webhook configurations kuotad sets the CA of (src/kube/webhook_configuration_ca.h).
WEBHOOK_CONFIGURATIONS = ["kuota-mutating-webhook-configuration",
                          "kuota-validating-webhook-configuration"]
# Kueue's webhooks on Kueue's own kinds (pkg/webhooks): mutating, validating.
KUEUE_WEBHOOKS = (["clusterqueues", "resourceflavors", "workloads"],
                  ["clusterqueues", "cohorts", "resourceflavors", "workloads"])


# Kueue's serving integrations on apps/v1 (their pods are plain pods).
SERVING_KINDS = [("apps", "deployments"), ("apps", "statefulsets")]
# The kinds whose mutating webhook Kueue calls on update too (their
# kubebuilder markers: verbs=create;update).
DEFAULTED_ON_UPDATE = {"deployments", "statefulsets", "leaderworkersets"}


def check_admission_webhooks(objs, namespace, job_selector=None):
    """Kueue's webhooks (config/components/webhook + its chart) at kuotad's paths: every job
    kind and plain pods (create mutated; create and update validated, in the managed
    namespaces) and Kueue's kinds; failurePolicy Fail, sideEffects None, v1 reviews, the
    webhook Service. `job_selector`: the namespaceSelector the job webhooks must carry
    (default: Kueue's, every namespace but kube-system and the release's)."""
    want_sel = job_selector or {"matchExpressions": [{
        "key": "kubernetes.io/metadata.name", "operator": "NotIn",
        "values": ["kube-system", namespace]}]}
    for kind, name, mutating in (("MutatingWebhookConfiguration", WEBHOOK_CONFIGURATIONS[0], True),
                                 ("ValidatingWebhookConfiguration", WEBHOOK_CONFIGURATIONS[1],
                                  False)):
        cfg = objs.get((kind, name))
        if not check(cfg is not None, f"{kind} {name} is not rendered"):
            continue
        covered = {}
        for w in cfg.get("webhooks") or []:
            wn = w.get("name")
            check(w.get("failurePolicy") == "Fail" and w.get("sideEffects") == "None" and
                  w.get("admissionReviewVersions") == ["v1"],
                  f"{name}/{wn}: want failurePolicy Fail, sideEffects None, reviews [v1]")
            svc = (w.get("clientConfig") or {}).get("service") or {}
            check(svc.get("name") == "kuota-webhook-service" and
                  svc.get("namespace") == namespace and svc.get("port", 443) == 443,
                  f"{name}/{wn}: must call kuota-webhook-service:443 in {namespace}, is {svc}")
            rules = w.get("rules") or []
            if not check(len(rules) == 1, f"{name}/{wn}: want one rule, got {rules}"):
                continue
            r = rules[0]
            group, version = r["apiGroups"][0], r["apiVersions"][0]
            plural = r["resources"][0]
            ops = r.get("operations")
            # Kueue's deployment, statefulset and leaderworkerset defaulters run on
            # updates too.
            check(ops == (["CREATE"] if mutating and plural not in DEFAULTED_ON_UPDATE
                          else ["CREATE", "UPDATE"]),
                  f"{name}/{wn}: operations {ops} are not Kueue's")
            path = svc.get("path") or ""
            check(path.startswith(("/mutate-" if mutating else "/validate-") +
                                  group.replace(".", "-") + "-" + version + "-"),
                  f"{name}/{wn}: path {path} is not Kueue's for {group}/{version}")
            covered[(group, plural)] = w
            if group == "kueue.x-k8s.io":
                check("namespaceSelector" not in w and "objectSelector" not in w,
                      f"{name}/{wn}: Kueue's own kinds are admitted in every namespace")
                check(version == "v1beta2", f"{name}/{wn}: Kueue's webhooks admit v1beta2")
                continue
            check(w.get("namespaceSelector") == want_sel,
                  f"{name}/{wn}: namespaceSelector {w.get('namespaceSelector')}, want {want_sel}")
            if group == "" and plural == "pods":
                check(w.get("objectSelector") == {"matchExpressions": [
                      {"key": "kueue.x-k8s.io/queue-name", "operator": "Exists"}]},
                      f"{name}/{wn}: plain pods must be selected by the queue-name label")
        wanted = [(g, p) for g, p in JOB_KINDS] + [("", "pods")] + SERVING_KINDS + \
            [("kueue.x-k8s.io", p) for p in KUEUE_WEBHOOKS[0 if mutating else 1]]
        check(sorted(covered) == sorted(wanted),
              f"{name}: webhooks for {sorted(covered)}, want {sorted(wanted)}")
        if not mutating:
            wl = covered.get(("kueue.x-k8s.io", "workloads")) or {"rules": [{}]}
            check(wl["rules"][0].get("resources") == ["workloads", "workloads/status"],
                  f"{name}: Kueue validates workloads and workloads/status")


def check_renders(chart, supported):
    objs, notes, raw = render(chart)
    check_scopes(objs, NAMESPACE, "default values")
    check_config(config_of(objs), "default values", supported)
    check_deployment(objs)
    check_rbac(objs)
    check_visibility(objs, NAMESPACE)
    check_admission_webhooks(objs, NAMESPACE)
    for fw in ((config_of(objs).get("integrations") or {}).get("frameworks") or []):
        check(fw in notes, f"NOTES.txt does not list framework {fw}")
    check(NAMESPACE in notes, "NOTES.txt does not name the release namespace")
    # Seed 000's Kueue values file: only the Configuration's frameworks change.
    seed, _, _ = render(chart, values=[SEED_VALUES])
    check(set(seed) == set(objs), f"seed 000 values: objects differ: {set(seed) ^ set(objs)}")
    for key in set(seed) & set(objs):
        if key != ("ConfigMap", "kuota-manager-config"):
            check(seed[key] == objs[key], f"seed 000 values changed {key[0]}/{key[1]}")
    seed_cfg, default_cfg = config_of(seed), config_of(objs)
    check(seed_cfg.get("integrations", {}).get("frameworks") ==
          ["batch/job", "kubeflow.org/pytorchjob"],
          f"seed 000 values: frameworks must reach the Configuration, got {seed_cfg}")
    default_cfg.setdefault("integrations", {})["frameworks"] = \
        seed_cfg.get("integrations", {}).get("frameworks")
    check(seed_cfg == default_cfg, "seed 000 values changed more of the Configuration than"
                                   f" its frameworks: {seed_cfg} vs {default_cfg}")
    check_config(seed_cfg, "seed 000 values", supported)
    # Another namespace: nothing may say kuota-system.
    other, other_notes, other_raw = render(chart, namespace="team-x")
    check_scopes(other, "team-x", "namespace team-x")
    check_admission_webhooks(other, "team-x")
    # Kueue's managedJobsNamespaceSelector becomes the job webhooks' namespaceSelector.
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("controllerManager: {manager: {configuration: {managedJobsNamespaceSelector:"
                " {matchLabels: {kueue-managed: 'true'}}}}}\n")
    try:
        selected, _, _ = render(chart, values=[f.name])
    finally:
        os.unlink(f.name)
    check_admission_webhooks(selected, NAMESPACE, {"matchLabels": {"kueue-managed": "true"}})
    check("kuota-system" not in other_raw + other_notes,
          "a template hard-codes kuota-system; use {{ .Release.Namespace }}")
    # Leader election off.
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("controllerManager: {manager: {leaderElect: false}}\n")
    try:
        off, _, _ = render(chart, values=[f.name])
    finally:
        os.unlink(f.name)
    _, c = container(off)
    check(c is not None and not any(a.startswith("--leader-elect") for a in c.get("args") or []),
          "leaderElect: false must drop --leader-elect and --leader-election-namespace")
    return len(objs)


def check_seed_copy():
    """tests/deploy/seed000-values.yaml must still be what seed 000 shows, when ../shared is here."""
    seeds = glob.glob(os.path.join(os.path.dirname(ROOT), "shared", "seeds", "000_*.txt"))
    if not seeds:
        return
    m = re.search(r"cat <<EOF > kueue-values.yaml\n(.*?)\nEOF", open(seeds[0]).read(), re.S)
    if check(m, f"{seeds[0]}: no kueue-values.yaml heredoc"):
        check(yaml.safe_load(m.group(1)) == yaml.safe_load(open(SEED_VALUES)),
              "tests/deploy/seed000-values.yaml differs from seed 000's kueue-values.yaml")


def check_generated():
    try:
        wanted = generate.wanted_files()
    except render_chart.TemplateError as e:
        fail(f"deploy/generate.py: {e}")
        return
    for path, text in wanted.items():
        cur = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        check(cur == text, f"{os.path.relpath(path, ROOT)} is out of date: run deploy/generate.py")
    docs = [d for d in yaml.safe_load_all(wanted[generate.MANIFESTS]) if d]
    check(docs and docs[0].get("kind") == "Namespace" and
          docs[0]["metadata"]["name"] == NAMESPACE, "manifests.yaml must start with the Namespace")
    check(sum(d.get("kind") == "CustomResourceDefinition" for d in docs) == len(CRDS),
          "manifests.yaml must include every CRD")


# --- The renderer ------------------------------------------------------------

RENDER_CASES = [   # (template, values, expected output)
    ("a: {{ .Values.x }}\n", {"x": 1}, "a: 1\n"),
    ("a:\n{{- if .Values.x }}\n  b{{- else }}\n  c\n{{- end }}\n", {"x": ""}, "a:\n  c\n"),
    ("l:{{- range .Values.l }}\n- {{ . | quote }}{{- end }}\n", {"l": ["a", "b"]},
     'l:\n- "a"\n- "b"\n'),
    ("m:\n  {{- .Values.m | toYaml | nindent 2 }}\n", {"m": {"b": [1], "a": "x"}},
     "m:\n  a: x\n  b:\n  - 1\n"),
    ("i: {{ .Values.t | default \"v\" }} {{ .Values.u | default .Chart.Name }}\n",
     {"t": "", "u": None}, "i: v kuota\n"),
    ("  {{- \"x\" | indent 3 -}}  \n  y", {}, "   xy"),
    ("q: [{{ .Values.none | quote }}] {{ .Release.Namespace | quote }}\n", {"none": None},
     'q: [] "n"\n'),
]
REFUSED = ['{{ tpl "x" . }}', '{{ include "kuota.labels" . }}', "{{ .Values.x | b64enc }}",
           "{{- with .Values.controllerManager }}x{{- end }}", "{{/* a comment */}}",
           "{{ $x := 1 }}", "{{ .Capabilities.KubeVersion }}", '{{ .Files.Get "x" }}',
           "{{ toYaml .Values.x }}", "{{- if .Values.a }}{{- else if .Values.b }}{{- end }}",
           "{{- range .Values.l }}{{ .Values.x }}{{- end }}", "{{ .Values.x", "}}",
           "{{ .Values.nothing.here }}", "{{ .Values.controllerManager }}", "{{ .Release.Nme }}"]


def check_renderer(chart):
    root = {"Values": None, "Release": {"Name": "r", "Namespace": "n", "Service": "Helm"},
            "Chart": {"Name": "kuota", "Version": "0.1.0", "AppVersion": "0.1.0"}}
    for tmpl, values, want in RENDER_CASES:
        root["Values"] = values
        try:
            got = render_chart.render_template(tmpl, "case", root)
        except render_chart.TemplateError as e:
            got = f"error: {e}"
        check(got == want, f"renderer: {tmpl!r} with {values} gave {got!r}, want {want!r}")
    tmp = tempfile.mkdtemp(prefix="kuota-chart-")
    try:
        copy = os.path.join(tmp, "kuota")
        shutil.copytree(CHART, copy)
        target = os.path.join(copy, "templates", "manager.yaml")
        original = open(target, encoding="utf-8").read()
        line = original.count("\n", 0, original.index("spec:")) + 1
        for bad in REFUSED:
            lines = original.split("\n")
            lines.insert(line - 1, f"# {bad}")
            with open(target, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            try:
                render_chart.render_chart(render_chart.load_chart(copy), "kuota", NAMESPACE)
                fail(f"renderer: accepted unsupported {bad!r} instead of failing")
            except render_chart.TemplateError as e:
                check(f"manager.yaml:{line}:" in str(e),
                      f"renderer: refused {bad!r} but did not name manager.yaml:{line}: {e}")
    finally:
        shutil.rmtree(tmp)


def guarded(what, fn, *args):
    """Runs one check; a template the renderer refuses is a failure naming file and line."""
    try:
        return fn(*args)
    except render_chart.TemplateError as e:
        fail(f"{what}: {e}")
        return 0


def main():
    supported = {fw for fw, _, _ in kuota_job_kinds()} | {"pod", "deployment", "statefulset"}
    n_crds = check_crds()
    chart = render_chart.load_chart(CHART)
    guarded("chart lint", lint_chart, chart)
    n_objs = guarded("the chart does not render", check_renders, chart, supported)
    check_seed_copy()
    check_generated()
    check_renderer(chart)
    for f in FAILURES:
        print(f"FAIL: {f}")
    print(f"deploy: {n_objs} objects rendered, {n_crds} CRDs checked"
          + (f", {len(FAILURES)} FAILURES" if FAILURES else ""))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
