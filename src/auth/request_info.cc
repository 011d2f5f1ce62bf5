#include "auth/request_info.h"

#include <cctype>
#include <vector>

namespace kuota::auth {
namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

RequestInfo ParseRequestInfo(std::string_view method, std::string_view path, bool watch) {
  RequestInfo info;
  info.path = std::string(path);
  info.verb = Lower(method);
  std::vector<std::string> s = Segments(path);
  size_t i = 0;
  if (s.size() >= 2 && s[0] == "api") {
    info.api_version = s[1];
    i = 2;
  } else if (s.size() >= 3 && s[0] == "apis") {
    info.api_group = s[1];
    info.api_version = s[2];
    i = 3;
  } else {
    return info;  // non-resource: /healthz, /api, /apis, /apis/{group}, /openapi/...
  }
  if (i >= s.size()) {
    info.api_group.clear();
    info.api_version.clear();
    return info;  // discovery: /api/v1, /apis/{group}/{version}
  }
  info.resource_request = true;
  bool watch_prefix = false;
  if (s[i] == "watch") {
    watch_prefix = true;
    ++i;
  }
  std::vector<std::string> rest(s.begin() + static_cast<long>(i), s.end());
  if (rest.size() >= 2 && rest[0] == "namespaces") {
    if (rest.size() == 2) {
      // /api/v1/namespaces/{name}: the Namespace itself, in its own namespace.
      info.resource = "namespaces";
      info.name = rest[1];
      info.ns = rest[1];
      rest.clear();
    } else if (rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize")) {
      info.resource = "namespaces";
      info.name = rest[1];
      info.ns = rest[1];
      info.subresource = rest[2];
      rest.clear();
    } else {
      info.ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (!rest.empty()) info.resource = rest[0];
  if (rest.size() >= 2) info.name = rest[1];
  if (rest.size() >= 3) info.subresource = rest[2];

  const std::string m = Lower(method);
  if (m == "get" || m == "head") {
    if (watch_prefix || watch) {
      info.verb = "watch";
    } else {
      info.verb = info.name.empty() ? "list" : "get";
    }
  } else if (m == "post") {
    info.verb = "create";
  } else if (m == "put") {
    info.verb = "update";
  } else if (m == "patch") {
    info.verb = "patch";
  } else if (m == "delete") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  }
  return info;
}

std::string QualifiedResource(const RequestInfo& info) {
  std::string r = info.resource;
  if (!info.api_group.empty()) r += "." + info.api_group;
  if (!info.subresource.empty()) r += "/" + info.subresource;
  return r;
}

}  // namespace kuota::auth
