// HolderOrder: the workloads holding quota in one quota tree (a root cohort's
// subtree, or a lone ClusterQueue), in Kueue's preemption candidate order
// (lower priority first, then most recently reserved, then UID, then name),
// so the victim search filters one sorted list instead of sorting per call.
// While frozen (the set of holders is fixed, as during the nomination phase
// of a cycle) each tree's list is built once and reused; otherwise each
// request rebuilds it. Single-threaded (engine-owned).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "engine/cluster_queue_node.h"
#include "engine/quota_node.h"
#include "engine/workload_info.h"

namespace kuota::engine {

// Kueue's candidate order tail: lower priority first, then the most recently
// reserved, then UID, then name. A strict total order (names are unique).
bool ReservationOrderBefore(const WorkloadInfo* a, const WorkloadInfo* b);

class HolderOrder {
 public:
  // What the victim search filters on, copied so that the filter does not
  // touch the WorkloadInfo.
  struct Holder {
    WorkloadInfo* wl;  // borrowed
    int32_t cq;        // index into View::cqs
    int32_t priority;  // wl->priority
    uint64_t frs;      // bit (fr % 64) set for every FrId in wl->usage
    bool evicted;      // wl->evicted
  };
  struct View {
    const QuotaNode* root = nullptr;
    std::vector<const ClusterQueueNode*> cqs;  // every ClusterQueue of the tree
    std::vector<Holder> holders;               // sorted by ReservationOrderBefore
    bool any_evicted = false;                  // some holder has Holder::evicted
  };

  // Freezing promises that no workload starts or stops holding quota, and no
  // tree changes, until Thaw(); Thaw drops the cached lists and frees them.
  void Freeze() { frozen_ = true; }
  void Thaw();
  bool frozen() const { return frozen_; }

  // The holders of the tree rooted at `root` (a node without parent). The
  // reference stays valid until the next call (unfrozen) or Thaw (frozen).
  const View& For(const QuotaNode* root);

 private:
  static void Build(const QuotaNode* root, View* v);

 public:
  // The bit of `fr` in Holder::frs (and in a mask of needed FrIds).
  static uint64_t Bit(FrId fr) { return uint64_t{1} << (static_cast<uint32_t>(fr) % 64); }

 private:
  bool frozen_ = false;
  std::deque<View> cached_;  // frozen: one per tree asked for (deque: stable references)
  size_t used_ = 0;          // cached_[0, used_) are valid
  View scratch_;             // unfrozen
};

}  // namespace kuota::engine
