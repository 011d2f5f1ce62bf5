// PendingQueue: one ClusterQueue's waiting workloads: a heap ordered by
// priority (high first), then FIFO timestamp, then name; the inadmissible set
// that BestEffortFIFO parks non-fitting heads in until something changes; and
// workloads waiting out a requeue backoff. Single-threaded (engine-owned).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/time.h"

namespace kuota::engine {

struct WorkloadInfo;

class PendingQueue {
 public:
  // Adds to the heap (no-op when already in the heap).
  void Push(WorkloadInfo* wl);
  // Parks in the inadmissible set.
  void PushInadmissible(WorkloadInfo* wl);
  // Parks until `wl->requeue_at`.
  void PushBackoff(WorkloadInfo* wl);
  // Removes from wherever it is. Returns true if it was present.
  bool Remove(WorkloadInfo* wl);
  bool Contains(const WorkloadInfo* wl) const;
  bool IsInadmissible(const WorkloadInfo* wl) const;

  // The next workload to offer, or nullptr. Pop removes it.
  WorkloadInfo* Head() const;
  WorkloadInfo* Pop();

  // Moves every inadmissible workload back to the heap. Returns how many.
  int QueueInadmissible();
  // Moves workloads whose backoff expired at `now` to the heap.
  void ReleaseExpiredBackoff(Time now);
  // Earliest backoff expiry, if any workload waits.
  bool NextBackoff(Time* when) const;

  size_t heap_size() const { return heap_.size(); }
  size_t inadmissible_size() const { return inadmissible_.size(); }
  size_t backoff_size() const { return backoff_.size(); }
  size_t size() const { return heap_.size() + inadmissible_.size() + backoff_.size(); }

  // Workloads in offer order: heap first, then inadmissible, then backoff.
  std::vector<WorkloadInfo*> Ordered() const;
  // 0-based position of `wl` in Ordered(), or -1.
  int PositionOf(const WorkloadInfo* wl) const;

 private:
  // (-priority, timestamp, key) so the set's begin() is the head.
  using HeapKey = std::tuple<int64_t, int64_t, std::string>;
  static HeapKey KeyOf(const WorkloadInfo* wl);

  std::map<HeapKey, WorkloadInfo*> heap_;
  std::map<std::string, WorkloadInfo*> inadmissible_;
  std::map<std::pair<int64_t, std::string>, WorkloadInfo*> backoff_;
  // Where each member lives, keyed by workload key.
  enum class Where { kHeap, kInadmissible, kBackoff };
  struct Slot {
    Where where;
    HeapKey heap_key;
    int64_t backoff_at = 0;
  };
  std::map<std::string, Slot> where_;
};

}  // namespace kuota::engine
