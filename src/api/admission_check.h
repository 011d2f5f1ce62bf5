// AdmissionCheck (kueue.x-k8s.io/v1beta1): an external gate a workload must
// pass after its quota is reserved and before it is admitted. Plain struct.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/object_meta.h"

namespace kuota::api {

struct AdmissionCheck {
  ObjectMeta metadata;
  std::string controller_name;
  std::optional<int64_t> retry_delay_minutes;
  std::vector<Condition> conditions;  // status.conditions (Active)
};

}  // namespace kuota::api
