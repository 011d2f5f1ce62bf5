// Plan: a PerfConfig expanded into the concrete objects Kueue's generator
// creates, named as it names them: ClusterQueue `<class>-<set>-<i>-<cohort>`
// in cohort `<class>-<i>`, a namespace and LocalQueue of the same name, and
// workloads `<class>-<set>-<n>-<k>` created one interval apart (the first one
// interval after the start); the sets of one queue run side by side. With a
// topology (Kueue's TAS config) also its nodes, named by their place in it
// (`<level>-<i>-<j>-...`, each level's label the domain's name), and each
// workload's topologyRequest. Both runners (virtual and real time) consume
// the same Plan. Plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/object.h"
#include "perf/perf_config.h"

namespace kuota::perf {

inline constexpr const char* kFlavorName = "rf";  // without a resourceFlavor in the config
inline constexpr int64_t kNodePods = 110;         // each node's allocatable pods
// Labels Kueue's generator puts on what it creates.
inline constexpr const char* kClassLabel = "kueue.x-k8s.io/performance-scheduler-class";
inline constexpr const char* kRunningTimeLabel = "kueue.x-k8s.io/performance-scheduler-running-ms";

struct PlannedQueue {
  std::string name;  // also its namespace and its LocalQueue
  std::string cohort;
  std::string class_name;
  int64_t nominal_milli = 0;                     // cpu
  std::optional<int64_t> borrowing_limit_milli;  // absent: unlimited
  api::ReclaimWithinCohortPolicy reclaim_within_cohort = api::ReclaimWithinCohortPolicy::kNever;
  api::WithinClusterQueuePolicy within_cluster_queue = api::WithinClusterQueuePolicy::kNever;
  api::QueueingStrategy queueing_strategy = api::QueueingStrategy::kBestEffortFIFO;
  bool backfill = false;  // kuota.dev/backfill, and runtime estimates on its workloads
};

// One node of the topology: its name (the lowest level's domain) and, per
// level, highest first, the name of its domain there.
struct PlannedNode {
  std::string name;
  std::vector<std::string> domains;
};

struct PlannedWorkload {
  std::string name;
  int32_t queue = 0;         // index into Plan::queues (namespace, LocalQueue)
  int32_t class_index = 0;   // index into Plan::workload_classes
  int64_t create_at_ms = 0;  // offset from the start of the schedule
  int64_t runtime_ms = 0;
  int32_t priority = 0;
  int64_t request_milli = 0;  // cpu per pod
  int32_t pod_count = 1;
  // Its pod set's topologyRequest (kNone: none). Balanced runs as preferred.
  TasConstraint tas_constraint = TasConstraint::kNone;
  int32_t tas_level = -1;  // index into the topology's levels
  std::optional<int32_t> slice_size;
  int64_t total_milli() const { return request_milli * pod_count; }
};

struct Plan {
  std::string flavor_name = kFlavorName;
  std::string flavor_node_label;  // key of the label the flavor selects ("": none)
  std::optional<TopologyConfig> topology;
  std::vector<PlannedNode> nodes;      // with a topology; in the order the levels nest
  api::ResourceList node_allocatable;  // each node's: the lowest level's capacity, pods 110
  std::vector<PlannedQueue> queues;
  std::vector<std::string> cohorts;           // cohort names, in creation order
  std::vector<std::string> queue_classes;     // ClusterQueue class names, first-seen order
  std::vector<std::string> workload_classes;  // workload class names, first-seen order
  std::vector<int32_t> queue_cohort;          // queues[i] belongs to cohorts[queue_cohort[i]]
  std::vector<int32_t> queue_class;           // queues[i]'s index in queue_classes
  // Sorted by create_at_ms (ties: queue, then set, then order in the set).
  std::vector<PlannedWorkload> workloads;

  // "namespace/name" of a workload.
  std::string Key(const PlannedWorkload& w) const { return queues[w.queue].name + "/" + w.name; }
};

// Fails when two ClusterQueues would get the same name (two cohort sets or
// queue sets sharing a className at the same index).
Result<Plan> BuildPlan(const PerfConfig& config);

// The objects a run creates, as Kuota's API structs (for the engine).
api::Object FlavorObject(const Plan& plan);
api::Object TopologyObject(const Plan& plan);  // plan.topology must be set
api::Object NodeObject(const Plan& plan, const PlannedNode& node);
api::Object ClusterQueueObject(const Plan& plan, const PlannedQueue& q);
api::Object NamespaceObject(const PlannedQueue& q);
api::Object LocalQueueObject(const PlannedQueue& q);
api::Object WorkloadObject(const Plan& plan, const PlannedWorkload& w);

}  // namespace kuota::perf
