// Topology ungating: which pods of a Workload admitted with a
// topologyAssignment lose Kueue's `kueue.x-k8s.io/topology` scheduling gate,
// and the nodeSelector each gets (one entry per level of the assignment), as
// Kueue's TopologyUngater decides it (pkg/controller/tas/topology_ungater.go):
// pods whose podIndexLabel (and subGroupIndexLabel) give each a distinct rank
// take the domains in the assignment's order by rank; otherwise pods already
// ungated count against their domains and the gated ones, in creation order,
// fill what is left; pods beyond the count stay gated. Also the names Kueue
// puts on a topology-placed job's pods. Pure functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/workload.h"
#include "base/result.h"

namespace kuota::control {

// Kueue's names (apis/kueue topology_types.go, pkg/constants).
inline constexpr const char* kTopologySchedulingGate = "kueue.x-k8s.io/topology";
inline constexpr const char* kWorkloadAnnotation = "kueue.x-k8s.io/workload";
inline constexpr const char* kPodSetLabel = "kueue.x-k8s.io/podset";
inline constexpr const char* kPodIndexOffsetAnnotation = "kueue.x-k8s.io/pod-index-offset";
inline constexpr const char* kUnconstrainedTopologyAnnotation =
    "kueue.x-k8s.io/podset-unconstrained-topology";

// Kueue's IsTAS: the pod carries one of the topology annotations (required,
// preferred, slice-required, slice constraints, unconstrained). Such pods are
// placed by their Workload's topologyAssignment; every other pod bound to a
// node takes capacity outside it.
bool IsTopologyPod(const nlohmann::json& pod);

// What the ungater reads of one pod.
struct TopologyPod {
  std::string ns, name;
  std::string workload;   // the kueue.x-k8s.io/workload annotation
  std::string pod_set;    // the kueue.x-k8s.io/podset label
  bool gated = false;     // has the topology gate
  bool terminal = false;  // Succeeded or Failed: replaced, not counted
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> node_selector;
  std::optional<std::string> index_offset;  // kueue.x-k8s.io/pod-index-offset
  std::string creation;                     // metadata.creationTimestamp (RFC 3339)
};

// The pod's fields, or nullopt when it names no Workload (no
// kueue.x-k8s.io/workload annotation).
std::optional<TopologyPod> ReadTopologyPod(const nlohmann::json& pod);

// One pod to ungate and the nodeSelector entries it gets.
struct TopologyUngate {
  std::string name;  // the pod's name (in the Workload's namespace)
  std::map<std::string, std::string> node_selector;
};

// The pods of admitted workload `wl` (its status.admission) to ungate, given
// `pods`: those naming it (any pod set, any order, terminal ones included:
// they are skipped). Pod sets without a topologyAssignment are left alone.
// Invalid when a pod's kueue.x-k8s.io/pod-index-offset does not parse (then,
// as in Kueue, nothing is ungated).
Result<std::vector<TopologyUngate>> PlanTopologyUngates(const api::Workload& wl,
                                                        const std::vector<TopologyPod>& pods);

}  // namespace kuota::control
