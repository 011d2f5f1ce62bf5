// Reservation and backfill (Kuota's, beyond Kueue; Slurm's EASY backfill in
// quota terms), opt-in per ClusterQueue by annotations Kueue's manifests leave
// untouched:
//   kuota.dev/backfill: "true"        the ClusterQueue's first blocked head
//                                     gets a reservation
//   kuota.dev/default-runtime: "1h"   the runtime estimate of its workloads
//                                     that set no spec.maximumExecutionTimeSeconds
// When a head of such a ClusterQueue cannot be admitted (no room, or no
// victims), it reserves the earliest capacity that its cohort tree's admitted
// workloads free by their runtime estimates (a workload without one frees
// nothing). Until it is admitted, a later workload of that ClusterQueue may
// start only if its own estimate ends before the reservation starts, or if it
// uses only capacity that will still be spare then. Plain functions and
// structs; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/object_meta.h"
#include "base/result.h"
#include "base/time.h"
#include "engine/flavor_resource.h"

namespace kuota::engine {

class ClusterQueueNode;
struct WorkloadInfo;

inline constexpr const char* kBackfillAnnotation = "kuota.dev/backfill";
inline constexpr const char* kDefaultRuntimeAnnotation = "kuota.dev/default-runtime";

struct BackfillPolicy {
  bool on = false;
  int64_t default_runtime_ms = 0;  // 0: none
};

// A ClusterQueue's annotations as a BackfillPolicy; Invalid naming the
// annotation when one is malformed.
Result<BackfillPolicy> ReadBackfillPolicy(const api::ObjectMeta& meta);

// The reservation of a ClusterQueue's first blocked head.
struct Reservation {
  std::string holder;  // the head's key; empty: no reservation
  int32_t priority = 0;
  Time order_time;
  std::optional<Time> start;                    // unknown when capacity is held without estimates
  std::vector<std::pair<FrId, int64_t>> need;   // what the head needs
  std::vector<std::pair<FrId, int64_t>> spare;  // free at `start` beyond `need`
};

// A workload's runtime estimate: spec.maximumExecutionTimeSeconds, else its
// ClusterQueue's kuota.dev/default-runtime (the one it holds quota in, else
// `queue`, else the one it waits in); nullopt without either.
std::optional<int64_t> RuntimeEstimateMs(const WorkloadInfo& w,
                                         const ClusterQueueNode* queue = nullptr);

// The reservation for `head` of `cq` needing `need`, at `now`.
Reservation Reserve(const WorkloadInfo& head, const ClusterQueueNode& cq,
                    const std::vector<std::pair<FrId, int64_t>>& need, Time now);

// Whether `w`, taking `usage`, may start at `now` without delaying `r`'s
// holder; when it may only by using spare capacity, that capacity is taken
// from `r`. `*why` says why not (for its pending message).
// `w` is a head of `cq`.
bool BackfillAllows(Reservation& r, const WorkloadInfo& w, const ClusterQueueNode& cq,
                    const std::vector<std::pair<FrId, int64_t>>& usage, Time now, std::string* why);

// "expected to start at 2026-01-01T01:00:00Z", or why no time is known.
std::string DescribeReservationStart(const Reservation& r);

}  // namespace kuota::engine
