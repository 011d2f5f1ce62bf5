#include "auth/rbac_rules.h"

namespace kuota::auth {
namespace {

using Json = nlohmann::json;

// True when the string list `list` holds `value` or "*".
bool Has(const Json& rule, const char* field, const std::string& value) {
  auto it = rule.find(field);
  if (it == rule.end() || !it->is_array()) return false;
  for (const Json& v : *it) {
    if (!v.is_string()) continue;
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "*" || s == value) return true;
  }
  return false;
}

bool ResourceMatches(const Json& rule, const RequestInfo& r) {
  auto it = rule.find("resources");
  if (it == rule.end() || !it->is_array()) return false;
  const std::string combined =
      r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  for (const Json& v : *it) {
    if (!v.is_string()) continue;
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "*" || s == combined) return true;
    // "*/scale" covers that subresource of every resource, "pods/*" every
    // subresource of pods (not pods themselves).
    if (!r.subresource.empty() && (s == "*/" + r.subresource || s == r.resource + "/*")) {
      return true;
    }
  }
  return false;
}

bool NameMatches(const Json& rule, const RequestInfo& r) {
  auto it = rule.find("resourceNames");
  if (it == rule.end() || !it->is_array() || it->empty()) return true;
  if (r.name.empty()) return false;
  for (const Json& v : *it) {
    if (v.is_string() && v.get_ref<const std::string&>() == r.name) return true;
  }
  return false;
}

bool UrlMatches(const Json& rule, const std::string& path) {
  auto it = rule.find("nonResourceURLs");
  if (it == rule.end() || !it->is_array()) return false;
  for (const Json& v : *it) {
    if (!v.is_string()) continue;
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "*" || s == path) return true;
    if (!s.empty() && s.back() == '*' && path.compare(0, s.size() - 1, s, 0, s.size() - 1) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string StringAt(const Json& j, const char* field) {
  if (!j.is_object()) return "";
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool RuleAllows(const Json& rule, const RequestInfo& request) {
  if (!rule.is_object() || !Has(rule, "verbs", request.verb)) return false;
  if (!request.resource_request) return UrlMatches(rule, request.path);
  return Has(rule, "apiGroups", request.api_group) && ResourceMatches(rule, request) &&
         NameMatches(rule, request);
}

bool SubjectMatches(const Json& subject, const UserInfo& user, const std::string& binding_ns) {
  if (!subject.is_object()) return false;
  const std::string kind = StringAt(subject, "kind");
  const std::string name = StringAt(subject, "name");
  if (kind == "User") return !name.empty() && name == user.name;
  if (kind == "Group") return !name.empty() && user.InGroup(name);
  if (kind == "ServiceAccount") {
    std::string ns = StringAt(subject, "namespace");
    if (ns.empty()) ns = binding_ns;
    return user.name == "system:serviceaccount:" + ns + ":" + name;
  }
  return false;
}

}  // namespace kuota::auth
