#include "server/request_target.h"

#include <vector>

namespace kuota::server {
namespace {

bool IsHealthPath(const std::string& first) {
  return first == "healthz" || first == "readyz" || first == "livez";
}

// Parses the part after /api/v1 or /apis/{g}/{v}: `rest` starts at index `i`.
RequestTarget ParseResourcePath(const std::string& group, const std::string& version,
                                const std::vector<std::string>& p, size_t i) {
  RequestTarget t;
  t.group = group;
  if (i < p.size() && p[i] == "watch") {
    t.watch_prefix = true;
    ++i;
  }
  if (i >= p.size()) return {};
  size_t n = p.size() - i;
  const ResourceInfo* r = nullptr;
  if (p[i] == "namespaces" && n >= 3) {
    // /namespaces/{ns}/{plural}[/{name}[/{sub}]], unless it is the Namespace
    // object's own subresource (/namespaces/{name}/status).
    const ResourceInfo* inner = FindResource(group, version, p[i + 2]);
    if (inner != nullptr && inner->namespaced) {
      if (n > 5) return {};
      t.resource = inner;
      t.ns = p[i + 1];
      if (n >= 4) t.name = p[i + 3];
      if (n == 5) t.subresource = p[i + 4];
    } else if (n == 3 && group.empty()) {
      r = FindResource(group, version, "namespaces");
    } else {
      return {};
    }
  } else {
    r = FindResource(group, version, p[i]);
  }
  if (t.resource == nullptr) {
    if (r == nullptr || n > 3) return {};
    t.resource = r;
    if (n >= 2) t.name = p[i + 1];
    if (n == 3) t.subresource = p[i + 2];
    // A namespaced object can only be named under /namespaces/{ns}/.
    if (r->namespaced && !t.name.empty()) return {};
  }
  if (!t.subresource.empty() && !(t.subresource == "status" && t.resource->has_status) &&
      !(t.subresource == "scale" && t.resource->scale)) {
    return {};
  }
  if (t.watch_prefix && !t.subresource.empty()) return {};
  t.type = RequestTarget::Type::kResource;
  t.version = t.resource->version;
  return t;
}

}  // namespace

bool IsServedGroupVersion(const std::string& group, const std::string& version) {
  for (const ResourceInfo& r : ServedResources()) {
    if (r.group == group && r.version == version) return true;
  }
  return false;
}

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) parts.emplace_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return parts;
}

RequestTarget ParseRequestTarget(std::string_view path) {
  using Type = RequestTarget::Type;
  std::vector<std::string> p = SplitPath(path);
  RequestTarget t;
  if (p.empty()) return t;
  if (p[0] == "version" && p.size() == 1) {
    t.type = Type::kVersion;
    return t;
  }
  if (IsHealthPath(p[0])) {
    t.type = Type::kHealth;
    return t;
  }
  if (p[0] == "openapi") {
    if (p.size() == 2 && p[1] == "v2") t.type = Type::kOpenApiV2;
    if (p.size() == 2 && p[1] == "v3") t.type = Type::kOpenApiV3Index;
    if (p.size() == 4 && p[1] == "v3" && p[2] == "api" && p[3] == "v1") {
      t.type = Type::kOpenApiV3GroupVersion;
      t.version = "v1";
    }
    if (p.size() == 5 && p[1] == "v3" && p[2] == "apis" && IsServedGroupVersion(p[3], p[4])) {
      t.type = Type::kOpenApiV3GroupVersion;
      t.group = p[3];
      t.version = p[4];
    }
    return t;
  }
  if (p[0] == "api") {
    if (p.size() == 1) {
      t.type = Type::kApiVersions;
      return t;
    }
    if (p[1] != "v1") return t;
    if (p.size() == 2) {
      t.type = Type::kApiResourceList;
      t.version = "v1";
      return t;
    }
    return ParseResourcePath("", "v1", p, 2);
  }
  if (p[0] == "apis") {
    if (p.size() == 1) {
      t.type = Type::kApiGroupList;
      return t;
    }
    bool group_served = false;
    for (const ResourceInfo& r : ServedResources()) group_served |= r.group == p[1];
    if (!group_served || p[1].empty()) return t;
    if (p.size() == 2) {
      t.type = Type::kApiGroup;
      t.group = p[1];
      return t;
    }
    if (!IsServedGroupVersion(p[1], p[2])) return t;
    if (p.size() == 3) {
      t.type = Type::kApiResourceList;
      t.group = p[1];
      t.version = p[2];
      return t;
    }
    return ParseResourcePath(p[1], p[2], p, 3);
  }
  return t;
}

}  // namespace kuota::server
