// TransportError: why an HTTP client (kuota's CLI talking to kuotad, the
// Kubernetes driver talking to a kube-apiserver) got no answer at all, in
// words a user can act on ("connection refused", "connection timed out").
// Pure; thread-safe.
#pragma once

#include <httplib.h>

#include <string>

namespace kuota::server {

std::string TransportError(httplib::Error e);

}  // namespace kuota::server
