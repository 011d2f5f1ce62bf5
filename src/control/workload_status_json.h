// Encoding of a Workload's status (admission, conditions, admission checks,
// requeue state) as the JSON Kueue writes, for the controller: v1beta2's
// form (what Kuota stores), a pod set assignment's topologyAssignment packed
// into slices.
// Stateless functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "api/workload.h"

namespace kuota::control {

nlohmann::json WorkloadStatusToJson(const api::WorkloadStatus& status);
nlohmann::json ConditionToJson(const api::Condition& c);

}  // namespace kuota::control
