// Plan: a PerfConfig expanded into the concrete objects Kueue's generator
// creates, named as it names them: ClusterQueue `<class>-<set>-<i>-<cohort>`
// in cohort `<class>-<i>`, a namespace and LocalQueue of the same name, and
// workloads `<class>-<set>-<n>-<k>` created one interval apart (the first one
// interval after the start); the sets of one queue run side by side. Both
// runners (virtual and real time) consume the same Plan. Plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/object.h"
#include "perf/perf_config.h"

namespace kuota::perf {

inline constexpr const char* kFlavorName = "rf";
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
  int64_t total_milli() const { return request_milli * pod_count; }
};

struct Plan {
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
api::Object FlavorObject();
api::Object ClusterQueueObject(const PlannedQueue& q);
api::Object NamespaceObject(const PlannedQueue& q);
api::Object LocalQueueObject(const PlannedQueue& q);
api::Object WorkloadObject(const Plan& plan, const PlannedWorkload& w);

}  // namespace kuota::perf
