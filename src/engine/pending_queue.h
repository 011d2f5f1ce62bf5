// PendingQueue: one ClusterQueue's waiting workloads: a heap ordered by
// priority (high first), then FIFO timestamp, then arrival; the inadmissible
// set that BestEffortFIFO parks non-fitting heads in until something changes;
// workloads waiting out a requeue backoff; and a preemptor pinned to be
// offered first in the next cycle, so the capacity it freed is not taken back
// by its victims. Keys and positions live on the WorkloadInfo, so queue
// operations do not allocate per workload. Single-threaded (engine-owned).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
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
  // Offers `wl` before the heap in the next Pop (a preemptor whose victims are
  // being evicted).
  void PushPinned(WorkloadInfo* wl);
  // Removes from wherever it is. Returns true if it was present.
  bool Remove(WorkloadInfo* wl);
  bool Contains(const WorkloadInfo* wl) const;
  bool IsInadmissible(const WorkloadInfo* wl) const;

  // The next workload to offer, or nullptr. Pop removes it.
  WorkloadInfo* Head() const;
  WorkloadInfo* Pop();
  // Asks the cache for what the next Pop reads first: the heap's first
  // three cache lines (the root and its children). Changes nothing.
  void PrefetchHead() const {
    const char* top = reinterpret_cast<const char*>(heap_.data());
    const size_t bytes = heap_.size() * sizeof(Entry);
    for (size_t at = 0; at < bytes && at < 192; at += 64) __builtin_prefetch(top + at);
  }

  // Moves every inadmissible workload back to the heap. Returns how many.
  int QueueInadmissible();
  // Moves workloads whose backoff expired at `now` to the heap.
  void ReleaseExpiredBackoff(Time now);
  // Earliest backoff expiry, if any workload waits.
  bool NextBackoff(Time* when) const;

  size_t heap_size() const { return heap_.size() + pinned_.size(); }
  size_t inadmissible_size() const { return inadmissible_.size(); }
  size_t backoff_size() const { return backoff_.size(); }
  size_t size() const { return heap_size() + inadmissible_.size() + backoff_.size(); }

  // Workloads in offer order: pinned, heap, then inadmissible, then backoff.
  std::vector<WorkloadInfo*> Ordered() const;
  // 0-based position of `wl` in Ordered(), or -1.
  int PositionOf(const WorkloadInfo* wl) const;

 private:
  struct Entry {
    int64_t neg_priority;
    int64_t time;
    uint64_t seq;
    WorkloadInfo* wl;
    bool operator<(const Entry& o) const;
  };
  Entry EntryOf(const WorkloadInfo* wl) const;
  Entry SlotEntry(const WorkloadInfo* wl) const;
  // The heap: a 4-ary min-heap in a vector (no node per workload), each
  // workload's position in WorkloadInfo::slot_index. Four children per node
  // halve the levels a pop moves, and each moved entry writes its
  // workload's slot_index, a cache miss with many workloads queued.
  static constexpr size_t kArity = 4;
  void HeapPush(const Entry& e);
  void HeapErase(size_t i);
  void SiftUp(size_t i);
  void SiftDown(size_t i);
  void Place(size_t i, const Entry& e);

  std::vector<WorkloadInfo*> pinned_;
  std::vector<Entry> heap_;
  // Parked workloads in no order (WorkloadInfo::slot_index is the position):
  // nothing pops from here, so parking and unparking need no ordered insert.
  std::vector<WorkloadInfo*> inadmissible_;
  std::set<Entry> backoff_;  // neg_priority holds requeue_at for ordering by time
};

}  // namespace kuota::engine
