// SyntheticTasCluster: a seeded cluster for topology-aware scheduling at
// scale: a Topology of blocks x racks x hosts (5 x 20 x 50 = 5,000 nodes by
// default, each 32 cpu / 128 GiB / 110 pods), one ResourceFlavor `tas` bound to
// it, ClusterQueues over that flavor (cpu and memory quotas that together
// match the nodes' capacity, borrowing within their cohort, preemption
// optional), and pending Workloads that are gangs of 2-8 pods of 0.5-4 cpu and
// 1-8 GiB each, half requiring one rack and half preferring one, at three
// priorities. SplitMix64, so a seed always gives the same mix. Used by
// kuota_engine_bench --tas. Single-threaded.
#pragma once

#include <cstdint>

#include "base/clock.h"
#include "engine/engine.h"

namespace kuota::bench {

struct SyntheticTasCluster {
  int blocks = 5;
  int racks = 20;  // per block
  int hosts = 50;  // per rack
  int cqs = 100;   // ClusterQueues, spread evenly over the cohorts
  int cohorts = 10;
  int workloads = 100000;  // pending gangs, round-robin over ClusterQueues
  uint64_t seed = 42;
  bool preemption = true;  // withinClusterQueue LowerPriority, reclaimWithinCohort Any
};

inline constexpr const char* kBenchRackLabel = "example.com/rack";

// Applies the whole cluster to `eng`; workloads get distinct creation times
// from `clock`. False (after printing why) when the engine refuses an object.
bool LoadSyntheticTasCluster(engine::Engine& eng, const ManualClock& clock,
                             const SyntheticTasCluster& o);

}  // namespace kuota::bench
