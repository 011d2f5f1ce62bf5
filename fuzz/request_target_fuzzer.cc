// Fuzz target: server::ParseRequestTarget, how kuotad routes a request path
// (discovery, health, OpenAPI, /api/v1/..., /apis/{g}/{v}/..., namespaces,
// subresources, the legacy /watch/ prefix). Input: the path (percent-decoded,
// no query). Asserts beyond "no crash": SplitPath's segments are non-empty,
// slash-free and spell the path; the parse ignores empty segments; a resource
// target points into ServedResources(), is consistent with its kind's scope,
// and its canonical path parses back to the same target.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "server/request_target.h"

namespace {

using kuota::server::RequestTarget;

bool Same(const RequestTarget& a, const RequestTarget& b) {
  return a.type == b.type && a.group == b.group && a.version == b.version &&
         a.resource == b.resource && a.ns == b.ns && a.name == b.name &&
         a.subresource == b.subresource && a.watch_prefix == b.watch_prefix;
}

std::string CanonicalPath(const RequestTarget& t) {
  const auto& r = *t.resource;
  std::string p = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  if (t.watch_prefix) p += "/watch";
  if (!t.ns.empty()) p += "/namespaces/" + t.ns;
  p += "/" + r.plural;
  if (!t.name.empty()) p += "/" + t.name;
  if (!t.subresource.empty()) p += "/" + t.subresource;
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kuota::server;
  std::string_view path(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> parts = SplitPath(path);
  std::string joined, slashless;
  for (const std::string& s : parts) {
    FUZZ_CHECK(!s.empty() && s.find('/') == std::string::npos, path);
    joined += "/" + s;
    slashless += s;
  }
  std::string stripped;
  for (char c : path) {
    if (c != '/') stripped += c;
  }
  FUZZ_CHECK(stripped == slashless, path);

  const RequestTarget t = ParseRequestTarget(path);
  FUZZ_CHECK(Same(t, ParseRequestTarget(joined)), std::string(path) + " vs " + joined);
  if (t.type != RequestTarget::Type::kResource) {
    FUZZ_CHECK(t.resource == nullptr, path);
    return 0;
  }
  FUZZ_CHECK(t.resource != nullptr, path);
  const auto& served = ServedResources();
  FUZZ_CHECK(t.resource >= served.data() && t.resource < served.data() + served.size(), path);
  FUZZ_CHECK(t.version == t.resource->version && t.group == t.resource->group, path);
  FUZZ_CHECK(t.subresource.empty() || (t.subresource == "status" && t.resource->has_status), path);
  if (!t.resource->namespaced) FUZZ_CHECK(t.ns.empty(), path);
  const std::string canonical = CanonicalPath(t);
  FUZZ_CHECK(Same(t, ParseRequestTarget(canonical)), std::string(path) + " vs " + canonical);
  return 0;
}
