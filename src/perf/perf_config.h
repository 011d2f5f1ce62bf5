// PerfConfig: Kueue's scheduler performance generator configuration
// (test/performance/scheduler/configs/*/generator.yaml): cohorts of
// ClusterQueues with one flavor and a cpu quota, and per ClusterQueue sets of
// workloads created one every creationIntervalMs. Parsing is strict: unknown
// fields (including Kueue's TAS and DRA extensions, which Kuota's benchmark
// does not run) are errors naming the field path and line. Plain structs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_queue.h"
#include "api/quantity.h"
#include "base/result.h"

namespace kuota::perf {

// One kind of workload in a set (Kueue's WorkloadTemplate).
struct WorkloadTemplate {
  std::string class_name;  // className: groups workloads in the statistics
  int64_t runtime_ms = 0;  // runtimeMs: how long it runs once admitted
  int32_t priority = 0;    // priority
  api::Quantity request;   // request: cpu per pod
  int32_t pod_count = 1;   // podCount (default 1)
};

// Workloads created one after another, each `creation_interval_ms` after the
// previous one (the first one interval after the start).
struct WorkloadsSet {
  int64_t count = 0;
  int64_t creation_interval_ms = 0;
  std::vector<WorkloadTemplate> workloads;
};

// `count` ClusterQueues of one class, each with its LocalQueue and namespace.
struct QueuesSet {
  std::string class_name;
  int64_t count = 0;
  api::Quantity nominal_quota;
  std::optional<api::Quantity> borrowing_limit;  // absent: unlimited
  api::ReclaimWithinCohortPolicy reclaim_within_cohort = api::ReclaimWithinCohortPolicy::kNever;
  api::WithinClusterQueuePolicy within_cluster_queue = api::WithinClusterQueuePolicy::kNever;
  std::vector<WorkloadsSet> workloads_sets;
};

// `count` cohorts, each holding every queue set.
struct CohortSet {
  std::string class_name;
  int64_t count = 0;
  std::vector<QueuesSet> queues_sets;
};

struct PerfConfig {
  std::vector<CohortSet> cohorts;
};

// Upper bounds that keep a typo from asking for billions of objects.
inline constexpr int64_t kMaxClusterQueues = 100'000;
inline constexpr int64_t kMaxWorkloads = 10'000'000;

// Parses and validates a generator configuration. Errors read
// `line L: cohorts[0].queuesSets[0].count: must be at least 1 (value "0")`.
Result<PerfConfig> ParsePerfConfig(std::string_view text);

}  // namespace kuota::perf
