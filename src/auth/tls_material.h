// TlsMaterial: the certificate authority and server certificate kuotad
// serves TLS with, generated into a directory on first start (ECDSA P-256;
// the CA for 10 years, the server certificate for 1 year, for localhost,
// 127.0.0.1, ::1 and the host's name) and reused afterwards; a server
// certificate within 30 days of expiry is renewed. Keys are written mode
// 0600. Not thread-safe: call once at start. GenerateTlsPem / CheckTlsPem
// make and check the same material in memory (the Kubernetes mode's
// conversion webhook keeps it in a Secret); those are thread-safe.
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

// A CA and a server certificate it signed, as PEM text: what a Secret keeps
// under ca.crt, ca.key, tls.crt and tls.key.
struct TlsPem {
  std::string ca_cert;
  std::string ca_key;
  std::string server_cert;
  std::string server_key;
};

// A new CA (10 years) and server certificate (1 year) for exactly `hosts`
// (DNS names or IP addresses; at least one).
Result<TlsPem> GenerateTlsPem(const std::vector<std::string>& hosts);

// A new CA named `ca_name` (10 years) and a client certificate it signed
// (1 year, extended key usage clientAuth, subject CN `cn`): what
// kube-apiserver's aggregator presents to the API servers it proxies to
// (--proxy-client-cert-file, signed by --requestheader-client-ca-file).
// The CA's key is not kept: nothing else is ever signed with it.
struct ClientPem {
  std::string ca_cert;
  std::string cert;
  std::string key;
};
Result<ClientPem> GenerateClientPem(const std::string& ca_name, const std::string& cn);

// Ok when `pem` is usable as is: all four parse, the keys are the
// certificates', the server certificate is the CA's, covers every one of
// `hosts`, and both last 30 days more. Invalid saying which test failed.
Status CheckTlsPem(const TlsPem& pem, const std::vector<std::string>& hosts);

}  // namespace kuota::auth
