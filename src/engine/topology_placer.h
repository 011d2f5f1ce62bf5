// TopologyPlacer: Kueue's topology-aware placement of one pod set on one
// flavor's TopologyTree. It counts how many pods (and slices) fit in every
// domain, finds the level whose domains hold the pod set (required: only
// the requested level; preferred: climbing to the top, then several
// domains), and walks down choosing domains: BestFit (most room first, then
// the tightest domain that holds the rest) or, for unconstrained pod sets,
// LeastFreeCapacity. The result is the pod count per leaf. Stateless apart
// from scratch buffers; single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/topology.h"
#include "api/workload.h"
#include "engine/topology_tree.h"

namespace kuota::engine {

// Usage assumed on top of the cells (pod sets placed earlier in the same
// workload or cycle), milli-units by resource index.
using AssumedUsage = std::unordered_map<const TasCell*, std::vector<int64_t>>;

struct TopologyPodSetRequest {
  const api::PodSetTopologyRequest* request = nullptr;  // null: implied
  bool implied = false;  // no topologyRequest, on a ClusterQueue whose flavors all have topologies
  int32_t count = 0;
  std::vector<int64_t> per_pod;        // by resource index, with "pods"
  const api::PodSpec* spec = nullptr;  // selectors, affinity, tolerations
};

struct TopologyPlacement {
  api::TopologyAssignment assignment;
  // (leaf index, pods) for usage accounting.
  std::vector<std::pair<int, int32_t>> leaves;
  // A pod set group's leader (one pod), placed with the workers.
  api::TopologyAssignment leader_assignment;
  std::vector<std::pair<int, int32_t>> leader_leaves;
};

class TopologyPlacer {
 public:
  // `names` gives resource names for messages (borrowed; may be null).
  explicit TopologyPlacer(const TasState* names = nullptr) : names_(names) {}
  // Places `req` on `tree`; `simulate_empty`: as if no topology-placed
  // workload held anything. On failure returns nullopt and sets `reason`
  // (Kueue's message, e.g. `topology "t" allows to fit only 3 out of 4 pod(s)`).
  // `leader`: the one-pod leader of a pod set group (podSetGroupName) placed
  // together with `req`, its workers, as Kueue places LeaderWorkerSet-style
  // groups; null for a pod set on its own.
  std::optional<TopologyPlacement> Place(const TopologyTree& tree, const TopologyPodSetRequest& req,
                                         const AssumedUsage& assumed, bool simulate_empty,
                                         std::string* reason,
                                         const TopologyPodSetRequest* leader = nullptr);

  // Whether the tree has the levels the request names (Kueue's HasLevel).
  static bool HasLevels(const TopologyTree& tree, const api::PodSetTopologyRequest* req);

 private:
  // A domain's room during one placement: pods and whole slices that fit,
  // the same with the group's leader placed there too, and whether a leader
  // fits (0 or 1). Phase 2 overwrites pods/leaders with what is assigned.
  struct State {
    int32_t pods = 0;
    int32_t slices = 0;
    int32_t pods_wl = 0;
    int32_t slices_wl = 0;
    int32_t leaders = 0;
  };
  // Nodes left out, as Kueue counts them for its not-fit message.
  struct Exclusions {
    int selector = 0;
    int affinity = 0;
    std::map<std::string, int> taints;
    std::map<size_t, int> resources;  // by limiting resource index (no pod fits)
  };
  // Per leaf, for the cache: excluded by a filter, fits a pod, or the
  // resource that left it with none.
  static constexpr int32_t kLeafExcluded = -2;
  static constexpr int32_t kLeafFits = -1;
  // What one request shape (per-pod requests, node filters, slice level)
  // found in every domain of a tree, kept up to date from the cells' change
  // log, so a placement need not visit every node.
  struct ShapeCache {
    uint64_t log_pos = 0;
    std::vector<State> states;
    std::vector<int32_t> leaf_state;
    Exclusions ex;
  };
  // Phase 1 from scratch: st_ for every domain, `leaf_state` and `ex`.
  void Fill(const TopologyTree& tree, const TopologyPodSetRequest& req,
            const TopologyPodSetRequest* leader, const AssumedUsage& assumed, bool simulate_empty,
            int32_t slice_size, int slice_level, std::vector<int32_t>* leaf_state, Exclusions* ex);
  // Phase 1 through the cache (pod sets without a leader).
  void FillCached(const TopologyTree& tree, const TopologyPodSetRequest& req,
                  const AssumedUsage& assumed, bool simulate_empty, int32_t slice_size,
                  int slice_level, Exclusions* ex);
  // Sets a leaf's pod count in `states` and carries the change up.
  void SetLeafPods(std::vector<State>& states, const TopologyTree& tree, int leaf, int32_t pods,
                   int32_t slice_size, int slice_level) const;
  std::vector<int> Sorted(std::vector<int> domains, bool least_free) const;
  std::vector<int> SortedWithLeader(std::vector<int> domains, bool least_free) const;
  bool BeforeWithLeader(int a, int b, bool least_free) const;
  // The one domain of `domains` the level search would choose when one
  // holds the pod set, without sorting them; -1 when none does.
  int SingleFit(const std::vector<int>& domains, int32_t slice_count, int32_t leaders,
                bool least_free) const;
  int BestFit(const std::vector<int>& domains, size_t from, int32_t needed, int32_t leaders,
              bool slices) const;
  std::vector<int> PrioritizeLeader(std::vector<int> domains, int32_t count, int32_t leaders,
                                    int32_t slice_size, bool slices) const;
  std::vector<int> Minimum(std::vector<int> domains, int32_t count, int32_t leaders,
                           int32_t slice_size, bool least_free, bool slices);

  const TasState* names_;
  const TopologyTree* tree_ = nullptr;
  std::unordered_map<std::string, ShapeCache> cache_;
  uint64_t cache_generation_ = 0;
  std::vector<State> st_;
};

// Adds `k` pods of `per_pod` to `usage` (resized as needed).
void AddUsage(std::vector<int64_t>& usage, const std::vector<int64_t>& per_pod, int64_t k);

}  // namespace kuota::engine
