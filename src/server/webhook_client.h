// WebhookClient: one HTTPS call of an admission webhook as kube-apiserver
// makes it — a JSON review POSTed to a webhook clientConfig (url, or a
// Service reached at a configured address with its certificate checked
// against NAME.NAMESPACE.svc), verified with clientConfig.caBundle (or the
// system's roots when it has none; verification is never skipped), with a
// timeout. Errors are worded as Go's http client words them ('Post
// "https://...": context deadline exceeded'). Thread-safe: each call opens a
// connection of its own.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

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

// POSTs `review` to `client_config` and returns the parsed JSON answer.
// Internal with the reason when the endpoint is malformed, cannot be
// reached, is not trusted, times out, answers a non-200 status or answers
// something that is not a JSON object.
Result<nlohmann::json> PostWebhookReview(const nlohmann::json& client_config,
                                         const WebhookCallOptions& options,
                                         const nlohmann::json& review);

}  // namespace kuota::server
