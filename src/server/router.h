// Router: sends each request to the endpoint that serves it — discovery,
// OpenAPI, /version and health checks from immutable documents built once,
// resource paths to ResourceHandlers — and turns unknown paths and methods
// into kube-style 404/405 Status replies. Thread-safe: Route may run on many
// threads at once (the documents are read-only, the handlers thread-safe).
#pragma once

#include <map>
#include <string>

#include "server/http_types.h"
#include "server/resource_handlers.h"

namespace kuota::server {

class Router {
 public:
  // `handlers` must outlive the router.
  explicit Router(ResourceHandlers& handlers);

  HttpReply Route(const HttpRequest& request);

 private:
  ResourceHandlers& handlers_;
  std::string openapi_v2_;                         // /openapi/v2
  std::string openapi_v3_index_;                   // /openapi/v3
  std::map<std::string, std::string> openapi_v3_;  // "group/version" -> document
};

}  // namespace kuota::server
