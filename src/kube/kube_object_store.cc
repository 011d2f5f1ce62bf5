#include "kube/kube_object_store.h"

#include <cstdlib>

#include "base/url_encode.h"
#include "kube/resource_path.h"

namespace kuota::kube {
namespace {

int64_t ParseVersion(const Json& meta) {
  if (!meta.is_object() || !meta.contains("resourceVersion") ||
      !meta["resourceVersion"].is_string()) {
    return 0;
  }
  return std::strtoll(meta["resourceVersion"].get<std::string>().c_str(), nullptr, 10);
}

std::string Meta(const Json& object, const char* field) {
  if (!object.is_object() || !object.contains("metadata")) return "";
  const Json& m = object["metadata"];
  return m.is_object() && m.contains(field) && m[field].is_string() ? m[field].get<std::string>()
                                                                    : "";
}

}  // namespace

KubeObjectStore::KubeObjectStore(KubeClient& client, std::vector<std::string> resources,
                                 KubeWatchOptions watch_options)
    : client_(client),
      resources_(resources.begin(), resources.end()),
      watch_options_(std::move(watch_options)) {
  auto chained = watch_options_.on_resource_version;
  watch_options_.on_resource_version = [this, chained](int64_t rv) {
    Observe(rv);
    if (chained) chained(rv);
  };
}

void KubeObjectStore::Observe(int64_t rv) {
  int64_t cur = max_rv_.load();
  while (rv > cur && !max_rv_.compare_exchange_weak(cur, rv)) {
  }
}

void KubeObjectStore::ObserveObject(const Json& object) {
  if (object.is_object() && object.contains("metadata")) Observe(ParseVersion(object["metadata"]));
}

Result<Json> KubeObjectStore::Create(const std::string& resource, Json object) {
  KUOTA_ASSIGN_OR_RETURN(const server::ResourceInfo* r, ResourceForKey(resource));
  if (!object.contains("apiVersion")) object["apiVersion"] = r->ApiVersion();
  if (!object.contains("kind")) object["kind"] = r->kind;
  KUOTA_ASSIGN_OR_RETURN(
      Json created,
      client_.Request("POST", CollectionPath(*r, Meta(object, "namespace")), &object));
  ObserveObject(created);
  return created;
}

Result<Json> KubeObjectStore::Get(const std::string& resource, const std::string& ns,
                                  const std::string& name) {
  KUOTA_ASSIGN_OR_RETURN(const server::ResourceInfo* r, ResourceForKey(resource));
  KUOTA_ASSIGN_OR_RETURN(Json got, client_.Request("GET", ObjectPath(*r, ns, name), nullptr));
  ObserveObject(got);
  return got;
}

Result<store::ListResult> KubeObjectStore::List(const std::string& resource,
                                                const store::ListOptions& options) {
  store::ListResult out;
  if (!Serves(resource)) {
    out.resource_version = max_rv_.load();
    return out;
  }
  KUOTA_ASSIGN_OR_RETURN(const server::ResourceInfo* r, ResourceForKey(resource));
  std::string query;
  auto add = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    query += (query.empty() ? "?" : "&") + std::string(key) + "=" + UrlEncode(value);
  };
  add("labelSelector", options.label_selector);
  add("fieldSelector", options.field_selector);
  if (options.limit > 0) add("limit", std::to_string(options.limit));
  add("continue", options.continue_token);
  KUOTA_ASSIGN_OR_RETURN(Json list,
                         client_.Request("GET", CollectionPath(*r, options.ns) + query, nullptr));
  const Json meta = list.value("metadata", Json::object());
  out.resource_version = ParseVersion(meta);
  out.continue_token = meta.value("continue", "");
  out.remaining = meta.value("remainingItemCount", int64_t{0});
  for (Json& item : list.value("items", Json::array())) {
    // Lists from kube-apiserver leave the kind off their items.
    if (!item.contains("kind")) item["kind"] = r->kind;
    if (!item.contains("apiVersion")) item["apiVersion"] = r->ApiVersion();
    if (options.as_text) {
      out.texts.push_back(item.dump());
    } else {
      out.items.push_back(std::move(item));
    }
  }
  Observe(out.resource_version);
  if (options.continue_token.empty() && options.label_selector.empty() &&
      options.field_selector.empty() && options.ns.empty()) {
    // A whole list's snapshot version: a watch of this resource resumes there.
    std::lock_guard<std::mutex> lock(mu_);
    listed_rv_[resource] = out.resource_version;
  }
  return out;
}

Result<Json> KubeObjectStore::Update(const std::string& resource, Json object,
                                     const store::UpdateOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(const server::ResourceInfo* r, ResourceForKey(resource));
  if (!object.contains("apiVersion")) object["apiVersion"] = r->ApiVersion();
  if (!object.contains("kind")) object["kind"] = r->kind;
  const std::string ns = Meta(object, "namespace"), name = Meta(object, "name");
  std::string path = ObjectPath(*r, ns, name);
  if (options.status_only && r->has_status) path += "/status";
  if (!Meta(object, "resourceVersion").empty()) {
    KUOTA_ASSIGN_OR_RETURN(Json updated, client_.Request("PUT", path, &object));
    ObserveObject(updated);
    return updated;
  }
  // An unconditional update: kube-apiserver refuses one for custom resources
  // ("metadata.resourceVersion ... must be specified for an update"), so
  // read the current version and write over it, again if someone else wrote
  // in between.
  Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    KUOTA_ASSIGN_OR_RETURN(Json current, client_.Request("GET", ObjectPath(*r, ns, name), nullptr));
    object["metadata"]["resourceVersion"] = Meta(current, "resourceVersion");
    Result<Json> updated = client_.Request("PUT", path, &object);
    if (updated.ok()) {
      ObserveObject(*updated);
      return updated;
    }
    last = updated.status();
    if (last.code() != StatusCode::kConflict) return last;
  }
  return last;
}

Result<Json> KubeObjectStore::Delete(const std::string& resource, const std::string& ns,
                                     const std::string& name, const store::DeleteOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(const server::ResourceInfo* r, ResourceForKey(resource));
  Json body = {
      {"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"propagationPolicy", "Background"}};
  if (options.precondition_uid) body["preconditions"]["uid"] = *options.precondition_uid;
  if (options.precondition_resource_version) {
    body["preconditions"]["resourceVersion"] = *options.precondition_resource_version;
  }
  KUOTA_ASSIGN_OR_RETURN(Json deleted, client_.Request("DELETE", ObjectPath(*r, ns, name), &body));
  ObserveObject(deleted);
  return deleted;
}

Result<std::unique_ptr<store::Watcher>> KubeObjectStore::Watch(const std::string& resource,
                                                               const std::string& ns,
                                                               int64_t from_resource_version) {
  if (from_resource_version <= 0) from_resource_version = CurrentResourceVersion();
  std::vector<WatchStreamSpec> streams;
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& res : resources_) {
    if (!store::ResourceSelected(resource, res)) continue;
    int64_t from = from_resource_version;
    if (auto it = listed_rv_.find(res); it != listed_rv_.end() && it->second > from) {
      from = it->second;
    }
    streams.push_back({res, ns, from});
  }
  return std::unique_ptr<store::Watcher>(
      std::make_unique<KubeWatcher>(client_, std::move(streams), watch_options_));
}

int64_t KubeObjectStore::CurrentResourceVersion() {
  if (max_rv_.load() == 0) {
    // A one-item list is a quorum read: its version is the cluster's newest.
    Result<Json> probe = client_.Request("GET", "/api/v1/namespaces?limit=1", nullptr);
    if (probe.ok()) Observe(ParseVersion(probe->value("metadata", Json::object())));
  }
  return max_rv_.load();
}

}  // namespace kuota::kube
