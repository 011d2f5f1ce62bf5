// RequestTarget: what a request path names, parsed the way kube-apiserver
// routes it: discovery and health endpoints, OpenAPI documents, or a resource
// collection / object / subresource (cluster-scoped or under
// /namespaces/{ns}/, with the legacy /watch/ prefix). Pure functions over
// immutable data; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/resource_info.h"

namespace kuota::server {

struct RequestTarget {
  enum class Type {
    kUnknown,             // not served: 404
    kApiVersions,         // /api
    kApiGroupList,        // /apis
    kApiGroup,            // /apis/{group}
    kApiResourceList,     // /api/v1, /apis/{group}/{version}
    kResource,            // a collection, an object or its subresource
    kVersion,             // /version
    kHealth,              // /healthz, /readyz, /livez (and their sub-checks)
    kOpenApiV2,           // /openapi/v2
    kOpenApiV3Index,      // /openapi/v3
    kOpenApiV3GroupVersion,  // /openapi/v3/api/v1, /openapi/v3/apis/{group}/{version}
  };
  Type type = Type::kUnknown;
  std::string group;    // for kApiGroup, kApiResourceList, kOpenApiV3GroupVersion
  std::string version;
  const ResourceInfo* resource = nullptr;  // for kResource; points into ServedResources()
  std::string ns;           // "" for cluster-scoped or all-namespaces collections
  std::string name;         // "" for a collection
  std::string subresource;  // "status", "scale" or ""
  bool watch_prefix = false;  // the path started with .../watch/

  bool IsCollection() const { return name.empty(); }
};

// Parses a URL path (already percent-decoded, without the query).
RequestTarget ParseRequestTarget(std::string_view path);

// The non-empty segments of a URL path ("/a//b/" -> {"a", "b"}).
std::vector<std::string> SplitPath(std::string_view path);

// True when `group`/`version` is a group version Kuota serves.
bool IsServedGroupVersion(const std::string& group, const std::string& version);

}  // namespace kuota::server
