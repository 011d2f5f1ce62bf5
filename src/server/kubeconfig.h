// Kubeconfig: the kubeconfig file text that points kubectl at a Kuota API
// server (one cluster, one context, one user; namespace "default" unless
// said). With TLS it carries the CA (certificate-authority-data) and the
// user's bearer token. Also the reader clients use. Pure functions;
// thread-safe.
#pragma once

#include <string>

#include "base/result.h"

namespace kuota::server {

struct KubeconfigCredentials {
  std::string ca_pem;          // the CA's PEM; empty: none (plain http)
  std::string token;           // bearer token; empty: none
  std::string ns = "default";  // the context's namespace
  std::string user = "kuota";  // the user entry's name
};

// Returns a kubeconfig (YAML) whose current context uses `server_url`, e.g.
// "https://127.0.0.1:8080". Every value is quoted, so any characters are safe.
std::string KubeconfigYaml(const std::string& server_url, const KubeconfigCredentials& creds = {});

// What a client needs from a kubeconfig's current context: the cluster's
// server, its CA (certificate-authority-data, or the certificate-authority
// file) and the user's bearer token (token, or tokenFile).
struct KubeconfigTarget {
  std::string url;
  std::string ca_pem;  // empty: none given
  std::string token;   // empty: none given
};

// Reads `text` (a kubeconfig's YAML); relative file names are read from
// `dir`. Errors name the field.
Result<KubeconfigTarget> ParseKubeconfig(const std::string& text, const std::string& dir);

}  // namespace kuota::server
