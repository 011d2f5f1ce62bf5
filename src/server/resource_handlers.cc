#include "server/resource_handlers.h"

#include <charconv>
#include <utility>
#include <vector>

#include "server/api_service_rules.h"
#include "server/apps_rules.h"
#include "server/config_data_rules.h"
#include "server/field_labels.h"
#include "server/json_fields.h"
#include "server/json_limits.h"
#include "server/media_types.h"
#include "server/served_version.h"
#include "server/table_printer.h"
#include "server/webhook_configuration_rules.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

bool IsWatch(const HttpRequest& request, const RequestTarget& target) {
  const std::string& w = request.Query("watch");
  return target.watch_prefix || w == "true" || w == "1";
}

// kube-apiserver's defaulting of a Namespace: the label
// kubernetes.io/metadata.name is its name, set on every create and update
// (before admission, so namespaceSelectors can rely on it).
void DefaultNamespaceNameLabel(const ResourceInfo& resource, Json& object) {
  if (!resource.group.empty() || resource.plural != "namespaces") return;
  const std::string name = StringField(object, {"metadata", "name"});
  if (name.empty()) return;
  Json& labels = object["metadata"]["labels"];
  if (!labels.is_object()) labels = Json::object();
  labels["kubernetes.io/metadata.name"] = name;
}

// What the admission webhooks are told of a write of `object` (the new
// object, or the stored one on delete).
AdmissionAttributes WebhookAttributes(const ResourceInfo& resource, AdmissionHook::Operation op,
                                      const Json& object, const HttpRequest& request,
                                      const std::string& subresource, bool dry_run) {
  AdmissionAttributes a;
  a.resource = &resource;
  a.subresource = subresource;
  a.operation = op == AdmissionHook::Operation::kCreate   ? "CREATE"
                : op == AdmissionHook::Operation::kUpdate ? "UPDATE"
                                                          : "DELETE";
  a.name = StringField(object, {"metadata", "name"});
  a.ns = StringField(object, {"metadata", "namespace"});
  a.user = request.user;
  a.dry_run = dry_run;
  return a;
}

// A reply's body is the object as stored: no storage version to convert
// from, and no Table asked for.
bool ServedAsStored(const HttpRequest& request, const ResourceInfo& resource) {
  return resource.storage_version.empty() &&
         Negotiate(request.accept, /*allow_table=*/true, false) != Representation::kTable;
}

}  // namespace

ResourceHandlers::ResourceHandlers(store::ObjectStore& store, AdmissionHook* hook,
                                   const Clock& clock, HandlerOptions options)
    : store_(store), namespaces_(store), hook_(hook), clock_(clock), options_(options) {}

HttpReply ResourceHandlers::Handle(const HttpRequest& request, const RequestTarget& target) {
  const std::string& m = request.method;
  bool item = !target.IsCollection();
  bool sub = !target.subresource.empty();
  if (target.watch_prefix && m != "GET") return MethodNotAllowedError().ToReply();
  if (target.subresource == "scale") return Scale(request, target);
  if (m == "GET" || m == "HEAD") {
    if (IsWatch(request, target) && !sub) return Watch(request, target);
    return item ? Get(request, target) : List(request, target);
  }
  if (m == "POST" && !item && (!target.resource->namespaced || !target.ns.empty())) {
    return Create(request, target);
  }
  if (m == "PUT" && item) return Update(request, target);
  if (m == "PATCH" && item) return Patch(request, target);
  if (m == "DELETE" && item && !sub) return Delete(request, target);
  if (m == "DELETE" && !item) return DeleteCollection(request, target);
  return MethodNotAllowedError().ToReply();
}

std::optional<ApiError> ResourceHandlers::Admit(const ResourceInfo& resource,
                                                AdmissionHook::Operation op, const Json* old_object,
                                                Json* object, const std::string& name,
                                                const WriteRequest& write) {
  const AdmissionWebhooks* webhooks = options_.admission_webhooks;
  const bool deleting = op == AdmissionHook::Operation::kDelete;
  if (!deleting) DefaultNamespaceNameLabel(resource, *object);
  AdmissionAttributes attributes;
  if (webhooks != nullptr) {
    attributes = WebhookAttributes(resource, op, deleting ? *old_object : *object, write.request,
                                   write.subresource, write.dry_run);
    if (auto e =
            webhooks->Mutate(attributes, old_object, deleting ? nullptr : object, write.warnings)) {
      return e;
    }
  }
  if (auto e = AdmitBuiltIn(resource, op, old_object, object, name)) return e;
  if (webhooks == nullptr) return std::nullopt;
  return webhooks->Validate(attributes, old_object, deleting ? nullptr : object, write.warnings);
}

std::optional<ApiError> ResourceHandlers::AdmitBuiltIn(const ResourceInfo& resource,
                                                       AdmissionHook::Operation op,
                                                       const Json* old_object, Json* object,
                                                       const std::string& name) {
  if (op != AdmissionHook::Operation::kDelete) {
    PruneNullMembers(*object);
    // Whatever a patch or a hook made of it, what is stored stays bounded.
    if (JsonSizeBound(*object, kMaxObjectBytes) > kMaxObjectBytes) {
      ApiError e = TooLargeError(kMaxObjectBytes);
      e.message = "the object is larger than the limit of " + std::to_string(kMaxObjectBytes) +
                  " bytes that kuotad stores";
      return e;
    }
    if (JsonDepth(*object) > kMaxJsonDepth) {
      return BadRequestError("the object nests deeper than the limit of " +
                             std::to_string(kMaxJsonDepth) + " levels");
    }
    // kube-apiserver's own rules for the kinds it stores itself.
    if (Status st = PrepareConfigData(resource, old_object, *object); !st.ok()) {
      return FromStatus(st, resource, name);
    }
    if (Status st = PrepareApiService(resource, old_object, *object); !st.ok()) {
      return FromStatus(st, resource, name);
    }
    if (Status st = PrepareAppsObject(resource, old_object, *object); !st.ok()) {
      return FromStatus(st, resource, name);
    }
    if (IsWebhookConfigurationKind(resource)) {
      if (Status st = PrepareWebhookConfiguration(resource, *object); !st.ok()) {
        return FromStatus(st, resource, name);
      }
    }
  }
  if (hook_ == nullptr) return std::nullopt;
  Status st = hook_->Admit(StorageResource(resource), op, old_object, object);
  if (st.ok()) return std::nullopt;
  if (st.code() == StatusCode::kNotFound || st.code() == StatusCode::kAlreadyExists) {
    // The hook's NotFound / AlreadyExists name some other object: keep its words.
    ApiError e = FromStatus(st, resource, name);
    e.message = st.message();
    return e;
  }
  return FromStatus(st, resource, name);
}

HttpReply ResourceHandlers::ObjectReply(const HttpRequest& request, const ResourceInfo& resource,
                                        int status, const Json& object) const {
  HttpReply reply;
  reply.status = status;
  if (ServedAsStored(request, resource)) {
    // Dumped from the caller's object, not from a copy.
    reply.body = object.dump();
    return reply;
  }
  Result<Json> served = ToServedVersion(resource, object, options_.webhooks);
  if (!served.ok()) return InternalError(served.status().message()).ToReply();
  if (Negotiate(request.accept, /*allow_table=*/true, false) == Representation::kTable) {
    std::vector<Json> rows = {object};
    Json table = BuildTable(resource, rows, clock_.Now(),
                            ParseIncludeObject(request.Query("includeObject")), true);
    table["metadata"]["resourceVersion"] = StringField(object, {"metadata", "resourceVersion"});
    reply.body = table.dump();
  } else {
    reply.body = served->dump();
  }
  return reply;
}

HttpReply ResourceHandlers::ObjectReply(const HttpRequest& request, const ResourceInfo& resource,
                                        int status, const store::WatchEvent& written) const {
  if (!written.text.empty() && ServedAsStored(request, resource)) {
    HttpReply reply;
    reply.status = status;
    reply.body = written.text;
    return reply;
  }
  return ObjectReply(request, resource, status, written.object);
}

Status ResourceHandlers::EnsureNamespace(const std::string& name) {
  Result<Json> existing = store_.Get("namespaces", "", name);
  if (existing.ok()) return Status::Ok();
  if (existing.status().code() != StatusCode::kNotFound) return existing.status();
  Json ns = {{"apiVersion", "v1"},
             {"kind", "Namespace"},
             {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/metadata.name", name}}}}},
             {"spec", Json::object()},
             {"status", {{"phase", "Active"}}}};
  Result<Json> created = store_.Create("namespaces", ns);
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
    return created.status();
  }
  return Status::Ok();
}

HttpReply ResourceHandlers::Get(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  Result<Json> object = store_.Get(r.StoreKey(), target.ns, target.name);
  if (!object.ok()) return FromStatus(object.status(), r, target.name).ToReply();
  return ObjectReply(request, r, 200, *object);
}

HttpReply ResourceHandlers::List(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  store::ListOptions options;
  options.ns = target.ns;
  options.label_selector = request.Query("labelSelector");
  options.field_selector = request.Query("fieldSelector");
  if (auto bad = CheckFieldSelector(r, options.field_selector)) {
    return BadRequestError(*bad).ToReply();
  }
  options.continue_token = request.Query("continue");
  if (const std::string& limit = request.Query("limit"); !limit.empty()) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), n);
    if (ec != std::errc() || end != limit.data() + limit.size() || n < 0) {
      return BadRequestError("invalid limit: \"" + limit + "\"").ToReply();
    }
    options.limit = n;
  }
  std::string clamped;
  if (options.limit > kMaxListPage) {
    // kube lets a server answer fewer items than asked (the client follows
    // `continue`); say so rather than hold a huge page in memory.
    clamped = "299 - \"limit " + std::to_string(options.limit) + " is over the page limit of " +
              std::to_string(kMaxListPage) + "; answered " + std::to_string(kMaxListPage) +
              " items and a continue token\"";
    options.limit = kMaxListPage;
  }
  Result<store::ListResult> list = store_.List(r.StoreKey(), options);
  if (!list.ok()) {
    const Status& st = list.status();
    if (st.code() == StatusCode::kInvalid) return BadRequestError(st.message()).ToReply();
    return FromStatus(st, r, "").ToReply();
  }
  Json metadata = {{"resourceVersion", std::to_string(list->resource_version)}};
  if (!list->continue_token.empty()) {
    metadata["continue"] = list->continue_token;
    if (list->remaining > 0) metadata["remainingItemCount"] = list->remaining;
  }
  HttpReply reply;
  if (!clamped.empty()) reply.headers.emplace_back("Warning", clamped);
  std::vector<Json> served;
  if (options_.webhooks != nullptr) {
    // A conversion webhook's failure fails the list, as on kube-apiserver.
    Result<std::vector<Json>> converted = ToServedVersions(r, list->items, options_.webhooks);
    if (!converted.ok()) return InternalError(converted.status().message()).ToReply();
    served = std::move(converted).value();
  }
  if (Negotiate(request.accept, /*allow_table=*/true, false) == Representation::kTable) {
    Json table = BuildTable(r, list->items, clock_.Now(),
                            ParseIncludeObject(request.Query("includeObject")), true);
    table["metadata"] = metadata;
    reply.body = table.dump();
    return reply;
  }
  Json items = Json::array();
  if (options_.webhooks != nullptr) list->items = std::move(served);
  for (Json& item : list->items) {
    item = ToServedVersion(r, std::move(item));
    if (item.is_object()) {
      if (!item.contains("apiVersion")) item["apiVersion"] = r.ApiVersion();
      if (!item.contains("kind")) item["kind"] = r.kind;
    }
    items.push_back(std::move(item));
  }
  reply.body = Json{
      {"kind", r.kind + "List"},
      {"apiVersion", r.ApiVersion()},
      {"metadata", metadata},
      {"items",
       items}}.dump();
  return reply;
}

bool ResourceHandlers::RegisterWatcher(store::Watcher* watcher) {
  store::MutexLock lock(&mu_);
  if (stopping_) return false;
  watchers_.insert(watcher);
  return true;
}

void ResourceHandlers::UnregisterWatcher(store::Watcher* watcher) {
  store::MutexLock lock(&mu_);
  watchers_.erase(watcher);
}

void ResourceHandlers::StopWatches() {
  store::MutexLock lock(&mu_);
  stopping_ = true;
  for (store::Watcher* w : watchers_) w->Stop();
}

}  // namespace kuota::server
