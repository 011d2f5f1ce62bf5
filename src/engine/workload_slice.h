// Workload slices: Kueue's ElasticJobsViaWorkloadSlices in the engine. An
// elastic job (kueue.x-k8s.io/elastic-job: "true") scaled up while it holds
// quota gets a new Workload, the replacement slice, annotated
// kueue.x-k8s.io/workload-slice-replacement-for: <old namespace/name>. The
// scheduler assigns the replacement the old slice's flavors and asks quota
// only for the difference; on admission the old slice is finished
// (WorkloadSliceReplaced) and its quota released in the same step, so the
// two are never counted together. Single-threaded, like the engine.
#pragma once

#include <string>
#include <string_view>

#include "base/time.h"
#include "engine/engine_state.h"
#include "engine/workload_info.h"

namespace kuota::engine {

inline constexpr std::string_view kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";
inline constexpr std::string_view kSliceReplacementForAnnotation =
    "kueue.x-k8s.io/workload-slice-replacement-for";
inline constexpr std::string_view kSliceNameAnnotation = "kueue.x-k8s.io/workload-slice-name";
// The Finished condition's reason on a slice its replacement took over.
inline constexpr std::string_view kWorkloadSliceReplacedReason = "WorkloadSliceReplaced";

// Whether the workload belongs to an elastic job.
bool IsElasticWorkload(const api::Workload& wl);
// The "namespace/name" `wl` replaces; empty when it is no replacement slice.
std::string ReplacementFor(const api::Workload& wl);

// The slice `wl` replaces, when that one holds quota in `cq` (and is not
// being evicted): its quota and flavors are the replacement's to take over.
// Null otherwise (then the replacement is admitted like any workload).
WorkloadInfo* ReplacedSlice(const EngineState& s, const WorkloadInfo& wl,
                            const ClusterQueueNode& cq);

// `usage` of a pod set admitted at `from` pods, for `to` pods (a scale-down
// in place): usage / from * to, exact for per-pod multiples.
int64_t ScaleUsage(int64_t usage, int32_t from, int32_t to);

// Finishes `old`, replaced by `by`: releases its quota and sets Finished
// with reason WorkloadSliceReplaced, as Kueue's scheduler does once the
// replacement is admitted.
void FinishReplacedSlice(EngineState& s, WorkloadInfo* old, const WorkloadInfo& by, Time now);

}  // namespace kuota::engine
