#!/usr/bin/env python3
"""`kuota simulate` decides a kueue.x-k8s.io/v1beta2 what-if file as its v1beta1 twin.

Usage: v1beta2_twins_test.py PATH/TO/kuota PATH...   (scenario files or folders)

Each scenario (the conformance format: state documents, then an Expectation)
is rewritten to v1beta2 the way Kueue's conversion maps v1beta1 objects
(apiVersion; ClusterQueue spec.cohort -> spec.cohortName, spec.admissionChecks
-> spec.admissionChecksStrategy, Borrow/Preempt -> MayStopSearch; Workload
spec.priorityClassName/Source -> spec.priorityClassRef; AdmissionCheck without
retryDelayMinutes; a topology assignment's domains in slices; Configuration
sections on by presence, and an absent or
disabled waitForPodsReady as the feature gate DisableWaitForPodsReady, since
v1beta2 runs it by default), then both files
run through `kuota simulate --cycles C --now N -o json` and must give the same
exit status and the same JSON. Fails unless the renamed fields were exercised.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

from scenario_io import Loader, scenario_files


KUEUE_KINDS = {"ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue",
               "WorkloadPriorityClass", "AdmissionCheck", "Workload"}
used = {"cohortName": 0, "priorityClassRef": 0, "admissionChecksStrategy": 0,
        "Configuration": 0, "topologyAssignment": 0}


def to_v1beta2(doc, wpc_names):
    if not isinstance(doc, dict):
        return doc
    api, kind = doc.get("apiVersion"), doc.get("kind", "")
    if kind == "List" or (kind.endswith("List") and kind[:-4] in KUEUE_KINDS):
        doc["items"] = [to_v1beta2(i, wpc_names) for i in doc.get("items") or []]
        if api == "kueue.x-k8s.io/v1beta1":
            doc["apiVersion"] = "kueue.x-k8s.io/v1beta2"
        return doc
    if api == "config.kueue.x-k8s.io/v1beta1" and kind == "Configuration":
        doc["apiVersion"] = "config.kueue.x-k8s.io/v1beta2"
        used["Configuration"] += 1
        for section in ("fairSharing", "waitForPodsReady"):
            s = doc.get(section)
            if isinstance(s, dict):
                if not s.pop("enable", False):
                    del doc[section]
                elif section == "waitForPodsReady":
                    s.setdefault("timeout", "5m")
                    s.setdefault("blockAdmission", True)
        # v1beta2 runs waitForPodsReady even when the section is absent (30m): a v1beta1
        # Configuration without it (or with it disabled) says so with Kueue's feature gate.
        if "waitForPodsReady" not in doc:
            gates = doc.setdefault("featureGates", {})
            gates["DisableWaitForPodsReady"] = True
        doc.pop("queueVisibility", None)
        if isinstance(doc.get("integrations"), dict):
            doc["integrations"].pop("podOptions", None)
        return doc
    if api != "kueue.x-k8s.io/v1beta1" or kind not in KUEUE_KINDS:
        return doc
    doc["apiVersion"] = "kueue.x-k8s.io/v1beta2"
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    status = doc.get("status") if isinstance(doc.get("status"), dict) else {}
    if kind == "ClusterQueue":
        if "cohort" in spec:
            spec["cohortName"] = spec.pop("cohort")
            used["cohortName"] += 1
        checks = spec.pop("admissionChecks", None)
        if checks:
            spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
            used["admissionChecksStrategy"] += 1
        ff = spec.get("flavorFungibility") or {}
        for key, old in (("whenCanBorrow", "Borrow"), ("whenCanPreempt", "Preempt")):
            if ff.get(key) == old:
                ff[key] = "MayStopSearch"
        status.pop("pendingWorkloadsStatus", None)
    elif kind == "LocalQueue":
        if "flavorUsage" in status:
            status["flavorsUsage"] = status.pop("flavorUsage")
        status.pop("flavors", None)
    elif kind == "AdmissionCheck":
        spec.pop("retryDelayMinutes", None)
    elif kind == "Workload":
        name = spec.pop("priorityClassName", None)
        source = spec.pop("priorityClassSource", None)
        if name:
            # Kuota reads a name without a source as a WorkloadPriorityClass
            # when one exists, else a PriorityClass: the v1beta2 author
            # writes that choice explicitly.
            if source == "kueue.x-k8s.io/workloadpriorityclass" or (
                    not source and name in wpc_names):
                ref = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass"}
            else:
                ref = {"group": "scheduling.k8s.io", "kind": "PriorityClass"}
            spec["priorityClassRef"] = dict(ref, name=name)
            used["priorityClassRef"] += 1
        # v1beta2 lists a topology assignment's domains in slices: here one
        # slice, every level's values and the pod counts given one by one.
        for psa in (status.get("admission") or {}).get("podSetAssignments") or []:
            ta = psa.get("topologyAssignment") if isinstance(psa, dict) else None
            if isinstance(ta, dict) and "domains" in ta:
                domains = ta.pop("domains") or []
                levels = ta.get("levels") or []
                ta["slices"] = [{
                    "domainCount": len(domains),
                    "valuesPerLevel": [{"individual": {"roots": [d["values"][i] for d in domains]}}
                                       for i in range(len(levels))],
                    "podCounts": {"individual": [d["count"] for d in domains]},
                }] if domains else []
                used["topologyAssignment"] += 1
        if "accumulatedPastExexcutionTimeSeconds" in status:
            status["accumulatedPastExecutionTimeSeconds"] = status.pop(
                "accumulatedPastExexcutionTimeSeconds")
    return doc


def simulate(kuota, text, exp):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as tmp:
        tmp.write(text)
    try:
        run = subprocess.run(
            [kuota, "simulate", "--cycles", str(exp.get("cycles", 1)), "--now",
             str(exp.get("now", "2026-01-01T00:00:00Z")), "-o", "json", "-f", tmp.name],
            capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(tmp.name)
    return run


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kuota, paths = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for path in scenario_files(paths):
        with open(path) as f:
            chunks = [c for c in re.split(r"(?m)^---[ \t]*$", f.read())]
        docs = [(c, yaml.load(c, Loader=Loader)) for c in chunks]
        docs = [(c, d) for c, d in docs if d]
        if not docs or docs[-1][1].get("kind") != "Expectation":
            continue
        exp = docs[-1][1]
        state = docs[:-1]
        wpc_names = {d.get("metadata", {}).get("name") for _, d in state
                     if isinstance(d, dict) and d.get("kind") == "WorkloadPriorityClass"}
        original = "\n---\n".join(c.strip("\n") for c, _ in state) + "\n"
        converted = "---\n".join(
            yaml.safe_dump(to_v1beta2(d, wpc_names), sort_keys=False) for _, d in state)
        a, b = simulate(kuota, original, exp), simulate(kuota, converted, exp)
        name = os.path.relpath(path)
        if a.returncode != b.returncode:
            print(f"FAIL {name}: exit {a.returncode} (v1beta1) vs {b.returncode} (v1beta2)\n"
                  f"  v1beta1: {a.stderr.strip()}\n  v1beta2: {b.stderr.strip()}")
            failed += 1
        elif a.returncode == 0 and json.loads(a.stdout) != json.loads(b.stdout):
            print(f"FAIL {name}: decisions differ\n--- v1beta1\n{a.stdout}\n--- v1beta2\n"
                  f"{b.stdout}\n--- v1beta2 input\n{converted}")
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed; v1beta2 fields exercised: {used}")
    missing = [k for k in ("cohortName", "priorityClassRef", "topologyAssignment") if used[k] == 0]
    if missing:
        print(f"FAIL: no scenario exercised {missing}")
        failed += 1
    sys.exit(1 if failed or passed == 0 else 0)


if __name__ == "__main__":
    main()
