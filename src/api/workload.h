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

// A pod set's topologyRequest (Kueue's PodSetTopologyRequest): where its
// pods must (required) or should (preferred) sit together, or that any
// placement will do (unconstrained); slices of podSetSliceSize pods each
// kept within podSetSliceRequiredTopology.
struct PodSetTopologyRequest {
  std::optional<std::string> required;
  std::optional<std::string> preferred;
  std::optional<bool> unconstrained;
  std::optional<std::string> pod_index_label;
  std::optional<std::string> sub_group_index_label;
  std::optional<int32_t> sub_group_count;
  std::optional<std::string> pod_set_group_name;
  std::optional<std::string> pod_set_slice_required_topology;
  std::optional<int32_t> pod_set_slice_size;
};

struct PodSet {
  std::string name;
  int32_t count = 1;
  std::optional<int32_t> min_count;
  PodTemplateSpec template_;
  std::optional<PodSetTopologyRequest> topology_request;
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

// Where a pod set's pods go (v1beta1 encoding): each domain is one value per
// level (e.g. block, rack, hostname) and how many pods it takes.
struct TopologyDomainAssignment {
  std::vector<std::string> values;
  int32_t count = 0;
};

struct TopologyAssignment {
  std::vector<std::string> levels;  // node labels, highest first
  std::vector<TopologyDomainAssignment> domains;
};

struct PodSetAssignment {
  std::string name;
  std::map<std::string, std::string> flavors;  // resource -> flavor
  ResourceList resource_usage;                 // total for the pod set
  std::optional<int32_t> count;
  std::optional<TopologyAssignment> topology_assignment;
};

struct Admission {
  std::string cluster_queue;
  std::vector<PodSetAssignment> pod_set_assignments;
};

// What an admission check asks to change in one pod set's pods when the
// workload starts (Kueue's PodSetUpdate).
struct PodSetUpdate {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
};

struct AdmissionCheckState {
  std::string name;
  std::string state;  // Pending, Ready, Retry, Rejected
  std::optional<Time> last_transition_time;
  std::string message;
  std::vector<PodSetUpdate> pod_set_updates{};
  // Kueue's retry bookkeeping: how many times the check was retried, and
  // how long after lastTransitionTime a Retry requeues the workload.
  std::optional<int32_t> retry_count{};
  std::optional<int32_t> requeue_after_seconds{};
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
