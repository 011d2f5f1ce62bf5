// Minimum runtime before preemption (Kuota's, beyond Kueue; Kueue issues
// #477 and #13662 ask for it): a workload that has held its quota for less
// than its minimum runtime is not a preemption candidate, unless the
// preemptor's priority reaches the ClusterQueue's override. Opt-in by
// annotations that Kueue's manifests leave untouched:
//   kuota.dev/minimum-runtime: "10m"   on a ClusterQueue (its workloads) or a
//                                      WorkloadPriorityClass (its workloads,
//                                      wherever admitted; it wins over the
//                                      ClusterQueue's)
//   kuota.dev/minimum-runtime-override-priority: "1000"
//                                      on a ClusterQueue: a preemptor of at
//                                      least this priority may take its
//                                      protected workloads
// Without them nothing changes. Pure functions and a plain struct; not
// thread-safe beyond that.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/object_meta.h"
#include "base/result.h"
#include "base/time.h"

namespace kuota::engine {

inline constexpr const char* kMinimumRuntimeAnnotation = "kuota.dev/minimum-runtime";
inline constexpr const char* kMinimumRuntimeOverrideAnnotation =
    "kuota.dev/minimum-runtime-override-priority";

struct MinimumRuntime {
  int64_t ms = 0;  // 0: no protection
  std::optional<int64_t> override_priority;
};

// The annotations of `meta` read as MinimumRuntime; Invalid naming the
// annotation ("metadata.annotations[kuota.dev/minimum-runtime]: Invalid
// value: \"ten\": ...") when one is malformed. `override_allowed`: whether
// the override annotation may be there (ClusterQueues only).
Result<MinimumRuntime> ReadMinimumRuntime(const api::ObjectMeta& meta, bool override_allowed);

// "10m", "1h30m", "45s": a duration as the annotation would say it.
std::string FormatMinimumRuntime(int64_t ms);

}  // namespace kuota::engine
