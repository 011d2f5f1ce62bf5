#!/usr/bin/env python3
"""Writes a copy of deploy/monitoring/prometheus.yml that `promtool check config` can check
offline, for tests/monitoring/promtool_test.sh.

  offline_config.py ROOT TMPDIR [--replace-kubernetes-sd]

Changes, and nothing else: every credentials/CA/cert/key file the config names points at a
stand-in file in TMPDIR (promtool only checks that they exist, and the real ones
- <data-dir>/pki/ca.crt, the token file - are not on a CI machine); rule_files become
absolute paths to deploy/monitoring's rules files. With --replace-kubernetes-sd (Debian's
promtool is built without Kubernetes service discovery, so it rejects kubernetes_sd_configs)
each kubernetes_sd_configs becomes a file_sd_configs whose targets carry the
__meta_kubernetes_* labels that role endpoints would give, so the job's relabel_configs are
still checked (`promtool check service-discovery`). Prints the copy's path.
"""
import json
import os
import sys

import yaml

FILE_KEYS = {"credentials_file", "bearer_token_file", "password_file", "ca_file", "cert_file",
             "key_file", "client_secret_file"}

# What role endpoints would discover in kuota-system: kuotad's metrics port (kept by the
# relabeling), another port of the same Service and another Service (both dropped).
ENDPOINTS = [
    {"targets": ["10.0.0.5:8081"], "labels": {
        "__meta_kubernetes_namespace": "kuota-system",
        "__meta_kubernetes_service_name": "kuota-controller-manager-metrics-service",
        "__meta_kubernetes_endpoint_port_name": "metrics",
        "__meta_kubernetes_pod_name": "kuota-controller-manager-7d9f8-abcde"}},
    {"targets": ["10.0.0.5:9443"], "labels": {
        "__meta_kubernetes_namespace": "kuota-system",
        "__meta_kubernetes_service_name": "kuota-controller-manager-metrics-service",
        "__meta_kubernetes_endpoint_port_name": "webhook",
        "__meta_kubernetes_pod_name": "kuota-controller-manager-7d9f8-abcde"}},
    {"targets": ["10.0.0.9:8080"], "labels": {
        "__meta_kubernetes_namespace": "kuota-system",
        "__meta_kubernetes_service_name": "something-else",
        "__meta_kubernetes_endpoint_port_name": "metrics",
        "__meta_kubernetes_pod_name": "something-else-0"}},
]


def stand_in_files(node, tmp, made):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in FILE_KEYS and isinstance(v, str):
                path = os.path.join(tmp, f"{k}-{len(made)}")
                with open(path, "w") as f:
                    f.write("stand-in for " + v + "\n")
                made.append((v, path))
                node[k] = path
            else:
                stand_in_files(v, tmp, made)
    elif isinstance(node, list):
        for v in node:
            stand_in_files(v, tmp, made)


def main():
    root, tmp = sys.argv[1], sys.argv[2]
    replace_k8s = "--replace-kubernetes-sd" in sys.argv[3:]
    mon = os.path.join(root, "deploy", "monitoring")
    with open(os.path.join(mon, "prometheus.yml")) as f:
        config = yaml.safe_load(f)
    config["rule_files"] = [os.path.join(mon, r) for r in config.get("rule_files", [])]
    made = []
    stand_in_files(config, tmp, made)
    if replace_k8s:
        sd_file = os.path.join(tmp, "kubernetes-endpoints.json")
        with open(sd_file, "w") as f:
            json.dump(ENDPOINTS, f, indent=1)
        for job in config.get("scrape_configs", []):
            if "kubernetes_sd_configs" in job:
                del job["kubernetes_sd_configs"]
                job["file_sd_configs"] = [{"files": [sd_file]}]
    out = os.path.join(tmp, "prometheus.yml")
    with open(out, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)
    for original, stand_in in made:
        print(f"  {original} -> stand-in {stand_in}", file=sys.stderr)
    print(out)


if __name__ == "__main__":
    main()
