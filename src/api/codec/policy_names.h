// The names Kueue gives the ClusterQueue preemption policies, shared by what
// reads them (MapReader::Enum: the ClusterQueue decoder, kuota perf's config)
// and what writes them (NameOf: kuota perf's ClusterQueues). Constants only.
#pragma once

#include <string_view>

#include "api/cluster_queue.h"
#include "api/codec/map_reader.h"

namespace kuota::codec {

inline constexpr EnumName<api::ReclaimWithinCohortPolicy> kReclaimWithinCohortNames[] = {
    {"Never", api::ReclaimWithinCohortPolicy::kNever},
    {"LowerPriority", api::ReclaimWithinCohortPolicy::kLowerPriority},
    {"Any", api::ReclaimWithinCohortPolicy::kAny}};

inline constexpr EnumName<api::WithinClusterQueuePolicy> kWithinClusterQueueNames[] = {
    {"Never", api::WithinClusterQueuePolicy::kNever},
    {"LowerPriority", api::WithinClusterQueuePolicy::kLowerPriority},
    {"LowerOrNewerEqualPriority", api::WithinClusterQueuePolicy::kLowerOrNewerEqualPriority}};

// The name of `value` in `names`; `fallback` when it has none.
template <typename E>
std::string_view NameOf(EnumNames<E> names, E value, std::string_view fallback) {
  for (const EnumName<E>& n : names) {
    if (n.value == value) return n.name;
  }
  return fallback;
}

}  // namespace kuota::codec
