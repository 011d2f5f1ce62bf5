// Validation of a Workload's topology fields: a pod set's topologyRequest
// (Kueue's Workload webhook, validateTASSliceSize, on by default in v0.20
// with TASValidateWorkloadSliceSize; and v1beta2's CRD minimum of
// subGroupCount) and a pod set assignment's topologyAssignment (the v1beta1
// CRD: 1-16 levels, 1-16 values per domain, at least one pod per domain).
// The annotation rules of jobs (one of required/preferred/unconstrained,
// podSetGroupName) belong to Kueue's job webhooks, not to the Workload's.
#include <string>

#include "api/validation/validators.h"

namespace kuota::validation {
namespace {

constexpr size_t kMaxTopologyLevels = 16;

}  // namespace

void ValidatePodSetTopologyRequest(const api::PodSetTopologyRequest& request,
                                   const std::string& path, FieldErrors& errs) {
  const std::string size_path = Child(path, "podSetSliceSize");
  if (request.pod_set_slice_required_topology.has_value()) {
    if (!request.pod_set_slice_size.has_value()) {
      errs.Required(size_path, "must be set when podSetSliceRequiredTopology is specified");
    } else if (*request.pod_set_slice_size <= 0) {
      errs.InvalidNumber(size_path, *request.pod_set_slice_size, "must be greater than 0");
    }
  } else if (request.pod_set_slice_size.has_value()) {
    errs.Forbidden(size_path, "may not be set when podSetSliceRequiredTopology is not specified");
  }
  if (request.sub_group_count.has_value() && *request.sub_group_count < 0) {
    errs.InvalidNumber(Child(path, "subGroupCount"), *request.sub_group_count,
                       "must be greater than or equal to 0");
  }
}

void ValidateTopologyAssignment(const api::TopologyAssignment& assignment, const std::string& path,
                                FieldErrors& errs) {
  errs.CheckCount(Child(path, "levels"), assignment.levels.size(), kMaxTopologyLevels);
  const std::string domains = Child(path, "domains");
  for (size_t i = 0; i < assignment.domains.size(); ++i) {
    const api::TopologyDomainAssignment& domain = assignment.domains[i];
    const std::string p = Index(domains, i);
    errs.CheckCount(Child(p, "values"), domain.values.size(), kMaxTopologyLevels);
    if (domain.count < 1) {
      errs.InvalidNumber(Child(p, "count"), domain.count, "must be greater than or equal to 1");
    }
  }
}

}  // namespace kuota::validation
