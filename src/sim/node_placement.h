// NodePlacement: the simulator's stand-in for kube-scheduler and kubelet.
// Places an admitted workload's pods on the what-if file's Nodes (all pods or
// none, first fit in node-name order): a node takes a pod when it carries the
// labels of every flavor the pod set was assigned and the pod's nodeSelector,
// its NoSchedule/NoExecute taints are tolerated by the pod or those flavors,
// and its unused allocatable covers the pod's requests; a pod set placed by
// topology puts its pods on the domains of its topologyAssignment.
// Single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/resource_flavor.h"
#include "engine/workload_info.h"
#include "sim/timeline.h"

namespace kuota::sim {

class NodePlacement {
 public:
  explicit NodePlacement(std::vector<SimNode> nodes);

  bool empty() const { return nodes_.empty(); }
  // Whether `key` has its pods on nodes.
  bool placed(const std::string& key) const { return placed_.count(key) != 0; }
  // Places every pod of `wl` (which holds quota) or none; true when placed.
  // `flavors` are the ResourceFlavors by name.
  bool Place(const engine::WorkloadInfo& wl,
             const std::map<std::string, api::ResourceFlavor>& flavors);
  // Frees what `key`'s pods took (no-op when it has none placed).
  void Release(const std::string& key);

 private:
  struct NodeState {
    SimNode node;
    std::map<std::string, int64_t> free;  // milli-units left, by resource
  };
  // One pod's claim: node index and (resource, milli-units) taken.
  struct Claim {
    size_t node = 0;
    std::vector<std::pair<std::string, int64_t>> taken;
  };

  std::vector<NodeState> nodes_;
  std::map<std::string, std::vector<Claim>> placed_;
};

}  // namespace kuota::sim
