#include "server/webhook_rules.h"

#include <algorithm>

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// True when the string array `list` of `rule` holds `value` or "*".
bool RuleListHolds(const Json& rule, const char* list, const std::string& value) {
  auto it = rule.find(list);
  if (it == rule.end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(), [&](const Json& v) {
    return v.is_string() && (v == "*" || v.get<std::string>() == value);
  });
}

bool RuleResourceMatches(const Json& rule, const WebhookRuleRequest& request) {
  auto it = rule.find("resources");
  if (it == rule.end() || !it->is_array()) return false;
  for (const Json& entry : *it) {
    if (!entry.is_string()) continue;
    const std::string text = entry.get<std::string>();
    size_t slash = text.find('/');
    const std::string res = text.substr(0, slash);
    const std::string sub = slash == std::string::npos ? "" : text.substr(slash + 1);
    if ((res == "*" || res == request.resource) && (sub == "*" || sub == request.subresource)) {
      return true;
    }
  }
  return false;
}

bool RuleScopeMatches(const Json& rule, const WebhookRuleRequest& request) {
  auto it = rule.find("scope");
  if (it == rule.end() || !it->is_string() || *it == "*") return true;
  if (*it == "Cluster") return !request.namespaced;
  if (*it == "Namespaced") return request.namespaced;
  return false;
}

// The label `key`'s value in `labels`, if set.
const Json* SelectorLabel(const Json& labels, const std::string& key) {
  if (!labels.is_object()) return nullptr;
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &*it;
}

}  // namespace

bool WebhookRuleMatches(const Json& rule, const WebhookRuleRequest& request) {
  if (!rule.is_object()) return false;
  return RuleListHolds(rule, "operations", request.operation) &&
         RuleListHolds(rule, "apiGroups", request.group) &&
         RuleListHolds(rule, "apiVersions", request.version) &&
         RuleResourceMatches(rule, request) && RuleScopeMatches(rule, request);
}

bool WebhookRulesMatch(const Json& webhook, const WebhookRuleRequest& request) {
  auto it = webhook.find("rules");
  if (it == webhook.end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(),
                     [&](const Json& rule) { return WebhookRuleMatches(rule, request); });
}

Result<bool> LabelSelectorMatches(const Json* selector, const Json& labels) {
  if (selector == nullptr || selector->is_null()) return true;
  if (!selector->is_object()) return Status::Invalid("selector: must be an object");
  if (auto ml = selector->find("matchLabels"); ml != selector->end() && !ml->is_null()) {
    if (!ml->is_object()) return Status::Invalid("matchLabels: must be a map of strings");
    for (const auto& [key, want] : ml->items()) {
      const Json* have = SelectorLabel(labels, key);
      if (have == nullptr || *have != want) return false;
    }
  }
  auto exprs = selector->find("matchExpressions");
  if (exprs == selector->end() || exprs->is_null()) return true;
  if (!exprs->is_array()) return Status::Invalid("matchExpressions: must be a list");
  for (size_t i = 0; i < exprs->size(); ++i) {
    const Json& e = (*exprs)[i];
    const std::string at = "matchExpressions[" + std::to_string(i) + "]";
    if (!e.is_object() || !e.contains("key") || !e["key"].is_string() || !e.contains("operator") ||
        !e["operator"].is_string()) {
      return Status::Invalid(at + ": key and operator are required");
    }
    const Json* have = SelectorLabel(labels, e["key"].get<std::string>());
    const std::string op = e["operator"].get<std::string>();
    const Json values =
        e.contains("values") && e["values"].is_array() ? e["values"] : Json::array();
    bool in = have != nullptr && std::find(values.begin(), values.end(), *have) != values.end();
    bool ok = false;
    if (op == "In") {
      ok = in;
    } else if (op == "NotIn") {
      ok = !in;
    } else if (op == "Exists") {
      ok = have != nullptr;
    } else if (op == "DoesNotExist") {
      ok = have == nullptr;
    } else {
      return Status::Invalid(at + ".operator: Unsupported value: \"" + op +
                             "\": supported values: \"In\", \"NotIn\", \"Exists\", "
                             "\"DoesNotExist\"");
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace kuota::server
