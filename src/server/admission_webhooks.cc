#include "server/admission_webhooks.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "auth/base64.h"
#include "server/json_fields.h"
#include "server/patch.h"
#include "server/served_version.h"
#include "server/webhook_configuration_rules.h"
#include "server/webhook_rules.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr const char* kMutatingConfigs =
    "mutatingwebhookconfigurations.admissionregistration.k8s.io";
constexpr const char* kValidatingConfigs =
    "validatingwebhookconfigurations.admissionregistration.k8s.io";

// A webhook to call, and the version of the resource its rules matched.
struct MatchedWebhook {
  Json spec;
  const ResourceInfo* as = nullptr;
  std::string Name() const { return StringField(spec, {"name"}); }
};

// Every webhook of the configurations stored under `key`, configurations in
// name order, webhooks in their order.
Result<std::vector<Json>> RegisteredWebhooks(store::ObjectStore& store, const char* key) {
  KUOTA_ASSIGN_OR_RETURN(store::ListResult list, store.List(key, store::ListOptions{}));
  std::sort(list.items.begin(), list.items.end(), [](const Json& a, const Json& b) {
    return StringField(a, {"metadata", "name"}) < StringField(b, {"metadata", "name"});
  });
  std::vector<Json> out;
  for (const Json& config : list.items) {
    const Json* hooks = FindField(config, {"webhooks"});
    if (hooks == nullptr || !hooks->is_array()) continue;
    for (const Json& h : *hooks) out.push_back(h);
  }
  return out;
}

// The version of the requested resource `webhook`'s rules match: the one
// asked for, or (matchPolicy Equivalent) another version served of the same
// group and resource; null when none.
const ResourceInfo* MatchedVersion(const Json& webhook, const AdmissionAttributes& a) {
  const ResourceInfo& r = *a.resource;
  const bool is_namespace = r.group.empty() && r.plural == "namespaces";
  WebhookRuleRequest request{a.operation, r.group,       r.version,
                             r.plural,    a.subresource, r.namespaced && !is_namespace};
  if (WebhookRulesMatch(webhook, request)) return &r;
  if (StringField(webhook, {"matchPolicy"}, "Equivalent") != "Equivalent") return nullptr;
  for (const ResourceInfo& other : ServedResources()) {
    if (other.group != r.group || other.plural != r.plural || other.version == r.version) continue;
    request.version = other.version;
    if (WebhookRulesMatch(webhook, request)) return &other;
  }
  return nullptr;
}

Json LabelsOf(const Json* object) {
  if (object == nullptr) return Json::object();
  const Json* labels = FindField(*object, {"metadata", "labels"});
  return labels != nullptr && labels->is_object() ? *labels : Json::object();
}

// Whether `webhook`'s namespaceSelector and objectSelector select the request.
Result<bool> SelectorsMatch(store::ObjectStore& store, const Json& webhook,
                            const AdmissionAttributes& a, const Json* old_object,
                            const Json* object) {
  const ResourceInfo& r = *a.resource;
  const Json* ns_selector = FindField(webhook, {"namespaceSelector"});
  const std::string name = StringField(webhook, {"name"});
  if (r.group.empty() && r.plural == "namespaces") {
    // A Namespace is selected by its own labels.
    KUOTA_ASSIGN_OR_RETURN(
        bool ok, LabelSelectorMatches(ns_selector, LabelsOf(object ? object : old_object)));
    if (!ok) return false;
  } else if (r.namespaced && !a.ns.empty()) {
    Result<Json> ns = store.Get("namespaces", "", a.ns);
    if (!ns.ok()) return ns.status();
    KUOTA_ASSIGN_OR_RETURN(bool ok, LabelSelectorMatches(ns_selector, LabelsOf(&*ns)));
    if (!ok) return false;
  }
  // Cluster-scoped objects other than Namespaces: the namespaceSelector is ignored.
  const Json* obj_selector = FindField(webhook, {"objectSelector"});
  KUOTA_ASSIGN_OR_RETURN(bool new_ok, LabelSelectorMatches(obj_selector, LabelsOf(object)));
  if (new_ok && object != nullptr) return true;
  KUOTA_ASSIGN_OR_RETURN(bool old_ok, LabelSelectorMatches(obj_selector, LabelsOf(old_object)));
  return old_ok && old_object != nullptr;
}

// The stored object as the version `as` sees it.
Json ObjectAs(const ResourceInfo& as, const Json& stored) {
  return as.storage_version.empty() ? stored : ToServedVersion(as, stored);
}

Json Gvk(const ResourceInfo& r) {
  return {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
}
Json Gvr(const ResourceInfo& r) {
  return {{"group", r.group}, {"version", r.version}, {"resource", r.plural}};
}

Json Review(const AdmissionAttributes& a, const ResourceInfo& as, const std::string& uid,
            const Json* old_object, const Json* object) {
  Json user = {{"username", a.user.name}, {"groups", a.user.groups}};
  if (a.user.uid >= 0) user["uid"] = std::to_string(a.user.uid);
  const char* options_kind = a.operation == "CREATE"   ? "CreateOptions"
                             : a.operation == "UPDATE" ? "UpdateOptions"
                                                       : "DeleteOptions";
  Json options = {{"apiVersion", "meta.k8s.io/v1"}, {"kind", options_kind}};
  if (a.dry_run) options["dryRun"] = Json::array({"All"});
  Json request = {{"uid", uid},
                  {"kind", Gvk(as)},
                  {"resource", Gvr(as)},
                  {"requestKind", Gvk(*a.resource)},
                  {"requestResource", Gvr(*a.resource)},
                  {"name", a.name},
                  {"operation", a.operation},
                  {"userInfo", user},
                  {"object", object != nullptr ? ObjectAs(as, *object) : Json()},
                  {"oldObject", old_object != nullptr ? ObjectAs(as, *old_object) : Json()},
                  {"dryRun", a.dry_run},
                  {"options", options}};
  if (!a.ns.empty()) request["namespace"] = a.ns;
  if (!a.subresource.empty()) {
    request["subResource"] = a.subresource;
    request["requestSubResource"] = a.subresource;
  }
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

// What calling one webhook came to.
struct HookOutcome {
  enum class Kind { kAnswered, kSkipped, kRefused } kind = Kind::kAnswered;
  Json response;   // kAnswered: the AdmissionReview's response
  ApiError error;  // kRefused: what the client gets
};

HookOutcome Refused(ApiError e) {
  HookOutcome o;
  o.kind = HookOutcome::Kind::kRefused;
  o.error = std::move(e);
  return o;
}

// A call that failed: refused under failurePolicy Fail, skipped under Ignore.
HookOutcome CallFailed(const MatchedWebhook& hook, const std::string& why) {
  if (StringField(hook.spec, {"failurePolicy"}, "Fail") == "Ignore") {
    HookOutcome o;
    o.kind = HookOutcome::Kind::kSkipped;
    return o;
  }
  return Refused(InternalError("failed calling webhook \"" + hook.Name() + "\": " + why));
}

// kube-apiserver's ToStatusErr: the webhook's status with the denial wrapped.
ApiError DeniedError(const std::string& name, const Json& response) {
  const Json* status = FindField(response, {"status"});
  Json s = status != nullptr && status->is_object() ? *status : Json::object();
  ApiError e;
  e.code = s.contains("code") && s["code"].is_number_integer() ? s["code"].get<int>() : 0;
  if (e.code < 400) e.code = 400;
  e.reason = StringField(s, {"reason"});
  const std::string denied = "admission webhook \"" + name + "\" denied the request";
  const std::string message = StringField(s, {"message"});
  if (!message.empty()) {
    e.message = denied + ": " + message;
  } else if (!e.reason.empty()) {
    e.message = denied + ": " + e.reason;
  } else {
    e.message = denied + " without explanation";
  }
  return e;
}

HookOutcome CallHook(store::ObjectStore& store, const MatchedWebhook& hook,
                     const WebhookCallOptions& call, const AdmissionAttributes& a,
                     const Json* old_object, const Json* object) {
  const std::string side_effects = StringField(hook.spec, {"sideEffects"}, "Unknown");
  if (a.dry_run && side_effects != "None" && side_effects != "NoneOnDryRun") {
    return Refused(
        BadRequestError("admission webhook \"" + hook.Name() + "\" does not support dry run"));
  }
  const Json* versions = FindField(hook.spec, {"admissionReviewVersions"});
  if (versions == nullptr || !versions->is_array() ||
      std::find(versions->begin(), versions->end(), Json("v1")) == versions->end()) {
    return CallFailed(hook,
                      "webhook does not accept v1 AdmissionReview, the only version "
                      "this server sends");
  }
  WebhookCallOptions options = call;
  if (const Json* t = FindField(hook.spec, {"timeoutSeconds"}); t && t->is_number_integer()) {
    options.timeout_seconds = t->get<int>();
  } else {
    options.timeout_seconds = 10;
  }
  const Json* client_config = FindField(hook.spec, {"clientConfig"});
  if (client_config != nullptr) {
    if (Status st = RouteServiceThroughEndpoints(store, *client_config, &options); !st.ok()) {
      return CallFailed(hook, "failed to call webhook: " + st.message());
    }
  }
  const std::string uid = NewReviewUid();
  Result<Json> answer = PostWebhookReview(client_config ? *client_config : Json::object(), options,
                                          Review(a, *hook.as, uid, old_object, object));
  if (!answer.ok()) return CallFailed(hook, "failed to call webhook: " + answer.status().message());
  if (!answer->is_object()) {
    return CallFailed(hook, "failed to call webhook: the webhook's answer is not a JSON object");
  }
  const std::string invalid = "received invalid webhook response: ";
  if (StringField(*answer, {"apiVersion"}) != "admission.k8s.io/v1" ||
      StringField(*answer, {"kind"}) != "AdmissionReview") {
    return CallFailed(hook, invalid + "expected admission.k8s.io/v1, Kind=AdmissionReview, got " +
                                StringField(*answer, {"apiVersion"}) +
                                ", Kind=" + StringField(*answer, {"kind"}));
  }
  const Json* response = FindField(*answer, {"response"});
  if (response == nullptr || !response->is_object()) {
    return CallFailed(hook, invalid + "response is missing");
  }
  if (StringField(*response, {"uid"}) != uid) {
    return CallFailed(hook, invalid + "expected response.uid=\"" + uid + "\", got \"" +
                                StringField(*response, {"uid"}) + "\"");
  }
  HookOutcome o;
  o.response = *response;
  return o;
}

// The response's warnings (strings), appended to `warnings` (nullable).
void AppendHookWarnings(const Json& response, std::vector<std::string>* warnings) {
  const Json* list = FindField(response, {"warnings"});
  if (warnings == nullptr || list == nullptr || !list->is_array()) return;
  for (const Json& w : *list) {
    if (w.is_string()) warnings->push_back(w.get<std::string>());
  }
}

// Applies `response`'s JSONPatch (if any) to `object` (stored version; sent
// as `as`). The error the client gets, if any.
std::optional<ApiError> ApplyHookPatch(const MatchedWebhook& hook, const Json& response,
                                       Json& object) {
  const Json* patch = FindField(response, {"patch"});
  if (patch == nullptr || patch->is_null()) return std::nullopt;
  const std::string type = StringField(response, {"patchType"});
  const std::string failed = "failed calling webhook \"" + hook.Name() + "\": ";
  if (type != "JSONPatch") {
    return InternalError(failed + "received invalid webhook response: " +
                         (type.empty() ? std::string("webhook returned response.patch but not "
                                                     "response.patchType")
                                       : "unsupported patchType \"" + type + "\""));
  }
  std::optional<std::string> body =
      patch->is_string() ? auth::Base64Decode(patch->get<std::string>()) : std::nullopt;
  if (!body)
    return InternalError(failed + "received invalid webhook response: patch is not base64");
  ApiError error;
  std::optional<Json> patched =
      ApplyPatch(PatchType::kJsonPatch, ObjectAs(*hook.as, object), *body, &error);
  if (!patched)
    return InternalError("JSON patch of webhook \"" + hook.Name() + "\": " + error.message);
  if (!hook.as->storage_version.empty()) {
    Result<Json> stored = ToStorageVersion(*hook.as, std::move(*patched));
    if (!stored.ok()) return InternalError(stored.status().message());
    patched = std::move(stored).value();
  }
  object = std::move(*patched);
  return std::nullopt;
}

// The webhooks of `key` whose rules match the request (and, with
// `selectors`, whose selectors select it).
Result<std::vector<MatchedWebhook>> MatchingWebhooks(store::ObjectStore& store, const char* key,
                                                     const AdmissionAttributes& a,
                                                     const Json* old_object, const Json* object,
                                                     bool selectors) {
  std::vector<MatchedWebhook> out;
  KUOTA_ASSIGN_OR_RETURN(std::vector<Json> hooks, RegisteredWebhooks(store, key));
  for (Json& h : hooks) {
    const ResourceInfo* as = MatchedVersion(h, a);
    if (as == nullptr) continue;
    if (selectors) {
      KUOTA_ASSIGN_OR_RETURN(bool selected, SelectorsMatch(store, h, a, old_object, object));
      if (!selected) continue;
    }
    out.push_back(MatchedWebhook{std::move(h), as});
  }
  return out;
}

}  // namespace

AdmissionWebhooks::AdmissionWebhooks(store::ObjectStore& store, WebhookCallOptions call)
    : store_(store), call_(std::move(call)) {}

std::optional<ApiError> AdmissionWebhooks::Mutate(const AdmissionAttributes& a,
                                                  const Json* old_object, Json* object,
                                                  std::vector<std::string>* warnings) const {
  if (a.resource == nullptr || IsWebhookConfigurationKind(*a.resource)) return std::nullopt;
  Result<std::vector<MatchedWebhook>> hooks =
      MatchingWebhooks(store_, kMutatingConfigs, a, old_object, object, /*selectors=*/false);
  if (!hooks.ok()) return InternalError(hooks.status().message());
  // The object after each IfNeeded webhook's call, to see whether a later one changed it.
  std::vector<std::pair<size_t, Json>> after;
  // Calls webhook `i` if its selectors select the object as it is now (as
  // kube-apiserver checks each in turn); `called` says whether it was.
  auto call = [&](size_t i, bool& called) -> std::optional<ApiError> {
    const MatchedWebhook& hook = (*hooks)[i];
    called = false;
    Result<bool> selected = SelectorsMatch(store_, hook.spec, a, old_object, object);
    if (!selected.ok()) return InternalError(selected.status().message());
    if (!*selected) return std::nullopt;
    called = true;
    HookOutcome o = CallHook(store_, hook, call_, a, old_object, object);
    if (o.kind == HookOutcome::Kind::kRefused) return o.error;
    if (o.kind == HookOutcome::Kind::kSkipped) return std::nullopt;
    if (!o.response.value("allowed", false)) return DeniedError(hook.Name(), o.response);
    AppendHookWarnings(o.response, warnings);
    if (object != nullptr) {
      if (auto e = ApplyHookPatch(hook, o.response, *object)) return e;
    }
    return std::nullopt;
  };
  bool called = false;
  for (size_t i = 0; i < hooks->size(); ++i) {
    if (auto e = call(i, called)) return e;
    if (called && object != nullptr &&
        StringField((*hooks)[i].spec, {"reinvocationPolicy"}) == "IfNeeded") {
      after.emplace_back(i, *object);
    }
  }
  // reinvocationPolicy IfNeeded: called once more when a later webhook changed the object.
  for (const auto& [i, seen] : after) {
    if (*object == seen) continue;
    if (auto e = call(i, called)) return e;
  }
  return std::nullopt;
}

std::optional<ApiError> AdmissionWebhooks::Validate(const AdmissionAttributes& a,
                                                    const Json* old_object, const Json* object,
                                                    std::vector<std::string>* warnings) const {
  if (a.resource == nullptr || IsWebhookConfigurationKind(*a.resource)) return std::nullopt;
  Result<std::vector<MatchedWebhook>> hooks =
      MatchingWebhooks(store_, kValidatingConfigs, a, old_object, object, /*selectors=*/true);
  if (!hooks.ok()) return InternalError(hooks.status().message());
  // kube-apiserver calls them all (in parallel) and answers with the first
  // refusal; here one after another, the first refusal in order.
  std::optional<ApiError> first;
  for (const MatchedWebhook& hook : *hooks) {
    HookOutcome o = CallHook(store_, hook, call_, a, old_object, object);
    std::optional<ApiError> e;
    if (o.kind == HookOutcome::Kind::kRefused) {
      e = o.error;
    } else if (o.kind == HookOutcome::Kind::kAnswered && !o.response.value("allowed", false)) {
      e = DeniedError(hook.Name(), o.response);
    } else if (o.kind == HookOutcome::Kind::kAnswered) {
      AppendHookWarnings(o.response, warnings);
    }
    if (e && !first) first = std::move(e);
  }
  return first;
}

}  // namespace kuota::server
