// CrdWebhookConversion: what kube-apiserver does for a custom resource whose
// CRD says spec.conversion.strategy: Webhook. Objects wanted in a version
// other than the one they are in are converted by POSTing an
// apiextensions.k8s.io/v1 ConversionReview to the webhook the CRD names
// (clientConfig.url, or clientConfig.service routed through the Service and
// Endpoints stored here, as admission webhooks are; a Service not stored is
// reached at an address given in the options), over HTTPS
// verified with clientConfig.caBundle and the Service's DNS name. A kind whose
// CRD asks for no webhook (or that has no CRD) keeps kuotad's built-in
// conversion. Used by kuotad --serve-only, the stand-in cluster of the
// Kubernetes mode's tests. Thread-safe: each call reads the CRD from the store
// and opens a connection of its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/resource_info.h"
#include "store/object_store.h"

namespace kuota::server {

struct CrdWebhookOptions {
  // Where a clientConfig.service is reached: kube-apiserver resolves the
  // Service to an endpoint; here every Service is this address, at the port
  // clientConfig.service.port names (443 when absent). The certificate is
  // still checked against NAME.NAMESPACE.svc.
  std::string service_address = "127.0.0.1";
  int timeout_seconds = 10;  // connect, send and receive, each
};

class CrdWebhookConversion {
 public:
  // `store` (where CRDs are applied) must outlive this.
  CrdWebhookConversion(store::ObjectStore& store, CrdWebhookOptions options);

  // std::nullopt, `objects` untouched, when `r`'s CRD asks for no
  // conversion webhook. Else `objects` converted in place to `to_version` of
  // `r`'s group (those already in it untouched) and Ok, or InternalError
  // worded as kube-apiserver's ("conversion webhook for
  // kueue.x-k8s.io/v1beta1, Kind=ClusterQueue failed: ...") when the webhook
  // cannot be reached, is not trusted, answers Failure, or answers with
  // objects that are not the ones sent (`objects` then unchanged).
  std::optional<Status> Convert(const ResourceInfo& r, std::vector<nlohmann::json>& objects,
                                const std::string& to_version) const;

 private:
  store::ObjectStore& store_;
  const CrdWebhookOptions options_;
};

}  // namespace kuota::server
