#include "kube/resource_path.h"

#include "base/url_encode.h"

namespace kuota::kube {

Result<const server::ResourceInfo*> ResourceForKey(const std::string& key) {
  const size_t dot = key.find('.');
  const std::string plural = key.substr(0, dot);
  const std::string group = dot == std::string::npos ? "" : key.substr(dot + 1);
  const server::ResourceInfo* r = server::FindResource(group, plural);
  if (r == nullptr) return Status::NotFound("no resource \"" + key + "\" is known to kuotad");
  return r;
}

std::string CollectionPath(const server::ResourceInfo& r, const std::string& ns) {
  std::string path = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  if (r.namespaced && !ns.empty()) path += "/namespaces/" + UrlEncode(ns);
  return path + "/" + r.plural;
}

std::string ObjectPath(const server::ResourceInfo& r, const std::string& ns,
                       const std::string& name) {
  return CollectionPath(r, ns) + "/" + UrlEncode(name);
}

}  // namespace kuota::kube
