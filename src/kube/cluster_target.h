// ClusterTarget: which kube-apiserver the Kubernetes driver talks to and
// with what credentials — from a kubeconfig file's current context, or from
// inside a pod (KUBERNETES_SERVICE_HOST/PORT and the service account's token
// and CA under /var/run/secrets/kubernetes.io/serviceaccount). Pure reads;
// thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "server/kubeconfig.h"

namespace kuota::kube {

struct ClusterTarget {
  std::string url;
  std::string ca_pem;  // empty: the system's CAs
  std::string token;   // bearer token; empty: none
  // Non-empty: the token is read again from here every minute (a pod's
  // projected service account token is rotated by the kubelet).
  std::string token_file;
};

// The current context of the kubeconfig at `path`; errors name the file.
Result<ClusterTarget> TargetFromKubeconfigFile(const std::string& path);

// In-cluster credentials. `root` replaces "/" for the service account files
// (tests). Errors say which variable or file is missing.
Result<ClusterTarget> InClusterTarget(const std::string& root = "");

// The namespace this pod runs in (the service account's namespace file), or
// `fallback` outside a pod.
std::string InClusterNamespace(const std::string& fallback, const std::string& root = "");

}  // namespace kuota::kube
