// PerfConfig: Kueue's scheduler performance generator configuration
// (test/performance/scheduler/configs/*/generator.yaml): cohorts of
// ClusterQueues with one flavor and a cpu quota, and per ClusterQueue sets of
// workloads created one every creationIntervalMs; with Kueue's TAS extension
// (configs/tas) a topology of nodes, a ResourceFlavor bound to it, and per
// workload a topology constraint. Parsing is strict: unknown fields (Kueue's
// DRA extension among them) are errors naming the field path and line. Plain
// structs.
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

// tasConstraint: where a workload's pods must or should sit together.
enum class TasConstraint {
  kNone,       // absent: no topologyRequest
  kRequired,   // "required": all pods in one tasLevel domain
  kPreferred,  // "preferred": in as few tasLevel domains as possible
  // "balanced": Kueue's TASBalancedPlacement (alpha, off by default in
  // Kueue); Kuota runs it as preferred.
  kBalanced,
};

// One kind of workload in a set (Kueue's WorkloadTemplate).
struct WorkloadTemplate {
  std::string class_name;  // className: groups workloads in the statistics
  int64_t runtime_ms = 0;  // runtimeMs: how long it runs once admitted
  int32_t priority = 0;    // priority
  api::Quantity request;   // request: cpu per pod
  int32_t pod_count = 1;   // podCount (default 1)
  TasConstraint tas_constraint = TasConstraint::kNone;  // tasConstraint
  std::string tas_level;                                // tasLevel: a topology level's nodeLabel
  std::optional<int32_t> slice_size;  // sliceSize: pods per slice, each within tasLevel
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
  // Kuota's extensions (not in Kueue's generator): queueingStrategy, and
  // backfill (the ClusterQueues carry kuota.dev/backfill: "true" and each
  // workload a runtime estimate, spec.maximumExecutionTimeSeconds, of its
  // runtimeMs rounded up to a second).
  api::QueueingStrategy queueing_strategy = api::QueueingStrategy::kBestEffortFIFO;
  bool backfill = false;
  std::vector<WorkloadsSet> workloads_sets;
};

// `count` cohorts, each holding every queue set.
struct CohortSet {
  std::string class_name;
  int64_t count = 0;
  std::vector<QueuesSet> queues_sets;
};

// One level of the topology, highest first: `count` domains under each domain
// of the level above (the first level: in all), named by `node_label`. The
// lowest level's domains are the nodes, each with `capacity`.
struct TopologyLevel {
  std::string name;
  int64_t count = 0;
  std::string node_label;
  api::ResourceList capacity;  // lowest level only
};

struct TopologyConfig {
  std::string name;
  std::vector<TopologyLevel> levels;
  int64_t node_count() const;  // the product of the counts
};

// The flavor every ClusterQueue uses (default: `rf`, no node labels, no topology).
struct FlavorConfig {
  std::string name;
  std::string node_label;     // nodeLabel: key of a label the flavor selects (and nodes carry)
  std::string topology_name;  // topologyName: the topology's name, or empty
};

struct PerfConfig {
  std::optional<TopologyConfig> topology;
  std::optional<FlavorConfig> resource_flavor;
  std::vector<CohortSet> cohorts;
};

// Upper bounds that keep a typo from asking for billions of objects.
inline constexpr int64_t kMaxClusterQueues = 100'000;
inline constexpr int64_t kMaxWorkloads = 10'000'000;
inline constexpr int64_t kMaxNodes = 100'000;
inline constexpr size_t kMaxTopologyLevels = 16;  // Kueue's Topology CRD bound

// Parses and validates a generator configuration. Errors read
// `line L: cohorts[0].queuesSets[0].count: must be at least 1 (value "0")`.
Result<PerfConfig> ParsePerfConfig(std::string_view text);

}  // namespace kuota::perf
