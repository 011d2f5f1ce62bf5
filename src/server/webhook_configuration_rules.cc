#include "server/webhook_configuration_rules.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "api/validation/names.h"
#include "server/webhook_rules.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

std::string HookQuoted(const std::string& s) { return Json(s).dump(); }

// `field: Unsupported value: "v": supported values: "a", "b"`.
Status HookUnsupported(const std::string& field, const std::string& value,
                       const std::vector<std::string>& supported) {
  std::string list;
  for (const std::string& s : supported) list += (list.empty() ? "" : ", ") + HookQuoted(s);
  return Status::Invalid(field + ": Unsupported value: " + HookQuoted(value) +
                         ": supported values: " + list);
}

// Defaults `field` of `o` to `value` when absent or null.
void HookDefault(Json& o, const char* field, const Json& value) {
  if (!o.contains(field) || o[field].is_null()) o[field] = value;
}

// An optional string field that must be one of `supported`.
Status HookEnum(const Json& o, const char* field, const std::string& path,
                const std::vector<std::string>& supported) {
  const Json& v = o[field];
  if (!v.is_string())
    return Status::Invalid(path + "." + field + ": Invalid value: must be a string");
  for (const std::string& s : supported) {
    if (v == s) return Status::Ok();
  }
  return HookUnsupported(path + "." + field, v.get<std::string>(), supported);
}

// A rule's string list: required, "*" alone or values.
Status HookRuleList(const Json& rule, const char* field, const std::string& path,
                    const std::vector<std::string>& supported) {
  const std::string at = path + "." + field;
  auto it = rule.find(field);
  if (it == rule.end() || it->is_null() || (it->is_array() && it->empty())) {
    return Status::Invalid(at + ": Required value");
  }
  if (!it->is_array()) return Status::Invalid(at + ": Invalid value: must be a list of strings");
  bool star = false;
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& v = (*it)[i];
    const std::string item = at + "[" + std::to_string(i) + "]";
    if (!v.is_string()) return Status::Invalid(item + ": Invalid value: must be a string");
    if (v == "*") star = true;
    if (!supported.empty() && v != "*") {
      bool ok = false;
      for (const std::string& s : supported) ok |= v == s;
      if (!ok) {
        std::vector<std::string> all = {"*"};
        all.insert(all.end(), supported.begin(), supported.end());
        return HookUnsupported(item, v.get<std::string>(), all);
      }
    }
  }
  if (star && it->size() > 1) {
    return Status::Invalid(at + ": Invalid value: " + it->dump() +
                           ": if '*' is present, must not specify other " + field);
  }
  return Status::Ok();
}

Status HookRule(Json& rule, const std::string& path) {
  if (!rule.is_object()) return Status::Invalid(path + ": Invalid value: must be an object");
  KUOTA_RETURN_IF_ERROR(
      HookRuleList(rule, "operations", path, {"CONNECT", "CREATE", "DELETE", "UPDATE"}));
  KUOTA_RETURN_IF_ERROR(HookRuleList(rule, "apiGroups", path, {}));
  KUOTA_RETURN_IF_ERROR(HookRuleList(rule, "apiVersions", path, {}));
  KUOTA_RETURN_IF_ERROR(HookRuleList(rule, "resources", path, {}));
  const Json& resources = rule["resources"];
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string r = resources[i].get<std::string>();
    if (r.empty() || r.front() == '/' || r.back() == '/' || r.find('/') != r.rfind('/')) {
      return Status::Invalid(path + ".resources[" + std::to_string(i) + "]: Invalid value: " +
                             HookQuoted(r) + ": must be a resource or resource/subresource");
    }
  }
  HookDefault(rule, "scope", "*");
  return HookEnum(rule, "scope", path, {"*", "Cluster", "Namespaced"});
}

Status HookSelector(const Json& webhook, const char* field, const std::string& path) {
  Result<bool> parsed = LabelSelectorMatches(&webhook[field], Json::object());
  if (!parsed.ok()) {
    return Status::Invalid(path + "." + field + "." + parsed.status().message());
  }
  return Status::Ok();
}

Status HookClientConfig(Json& webhook, const std::string& path) {
  const std::string at = path + ".clientConfig";
  auto cc = webhook.find("clientConfig");
  if (cc == webhook.end() || !cc->is_object()) {
    return Status::Invalid(at + ": Required value: exactly one of url or service is required");
  }
  const bool has_url = cc->contains("url") && !(*cc)["url"].is_null();
  const bool has_service = cc->contains("service") && !(*cc)["service"].is_null();
  if (has_url == has_service) {
    return Status::Invalid(at + ": Required value: exactly one of url or service is required");
  }
  if (has_url) {
    const Json& url = (*cc)["url"];
    if (!url.is_string() || url.get<std::string>().rfind("https://", 0) != 0) {
      return Status::Invalid(at + ".url: Invalid value: " + url.dump() +
                             ": 'https' is the only allowed URL scheme");
    }
    const std::string u = url.get<std::string>();
    if (u.size() == std::string("https://").size() || u[8] == '/') {
      return Status::Invalid(at + ".url: Invalid value: " + url.dump() +
                             ": host must be specified");
    }
    if (u.find('#') != std::string::npos) {
      return Status::Invalid(at + ".url: Invalid value: " + url.dump() +
                             ": fragments are not permitted in the URL");
    }
  } else {
    Json& service = (*cc)["service"];
    if (!service.is_object())
      return Status::Invalid(at + ".service: Invalid value: must be an object");
    const std::string sat = at + ".service";
    if (!service.contains("name") || !service["name"].is_string() ||
        service["name"].get<std::string>().empty()) {
      return Status::Invalid(sat + ".name: Required value: service name is required");
    }
    if (!service.contains("namespace") || !service["namespace"].is_string() ||
        service["namespace"].get<std::string>().empty()) {
      return Status::Invalid(sat + ".namespace: Required value: service namespace is required");
    }
    HookDefault(service, "port", 443);
    const Json& port = service["port"];
    if (!port.is_number_integer() || port.get<int64_t>() < 1 || port.get<int64_t>() > 65535) {
      return Status::Invalid(sat + ".port: Invalid value: " + port.dump() +
                             ": port is not valid: must be between 1 and 65535, inclusive");
    }
    if (service.contains("path") && !service["path"].is_null()) {
      const Json& p = service["path"];
      if (!p.is_string() || p.get<std::string>().empty() || p.get<std::string>()[0] != '/') {
        return Status::Invalid(sat + ".path: Invalid value: " + p.dump() +
                               ": must start with a '/'");
      }
    }
  }
  if (cc->contains("caBundle") && !(*cc)["caBundle"].is_null() && !(*cc)["caBundle"].is_string()) {
    return Status::Invalid(at + ".caBundle: Invalid value: must be a base64 string");
  }
  return Status::Ok();
}

Status HookWebhook(Json& webhook, const std::string& path, bool mutating,
                   std::set<std::string>& names) {
  if (!webhook.is_object()) return Status::Invalid(path + ": Invalid value: must be an object");
  // name: a fully qualified DNS subdomain of at least three segments.
  const Json name = webhook.contains("name") ? webhook["name"] : Json();
  if (!name.is_string() || name.get<std::string>().empty()) {
    return Status::Invalid(path + ".name: Required value");
  }
  const std::string n = name.get<std::string>();
  if (std::string why = validation::CheckDns1123Subdomain(n); !why.empty()) {
    return Status::Invalid(path + ".name: Invalid value: " + HookQuoted(n) + ": " + why);
  }
  if (std::count(n.begin(), n.end(), '.') < 2) {
    return Status::Invalid(path + ".name: Invalid value: " + HookQuoted(n) +
                           ": should be a domain with at least three segments separated by dots");
  }
  if (!names.insert(n).second) {
    return Status::Invalid(path + ".name: Duplicate value: " + HookQuoted(n));
  }
  // admissionReviewVersions: required, and must include one this server speaks.
  const Json versions =
      webhook.contains("admissionReviewVersions") ? webhook["admissionReviewVersions"] : Json();
  if (!versions.is_array() || versions.empty()) {
    return Status::Invalid(path +
                           ".admissionReviewVersions: Required value: must specify one of v1, "
                           "v1beta1");
  }
  bool known = false;
  for (const Json& v : versions) known |= v == "v1" || v == "v1beta1";
  if (!known) {
    return Status::Invalid(path + ".admissionReviewVersions: Invalid value: " + versions.dump() +
                           ": must include at least one of v1, v1beta1");
  }
  if (!webhook.contains("sideEffects") || webhook["sideEffects"].is_null()) {
    return Status::Invalid(path +
                           ".sideEffects: Required value: must specify one of None, NoneOnDryRun");
  }
  KUOTA_RETURN_IF_ERROR(HookEnum(webhook, "sideEffects", path, {"None", "NoneOnDryRun"}));
  HookDefault(webhook, "failurePolicy", "Fail");
  KUOTA_RETURN_IF_ERROR(HookEnum(webhook, "failurePolicy", path, {"Fail", "Ignore"}));
  HookDefault(webhook, "matchPolicy", "Equivalent");
  KUOTA_RETURN_IF_ERROR(HookEnum(webhook, "matchPolicy", path, {"Equivalent", "Exact"}));
  HookDefault(webhook, "timeoutSeconds", 10);
  const Json& timeout = webhook["timeoutSeconds"];
  if (!timeout.is_number_integer() || timeout.get<int64_t>() < 1 || timeout.get<int64_t>() > 30) {
    return Status::Invalid(path + ".timeoutSeconds: Invalid value: " + timeout.dump() +
                           ": the timeout value must be between 1 and 30 seconds");
  }
  if (mutating) {
    HookDefault(webhook, "reinvocationPolicy", "Never");
    KUOTA_RETURN_IF_ERROR(HookEnum(webhook, "reinvocationPolicy", path, {"IfNeeded", "Never"}));
  } else if (webhook.contains("reinvocationPolicy")) {
    return Status::Invalid(path + ".reinvocationPolicy: Forbidden: only mutating webhooks have it");
  }
  HookDefault(webhook, "namespaceSelector", Json::object());
  KUOTA_RETURN_IF_ERROR(HookSelector(webhook, "namespaceSelector", path));
  HookDefault(webhook, "objectSelector", Json::object());
  KUOTA_RETURN_IF_ERROR(HookSelector(webhook, "objectSelector", path));
  if (webhook.contains("rules") && !webhook["rules"].is_null()) {
    Json& rules = webhook["rules"];
    if (!rules.is_array()) return Status::Invalid(path + ".rules: Invalid value: must be a list");
    for (size_t i = 0; i < rules.size(); ++i) {
      KUOTA_RETURN_IF_ERROR(HookRule(rules[i], path + ".rules[" + std::to_string(i) + "]"));
    }
  }
  return HookClientConfig(webhook, path);
}

}  // namespace

bool IsWebhookConfigurationKind(const ResourceInfo& resource) {
  return resource.group == "admissionregistration.k8s.io" &&
         (resource.kind == "MutatingWebhookConfiguration" ||
          resource.kind == "ValidatingWebhookConfiguration");
}

Status PrepareWebhookConfiguration(const ResourceInfo& resource, Json& object) {
  if (!object.contains("webhooks") || object["webhooks"].is_null()) return Status::Ok();
  Json& webhooks = object["webhooks"];
  if (!webhooks.is_array()) return Status::Invalid("webhooks: Invalid value: must be a list");
  const bool mutating = resource.kind == "MutatingWebhookConfiguration";
  std::set<std::string> names;
  for (size_t i = 0; i < webhooks.size(); ++i) {
    KUOTA_RETURN_IF_ERROR(
        HookWebhook(webhooks[i], "webhooks[" + std::to_string(i) + "]", mutating, names));
  }
  return Status::Ok();
}

}  // namespace kuota::server
