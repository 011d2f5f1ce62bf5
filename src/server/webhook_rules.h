// WebhookRules: which admission webhooks a request reaches, as
// kube-apiserver's webhook dispatcher decides it — a webhook's rules
// (operations, apiGroups, apiVersions, resources with subresources and "*",
// scope) and its namespaceSelector and objectSelector (metav1.LabelSelector
// over labels). Pure functions over JSON; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::server {

// The request a rule is matched against.
struct WebhookRuleRequest {
  std::string operation;  // "CREATE", "UPDATE", "DELETE"
  std::string group;      // "" for core
  std::string version;
  std::string resource;     // plural, e.g. "pods"
  std::string subresource;  // "" or "status", "scale"
  bool namespaced = true;   // Namespace objects themselves are cluster-scoped
};

// True when `rule` (an admissionregistration.k8s.io/v1 RuleWithOperations)
// matches `request`: "*" in operations, apiGroups and apiVersions matches
// any; a resource "pods" matches no subresource, "pods/status" one
// subresource, "pods/*" pods and all its subresources, "*/scale" every
// scale subresource, "*/*" everything; scope "Cluster" matches cluster-scoped
// resources only, "Namespaced" namespaced ones, "*" (the default) both.
bool WebhookRuleMatches(const nlohmann::json& rule, const WebhookRuleRequest& request);

// True when any of `webhook`'s rules matches `request`.
bool WebhookRulesMatch(const nlohmann::json& webhook, const WebhookRuleRequest& request);

// Whether a metav1.LabelSelector (`selector`; null or {} matches
// everything) selects `labels` (a JSON map of strings, or null for none).
// Invalid, naming the selector's field, for a malformed selector.
Result<bool> LabelSelectorMatches(const nlohmann::json* selector, const nlohmann::json& labels);

}  // namespace kuota::server
