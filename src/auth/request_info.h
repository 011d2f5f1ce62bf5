// RequestInfo: the attributes RBAC decides on, read from a request's method,
// path and query the way kube-apiserver's RequestInfoFactory reads them: a
// resource request (/api/v1/..., /apis/{group}/{version}/...) names a verb,
// API group, resource, subresource, namespace and name; anything else is a
// non-resource request (/healthz, /version, /openapi/v2) with an HTTP verb.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace kuota::auth {

struct RequestInfo {
  bool resource_request = false;
  std::string verb;       // get list watch create update patch delete deletecollection;
                          // for non-resource requests the lowercase HTTP method
  std::string api_group;  // "" for the core group
  std::string api_version;
  std::string resource;     // "jobs"
  std::string subresource;  // "status", "log", ""
  std::string ns;           // "" at the cluster scope
  std::string name;         // "" for a collection
  std::string path;         // the request path
};

// `watch` is true when the query asks for a watch (watch=true or watch=1).
RequestInfo ParseRequestInfo(std::string_view method, std::string_view path, bool watch);

// "jobs.batch", "pods", "pods/log": how kube's Forbidden message names a resource.
std::string QualifiedResource(const RequestInfo& info);

}  // namespace kuota::auth
