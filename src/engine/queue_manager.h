// Queue manager operations on EngineState shared by the Engine and the
// Scheduler: routing a pending workload LocalQueue -> ClusterQueue, holding
// and releasing quota, and moving inadmissible workloads back when capacity
// may have changed. Free functions; single-threaded.
#pragma once

#include <string>
#include <vector>

#include "engine/engine_state.h"

namespace kuota::engine {

// Queues a pending workload in its ClusterQueue, or records why it cannot be
// queued (missing or stopped LocalQueue, missing ClusterQueue).
void RouteWorkload(EngineState& s, WorkloadInfo* wl);

// Makes `wl` hold quota in `cq` with the given pod set admissions.
void HoldQuota(EngineState& s, WorkloadInfo* wl, ClusterQueueNode* cq,
               std::vector<PodSetAdmission> admission);
// Releases the quota `wl` holds (no-op when it holds none).
void ReleaseQuota(EngineState& s, WorkloadInfo* wl);

// Takes a workload that holds quota back to pending: releases the quota,
// clears its admission, writes Evicted=True (reason `evicted_reason`, unless
// empty), QuotaReserved=False (reason `pending_reason`) and Admitted=False
// (always, or only over an existing Admitted condition), and records the
// pending reason and message, the conditions stamped `now`. The caller
// requeues it.
void ReturnToPending(EngineState& s, WorkloadInfo* wl, const std::string& evicted_reason,
                     const std::string& pending_reason, const std::string& message,
                     bool always_write_admitted, Time now);

// Takes `wl` out of the pending queue it waits in (no-op when in none).
void Dequeue(WorkloadInfo* wl);

// Moves the inadmissible workloads of every ClusterQueue in `cq`'s tree back
// to their heaps.
void FlushInadmissible(EngineState& s, const ClusterQueueNode* cq);

// Computes usage per FrId from pod set admissions.
std::vector<std::pair<FrId, int64_t>> UsageOf(EngineState& s,
                                              const std::vector<PodSetAdmission>& admission);

// Whether every admission check the ClusterQueue requires for `wl` is Ready.
bool ChecksReady(const EngineState& s, const ClusterQueueNode& cq, const WorkloadInfo& wl);
// The admission checks `cq` requires for a workload admitted on `flavors`.
std::vector<std::string> RequiredChecks(const ClusterQueueNode& cq,
                                        const std::vector<PodSetAdmission>& admission);

}  // namespace kuota::engine
