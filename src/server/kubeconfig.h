// Kubeconfig: the kubeconfig file text that points kubectl at a Kuota API
// server (one cluster, one context, a user without credentials; namespace
// "default"). Pure function; thread-safe.
#pragma once

#include <string>

namespace kuota::server {

// Returns a kubeconfig (YAML) whose current context uses `server_url`, e.g.
// "http://127.0.0.1:6443". The URL is quoted, so any characters are safe.
std::string KubeconfigYaml(const std::string& server_url);

}  // namespace kuota::server
