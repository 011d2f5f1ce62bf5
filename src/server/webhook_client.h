// WebhookClient: one HTTPS call of a webhook (admission or CRD conversion) as
// kube-apiserver makes it — a JSON review POSTed to a webhook clientConfig
// (url, or a Service reached at a configured address with its certificate
// checked against NAME.NAMESPACE.svc), verified with clientConfig.caBundle (or the
// system's roots when it has none; verification is never skipped), with a
// timeout. Errors are worded as Go's http client words them ('Post
// "https://...": context deadline exceeded'). Thread-safe: each call opens a
// connection of its own.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/object_store.h"

namespace kuota::server {

struct WebhookCallOptions {
  // Where a clientConfig.service is reached (no Service objects are resolved
  // here): this address, at the port the service names (443 when absent).
  std::string service_address = "127.0.0.1";
  // Nonzero: a clientConfig.service is reached at this port of
  // service_address (an endpoint's) instead of the port the service names.
  int service_endpoint_port = 0;
  int timeout_seconds = 10;  // the whole call, as kube-apiserver's ?timeout=
};

// Endpoint routing of a clientConfig.service, as kube-apiserver does it:
// through the Service and Endpoints stored in `store`
// (service_endpoint.h), setting `options`' address and port; a Service not
// stored at all keeps the configured address. Error (its message is
// kube-apiserver's, e.g. 'no endpoints available for service "x"') when the
// Service is stored but gives no endpoint; Ok for a url clientConfig.
Status RouteServiceThroughEndpoints(store::ObjectStore& store, const nlohmann::json& client_config,
                                    WebhookCallOptions* options);

// POSTs `review` to `client_config` and returns the parsed answer, which the
// caller checks (it may be any JSON value; discarded when the body is not
// JSON). Internal with the reason when the endpoint is malformed, cannot be
// reached, is not trusted, times out or answers a non-200 status.
Result<nlohmann::json> PostWebhookReview(const nlohmann::json& client_config,
                                         const WebhookCallOptions& options,
                                         const nlohmann::json& review);

// A review's uid: 32 random hex digits in the 8-4-4-4-12 form of a UUID.
std::string NewReviewUid();

}  // namespace kuota::server
