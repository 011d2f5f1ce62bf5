// HolderOrder: the workloads holding quota in one quota tree (a root cohort's
// subtree, or a lone ClusterQueue), in Kueue's preemption candidate order
// (lower priority first, then most recently reserved, then UID, then name),
// so the victim search filters one sorted list instead of sorting per call.
// Also indexes each ClusterQueue's holders by position, so the victim search
// visits only the ClusterQueues that can give candidates.
// While frozen (the set of holders is fixed, as during the nomination phase
// of a cycle) each tree's list is built once and reused; otherwise each
// request rebuilds it. A build starts from the order the tree's last build
// left (WorkloadInfo::holder_hint) and checks it. Single-threaded
// (engine-owned).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
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
    WorkloadInfo* wl;     // borrowed
    int32_t cq;           // index into View::cqs
    int32_t priority;     // wl->priority
    uint64_t frs;         // bit (fr % 64) set for every FrId in wl->usage
    bool evicted;         // wl->evicted
    uint32_t hint;        // wl->holder_hint
    int64_t reserved_ms;  // wl->quota_reserved_at (the sort's second key)
  };
  struct View {
    const QuotaNode* root = nullptr;
    std::vector<const ClusterQueueNode*> cqs;  // every ClusterQueue of the tree
    std::vector<Holder> holders;               // sorted by ReservationOrderBefore
    bool any_evicted = false;                  // some holder has Holder::evicted
    // cqs[k]'s holders, by ascending position in `holders`, with the fields
    // the victim search filters on (read in sequence, not by position):
    // positions[position_begin[k], position_begin[k + 1]).
    struct Position {
      uint32_t pos;      // index into `holders`
      int32_t priority;  // holders[pos].priority
      uint64_t frs;      // holders[pos].frs
    };
    std::vector<Position> positions;
    std::vector<uint32_t> position_begin;
    bool any_negative = false;  // some holder's usage has a negative value
    bool exact_frs = true;      // every holder's FrIds are in [0, 64): Holder::frs is exact
    bool flat = true;           // every ClusterQueue's parent is `root` (or is root)
  };

  // Freezing promises that no workload starts or stops holding quota, no
  // tree changes, and no usage changes (what-if removals put back before the
  // next question), until Thaw(); Thaw forgets the cached lists (keeping
  // their buffers for the next cycle).
  void Freeze() { frozen_ = true; }
  void Thaw();
  bool frozen() const { return frozen_; }
  // Changes at every Thaw: what a caller derived from the quota trees while
  // frozen holds as long as frozen() and the generation are unchanged.
  uint64_t generation() const { return generation_; }

  // The holders of the tree rooted at `root` (a node without parent). The
  // reference stays valid until the next call (unfrozen) or Thaw (frozen).
  const View& For(const QuotaNode* root);

 private:
  void Build(const QuotaNode* root, View* v);

 public:
  // The bit of `fr` in Holder::frs (and in a mask of needed FrIds).
  static uint64_t Bit(FrId fr) { return uint64_t{1} << (static_cast<uint32_t>(fr) % 64); }

 private:
  bool frozen_ = false;
  uint64_t generation_ = 0;
  std::deque<View> cached_;       // frozen: one per tree asked for (deque: stable references)
  size_t used_ = 0;               // cached_[0, used_) are valid
  View scratch_;                  // unfrozen
  std::vector<uint32_t> cursor_;  // Build's fill cursors
  std::vector<std::pair<WorkloadInfo*, int32_t>> walk_;  // Build's holders and cq indexes
  std::vector<Holder> merged_;                           // Build's merge output (swapped in)
  std::vector<uint32_t> slot_;                           // Build's holders by hint
};

}  // namespace kuota::engine
