// RBAC rule and subject matching, as kube-apiserver's RBAC authorizer
// matches them: a PolicyRule allows a request when its verbs, apiGroups,
// resources (with "*", "*/sub" and "res/*" forms) and resourceNames, or its
// nonResourceURLs (exact or "prefix*"), cover it; a binding's subject names
// a User, a Group the user is in, or a ServiceAccount. Pure functions over
// rbac.authorization.k8s.io/v1 JSON; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "auth/request_info.h"
#include "auth/user_info.h"

namespace kuota::auth {

// `rule` is one entry of a Role's or ClusterRole's `rules`.
bool RuleAllows(const nlohmann::json& rule, const RequestInfo& request);

// `subject` is one entry of a binding's `subjects`; `binding_ns` is the
// RoleBinding's namespace ("" for a ClusterRoleBinding), the default
// namespace of a ServiceAccount subject.
bool SubjectMatches(const nlohmann::json& subject, const UserInfo& user,
                    const std::string& binding_ns);

// j[field] when j is an object holding a string there, else "" (how the
// authorizer reads the fields of roles, bindings and subjects).
std::string StringAt(const nlohmann::json& j, const char* field);

}  // namespace kuota::auth
