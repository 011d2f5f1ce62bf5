// The write verbs of ResourceHandlers: create, update, patch, delete and
// deletecollection (see resource_handlers.h).
#include <string>
#include <utility>
#include <vector>

#include "server/field_labels.h"
#include "server/json_fields.h"
#include "server/json_limits.h"
#include "server/media_types.h"
#include "server/object_names.h"
#include "server/patch.h"
#include "server/protobuf_body.h"
#include "server/resource_handlers.h"
#include "server/served_version.h"
#include "server/submitter_stamp.h"
#include "store/object_metadata.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr int kMaxPatchAttempts = 5;  // retries of a patch that lost a race (as kube)

bool IsDryRun(const HttpRequest& request) { return request.Query("dryRun") == "All"; }

std::string ParseErrorMessage(const std::exception& e) {
  std::string m = e.what();
  if (!m.empty() && m[0] == '[') {
    size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

// Decodes a create/update body as an object of `r`: JSON only; apiVersion and
// kind must name `r` (they are filled in when absent); metadata must be an object.
// An object of a version stored in another is converted (through `webhooks`,
// nullable, when its CRD asks for a conversion webhook).
std::optional<Json> DecodeObject(const HttpRequest& request, const ResourceInfo& r, ApiError* error,
                                 const CrdWebhookConversion* webhooks) {
  std::string type = BaseMediaType(request.content_type);
  Json object;
  if (type == kProtobufContentType && DecodesProtobuf(r)) {
    // kubectl's typed clients (create namespace/secret/configmap/job, debug, ...).
    Result<Json> decoded = DecodeProtobufObject(request.body, r);
    if (!decoded.ok()) {
      *error = BadRequestError(decoded.status().message());
      return std::nullopt;
    }
    object = std::move(decoded).value();
  } else if (!type.empty() && type != "application/json" && type != "*/*") {
    *error = UnsupportedMediaTypeError(
        "the body of the request was in an unknown format - accepted media types include: " +
        std::string(DecodesProtobuf(r) ? "application/json, application/vnd.kubernetes.protobuf"
                                       : "application/json"));
    return std::nullopt;
  } else {
    if (std::optional<std::string> deep = CheckJsonTextDepth(request.body)) {
      *error = BadRequestError("the object provided is unrecognized (must be of type " + r.kind +
                               "): " + *deep);
      return std::nullopt;
    }
    try {
      object = Json::parse(request.body);
    } catch (const Json::exception& e) {  // parse_error; out_of_range for 1e400
      *error = BadRequestError(
          "the object provided is unrecognized (must be of type " + r.kind +
          "): couldn't get version/kind; json parse error: " + ParseErrorMessage(e));
      return std::nullopt;
    }
  }
  if (!object.is_object()) {
    *error = BadRequestError("the object provided is unrecognized (must be of type " + r.kind +
                             "): the body must be a JSON object");
    return std::nullopt;
  }
  auto api_version = object.find("apiVersion");
  if (api_version != object.end() && !(api_version->is_string() && *api_version == "")) {
    if (!api_version->is_string() || *api_version != r.ApiVersion()) {
      *error = BadRequestError(
          "the API version in the data (" +
          (api_version->is_string() ? api_version->get<std::string>() : api_version->dump()) +
          ") does not match the expected API version (" + r.ApiVersion() + ")");
      return std::nullopt;
    }
  }
  auto kind = object.find("kind");
  if (kind != object.end() && !(kind->is_string() && *kind == "")) {
    if (!kind->is_string() || *kind != r.kind) {
      *error = BadRequestError("the kind in the data (" +
                               (kind->is_string() ? kind->get<std::string>() : kind->dump()) +
                               ") does not match the expected kind (" + r.kind + ")");
      return std::nullopt;
    }
  }
  object["apiVersion"] = r.ApiVersion();
  object["kind"] = r.kind;
  if (!object.contains("metadata") || object["metadata"].is_null()) {
    object["metadata"] = Json::object();
  }
  if (!object["metadata"].is_object()) {
    *error = BadRequestError("the object provided is unrecognized (must be of type " + r.kind +
                             "): metadata must be an object");
    return std::nullopt;
  }
  for (const char* field : {"name", "namespace", "generateName", "resourceVersion", "uid"}) {
    const Json* v = FindField(object, {"metadata", field});
    if (v != nullptr && !v->is_null() && !v->is_string()) {
      *error = BadRequestError("metadata." + std::string(field) + " must be a string");
      return std::nullopt;
    }
  }
  if (!r.storage_version.empty()) {
    // Stored in another version of the group: convert (kueue.x-k8s.io/v1beta2).
    std::string name = StringField(object, {"metadata", "name"});
    Result<Json> stored = ToStorageVersion(r, std::move(object), webhooks);
    if (!stored.ok()) {
      *error = stored.status().code() == StatusCode::kInternal
                   ? InternalError(stored.status().message())
                   : InvalidError(r, name, stored.status().message());
      return std::nullopt;
    }
    object = std::move(stored).value();
  }
  return object;
}

// Checks the URL's namespace against the object's (filling it in when absent);
// cluster-scoped objects lose any namespace.
std::optional<ApiError> ReconcileNamespace(const ResourceInfo& r, const std::string& url_ns,
                                           Json& object) {
  Json& meta = object["metadata"];
  if (!r.namespaced) {
    meta.erase("namespace");
    return std::nullopt;
  }
  std::string ns = StringField(object, {"metadata", "namespace"});
  if (!ns.empty() && ns != url_ns) {
    return BadRequestError(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  meta["namespace"] = url_ns;
  return std::nullopt;
}

// The status a kind starts with (kube resets status on create).
void ResetStatusForCreate(const ResourceInfo& r, Json& object) {
  if (!r.has_status) return;
  object.erase("status");
  if (r.group.empty() && r.plural == "namespaces") object["status"] = {{"phase", "Active"}};
  if (r.group.empty() && r.plural == "pods") object["status"] = {{"phase", "Pending"}};
}

// Copies `from`'s status into `to` (or removes it when `from` has none).
void CopyStatus(const Json& from, Json& to) {
  auto it = from.find("status");
  if (it == from.end()) {
    to.erase("status");
  } else {
    to["status"] = *it;
  }
}

// The object a status write stores: `current` with `incoming`'s status and
// resourceVersion (so optimistic concurrency still applies).
Json MergeStatus(const Json& current, const Json& incoming) {
  Json merged = current;
  CopyStatus(incoming, merged);
  const Json* rv = FindField(incoming, {"metadata", "resourceVersion"});
  if (rv != nullptr && rv->is_string() && !rv->get<std::string>().empty()) {
    merged["metadata"]["resourceVersion"] = *rv;
  } else {
    merged["metadata"].erase("resourceVersion");
  }
  return merged;
}

bool IsProtectedNamespace(const std::string& name) {
  return name == "default" || name == "kube-system" || name == "kube-public";
}

// What an update or patch writes: `object` with the stored uid and
// creationTimestamp; through the status subresource only its status counts,
// and through the main resource the stored status is kept.
Json Replacement(const ResourceInfo& r, const Json& current, Json object, bool status_only) {
  for (const char* field : {"uid", "creationTimestamp"}) {
    if (const Json* v = FindField(current, {"metadata", field})) object["metadata"][field] = *v;
  }
  KeepSubmitter(current, object);
  if (status_only) return MergeStatus(current, object);
  if (r.has_status) CopyStatus(current, object);
  return object;
}

// `text` as a warn-text of RFC 7234's Warning header: a quoted string.
std::string WarningHeaderValue(const std::string& text) {
  std::string quoted;
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    // Header values are one line of visible characters.
    quoted += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return "299 - \"" + quoted + "\"";
}

}  // namespace

HttpReply ResourceHandlers::WithWarnings(const ResourceInfo& resource, const Json& object,
                                         HttpReply reply,
                                         const std::vector<std::string>& webhook_warnings) {
  for (const std::string& w : webhook_warnings) {
    reply.headers.emplace_back("Warning", WarningHeaderValue(w));
  }
  if (hook_ == nullptr) return reply;
  for (const std::string& w : hook_->Warnings(StorageResource(resource), object)) {
    reply.headers.emplace_back("Warning", WarningHeaderValue(w));
  }
  return reply;
}

HttpReply ResourceHandlers::Create(const HttpRequest& request, const RequestTarget& target) {
  ApiError error;
  std::optional<Json> object = DecodeObject(request, *target.resource, &error, options_.webhooks);
  if (!object) return error.ToReply();
  return CreateObject(request, target, std::move(*object));
}

HttpReply ResourceHandlers::CreateObject(const HttpRequest& request, const RequestTarget& target,
                                         Json object) {
  const ResourceInfo& r = *target.resource;
  if (auto e = ReconcileNamespace(r, target.ns, object)) return e->ToReply();
  Json& meta = object["metadata"];
  if (!StringField(object, {"metadata", "resourceVersion"}).empty()) {
    return BadRequestError("resourceVersion should not be set on objects to be created").ToReply();
  }
  for (const char* field :
       {"resourceVersion", "uid", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds", "generation", "managedFields", "selfLink"}) {
    meta.erase(field);
  }
  StampSubmitter(request.user, object);
  std::string name = StringField(object, {"metadata", "name"});
  std::string generate_name = StringField(object, {"metadata", "generateName"});
  if (std::string why = ValidateObjectName(r, name, generate_name); !why.empty()) {
    return InvalidError(r, name.empty() ? generate_name : name, why).ToReply();
  }
  if (name.empty()) {
    // Leave room for the 5 characters the store appends.
    size_t max = (r.group.empty() && r.plural == "namespaces") ? 63 - 5 : 253 - 5;
    if (generate_name.size() > max) meta["generateName"] = generate_name.substr(0, max);
  } else {
    meta.erase("generateName");
  }
  ResetStatusForCreate(r, object);
  const std::string display_name = name.empty() ? generate_name : name;

  if (r.namespaced) {
    Result<NamespaceCache::State> ns = namespaces_.Lookup(target.ns);
    if (!ns.ok()) {
      if (ns.status().code() == StatusCode::kNotFound) {
        return NamespaceNotFoundError(target.ns).ToReply();
      }
      return FromStatus(ns.status(), r, display_name).ToReply();
    }
    if (*ns == NamespaceCache::State::kTerminating) {
      return ForbiddenError(r, display_name,
                            "unable to create new content in namespace " + target.ns +
                                " because it is being terminated")
          .ToReply();
    }
  }
  std::vector<std::string> warnings;  // the admission webhooks'
  if (auto e = Admit(r, AdmissionHook::Operation::kCreate, nullptr, &object, display_name,
                     {request, "", IsDryRun(request), &warnings})) {
    return e->ToReply();
  }
  if (IsDryRun(request)) {
    return WithWarnings(r, object, ObjectReply(request, r, 201, object), warnings);
  }
  Result<store::EventPtr> created = store_.CreateShared(r.StoreKey(), std::move(object));
  if (!created.ok()) return FromStatus(created.status(), r, display_name).ToReply();
  const store::WatchEvent& written = **created;
  return WithWarnings(r, written.object, ObjectReply(request, r, 201, written), warnings);
}

// kube-apiserver checks a write's resourceVersion against the stored object
// before it validates the object or calls admission: a stale write is a 409
// Conflict, whatever else is wrong with it.
static std::optional<ApiError> StaleResourceVersion(const ResourceInfo& r, const Json& current,
                                                    const Json& object, const std::string& name) {
  const std::string wanted = StringField(object, {"metadata", "resourceVersion"});
  if (wanted.empty() || wanted == StringField(current, {"metadata", "resourceVersion"})) {
    return std::nullopt;
  }
  return FromStatus(store::ModifiedConflictError(r.StoreKey(), name), r, name);
}

HttpReply ResourceHandlers::Update(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  ApiError error;
  std::optional<Json> decoded = DecodeObject(request, r, &error, options_.webhooks);
  if (!decoded) return error.ToReply();
  Json object = std::move(*decoded);
  std::string body_name = StringField(object, {"metadata", "name"});
  if (body_name != target.name) {
    return BadRequestError("the name of the object (" + body_name +
                           ") does not match the name on the URL (" + target.name + ")")
        .ToReply();
  }
  if (auto e = ReconcileNamespace(r, target.ns, object)) return e->ToReply();

  Result<Json> current = store_.Get(r.StoreKey(), target.ns, target.name);
  if (!current.ok()) return FromStatus(current.status(), r, target.name).ToReply();
  bool status_only = target.subresource == "status";
  object = Replacement(r, *current, std::move(object), status_only);
  if (auto e = StaleResourceVersion(r, *current, object, target.name)) return e->ToReply();
  std::vector<std::string> warnings;  // the admission webhooks'
  if (auto e = Admit(r, AdmissionHook::Operation::kUpdate, &*current, &object, target.name,
                     {request, target.subresource, IsDryRun(request), &warnings})) {
    return e->ToReply();
  }
  if (IsDryRun(request)) {
    return WithWarnings(r, object, ObjectReply(request, r, 200, object), warnings);
  }
  store::UpdateOptions options;
  options.status_only = status_only;
  // The object just read: the store plans against it instead of reading it again.
  options.current = std::make_shared<Json>(std::move(current).value());
  Result<store::EventPtr> updated = store_.UpdateShared(r.StoreKey(), std::move(object), options);
  if (!updated.ok()) return FromStatus(updated.status(), r, target.name).ToReply();
  const store::WatchEvent& written = **updated;
  return WithWarnings(r, written.object, ObjectReply(request, r, 200, written), warnings);
}

HttpReply ResourceHandlers::Patch(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  std::optional<PatchType> type = PatchTypeFromContentType(request.content_type);
  if (!type || (*type == PatchType::kStrategicMergePatch && !SupportsStrategicMergePatch(r))) {
    return UnsupportedPatchError(r).ToReply();
  }
  bool status_only = target.subresource == "status";
  for (int attempt = 0;; ++attempt) {
    Result<Json> current = store_.Get(r.StoreKey(), target.ns, target.name);
    if (!current.ok()) {
      if (current.status().code() == StatusCode::kNotFound && *type == PatchType::kApplyPatch &&
          !status_only) {
        // Server-side apply of an absent object creates it.
        ApiError error;
        HttpRequest as_json = request;
        as_json.content_type = "application/json";
        std::optional<Json> object = DecodeObject(as_json, r, &error, options_.webhooks);
        if (!object) return error.ToReply();
        if (StringField(*object, {"metadata", "name"}) != target.name) {
          return BadRequestError("the name of the object does not match the name on the URL")
              .ToReply();
        }
        return CreateObject(request, target, std::move(*object));
      }
      return FromStatus(current.status(), r, target.name).ToReply();
    }
    ApiError error;
    Result<Json> served = ToServedVersion(r, *current, options_.webhooks);
    if (!served.ok()) return InternalError(served.status().message()).ToReply();
    std::optional<Json> patched =
        ApplyPatch(*type, std::move(served).value(), request.body, &error);
    if (!patched) return error.ToReply();
    if (!patched->is_object() || StringField(*patched, {"apiVersion"}) != r.ApiVersion() ||
        StringField(*patched, {"kind"}) != r.kind) {
      return BadRequestError("the patched object must keep apiVersion " + r.ApiVersion() +
                             " and kind " + r.kind)
          .ToReply();
    }
    if (!r.storage_version.empty()) {
      Result<Json> stored = ToStorageVersion(r, std::move(*patched), options_.webhooks);
      if (!stored.ok()) {
        if (stored.status().code() == StatusCode::kInternal) {
          return InternalError(stored.status().message()).ToReply();
        }
        return InvalidError(r, target.name, stored.status().message()).ToReply();
      }
      patched = std::move(stored).value();
    }
    if (StringField(*patched, {"metadata", "name"}) != target.name ||
        StringField(*patched, {"metadata", "namespace"}) != target.ns) {
      return BadRequestError("the name of the object (" +
                             StringField(*patched, {"metadata", "name"}) +
                             ") does not match the name on the URL (" + target.name + ")")
          .ToReply();
    }
    Json object = Replacement(r, *current, std::move(*patched), status_only);
    if (auto e = StaleResourceVersion(r, *current, object, target.name)) return e->ToReply();
    std::vector<std::string> warnings;  // the admission webhooks'
    if (auto e = Admit(r, AdmissionHook::Operation::kUpdate, &*current, &object, target.name,
                       {request, target.subresource, IsDryRun(request), &warnings})) {
      return e->ToReply();
    }
    if (IsDryRun(request)) {
      return WithWarnings(r, object, ObjectReply(request, r, 200, object), warnings);
    }
    store::UpdateOptions options;
    options.status_only = status_only;
    // The object just read: the store plans against it instead of reading it again.
    options.current = std::make_shared<Json>(std::move(current).value());
    Result<store::EventPtr> updated = store_.UpdateShared(r.StoreKey(), std::move(object), options);
    if (updated.ok()) {
      const store::WatchEvent& written = **updated;
      return WithWarnings(r, written.object, ObjectReply(request, r, 200, written), warnings);
    }
    // Lost a race with another writer: patch the newer object (as kube does);
    // a patch that names a stale resourceVersion keeps conflicting.
    if (updated.status().code() != StatusCode::kConflict || attempt + 1 >= kMaxPatchAttempts) {
      return FromStatus(updated.status(), r, target.name).ToReply();
    }
  }
}

HttpReply ResourceHandlers::Delete(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  store::DeleteOptions options;
  bool dry_run = IsDryRun(request);
  std::string propagation = request.Query("propagationPolicy");
  if (!request.body.empty()) {
    Json body;
    if (BaseMediaType(request.content_type) == kProtobufContentType) {
      // client-go's typed clients send their DeleteOptions as protobuf.
      Result<Json> decoded = DecodeProtobufDeleteOptions(request.body);
      if (!decoded.ok()) return BadRequestError(decoded.status().message()).ToReply();
      body = std::move(decoded).value();
    } else {
      body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    }
    if (body.is_discarded() || !body.is_object()) {
      return BadRequestError("the body of a delete must be a DeleteOptions JSON object").ToReply();
    }
    if (const Json* uid = FindField(body, {"preconditions", "uid"}); uid && uid->is_string()) {
      options.precondition_uid = uid->get<std::string>();
    }
    if (const Json* rv = FindField(body, {"preconditions", "resourceVersion"});
        rv && rv->is_string()) {
      options.precondition_resource_version = rv->get<std::string>();
    }
    if (const Json* p = FindField(body, {"propagationPolicy"}); p && p->is_string()) {
      propagation = p->get<std::string>();
    }
    if (const Json* d = FindField(body, {"dryRun"}); d && d->is_array()) {
      for (const Json& v : *d) dry_run |= v == "All";
    }
  }
  if (!propagation.empty() && propagation != "Orphan" && propagation != "Background" &&
      propagation != "Foreground") {
    return InvalidError(r, target.name,
                        "propagationPolicy: Unsupported value: \"" + propagation +
                            "\": supported values: \"Foreground\", \"Background\", \"Orphan\"")
        .ToReply();
  }
  bool is_namespace = r.group.empty() && r.plural == "namespaces";
  if (is_namespace && IsProtectedNamespace(target.name)) {
    return ForbiddenError(r, target.name, "this namespace may not be deleted").ToReply();
  }
  Result<Json> current = store_.Get(r.StoreKey(), target.ns, target.name);
  if (!current.ok()) return FromStatus(current.status(), r, target.name).ToReply();
  Json object = *current;
  if (auto e = Admit(r, AdmissionHook::Operation::kDelete, &*current, &object, target.name,
                     {request, "", dry_run})) {
    return e->ToReply();
  }
  if (dry_run) return ObjectReply(request, r, 200, *current);
  if (is_namespace) {
    if (auto e = DeleteNamespaceContents(target.name)) return e->ToReply();
  }
  Result<Json> deleted = store_.Delete(r.StoreKey(), target.ns, target.name, options);
  if (!deleted.ok()) return FromStatus(deleted.status(), r, target.name).ToReply();
  return ObjectReply(request, r, 200, *deleted);
}

HttpReply ResourceHandlers::DeleteCollection(const HttpRequest& request,
                                             const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  store::ListOptions list_options;
  list_options.ns = target.ns;
  list_options.label_selector = request.Query("labelSelector");
  list_options.field_selector = request.Query("fieldSelector");
  if (auto bad = CheckFieldSelector(r, list_options.field_selector)) {
    return BadRequestError(*bad).ToReply();
  }
  Result<store::ListResult> list = store_.List(r.StoreKey(), list_options);
  if (!list.ok()) {
    if (list.status().code() == StatusCode::kInvalid) {
      return BadRequestError(list.status().message()).ToReply();
    }
    return FromStatus(list.status(), r, "").ToReply();
  }
  bool is_namespace = r.group.empty() && r.plural == "namespaces";
  Json deleted_items = Json::array();
  for (Json& item : list->items) {
    std::string ns = StringField(item, {"metadata", "namespace"});
    std::string name = StringField(item, {"metadata", "name"});
    if (is_namespace && IsProtectedNamespace(name)) continue;
    Json object = item;
    if (auto e = Admit(r, AdmissionHook::Operation::kDelete, &item, &object, name,
                       {request, "", IsDryRun(request)})) {
      return e->ToReply();
    }
    if (IsDryRun(request)) {
      deleted_items.push_back(ToServedVersion(r, item));
      continue;
    }
    if (is_namespace) {
      if (auto e = DeleteNamespaceContents(name)) return e->ToReply();
    }
    Result<Json> deleted = store_.Delete(r.StoreKey(), ns, name);
    if (!deleted.ok()) {
      if (deleted.status().code() == StatusCode::kNotFound) continue;
      return FromStatus(deleted.status(), r, name).ToReply();
    }
    deleted_items.push_back(ToServedVersion(r, *deleted));
  }
  HttpReply reply;
  reply.body =
      Json{{"kind", r.kind + "List"},
           {"apiVersion", r.ApiVersion()},
           {"metadata", {{"resourceVersion", std::to_string(store_.CurrentResourceVersion())}}},
           {"items", deleted_items}}
          .dump();
  return reply;
}

std::optional<ApiError> ResourceHandlers::DeleteNamespaceContents(const std::string& ns) {
  for (const ResourceInfo& r : ServedResources()) {
    if (!r.namespaced) continue;
    store::ListOptions options;
    options.ns = ns;
    Result<store::ListResult> list = store_.List(r.StoreKey(), options);
    if (!list.ok()) return FromStatus(list.status(), r, "");
    for (const Json& item : list->items) {
      std::string name = StringField(item, {"metadata", "name"});
      Result<Json> deleted = store_.Delete(r.StoreKey(), ns, name);
      if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
        return FromStatus(deleted.status(), r, name);
      }
    }
  }
  return std::nullopt;
}

}  // namespace kuota::server
