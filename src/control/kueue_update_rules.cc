#include "control/kueue_update_rules.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "api/validation/field_errors.h"
#include "control/tas_update_rules.h"

namespace kuota::control {
// Named, not anonymous: the control module is built in unity batches.
namespace kueue_update_detail {

using Json = nlohmann::json;
using validation::Child;
using validation::FieldErrors;
using validation::Index;
using validation::Key;

constexpr std::string_view kAdmissionGatedBy = "kueue.x-k8s.io/admission-gated-by";
constexpr std::string_view kElasticJob = "kueue.x-k8s.io/elastic-job";
constexpr std::string_view kSliceReplacementFor = "kueue.x-k8s.io/workload-slice-replacement-for";
constexpr std::string_view kImmutable = "field is immutable";
// kube-apiserver's path for a rule on the object's root (a nil field.Path).
constexpr std::string_view kRootPath = "<nil>";

const Json& NullJson() {
  static const Json null_json;
  return null_json;
}

// object[a][b]..., or null when any step is missing or not an object.
const Json& At(const Json& object, std::initializer_list<std::string_view> keys) {
  const Json* at = &object;
  for (std::string_view key : keys) {
    if (!at->is_object()) return NullJson();
    auto it = at->find(key);
    if (it == at->end()) return NullJson();
    at = &*it;
  }
  return *at;
}

// A string field as CEL's has() sees it: omitted when empty (omitempty).
std::string StringAt(const Json& object, std::initializer_list<std::string_view> keys) {
  const Json& v = At(object, keys);
  return v.is_string() ? v.get<std::string>() : std::string();
}

bool ConditionTrue(const Json& object, std::string_view type) {
  const Json& conditions = At(object, {"status", "conditions"});
  if (!conditions.is_array()) return false;
  for (const Json& c : conditions) {
    if (c.is_object() && c.value("type", "") == type && c.value("status", "") == "True") {
      return true;
    }
  }
  return false;
}

bool QuotaReserved(const Json& wl) { return ConditionTrue(wl, "QuotaReserved"); }

bool ElasticJob(const Json& wl) {
  return StringAt(wl, {"metadata", "annotations", kElasticJob}) == "true";
}

// Go's zero values and absent fields compare equal (apimachinery's semantic
// DeepEqual): drop nulls, empty strings, lists and maps before comparing.
Json Normalized(const Json& v) {
  if (v.is_object()) {
    Json out = Json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      Json n = Normalized(it.value());
      if (!n.is_null()) out[it.key()] = std::move(n);
    }
    return out.empty() ? Json() : out;
  }
  if (v.is_array()) {
    Json out = Json::array();
    for (const Json& e : v) out.push_back(Normalized(e));
    return out.empty() ? Json() : out;
  }
  if (v.is_string() && v.get_ref<const std::string&>().empty()) return Json();
  return v;
}

bool SemanticEqual(const Json& a, const Json& b) { return Normalized(a) == Normalized(b); }

void Immutable(FieldErrors& errs, const std::string& path, const Json& value) {
  errs.InvalidObject(path, value.is_null() ? "null" : value.dump(), kImmutable);
}

// v1beta2's spec.priorityClassRef of a Workload: read as it is from a v1beta2
// object, or, from a v1beta1 one, set when priorityClassName is, with the
// group and kind its priorityClassSource names.
struct PriorityClassRef {
  bool set = false;
  std::string group, kind, name;
};

PriorityClassRef RefOf(const Json& wl) {
  PriorityClassRef ref;
  if (const Json& r = At(wl, {"spec", "priorityClassRef"}); r.is_object()) {
    ref.set = true;
    ref.group = StringAt(wl, {"spec", "priorityClassRef", "group"});
    ref.kind = StringAt(wl, {"spec", "priorityClassRef", "kind"});
    ref.name = StringAt(wl, {"spec", "priorityClassRef", "name"});
    return ref;
  }
  ref.name = StringAt(wl, {"spec", "priorityClassName"});
  if (ref.name.empty()) return ref;
  ref.set = true;
  std::string source = StringAt(wl, {"spec", "priorityClassSource"});
  if (source == "kueue.x-k8s.io/workloadpriorityclass") {
    ref.group = "kueue.x-k8s.io";
    ref.kind = "WorkloadPriorityClass";
  } else if (source == "scheduling.k8s.io/priorityclass") {
    ref.group = "scheduling.k8s.io";
    ref.kind = "PriorityClass";
  } else {
    ref.group = source;
  }
  return ref;
}

// The Workload CRD's transition rules (CEL on oldSelf), v1beta2's.
void WorkloadTransitionRules(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  auto root = [&](std::string_view message) { errs.Invalid(kRootPath, "object", message); };
  const bool old_reserved = QuotaReserved(old_wl);
  const bool reserved = QuotaReserved(wl);
  const PriorityClassRef before = RefOf(old_wl);
  const PriorityClassRef after = RefOf(wl);
  if (old_reserved) {
    if (before.set != after.set) {
      root("priorityClassRef is immutable while workload quota reserved");
    }
    if (before.set && after.set) {
      if (before.group != after.group) {
        root("priorityClassRef.group is immutable while workload quota reserved");
      }
      if (before.kind != after.kind) {
        root("priorityClassRef.kind is immutable while workload quota reserved");
      }
      if (after.group == "scheduling.k8s.io" && after.kind == "PriorityClass" &&
          before.name != after.name) {
        root(
            "priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while "
            "workload quota reserved");
      }
    }
  }
  if (old_reserved && reserved &&
      StringAt(old_wl, {"spec", "queueName"}) != StringAt(wl, {"spec", "queueName"})) {
    root("queueName is immutable while workload quota reserved");
  }
  if (ConditionTrue(old_wl, "Admitted") && ConditionTrue(wl, "Admitted")) {
    const Json& a = At(old_wl, {"spec", "maximumExecutionTimeSeconds"});
    const Json& b = At(wl, {"spec", "maximumExecutionTimeSeconds"});
    if ((a.is_number() ? a.get<int64_t>() : 0) != (b.is_number() ? b.get<int64_t>() : 0)) {
      root("maximumExecutionTimeSeconds is immutable while workload quota reserved");
    }
  }
  const std::string old_cluster = StringAt(old_wl, {"status", "clusterName"});
  const std::string cluster = StringAt(wl, {"status", "clusterName"});
  if (!old_cluster.empty() && !cluster.empty() && old_cluster != cluster) {
    errs.Invalid("status", "object", "clusterName is immutable once set");
  }
}

// Kueue's validateImmutablePodSets: all but a pod set's count shrinking
// (ElasticJobsViaWorkloadSlices, on by default) is fixed.
void ImmutablePodSets(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  const Json& before = At(old_wl, {"spec", "podSets"});
  const Json& after = At(wl, {"spec", "podSets"});
  const size_t n_before = before.is_array() ? before.size() : 0;
  const size_t n_after = after.is_array() ? after.size() : 0;
  if (n_before != n_after) {
    Immutable(errs, "spec.podSets", after);
    return;
  }
  for (size_t i = 0; i < n_after; ++i) {
    Json ps = after[i];
    const Json& old_ps = before[i];
    if (ps.is_object() && old_ps.is_object()) {
      int64_t count = ps.value("count", int64_t{1});
      int64_t old_count = old_ps.value("count", int64_t{1});
      if (count < old_count) ps["count"] = old_count;
    }
    // Kueue names the index as a child ("spec.podSets.1").
    if (!SemanticEqual(ps, old_ps)) Immutable(errs, Child("spec.podSets", std::to_string(i)), ps);
  }
}

std::map<std::string, int64_t> ReclaimableCounts(const Json& wl) {
  std::map<std::string, int64_t> out;
  const Json& list = At(wl, {"status", "reclaimablePods"});
  if (!list.is_array()) return out;
  for (const Json& rp : list) {
    if (rp.is_object()) out[rp.value("name", "")] = rp.value("count", int64_t{0});
  }
  return out;
}

// Kueue's scaledDownPodSetNames: pod sets of an elastic job now smaller than
// their admitted count.
std::set<std::string> ScaledDownPodSets(const Json& wl) {
  std::set<std::string> out;
  const Json& assignments = At(wl, {"status", "admission", "podSetAssignments"});
  if (!ElasticJob(wl) || !assignments.is_array()) return out;
  std::map<std::string, int64_t> sizes;
  const Json& pod_sets = At(wl, {"spec", "podSets"});
  if (pod_sets.is_array()) {
    for (const Json& ps : pod_sets) {
      if (ps.is_object()) sizes[ps.value("name", "")] = ps.value("count", int64_t{1});
    }
  }
  for (const Json& psa : assignments) {
    if (!psa.is_object() || !psa.contains("count") || !psa["count"].is_number()) continue;
    std::string name = psa.value("name", "");
    if (psa["count"].get<int64_t>() > sizes[name]) out.insert(name);
  }
  return out;
}

// Kueue's validateReclaimablePodsUpdate, while quota stays reserved: counts
// do not go down and entries are not removed, but for scaled-down pod sets.
void ReclaimablePodsUpdate(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  const std::map<std::string, int64_t> before = ReclaimableCounts(old_wl);
  const std::map<std::string, int64_t> after = ReclaimableCounts(wl);
  if (before == after || before.empty()) return;
  const std::set<std::string> scaled_down = ScaledDownPodSets(wl);
  const Json& list = At(wl, {"status", "reclaimablePods"});
  if (list.is_array()) {
    for (const Json& rp : list) {
      if (!rp.is_object()) continue;
      std::string name = rp.value("name", "");
      int64_t count = rp.value("count", int64_t{0});
      auto old_it = before.find(name);
      if (old_it != before.end() && count < old_it->second && scaled_down.count(name) == 0) {
        errs.InvalidNumber(Child(Key("status.reclaimablePods", name), "count"), count,
                           "cannot be less than " + std::to_string(old_it->second));
      }
    }
  }
  for (const auto& [name, count] : before) {
    if (after.count(name) == 0 && scaled_down.count(name) == 0) {
      errs.Required(Key("status.reclaimablePods", name), "cannot be removed");
    }
  }
}

// Kueue's validateAdmissionUpdate: an admission may be set or cleared, not
// changed, but for its pod sets' topology assignments.
void AdmissionUpdate(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  const Json& before = At(old_wl, {"status", "admission"});
  const Json& after = At(wl, {"status", "admission"});
  if (before.is_null() || after.is_null()) return;
  Json old_copy = before;
  const Json& new_psas = At(after, {"podSetAssignments"});
  Json& old_psas = old_copy["podSetAssignments"];
  const size_t n_new = new_psas.is_array() ? new_psas.size() : 0;
  const size_t n_old = old_psas.is_array() ? old_psas.size() : 0;
  if (n_new == n_old) {
    for (size_t i = 0; i < n_new; ++i) {
      if (!old_psas[i].is_object() || !new_psas[i].is_object()) continue;
      for (const char* key : {"topologyAssignment", "delayedTopologyRequest"}) {
        old_psas[i].erase(key);
        if (new_psas[i].contains(key)) old_psas[i][key] = new_psas[i][key];
      }
    }
  }
  if (!SemanticEqual(after, old_copy)) Immutable(errs, "status.admission", after);
}

// Kueue's validateImmutablePodSetUpdates: a check Ready before and after
// keeps its podSetUpdates. Indexed by the old list, as Kueue does.
void ImmutablePodSetUpdates(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  const Json& before = At(old_wl, {"status", "admissionChecks"});
  const Json& after = At(wl, {"status", "admissionChecks"});
  if (!before.is_array() || !after.is_array()) return;
  for (size_t i = 0; i < before.size(); ++i) {
    const Json& old_ac = before[i];
    if (!old_ac.is_object()) continue;
    const Json* new_ac = nullptr;
    for (const Json& ac : after) {
      if (ac.is_object() && ac.value("name", "") == old_ac.value("name", "")) new_ac = &ac;
    }
    if (new_ac == nullptr) continue;
    if (old_ac.value("state", "") != "Ready" || new_ac->value("state", "") != "Ready") continue;
    const Json& a = At(old_ac, {"podSetUpdates"});
    const Json& b = At(*new_ac, {"podSetUpdates"});
    if (!SemanticEqual(a, b)) {
      Immutable(errs, Child(Index("status.admissionChecks", i), "podSetUpdates"), b);
    }
  }
}

// Kueue's validateClusterNameUpdate: a clusterName is set to one of the
// nominated clusters, unless the Workload replaces an elastic job's slice.
void ClusterNameUpdate(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  if (At(wl, {"metadata", "annotations", kSliceReplacementFor}).is_string()) return;
  const Json& before = At(old_wl, {"status", "clusterName"});
  const Json& after = At(wl, {"status", "clusterName"});
  if (!before.is_null() || !after.is_string()) return;
  const Json& nominated = At(old_wl, {"status", "nominatedClusterNames"});
  if (nominated.is_array() &&
      std::find(nominated.begin(), nominated.end(), after) != nominated.end()) {
    return;
  }
  errs.Invalid("status.clusterName", after.get<std::string>(),
               "when setting clusterName it must be one of the nominatedClusterNames");
}

// Kueue's csv.Parse.
std::vector<std::string> ParseGates(const std::string& value) {
  auto trim = [](std::string_view s) {
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    size_t b = s.find_first_not_of(kSpace);
    if (b == std::string_view::npos) return std::string();
    return std::string(s.substr(b, s.find_last_not_of(kSpace) - b + 1));
  };
  std::vector<std::string> out;
  if (trim(value).empty()) return out;
  std::string_view rest = value;
  while (true) {
    size_t comma = rest.find(',');
    out.push_back(trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

// Kueue's ValidateAdmissionGatedByAnnotationOnUpdate: gates are set on
// create and may only be removed.
void AdmissionGatedByUpdate(const Json& old_wl, const Json& wl, FieldErrors& errs) {
  const std::string before = StringAt(old_wl, {"metadata", "annotations", kAdmissionGatedBy});
  const std::string after = StringAt(wl, {"metadata", "annotations", kAdmissionGatedBy});
  const std::string path = Key("metadata.annotations", kAdmissionGatedBy);
  if (before.empty() && !after.empty()) {
    errs.Forbidden(path, "cannot add admission gate after creation");
  }
  if (!before.empty() && !after.empty()) {
    const std::vector<std::string> old_gates = ParseGates(before);
    for (const std::string& gate : ParseGates(after)) {
      if (std::find(old_gates.begin(), old_gates.end(), gate) == old_gates.end()) {
        errs.Forbidden(path, "can only remove gates, not add new ones");
        break;
      }
    }
  }
}

Status WorkloadUpdate(const Json& old_wl, const Json& wl) {
  FieldErrors cel;
  WorkloadTransitionRules(old_wl, wl, cel);
  if (!cel.empty()) return cel.ToStatus();
  FieldErrors errs;
  if (QuotaReserved(old_wl)) ImmutablePodSets(old_wl, wl, errs);
  if (QuotaReserved(old_wl) && QuotaReserved(wl)) ReclaimablePodsUpdate(old_wl, wl, errs);
  AdmissionUpdate(old_wl, wl, errs);
  ImmutablePodSetUpdates(old_wl, wl, errs);
  ClusterNameUpdate(old_wl, wl, errs);
  AdmissionGatedByUpdate(old_wl, wl, errs);
  return errs.ToStatus();
}

// A field whose CRD rule is `self == oldSelf`, checked when both have it.
Status ImmutableSpecString(const Json& old_object, const Json& object, std::string_view field) {
  const Json& before = At(old_object, {"spec", field});
  const Json& after = At(object, {"spec", field});
  if (before.is_null() || after.is_null() || before == after) return Status::Ok();
  FieldErrors errs;
  errs.Invalid(Child("spec", field), "string", kImmutable);
  return errs.ToStatus();
}

}  // namespace kueue_update_detail

Status ValidateKueueUpdate(const std::string& kind, const nlohmann::json& old_object,
                           const nlohmann::json& object) {
  namespace d = kueue_update_detail;
  if (kind == "Workload") return d::WorkloadUpdate(old_object, object);
  if (kind == "LocalQueue") return d::ImmutableSpecString(old_object, object, "clusterQueue");
  if (kind == "AdmissionCheck") {
    return d::ImmutableSpecString(old_object, object, "controllerName");
  }
  return ValidateTasUpdate(kind, old_object, object);
}

}  // namespace kuota::control
