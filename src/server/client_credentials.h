// ClientCredentials: points a cpp-httplib client at a kuotad the way a
// kubeconfig says — trust its CA (PEM) for https and send its bearer token.
// Shared by the CLI, the perf runner and the tests that talk to kuotad.
#pragma once

#include <httplib.h>

#include <string>

#include "base/result.h"

namespace kuota::server {

// Makes `client` verify the server against the certificates in `ca_pem`
// (when not empty; those alone, not the system's CA bundle) and send `token`
// as a bearer token (when not empty).
// Invalid when `ca_pem` is not empty but holds no certificate.
Status UseCredentials(httplib::Client& client, const std::string& ca_pem, const std::string& token);

}  // namespace kuota::server
