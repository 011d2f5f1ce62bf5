// Router: sends each request to the endpoint that serves it — discovery,
// OpenAPI (built once, on the first request for one: building them is most of
// a start's CPU in a sanitized build), /version and health checks,
// pods' log subresource to PodLogs, Kueue's visibility API to VisibilityApi,
// resource paths to ResourceHandlers — and turns unknown paths and methods
// into kube-style 404/405 Status replies. Thread-safe: Route may run on many
// threads at once (the documents are read-only, the handlers thread-safe).
#pragma once

#include <map>
#include <mutex>
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
  struct OpenApiDocuments {
    std::string v2;                         // /openapi/v2
    std::string v3_index;                   // /openapi/v3
    std::map<std::string, std::string> v3;  // "group/version" -> document
  };
  const OpenApiDocuments& OpenApi();

  std::once_flag openapi_once_;
  OpenApiDocuments openapi_;
};

}  // namespace kuota::server
