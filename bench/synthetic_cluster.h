// SyntheticCluster: the large, seeded cluster the benchmarks schedule:
// two flavors (on-demand with a borrowing limit, spot without) over cpu,
// memory and GPUs, ClusterQueues spread over cohorts with preemption, one
// Namespace and LocalQueue each, and pending Workloads of 1-4 pods (30 % with
// GPUs) at three priorities, round-robin over the queues. SplitMix64, so a
// seed always gives the same mix. Shared by kuota_engine_bench and
// kuota_metrics_bench. Single-threaded.
#pragma once

#include <cstdint>

#include "base/clock.h"
#include "engine/engine.h"

namespace kuota::bench {

struct SyntheticCluster {
  int cqs = 1000;          // ClusterQueues, spread evenly over the cohorts
  int cohorts = 10;        // cohorts (implicit: named by ClusterQueues only)
  int workloads = 100000;  // pending Workloads, round-robin over ClusterQueues
  uint64_t seed = 42;      // PRNG seed for sizes and priorities
  bool preemption = true;  // withinClusterQueue LowerPriority, reclaimWithinCohort Any
};

// Applies the whole cluster to `eng`; workloads get distinct creation times
// from `clock`. False (after printing why) when the engine refuses an object.
bool LoadSyntheticCluster(engine::Engine& eng, const ManualClock& clock, const SyntheticCluster& o);

}  // namespace kuota::bench
