// Validation of Kueue objects with the rules Kueue's admission webhooks and
// CRD schemas enforce. Each failure names the field path and the value.
// Stateless functions; safe to call from any thread.
#pragma once

#include "api/object.h"
#include "base/status.h"

namespace kuota::validation {

// Validates one object on its own (no cross-object references). Returns OK,
// or a single Invalid status listing every error joined by "; ", each in
// Kubernetes' words: `spec.x[0].y: Invalid value: "v": detail`.
struct ValidateOptions {
  // Check metadata.name and name references (cohort, queueName, ...) against
  // DNS-1123. The simulator turns this off: what-if files may use any names.
  bool check_names = true;
  // Accept a Workload with several pod sets that use minCount. Kueue's
  // scheduler handles several (its PodSetReducer) but its webhook refuses
  // them: every API write refuses them, the simulator (a what-if file is no
  // API request) accepts them.
  bool allow_several_min_count_pod_sets = false;
  // On an update, the stored object (decoded, of the same kind); nullptr on
  // create. Kueue's webhooks let a state the old object was already in stand:
  // a Workload's stale reclaimable count or quota reserved with no admission,
  // a ClusterQueue's unchanged invalid onFlavors.
  const api::Object* old = nullptr;
};
Status Validate(const api::Object& object, const ValidateOptions& options = {});

// Names: DNS-1123 subdomain (ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
// Workload, priority classes, AdmissionCheck) or label (Namespace), as
// Kubernetes requires. An empty value is a `Required value` error.
Status ValidateDns1123Subdomain(std::string_view value, std::string_view field_path);
Status ValidateDns1123Label(std::string_view value, std::string_view field_path);

}  // namespace kuota::validation
