// Validation of Topology (Kueue's CRD rules) and of the Node and Pod fields
// that topology-aware scheduling reads.
#include <set>
#include <string>

#include "api/validation/names.h"
#include "api/validation/validators.h"

namespace kuota::validation {

void ValidateTopology(const api::Topology& topology, FieldErrors& errs) {
  ValidateObjectMeta(topology.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  // Kueue's CRD: spec.levels has 1 to 16 items, each nodeLabel a label key,
  // unique, and kubernetes.io/hostname only as the lowest level.
  constexpr size_t kMaxLevels = 16;
  if (topology.levels.empty()) {
    errs.Required("spec.levels");
  } else if (topology.levels.size() > kMaxLevels) {
    errs.TooMany("spec.levels", topology.levels.size(), kMaxLevels);
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < topology.levels.size(); ++i) {
    const std::string& label = topology.levels[i];
    const std::string path = "spec.levels[" + std::to_string(i) + "].nodeLabel";
    if (label.empty()) {
      errs.Required(path);
      continue;
    }
    if (std::string msg = CheckQualifiedName(label); !msg.empty()) errs.Invalid(path, label, msg);
    if (!seen.insert(label).second) {
      errs.Duplicate(path, label, "must be unique");
    }
    if (label == api::kHostnameLabel && i + 1 != topology.levels.size()) {
      errs.Invalid(path, label, "the kubernetes.io/hostname label can only be used at the lowest level");
    }
  }
}

void ValidateNode(const api::Node& node, FieldErrors& errs) {
  ValidateObjectMeta(node.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  ValidateTaints(node.taints, "spec.taints", errs);
  ValidateResourceList(node.allocatable, "status.allocatable", errs);
}

void ValidatePod(const api::Pod& pod, FieldErrors& errs) {
  ValidateObjectMeta(pod.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/true, errs);
}

}  // namespace kuota::validation
