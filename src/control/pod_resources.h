// Pod resources: what a pod asks of the machine, read from its containers'
// requests (limits where a request is missing, as kube defaults them), the
// way kube's scheduler sums them: containers add up, an init container only
// raises the total to its own size; and whether an amount fits a capacity
// (standalone/machine_amounts.h gives the local machine's). Values are
// milli-units (api::Quantity). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::control {

inline constexpr char kGpuResource[] = "nvidia.com/gpu";

// resource name -> milli-units.
using ResourceAmounts = std::map<std::string, int64_t>;

// The pod's total requests. Invalid, naming the field, for a quantity that
// does not parse.
Result<ResourceAmounts> PodRequests(const nlohmann::json& pod);

// One container's limits (for cgroups): cpu in millicores and memory in bytes,
// 0 when unset.
struct ContainerLimits {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
};
ContainerLimits LimitsOf(const nlohmann::json& container);

// The first resource in `need` that `have` cannot give, as
// "4 nvidia.com/gpu (the machine has 0)"; empty when it fits. Resources
// `have` does not list (ephemeral-storage, other extended resources) are not
// accounted for and never make a pod wait.
std::string FirstShortfall(const ResourceAmounts& need, const ResourceAmounts& have);

}  // namespace kuota::control
