#!/usr/bin/env python3
"""Checks deploy/monitoring's dashboards and rules against the metrics kuotad serves, for
tests/monitoring/promtool_test.sh.

  check_metric_names.py ROOT DASHBOARD_RULES_OUT

- every Grafana dashboard (deploy/monitoring/grafana/*.json) parses as JSON, has the
  ${DS_PROMETHEUS} datasource variable and uses it in every panel and query;
- every PromQL expression (dashboard queries, variable queries, rules) names only metrics
  of the list below (histograms with _bucket/_sum/_count), `up`, or a recorded name from
  recording-rules.yml, and its selectors only those metrics' labels;
- every alert of alerts.yml has, in tests/monitoring/alerts_test.yml, a case where it fires
  and a case where it must not;
- writes the dashboard queries (Grafana variables replaced by sample values) as recording
  rules to DASHBOARD_RULES_OUT, for `promtool check rules` to parse.
Prints "dashboard queries: K" and "alert tests: M".
"""
import glob
import json
import os
import re
import sys

import yaml

DCGM = {"gpu", "UUID", "modelName", "Hostname"}
CQ_RES = {"cohort", "cluster_queue", "flavor", "resource"}
LQ_RES = {"name", "namespace", "flavor", "resource"}
# The metrics kuotad serves on /metrics, with their labels (Kueue's own names, DCGM-exporter's
# names, Kuota's own). Keep in step with the /metrics code and deploy/monitoring/README.md.
METRICS = {
    "kueue_admission_attempts_total": {"result"},
    "kueue_admission_attempt_duration_seconds": {"result"},
    "kueue_pending_workloads": {"cluster_queue", "status"},
    "kueue_quota_reserved_workloads_total": {"cluster_queue"},
    "kueue_quota_reserved_wait_time_seconds": {"cluster_queue"},
    "kueue_admitted_workloads_total": {"cluster_queue"},
    "kueue_admission_wait_time_seconds": {"cluster_queue"},
    "kueue_evicted_workloads_total": {"cluster_queue", "reason"},
    "kueue_preempted_workloads_total": {"preempting_cluster_queue", "reason"},
    "kueue_reserving_active_workloads": {"cluster_queue"},
    "kueue_admitted_active_workloads": {"cluster_queue"},
    "kueue_finished_workloads_total": {"cluster_queue"},
    "kueue_replaced_workload_slices_total": {"cluster_queue"},
    "kueue_cluster_queue_status": {"cluster_queue", "status"},
    "kueue_cluster_queue_resource_reservation": CQ_RES,
    "kueue_cluster_queue_resource_usage": CQ_RES,
    "kueue_cluster_queue_nominal_quota": CQ_RES,
    "kueue_cluster_queue_borrowing_limit": CQ_RES,
    "kueue_cluster_queue_lending_limit": CQ_RES,
    "kueue_cluster_queue_weighted_share": {"cluster_queue"},
    "kueue_local_queue_pending_workloads": {"name", "namespace", "status"},
    "kueue_local_queue_admitted_active_workloads": {"name", "namespace"},
    "kueue_local_queue_reserving_active_workloads": {"name", "namespace"},
    "kueue_local_queue_resource_usage": LQ_RES,
    "kueue_local_queue_resource_reservation": LQ_RES,
    "kueue_local_queue_admission_fair_sharing_usage": {"name", "namespace", "cluster_queue"},
    "kueue_cohort_weighted_share": {"cohort"},
    "DCGM_FI_DEV_GPU_UTIL": DCGM,
    "DCGM_FI_DEV_FB_USED": DCGM,
    "DCGM_FI_DEV_FB_FREE": DCGM,
    "DCGM_FI_DEV_GPU_TEMP": DCGM,
    "DCGM_FI_DEV_POWER_USAGE": DCGM,
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": DCGM,
    "DCGM_FI_PROF_SM_ACTIVE": DCGM,
    "kuota_gpu_allocation": {"gpu", "UUID", "Hostname", "namespace", "pod", "local_queue",
                             "cluster_queue", "flavor"},
    "kuota_gpus": {"Hostname"},
    "kuota_build_info": {"version"},
    "kuota_controller_rounds_total": set(),
    "kuota_controller_loop_seconds_total": {"step"},
    "kuota_controller_status_flush_seconds_total": set(),
    "kuota_store_transactions_total": set(),
    "kuota_store_writes_total": set(),
    "kuota_store_transaction_seconds_total": set(),
    "kuota_store_commit_seconds_total": set(),
    "kuota_store_transaction_cpu_seconds_total": set(),
    "kuota_leader": set(),
    "kuota_engine_synced": set(),
    "up": set(),  # made by Prometheus for every target
}
HISTOGRAMS = ["kueue_admission_attempt_duration_seconds", "kueue_quota_reserved_wait_time_seconds",
              "kueue_admission_wait_time_seconds"]
for h in HISTOGRAMS:
    for suffix, extra in (("_bucket", {"le"}), ("_sum", set()), ("_count", set())):
        METRICS[h + suffix] = METRICS[h] | extra
# Labels Prometheus adds to every series it scrapes (job, instance; see prometheus.yml).
TARGET_LABELS = {"job", "instance", "kubernetes_namespace", "kubernetes_pod"}

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "offset", "bool", "inf", "nan", "atan2", "start", "end",
            # aggregations, which may take `by (...)` before their parentheses
            "sum", "avg", "min", "max", "count", "group", "stddev", "stdvar", "topk", "bottomk",
            "quantile", "count_values"}
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
GRAFANA_DURATION = re.compile(r"\$(?:__rate_interval|__interval|__range)\b|\$\{(?:__rate_interval|__interval|__range)\}")
GRAFANA_VAR = re.compile(r"\$\{[^}]*\}|\$\w+|\[\[\w+\]\]")

errors = []


def metrics_and_selectors(expr):
    """(metric names, [(metric, label names in its selector)]) of a PromQL expression."""
    s = STRING.sub('""', expr)
    selectors = [(m.group(1), set(re.findall(r"([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)", m.group(2))))
                 for m in re.finditer(r"([A-Za-z_:][\w:]*)\s*\{([^}]*)\}", s)]
    s = re.sub(r"\[[^\]]*\]", " ", s)                   # ranges, subqueries
    s = re.sub(r"\{[^}]*\}", " ", s)                    # label matchers
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r" \1 ", s)
    names = set()
    for m in re.finditer(r"(?<![\w:.])([A-Za-z_:][\w:]*)", s):
        rest = s[m.end():].lstrip()
        if rest.startswith("(") or m.group(1).lower() in KEYWORDS:
            continue                                    # a function or aggregation, a keyword
        names.add(m.group(1))
    return names, selectors


def check_expr(expr, where, recorded):
    names, selectors = metrics_and_selectors(expr)
    if not names:
        errors.append(f"{where}: no metric in {expr!r}")
    for n in sorted(names - set(METRICS) - recorded):
        errors.append(f"{where}: metric {n} is not one kuotad serves")
    for metric, labels in selectors:
        if metric in METRICS:
            for label in sorted(labels - METRICS[metric] - TARGET_LABELS):
                errors.append(f"{where}: {metric} has no label {label}")


def grafana_to_promql(expr):
    return GRAFANA_VAR.sub("sample", GRAFANA_DURATION.sub("5m", expr))


def all_panels(panels):
    for p in panels:
        yield p
        yield from all_panels(p.get("panels", []))


def main():
    root, rules_out = sys.argv[1], sys.argv[2]
    mon = os.path.join(root, "deploy", "monitoring")

    # Rules.
    recorded, alerts = set(), []
    rule_exprs = []
    for name in ("recording-rules.yml", "alerts.yml"):
        with open(os.path.join(mon, name)) as f:
            for group in yaml.safe_load(f)["groups"]:
                for rule in group["rules"]:
                    rule_exprs.append((f"{name}: {rule.get('record') or rule.get('alert')}", rule["expr"]))
                    if "record" in rule:
                        recorded.add(rule["record"])
                    else:
                        alerts.append(rule["alert"])
    for where, expr in rule_exprs:
        check_expr(expr, where, recorded)

    # Dashboards.
    dashboard_rules = []
    paths = sorted(glob.glob(os.path.join(mon, "grafana", "*.json")))
    if not paths:
        errors.append("no dashboards in deploy/monitoring/grafana")
    for path in paths:
        base = os.path.basename(path)
        try:
            with open(path) as f:
                dash = json.load(f)
        except ValueError as e:
            errors.append(f"{base}: not JSON: {e}")
            continue
        variables = dash.get("templating", {}).get("list", [])
        if not any(v.get("name") == "DS_PROMETHEUS" and v.get("type") == "datasource"
                   and v.get("query") == "prometheus" for v in variables):
            errors.append(f"{base}: no Prometheus datasource variable DS_PROMETHEUS")
        for v in variables:
            if v.get("type") != "query":
                continue
            q = v["query"]["query"] if isinstance(v.get("query"), dict) else v.get("query", "")
            m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", q)
            if not m:
                errors.append(f"{base}: variable {v['name']}: not label_values(metric, label): {q!r}")
                continue
            check_expr(m.group(1), f"{base}: variable {v['name']}", set())
            dashboard_rules.append((f"{base}: variable {v['name']}", grafana_to_promql(m.group(1))))
        for p in all_panels(dash.get("panels", [])):
            if p.get("type") == "row":
                continue
            title = f"{base}: panel {p.get('title')!r}"
            if p.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}":
                errors.append(f"{title}: datasource is not ${{DS_PROMETHEUS}}")
            if not p.get("targets"):
                errors.append(f"{title}: no queries")
            for t in p.get("targets", []):
                if t.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}":
                    errors.append(f"{title} {t.get('refId')}: datasource is not ${{DS_PROMETHEUS}}")
                check_expr(t["expr"], f"{title} {t.get('refId')}", set())
                dashboard_rules.append((f"{title} {t.get('refId')}", grafana_to_promql(t["expr"])))
    with open(rules_out, "w") as f:
        rules = [{"record": f"dashboard:query_{i}:check", "expr": expr}
                 for i, (_, expr) in enumerate(dashboard_rules)]
        yaml.safe_dump({"groups": [{"name": "dashboard-queries", "rules": rules}]}, f, sort_keys=False)

    # Every alert has a firing and a non-firing unit test.
    with open(os.path.join(root, "tests", "monitoring", "alerts_test.yml")) as f:
        tests = yaml.safe_load(f)["tests"]
    cases = [c for t in tests for c in t.get("alert_rule_test", [])]
    for alert in alerts:
        mine = [c for c in cases if c["alertname"] == alert]
        if not any(c.get("exp_alerts") for c in mine):
            errors.append(f"alerts_test.yml: no case where {alert} fires")
        if not any(not c.get("exp_alerts") for c in mine):
            errors.append(f"alerts_test.yml: no case where {alert} must not fire")

    for e in errors:
        print("check_metric_names: " + e, file=sys.stderr)
    print(f"dashboard queries: {len(dashboard_rules)}")
    print(f"alert tests: {len(cases)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
