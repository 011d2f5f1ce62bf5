// TopologyAssigner: where topology-aware scheduling meets flavor assignment,
// as Kueue's TAS flavor assigner does. It says whether a pod set asks for a
// topology (explicitly, or implied by a ClusterQueue whose flavors all have
// one), whether a flavor suits it, places a workload's topology pod sets on
// their flavors' trees (each later pod set seeing the earlier ones' pods),
// and checks a placement against the capacity left now. Single-threaded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/resource_flavor.h"
#include "engine/assignment.h"
#include "engine/cluster_queue_node.h"
#include "engine/topology_placer.h"
#include "engine/topology_tree.h"
#include "engine/workload_info.h"

namespace kuota::engine {

class TopologyAssigner {
 public:
  TopologyAssigner(const std::map<std::string, api::ResourceFlavor>& flavors, TasState& tas)
      : flavors_(flavors), tas_(tas), placer_(&tas) {}

  // Some flavor names a topology (else there is nothing to check or place).
  bool active() const { return tas_.active(); }
  // Every flavor of the ClusterQueue has a topology.
  bool TasOnly(const ClusterQueueNode& cq) const;
  // The pod set asks for a topology: explicitly, or implied (TasOnly).
  bool Requested(const api::PodSet& ps, const ClusterQueueNode& cq) const;
  bool AnyRequested(const WorkloadInfo& wl, const ClusterQueueNode& cq) const;
  // "" when `flavor` suits the pod set as far as topology goes; else Kueue's
  // reason (e.g. `Flavor "x" supports only TopologyAwareScheduling`).
  std::string FlavorMismatch(const ClusterQueueNode& cq, const api::PodSet& ps,
                             const PodSetInfo& info, const api::ResourceFlavor& flavor,
                             const std::vector<std::string>& covered) const;

  struct Failure {
    size_t pod_set = 0;
    std::string reason;
  };
  // Places every topology pod set of `a` (count > 0) and records it there;
  // `simulate_empty`: as if no topology-placed workload held anything.
  std::optional<Failure> Place(const WorkloadInfo& wl, const ClusterQueueNode& cq, Assignment& a,
                               bool simulate_empty);
  // Whether `a`'s placements still fit the capacity left now.
  bool StillFits(const Assignment& a) const;
  static bool HasTopology(const Assignment& a);

 private:
  const std::map<std::string, api::ResourceFlavor>& flavors_;
  TasState& tas_;
  TopologyPlacer placer_;
  AssumedUsage assumed_;  // Place's scratch
};

// What a holder of `admission` uses per leaf (from its topologyAssignments).
std::vector<TasUse> TopologyUsageOf(TasState& tas, const WorkloadInfo& wl,
                                    const api::Admission& admission);
// Adds / removes a holder's topology usage on the cells.
void AddTopologyUsage(const std::vector<TasUse>& usage);
void RemoveTopologyUsage(const std::vector<TasUse>& usage);

}  // namespace kuota::engine
