// Workload (kueue.x-k8s.io/v1beta1): the unit of admission: pod sets with
// counts and pod templates, the queue it was sent to, its priority, and in its
// status the admission (ClusterQueue and flavor per resource) and conditions.
// Plain struct.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/object_meta.h"
#include "api/pod_spec.h"

namespace kuota::api {

struct PodSet {
  std::string name;
  int32_t count = 1;
  std::optional<int32_t> min_count;
  PodTemplateSpec template_;
};

struct WorkloadSpec {
  std::vector<PodSet> pod_sets;
  std::string queue_name;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::string priority_class_source;
  bool active = true;
  std::optional<int32_t> maximum_execution_time_seconds;
};

struct PodSetAssignment {
  std::string name;
  std::map<std::string, std::string> flavors;  // resource -> flavor
  ResourceList resource_usage;                 // total for the pod set
  std::optional<int32_t> count;
};

struct Admission {
  std::string cluster_queue;
  std::vector<PodSetAssignment> pod_set_assignments;
};

struct AdmissionCheckState {
  std::string name;
  std::string state;  // Pending, Ready, Retry, Rejected
  std::optional<Time> last_transition_time;
  std::string message;
};

struct RequeueState {
  std::optional<int32_t> count;
  std::optional<Time> requeue_at;
};

struct ReclaimablePod {
  std::string name;
  int32_t count = 0;
};

struct WorkloadStatus {
  std::optional<Admission> admission;
  std::vector<Condition> conditions;
  std::vector<AdmissionCheckState> admission_checks;
  std::optional<RequeueState> requeue_state;
  std::vector<ReclaimablePod> reclaimable_pods;
};

struct Workload {
  ObjectMeta metadata;
  WorkloadSpec spec;
  WorkloadStatus status;
};

// Condition types and reasons Kueue uses on Workloads.
inline constexpr const char* kQuotaReserved = "QuotaReserved";
inline constexpr const char* kAdmitted = "Admitted";
inline constexpr const char* kEvicted = "Evicted";
inline constexpr const char* kPreempted = "Preempted";
inline constexpr const char* kFinished = "Finished";
inline constexpr const char* kPodsReady = "PodsReady";
inline constexpr const char* kRequeued = "Requeued";

}  // namespace kuota::api
