#!/usr/bin/env bash
# Checks deploy/monitoring (Prometheus config, rules, Grafana dashboards) with the real
# Prometheus tools (promtool, Debian package `prometheus`), offline; ctest
# kuotad_monitoring_config. Needs no network, no running Prometheus and no free port.
#   tests/monitoring/promtool_test.sh [REPO_ROOT]
#  1. promtool check config on a copy of prometheus.yml whose token/CA paths point at stand-in
#     files (tests/monitoring/offline_config.py); Debian's promtool has no Kubernetes service
#     discovery, so there the copy's kubernetes_sd_configs becomes an equivalent file_sd and
#     `promtool check service-discovery` checks the job's relabeling;
#  2. promtool check rules on recording-rules.yml and alerts.yml;
#  3. promtool test rules tests/monitoring/alerts_test.yml (every alert fires / stays quiet);
#  4. check_metric_names.py: dashboards parse, only kuotad's metric names and labels are used,
#     every alert is tested; promtool check rules on the dashboard queries as recording rules.
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
MON=$ROOT/deploy/monitoring
HERE=$ROOT/tests/monitoring

if ! command -v promtool >/dev/null; then
  echo "promtool_test: promtool not found: install Debian's prometheus package (scripts/setup.sh)" >&2
  exit 1
fi
promtool --version 2>&1 | head -1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "promtool_test: FAILED: $*" >&2; exit 1; }

# 1. The scrape configuration.
probe=$tmp/probe.yml
printf 'scrape_configs:\n- job_name: probe\n  kubernetes_sd_configs: [{role: endpoints}]\n' >"$probe"
replace=()
if ! promtool check config --syntax-only "$probe" >/dev/null 2>&1; then
  echo "promtool_test: this promtool has no kubernetes_sd_configs (Debian builds it without);" \
       "checking the Kubernetes job with an equivalent file_sd_configs"
  replace=(--replace-kubernetes-sd)
fi
config=$(python3 "$HERE/offline_config.py" "$ROOT" "$tmp" "${replace[@]}")
promtool check config "$config" || fail "promtool check config (a copy of $MON/prometheus.yml: $config)"
if ((${#replace[@]})); then
  sd=$(promtool check service-discovery --timeout=2s "$config" kuotad-kubernetes 2>/dev/null) ||
    fail "promtool check service-discovery kuotad-kubernetes"
  SD="$sd" python3 - <<'PY' || fail "kuotad-kubernetes relabeling: exactly kuotad's metrics endpoint must be kept"
import json, os
kept = [t["labels"] for t in json.loads(os.environ["SD"]) if t["labels"]]
want = {"instance": "10.0.0.5:8081", "job": "kuotad-kubernetes", "__scheme__": "http",
        "__metrics_path__": "/metrics", "kubernetes_namespace": "kuota-system",
        "kubernetes_pod": "kuota-controller-manager-7d9f8-abcde"}
assert len(kept) == 1 and all(kept[0].get(k) == v for k, v in want.items()), kept
assert not {"namespace", "pod"} & set(kept[0]), kept
print("  kuotad-kubernetes: keeps 10.0.0.5:8081 (kuotad's metrics port), drops the other 2 endpoints")
PY
fi

# 2. The rules files.
out=$(promtool check rules "$MON/recording-rules.yml" "$MON/alerts.yml" 2>&1) || { echo "$out"; fail "promtool check rules"; }
echo "$out"
rules=0
for n in $(echo "$out" | sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p'); do rules=$((rules + n)); done

# 3. The alerts' unit tests.
promtool test rules "$HERE/alerts_test.yml" || fail "promtool test rules $HERE/alerts_test.yml"

# 4. Dashboards and metric names.
counts=$(python3 "$HERE/check_metric_names.py" "$ROOT" "$tmp/dashboard-queries.yml") ||
  fail "check_metric_names.py"
queries=$(echo "$counts" | sed -n 's/^dashboard queries: //p')
tests=$(echo "$counts" | sed -n 's/^alert tests: //p')
promtool check rules "$tmp/dashboard-queries.yml" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; promtool check rules "$tmp/dashboard-queries.yml" || true; fail "a dashboard query does not parse"; }

echo "monitoring: $rules rules checked, $tests alert tests passed, $queries dashboard queries checked"
