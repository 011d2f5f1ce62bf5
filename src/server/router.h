// Router: sends each request to the endpoint that serves it — discovery,
// OpenAPI, /version and health checks from immutable documents built once,
// pods' log subresource to PodLogs, Kueue's visibility API to VisibilityApi,
// resource paths to ResourceHandlers — and turns unknown paths and methods
// into kube-style 404/405 Status replies. Thread-safe: Route may run on many
// threads at once (the documents are read-only, the handlers thread-safe).
#pragma once

#include <map>
#include <string>

#include "metrics/registry.h"
#include "server/http_types.h"
#include "server/pod_logs.h"
#include "server/resource_handlers.h"
#include "server/visibility.h"

namespace kuota::server {

class Router {
 public:
  // `handlers`, `pod_logs`, `visibility` and `metrics` (nullable: no
  // /metrics) must outlive the router.
  Router(ResourceHandlers& handlers, PodLogs& pod_logs, const VisibilityApi& visibility,
         const metrics::Registry* metrics = nullptr);

  HttpReply Route(const HttpRequest& request);

 private:
  ResourceHandlers& handlers_;
  PodLogs& pod_logs_;
  const VisibilityApi& visibility_;
  const metrics::Registry* metrics_;
  std::string openapi_v2_;                         // /openapi/v2
  std::string openapi_v3_index_;                   // /openapi/v3
  std::map<std::string, std::string> openapi_v3_;  // "group/version" -> document
};

}  // namespace kuota::server
