// Kueue's Workload rules, create and update alike, on status fields the
// object model (api::Workload) does not keep, checked on the stored JSON:
// status.admissionChecks[].podSetUpdates (known pod set names, label and
// node selector syntax, annotations, toleration keys: Kueue's
// validatePodSetUpdates) and the CRD rule that status.clusterName and
// status.nominatedClusterNames are mutually exclusive. Pure functions;
// thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::control {

// OK, or one Invalid status listing every error (joined by "; ").
Status ValidateWorkloadStatusFields(const nlohmann::json& workload);

}  // namespace kuota::control
