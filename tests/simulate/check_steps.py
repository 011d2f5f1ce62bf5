#!/usr/bin/env python3
"""Check the `expect` blocks of a scenario's time steps (docs/scenario-format.md).

usage: check_steps.py [-v] PATH/TO/kuota PATH...   (scenario files or folders)

The shared checker (../shared/conformance/check) compares only the final
Expectation. This extension runs `kuota simulate` once per conformance/v1
Step that carries `expect:` -- on the scenario cut after that step (the later
Steps left out), with the Expectation's --cycles and --now -- and compares
the report with the step's expect:

  admitted:  EXACT set of workloads holding quota; per workload optionally
             clusterQueue, podSets {name: {count, flavors}}, admitted (bool:
             false while admission checks are pending) and podsReady (bool)
  preempted: EXACT set of workloads preempted so far
  pending:   these must not hold quota
  evicted:   EXACT list, in order, of the evictions other than preemptions so
             far; each item "ns/name" or {workload: ns/name, reason: R}

It also checks the final Expectation the same way (so this test stands on its
own), and fails when no scenario had a Step with expect. Scenarios without
Steps are skipped.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

from scenario_io import Loader, scenario_files

DEFAULT_NOW = "2026-01-01T00:00:00Z"


def is_step(doc):
    return doc.get("apiVersion") == "conformance/v1" and doc.get("kind") == "Step"


def compare(exp, got):
    """Differences between an expect block and a kuota simulate JSON report."""
    diffs = []
    have = got.get("admitted") or {}
    if "admitted" in exp:
        want = exp.get("admitted") or {}
        for wl in sorted(set(want) - set(have)):
            diffs.append(f"{wl}: expected admitted, is not")
        for wl in sorted(set(have) - set(want)):
            diffs.append(f"{wl}: admitted, expected not")
        for wl in sorted(set(want) & set(have)):
            w, h = want[wl] or {}, have[wl] or {}
            for key in ("clusterQueue", "admitted", "podsReady"):
                if key in w and w[key] != h.get(key):
                    diffs.append(f"{wl}: {key} {h.get(key)!r}, expected {w[key]!r}")
            for ps, wps in (w.get("podSets") or {}).items():
                hps = (h.get("podSets") or {}).get(ps)
                if hps is None:
                    diffs.append(f"{wl}: podSet {ps} missing from admission")
                    continue
                wps = wps or {}
                if "count" in wps and wps["count"] != hps.get("count"):
                    diffs.append(f"{wl}/{ps}: count {hps.get('count')}, expected {wps['count']}")
                for res, fl in (wps.get("flavors") or {}).items():
                    if (hps.get("flavors") or {}).get(res) != fl:
                        diffs.append(f"{wl}/{ps}: {res} on flavor "
                                     f"{(hps.get('flavors') or {}).get(res)!r}, expected {fl!r}")
    if "preempted" in exp:
        want = set(exp.get("preempted") or [])
        got_p = {p["workload"] for p in (got.get("preempted") or [])}
        for wl in sorted(want - got_p):
            diffs.append(f"{wl}: expected preempted, is not")
        for wl in sorted(got_p - want):
            diffs.append(f"{wl}: preempted, expected not")
    if "pending" in exp:
        for wl in exp.get("pending") or []:
            if wl in have:
                diffs.append(f"{wl}: admitted, expected pending")
    if "evicted" in exp:
        want = [e if isinstance(e, dict) else {"workload": e} for e in exp.get("evicted") or []]
        got_e = got.get("evicted") or []
        if len(want) != len(got_e) or any(
                w.get("workload") != g["workload"] or
                ("reason" in w and w["reason"] != g["reason"])
                for w, g in zip(want, got_e)):
            shown = [f"{g['workload']} ({g['reason']}, {g['at']})" for g in got_e]
            diffs.append(f"evicted {shown}, expected {exp.get('evicted')}")
    return diffs


def simulate(kuota, text, exp):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as tmp:
        tmp.write(text)
    try:
        return subprocess.run(
            [kuota, "simulate", "--cycles", str(exp.get("cycles", 1)), "--now",
             str(exp.get("now", DEFAULT_NOW)), "-o", "json", "-f", tmp.name],
            capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(tmp.name)


def check(kuota, text, exp, label):
    """Runs one check; returns a failure line or None."""
    run = simulate(kuota, text, exp)
    if run.returncode != 0:
        err = (run.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        return f"{label}: exit {run.returncode}: {err}"
    try:
        got = json.loads(run.stdout)
    except json.JSONDecodeError as e:
        return f"{label}: output is not JSON: {e}"
    diffs = compare(exp, got)
    return f"{label}: " + "; ".join(diffs) if diffs else None


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    if len(args) < 2:
        sys.exit(__doc__)
    kuota, paths = args[0], args[1:]
    passed = failed = step_checks = 0
    for path in scenario_files(paths):
        name = os.path.relpath(path)
        with open(path) as f:
            chunks = re.split(r"(?m)^---[ \t]*$", f.read())
        try:
            docs = [(c, yaml.load(c, Loader=Loader)) for c in chunks]
        except yaml.YAMLError as e:
            print(f"FAIL {name}: cannot read scenario: {e}")
            failed += 1
            continue
        docs = [(c, d) for c, d in docs if d]
        if not any(isinstance(d, dict) and is_step(d) for _, d in docs):
            continue
        if docs[-1][1].get("kind") != "Expectation":
            print(f"FAIL {name}: last document is not an Expectation")
            failed += 1
            continue
        exp, state = docs[-1][1], docs[:-1]
        checks = []
        for i, (_, d) in enumerate(state):
            if is_step(d) and "expect" in d:
                cut = [c for j, (c, e) in enumerate(state) if j <= i or not is_step(e)]
                checks.append((cut, d["expect"] or {}, f"{name} step at {d.get('at')}"))
                step_checks += 1
        checks.append(([c for c, _ in state], exp, f"{name} final Expectation"))
        for cut, expect, label in checks:
            text = "\n---\n".join(c.strip("\n") for c in cut) + "\n"
            problem = check(kuota, text, dict(expect, cycles=exp.get("cycles", 1),
                                              now=exp.get("now", DEFAULT_NOW)), label)
            if problem:
                print(f"FAIL {problem}")
                failed += 1
            else:
                passed += 1
                if verbose:
                    print(f"ok   {label}")
    print(f"{passed} passed, {failed} failed ({step_checks} of them steps' expect blocks)")
    if step_checks == 0:
        print("FAIL: no scenario has a Step with expect")
        failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
