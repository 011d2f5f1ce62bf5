#include "control/workload_status_rules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "api/validation/field_errors.h"
#include "api/validation/names.h"
// The shared label and annotation checks of kuota_validation.
#include "api/validation/validators.h"

namespace kuota::control {
// Named, not anonymous: the control module is built in unity batches.
namespace workload_status_rules_detail {

using Json = nlohmann::json;
using validation::Child;
using validation::FieldErrors;
using validation::Index;

// A JSON map of strings as labels (other values are the schema's concern).
api::Labels StringMap(const Json& object, const char* key) {
  api::Labels out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return out;
  for (auto e = it->begin(); e != it->end(); ++e) {
    if (e.value().is_string()) out[e.key()] = e.value().get<std::string>();
  }
  return out;
}

void PodSetUpdates(const Json& workload, FieldErrors& errs) {
  std::vector<std::string> known;
  if (auto spec = workload.find("spec"); spec != workload.end() && spec->is_object()) {
    if (auto ps = spec->find("podSets"); ps != spec->end() && ps->is_array()) {
      for (const Json& p : *ps) {
        if (p.is_object()) known.push_back(p.value("name", ""));
      }
    }
  }
  // Kueue lists the known names sorted (sets.List).
  std::sort(known.begin(), known.end());
  auto status = workload.find("status");
  if (status == workload.end() || !status->is_object()) return;
  auto checks = status->find("admissionChecks");
  if (checks == status->end() || !checks->is_array()) return;
  for (size_t i = 0; i < checks->size(); ++i) {
    const Json& check = (*checks)[i];
    if (!check.is_object()) continue;
    auto updates = check.find("podSetUpdates");
    if (updates == check.end() || !updates->is_array()) continue;
    const std::string base = Child(Index("status.admissionChecks", i), "podSetUpdates");
    for (size_t j = 0; j < updates->size(); ++j) {
      const Json& u = (*updates)[j];
      if (!u.is_object()) continue;
      const std::string p = Index(base, j);
      const std::string name = u.value("name", "");
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        errs.NotSupported(Child(p, "name"), name, known);
      }
      if (auto tols = u.find("tolerations"); tols != u.end() && tols->is_array()) {
        for (size_t k = 0; k < tols->size(); ++k) {
          const Json& t = (*tols)[k];
          std::string key = t.is_object() ? t.value("key", "") : "";
          if (key.empty()) continue;
          std::string msg = validation::CheckQualifiedName(key);
          if (!msg.empty()) errs.Invalid(Child(Index(Child(p, "tolerations"), k), "key"), key, msg);
        }
      }
      validation::ValidateAnnotations(StringMap(u, "annotations"), Child(p, "annotations"), errs);
      validation::ValidateLabels(StringMap(u, "nodeSelector"), Child(p, "nodeSelector"), errs);
      validation::ValidateLabels(StringMap(u, "labels"), Child(p, "labels"), errs);
    }
  }
}

void ClusterNames(const Json& workload, FieldErrors& errs) {
  auto status = workload.find("status");
  if (status == workload.end() || !status->is_object()) return;
  auto cluster = status->find("clusterName");
  auto nominated = status->find("nominatedClusterNames");
  if (cluster == status->end() || cluster->is_null() || nominated == status->end() ||
      !nominated->is_array() || nominated->empty()) {
    return;
  }
  errs.Invalid("status", "object", "clusterName and nominatedClusterNames are mutually exclusive");
}

}  // namespace workload_status_rules_detail

Status ValidateWorkloadStatusFields(const nlohmann::json& workload) {
  validation::FieldErrors errs;
  workload_status_rules_detail::PodSetUpdates(workload, errs);
  workload_status_rules_detail::ClusterNames(workload, errs);
  return errs.ToStatus();
}

}  // namespace kuota::control
