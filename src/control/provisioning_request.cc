#include "control/provisioning_request.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

int32_t ProvInt(const Json& j, const char* key, int32_t fallback) {
  const Json& v = server::FieldValue(j, {key});
  return v.is_number_integer() ? v.get<int32_t>() : fallback;
}

// Whether a container requests or limits one of `managed`.
bool ProvContainerUses(const Json& container, const std::set<std::string>& managed) {
  for (const char* f : {"requests", "limits"}) {
    const Json& list = server::FieldValue(container, {"resources", f});
    if (!list.is_object()) continue;
    for (const auto& [r, q] : list.items()) {
      (void)q;
      if (managed.count(r) != 0) return true;
    }
  }
  return false;
}

bool ProvPodUses(const Json& pod_spec, const std::set<std::string>& managed) {
  for (const char* f : {"initContainers", "containers"}) {
    const Json& list = server::FieldValue(pod_spec, {f});
    if (!list.is_array()) continue;
    for (const Json& c : list) {
      if (ProvContainerUses(c, managed)) return true;
    }
  }
  return false;
}

int32_t ProvPodSetCount(const Json& ps) {
  const Json& c = server::FieldValue(ps, {"count"});
  return c.is_number_integer() ? c.get<int32_t>() : 1;
}

// The admitted count of pod set `name` (podSetAssignments[].count), else `fallback`.
std::optional<int32_t> ProvAssignedCount(const Json& workload, const std::string& name,
                                         int32_t fallback) {
  const Json& psas = server::FieldValue(workload, {"status", "admission", "podSetAssignments"});
  if (!psas.is_array()) return std::nullopt;
  for (const Json& a : psas) {
    if (server::StringField(a, {"name"}) != name) continue;
    const Json& c = server::FieldValue(a, {"count"});
    return c.is_number_integer() ? c.get<int32_t>() : fallback;
  }
  return std::nullopt;
}

// podSetMergePolicy IdenticalWorkloadSchedulingRequirements: the same
// requests per container, resources, nodeSelector, tolerations, affinity
// and resourceClaims.
bool ProvSimilar(const Json& a, const Json& b) {
  const Json& sa = server::FieldValue(a, {"spec"});
  const Json& sb = server::FieldValue(b, {"spec"});
  for (const char* f : {"containers", "initContainers"}) {
    const Json& ca = server::FieldValue(sa, {f});
    const Json& cb = server::FieldValue(sb, {f});
    const size_t na = ca.is_array() ? ca.size() : 0, nb = cb.is_array() ? cb.size() : 0;
    if (na != nb) return false;
    for (size_t i = 0; i < na; ++i) {
      if (server::FieldValue(ca[i], {"resources", "requests"}) !=
          server::FieldValue(cb[i], {"resources", "requests"})) {
        return false;
      }
    }
  }
  for (const char* f : {"resources", "nodeSelector", "tolerations", "affinity", "resourceClaims"}) {
    if (server::FieldValue(sa, {f}) != server::FieldValue(sb, {f})) return false;
  }
  return true;
}

}  // namespace

Result<ProvisioningConfig> ReadProvisioningConfig(const Json& config) {
  ProvisioningConfig out;
  const Json& spec = server::FieldValue(config, {"spec"});
  out.class_name = server::StringField(spec, {"provisioningClassName"});
  if (out.class_name.empty()) return Status::Invalid("spec.provisioningClassName: Required value");
  if (const Json& p = server::FieldValue(spec, {"parameters"}); p.is_object()) {
    for (const auto& [k, v] : p.items()) {
      if (v.is_string()) out.parameters[k] = v.get<std::string>();
    }
  }
  if (const Json& m = server::FieldValue(spec, {"managedResources"}); m.is_array()) {
    for (const Json& r : m) {
      if (r.is_string()) out.managed_resources.push_back(r.get<std::string>());
    }
  }
  const Json& rs = server::FieldValue(spec, {"retryStrategy"});
  out.backoff_limit_count = ProvInt(rs, "backoffLimitCount", 3);
  out.backoff_base_seconds = ProvInt(rs, "backoffBaseSeconds", 60);
  out.backoff_max_seconds = ProvInt(rs, "backoffMaxSeconds", 1800);
  if (const Json& ns = server::FieldValue(spec, {"podSetUpdates", "nodeSelector"}); ns.is_array()) {
    for (const Json& u : ns) {
      out.node_selector_from_details.emplace_back(
          server::StringField(u, {"key"}),
          server::StringField(u, {"valueFromProvisioningClassDetail"}));
    }
  }
  out.pod_set_merge_policy = server::StringField(spec, {"podSetMergePolicy"});
  return out;
}

std::string LimitProvisioningObjectName(const std::string& full) {
  constexpr size_t kHashLength = 5;
  constexpr size_t kMaxPrefix = 252 - kHashLength;
  if (full.size() <= kMaxPrefix) return full;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(full.data()), full.size(), digest);
  char hex[2 * SHA_DIGEST_LENGTH + 1];
  for (size_t i = 0; i < SHA_DIGEST_LENGTH; ++i) {
    std::snprintf(hex + 2 * i, 3, "%02x", digest[i]);
  }
  return full.substr(0, kMaxPrefix) + "-" + std::string(hex, kHashLength);
}

std::string ProvisioningRequestName(const std::string& workload, const std::string& check,
                                    int32_t attempt) {
  return LimitProvisioningObjectName(workload + "-" + check + "-" + std::to_string(attempt));
}

std::string ProvisioningPodTemplateName(const std::string& request, const std::string& pod_set) {
  return LimitProvisioningObjectName("ppt-" + request + "-" + pod_set);
}

std::optional<int32_t> ProvisioningAttempt(const std::string& request_name,
                                           const std::string& workload, const std::string& check) {
  const std::string prefix = LimitProvisioningObjectName(workload + "-" + check + "-");
  if (request_name.size() <= prefix.size() || request_name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const std::string digits = request_name.substr(prefix.size());
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return static_cast<int32_t>(std::stol(digits));
}

int32_t ProvisioningBackoffSeconds(int32_t base, int32_t max, int32_t retry_count) {
  const int32_t n = std::max(1, retry_count + 1);
  int64_t wait = std::max(0, base);
  const int64_t cap = max > 0 ? max : int64_t{INT32_MAX};
  for (int32_t i = 1; i < n && wait < cap; ++i) wait *= 2;
  return static_cast<int32_t>(std::min(wait, cap));
}

std::vector<std::string> ProvisioningPodSets(const Json& workload,
                                             const std::vector<std::string>& managed) {
  const std::set<std::string> managed_set(managed.begin(), managed.end());
  std::vector<std::string> out;
  const Json& pod_sets = server::FieldValue(workload, {"spec", "podSets"});
  if (!pod_sets.is_array()) return out;
  for (const Json& ps : pod_sets) {
    if (ProvPodSetCount(ps) <= 0) continue;
    if (!managed_set.empty() &&
        !ProvPodUses(server::FieldValue(ps, {"template", "spec"}), managed_set)) {
      continue;
    }
    out.push_back(server::StringField(ps, {"name"}));
  }
  return out;
}

std::vector<ProvisioningPodSet> ProvisioningRequestPodSets(const Json& workload,
                                                           const ProvisioningConfig& config) {
  std::vector<ProvisioningPodSet> out;
  const Json& pod_sets = server::FieldValue(workload, {"spec", "podSets"});
  for (const std::string& name : ProvisioningPodSets(workload, config.managed_resources)) {
    const Json* ps = nullptr;
    for (const Json& p : pod_sets) {
      if (server::StringField(p, {"name"}) == name) ps = &p;
    }
    if (ps == nullptr) continue;
    const std::optional<int32_t> count = ProvAssignedCount(workload, name, ProvPodSetCount(*ps));
    if (!count || *count <= 0) continue;
    const Json& tmpl = server::FieldValue(*ps, {"template"});
    bool merged = false;
    for (ProvisioningPodSet& m : out) {
      if ((config.pod_set_merge_policy == "IdenticalPodTemplates" && m.template_ == tmpl) ||
          (config.pod_set_merge_policy == "IdenticalWorkloadSchedulingRequirements" &&
           ProvSimilar(m.template_, tmpl))) {
        m.count += *count;
        merged = true;
        break;
      }
    }
    if (!merged) out.push_back({name, *count, tmpl});
  }
  return out;
}

bool ProvisioningRequestMatchesConfig(const Json& pr, const ProvisioningConfig& config) {
  if (server::StringField(pr, {"spec", "provisioningClassName"}) != config.class_name) return false;
  const Json& params = server::FieldValue(pr, {"spec", "parameters"});
  for (const auto& [k, v] : config.parameters) {
    const Json& got = params.is_object() && params.contains(k) ? params[k] : Json();
    if (!got.is_string() || got.get<std::string>() != v) return false;
  }
  return true;
}

const Json* TrueProvisioningCondition(const Json& pr, const char* type) {
  const Json& conds = server::FieldValue(pr, {"status", "conditions"});
  if (!conds.is_array()) return nullptr;
  for (const Json& c : conds) {
    if (server::StringField(c, {"type"}) == type && server::StringField(c, {"status"}) == "True")
      return &c;
  }
  return nullptr;
}

bool SetProvisioningCheck(Json& check, const std::string& state, const std::string& message,
                          Time now) {
  bool changed = false;
  if (server::StringField(check, {"state"}) != state) {
    check["state"] = state;
    check["lastTransitionTime"] = FormatRfc3339(now);
    changed = true;
  }
  if (server::StringField(check, {"message"}) != message) {
    check["message"] = message;
    changed = true;
  }
  return changed;
}

bool SyncProvisioningCheck(Json& check, const Json& pr, const ProvisioningConfig& config,
                           const Json& workload, const ProvisioningWorkloadFacts& facts, Time now) {
  const std::string pr_name = server::StringField(pr, {"metadata", "name"});
  const std::string check_name = server::StringField(check, {"name"});
  const int32_t attempt = ProvisioningAttempt(pr_name, facts.name, check_name).value_or(1);
  const int32_t retry_count = ProvInt(check, "retryCount", 0);
  const std::string state = server::StringField(check, {"state"});
  auto message_of = [](const Json* c) {
    return c ? server::StringField(*c, {"message"}) : std::string();
  };
  // Failed, or BookingExpired before admission: retried with a backoff
  // until backoffLimitCount attempts, then Rejected.
  auto retry_or_reject = [&](const std::string& message, const std::string& reject_message) {
    if (attempt <= config.backoff_limit_count) {
      bool changed = SetProvisioningCheck(check, state, message, now);
      if (attempt > retry_count) {  // not on an old request
        changed = SetProvisioningCheck(check, "Retry", message, now) || changed;
        check["requeueAfterSeconds"] = ProvisioningBackoffSeconds(
            config.backoff_base_seconds, config.backoff_max_seconds, retry_count);
        changed = true;
      }
      return changed;
    }
    return SetProvisioningCheck(check, "Rejected", reject_message, now);
  };
  if (const Json* failed = TrueProvisioningCondition(pr, "Failed")) {
    return retry_or_reject("Retrying after failure: " + message_of(failed), message_of(failed));
  }
  if (const Json* revoked = TrueProvisioningCondition(pr, "CapacityRevoked")) {
    // Rejected deactivates the workload: its pods would wait forever for
    // nodes the autoscaler already removed.
    if (facts.active && !facts.finished) {
      return SetProvisioningCheck(check, "Rejected", message_of(revoked), now);
    }
    return false;
  }
  if (const Json* expired = TrueProvisioningCondition(pr, "BookingExpired")) {
    if (facts.admitted) return false;
    return retry_or_reject("Retrying after booking expired: " + message_of(expired),
                           message_of(expired));
  }
  if (const Json* provisioned = TrueProvisioningCondition(pr, "Provisioned")) {
    if (state == "Ready") return false;
    SetProvisioningCheck(check, "Ready", message_of(provisioned), now);
    // podSetUpdates: each of the request's pod sets gets the annotations the
    // autoscaler matches pods by, and the config's nodeSelector from the
    // request's provisioningClassDetails.
    std::map<std::string, std::string> pod_set_of;
    const Json& wl_sets = server::FieldValue(workload, {"spec", "podSets"});
    if (wl_sets.is_array()) {
      for (const Json& ps : wl_sets) {
        const std::string n = server::StringField(ps, {"name"});
        pod_set_of[ProvisioningPodTemplateName(pr_name, n)] = n;
      }
    }
    const Json& details = server::FieldValue(pr, {"status", "provisioningClassDetails"});
    Json updates = Json::array();
    const Json& pr_sets = server::FieldValue(pr, {"spec", "podSets"});
    if (pr_sets.is_array()) {
      for (const Json& ps : pr_sets) {
        Json u = {{"name", pod_set_of[server::StringField(ps, {"podTemplateRef", "name"})]},
                  {"annotations",
                   {{kConsumeProvisioningRequestAnnotation, pr_name},
                    {kProvisioningClassAnnotation,
                     server::StringField(pr, {"spec", "provisioningClassName"})}}}};
        Json selector = Json::object();
        for (const auto& [key, detail] : config.node_selector_from_details) {
          const Json& v =
              details.is_object() && details.contains(detail) ? details[detail] : Json();
          if (v.is_string()) selector[key] = v;
        }
        if (!selector.empty()) u["nodeSelector"] = std::move(selector);
        updates.push_back(std::move(u));
      }
    }
    if (updates.empty()) {
      check.erase("podSetUpdates");
    } else {
      check["podSetUpdates"] = std::move(updates);
    }
    return true;
  }
  if (TrueProvisioningCondition(pr, "Accepted") != nullptr) {
    const Json& conds = server::FieldValue(pr, {"status", "conditions"});
    for (const Json& c : conds) {
      if (server::StringField(c, {"type"}) == "Provisioned") {
        return SetProvisioningCheck(check, "Pending", server::StringField(c, {"message"}), now);
      }
    }
    return false;
  }
  return SetProvisioningCheck(check, "Pending", "", now);
}

}  // namespace kuota::control
