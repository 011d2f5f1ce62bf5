#!/usr/bin/env python3
"""Prints the kueue.x-k8s.io/v1beta2 copy of a v1beta1 manifest file.

Usage: v1beta2_convert.py FILE|-

Every document of a Kueue kind (and a config.kueue.x-k8s.io Configuration) is
rewritten the way Kueue's conversion maps v1beta1 to v1beta2 -- the same
to_v1beta2 that tests/simulate/v1beta2_twins_test.py uses (apiVersion;
ClusterQueue spec.cohort -> spec.cohortName, admissionChecks ->
admissionChecksStrategy, Borrow/Preempt -> MayStopSearch; Workload
priorityClassName/Source -> priorityClassRef; AdmissionCheck without
retryDelayMinutes; Configuration sections on by presence). Other documents
(Namespaces, Jobs, ...) are passed through. The output is YAML without the
original's comments. Exits 1, printing nothing, when no document was a
v1beta1 Kueue object (a copy that would silently test v1beta1 again).
"""
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "simulate"))
from v1beta2_twins_test import Loader, to_v1beta2  # noqa: E402


def convert(text):
    docs = [yaml.load(c, Loader=Loader) for c in re.split(r"(?m)^---[ \t]*$", text)]
    docs = [d for d in docs if d]
    wpc_names = {(d.get("metadata") or {}).get("name") for d in docs
                 if isinstance(d, dict) and d.get("kind") == "WorkloadPriorityClass"}
    before = [isinstance(d, dict) and str(d.get("apiVersion", "")).endswith("kueue.x-k8s.io/v1beta1")
              for d in docs]
    out = [to_v1beta2(d, wpc_names) for d in docs]
    left = [f"{d.get('kind')} {(d.get('metadata') or {}).get('name')}" for d in out
            if isinstance(d, dict) and str(d.get("apiVersion", "")).endswith("kueue.x-k8s.io/v1beta1")]
    return out, sum(before), left


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    docs, kueue_docs, left = convert(text)
    if kueue_docs == 0:
        sys.exit(f"v1beta2_convert: no kueue.x-k8s.io/v1beta1 object in {path}")
    if left:
        sys.exit(f"v1beta2_convert: left in v1beta1: {', '.join(left)}")
    sys.stdout.write("---\n".join(yaml.safe_dump(d, sort_keys=False) for d in docs))


if __name__ == "__main__":
    main()
