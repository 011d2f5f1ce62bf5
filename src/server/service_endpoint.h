// ServiceEndpoint: where kube-apiserver sends a request meant for a Service
// (a webhook's clientConfig.service) with endpoint routing — the Service's
// port of that number, then an address and the same-named port of one of its
// Endpoints subsets — read from the objects in the store. Thread-safe: it
// only reads the store.
#pragma once

#include <string>

#include "base/result.h"
#include "store/object_store.h"

namespace kuota::server {

struct ServiceEndpoint {
  std::string ip;
  int port = 0;
};

// The endpoint for port `port` of Service `ns`/`name`. NotFound ('service
// "x" not found', 'no service port 443 found for service "x"'), Invalid for
// an ExternalName Service, Unavailable ('no endpoints available for service
// "x"') when no Endpoints subset has an address and a port of that name.
Result<ServiceEndpoint> ResolveServiceEndpoint(store::ObjectStore& store, const std::string& ns,
                                               const std::string& name, int port);

}  // namespace kuota::server
