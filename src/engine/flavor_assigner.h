// FlavorAssigner: Kueue's flavor assignment. For each pod set and resource
// group it walks the ClusterQueue's flavors in order, rejects flavors whose
// taints or node labels do not suit the pod, measures quota fit per resource
// (Fit / Preempt / NoFit, borrowing height) and applies flavorFungibility to
// choose. Also the partial-admission search down to minCount.
// Stateless apart from its inputs; single-threaded like the engine.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/configuration.h"
#include "api/resource_flavor.h"
#include "engine/assignment.h"
#include "engine/cluster_queue_node.h"
#include "engine/topology_assigner.h"
#include "engine/workload_info.h"

namespace kuota::engine {

// Asks whether preemption could make room for `value` of `fr` (Kueue's
// preemption oracle). Returns kNoCandidates, kPreempt or kReclaim and the
// borrowing height the workload would have after the preemptions.
class PreemptionOracle {
 public:
  virtual ~PreemptionOracle() = default;
  virtual FitMode SimulatePreemption(const ClusterQueueNode& cq, const WorkloadInfo& wl, FrId fr,
                                     int64_t value, int* borrow_after) = 0;
};

class FlavorAssigner {
 public:
  FlavorAssigner(const std::map<std::string, api::ResourceFlavor>& flavors,
                 const FlavorResourceTable& frs, const api::FairSharingConfig& fair_sharing,
                 PreemptionOracle* oracle)
      : flavors_(flavors), frs_(frs), fair_sharing_(fair_sharing), oracle_(oracle) {}

  // Topology-aware scheduling: flavors are checked against pod sets'
  // topology requests, and topology pod sets placed (borrowed; may be null).
  void set_topology(TopologyAssigner* topology) { topology_ = topology; }

  // Assigns flavors for the pod sets at `counts` (empty: the full counts).
  // With `replaced` (the slice an elastic job's replacement slice takes
  // over, workload_slice.h), each pod set may take only the flavors that
  // slice holds, and quota is asked for the difference alone: the
  // assignment's usage is what admission adds beyond the replaced slice,
  // while each pod set's flavors carry its full usage.
  Assignment Assign(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                    const std::vector<int32_t>& counts = {},
                    const WorkloadInfo* replaced = nullptr) const;

 private:
  // One resource of a group under the flavor being tried.
  struct Choice {
    size_t covered;  // index into ResourceGroupInfo::covered
    FrId fr;
    FitMode mode;
    int borrow;
    int64_t value;
  };
  // The flavor's taints are tolerated (by the pod or the flavor) and its own
  // node labels satisfy the pod's nodeSelector and required node affinity.
  bool FlavorSuits(const api::ResourceFlavor& flavor, const PodSetInfo& ps,
                   std::string* reason) const;
  // Kueue's TAS step after quota: a Fit whose topology placement fails
  // becomes Preempt; a Preempt that cannot be placed even on empty nodes
  // becomes NoFit (else every topology pod set is Preempt: fragmentation).
  void AssignTopology(const WorkloadInfo& wl, const ClusterQueueNode& cq, Assignment& out) const;
  FitMode FitsQuota(const ClusterQueueNode& cq, const WorkloadInfo& wl, FrId fr, int64_t assumed,
                    int64_t request, int* borrow, std::string* reason) const;

  const std::map<std::string, api::ResourceFlavor>& flavors_;
  const FlavorResourceTable& frs_;
  const api::FairSharingConfig& fair_sharing_;
  PreemptionOracle* oracle_;  // borrowed; may be null (then no preemption)
  TopologyAssigner* topology_ = nullptr;
  // Scratch of Assign, kept for its capacity (no allocation per head).
  mutable std::vector<std::pair<std::string_view, int64_t>> reqs_;
  mutable std::vector<std::pair<size_t, int64_t>> group_reqs_;
  mutable std::vector<Choice> assign_;
  mutable std::vector<Choice> best_assign_;
  mutable std::vector<std::pair<FrId, int64_t>> used_;
};

// True when the pod's nodeSelector and required node affinity, restricted to
// `keys` (the flavor's own label keys during flavor assignment), match `labels`.
bool MatchesNodeAffinity(const api::PodSpec& spec, const std::set<std::string>& keys,
                         const api::Labels& labels);

}  // namespace kuota::engine
