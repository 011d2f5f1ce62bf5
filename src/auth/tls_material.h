// TlsMaterial: the certificate authority and server certificate kuotad
// serves TLS with, generated into a directory on first start (ECDSA P-256;
// the CA for 10 years, the server certificate for 1 year, for localhost,
// 127.0.0.1, ::1 and the host's name) and reused afterwards; a server
// certificate within 30 days of expiry is renewed. Keys are written mode
// 0600. Not thread-safe: call once at start.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace kuota::auth {

struct TlsFiles {
  std::string ca_cert;  // PEM file paths
  std::string server_cert;
  std::string server_key;
  std::string ca_pem;  // the CA certificate itself, for kubeconfigs
};

// Ensures `dir` holds ca.crt, ca.key, server.crt and server.key; `hosts`
// are extra names (DNS names or IP addresses) the server certificate must
// cover. Files that exist but cannot be parsed are an error naming them,
// never overwritten.
Result<TlsFiles> EnsureTlsMaterial(const std::string& dir, const std::vector<std::string>& hosts);

}  // namespace kuota::auth
