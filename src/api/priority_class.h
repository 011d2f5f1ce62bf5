// WorkloadPriorityClass (kueue.x-k8s.io/v1beta1) and PriorityClass
// (scheduling.k8s.io/v1): named priority values. Plain structs.
#pragma once

#include <cstdint>
#include <string>

#include "api/object_meta.h"

namespace kuota::api {

struct WorkloadPriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  std::string description;
};

struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy;
  std::string description;
};

inline constexpr const char* kWorkloadPriorityClassSource = "kueue.x-k8s.io/workloadpriorityclass";
inline constexpr const char* kPodPriorityClassSource = "scheduling.k8s.io/priorityclass";

}  // namespace kuota::api
