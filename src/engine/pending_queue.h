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
  // Pop without writing the workload's record, which is cold with many
  // workloads queued: until Taken(wl) the record still says it is queued
  // here, so nothing may ask this queue about it or push it in between.
  // The scheduling cycle pops every ClusterQueue's head this way and marks
  // each as taken just before nominating it (its record is fetched then).
  WorkloadInfo* PopLeavingRecord();
  static void Taken(WorkloadInfo* wl);
  // PopLeavingRecord, but of the heap's workloads the first by `less`
  // (a pinned preemptor still comes first): an order that changes as
  // workloads are admitted (admission fair sharing) cannot be a heap key.
  template <class Less>
  WorkloadInfo* PopLeavingRecordBy(Less less) {
    if (!pinned_.empty() || heap_.empty()) return PopLeavingRecord();
    size_t best = 0;
    for (size_t i = 1; i < heap_.size(); ++i) {
      if (less(heap_[i].wl, heap_[best].wl)) best = i;
    }
    WorkloadInfo* wl = heap_[best].wl;
    FreeHandle(heap_[best].handle);
    HeapErase(best);
    return wl;
  }
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
  // Ordered by priority (high first), then time, then seq; the workload's
  // key and address only break ties of equal seq (never in the engine).
  struct Entry {
    int32_t priority;
    uint32_t handle;  // heap entries: the index of its position in heap_pos_
    int64_t time;     // FIFO timestamp (backoff: requeue_at, priority 0)
    uint64_t seq;
    WorkloadInfo* wl;
    bool operator<(const Entry& o) const;
  };
  Entry EntryOf(const WorkloadInfo* wl) const;
  Entry SlotEntry(const WorkloadInfo* wl) const;
  // The heap: a 4-ary min-heap in a vector (no node per workload). Four
  // children per node halve the levels a pop moves. Each entry carries a
  // handle (in WorkloadInfo::slot_index too) whose heap_pos_ element is the
  // entry's position: a move writes this queue's small array, not the
  // moved workload's record, which is cold with many workloads queued.
  static constexpr size_t kArity = 4;
  void HeapPush(const Entry& e);
  void HeapErase(size_t i);
  void SiftUp(size_t i);
  void SiftDown(size_t i);
  void Place(size_t i, const Entry& e);
  // Handles not in use are a list threaded through their heap_pos_
  // elements (no second array).
  static constexpr uint32_t kNoHandle = UINT32_MAX;
  uint32_t NewHandle();
  void FreeHandle(uint32_t handle) {
    heap_pos_[handle] = free_handles_;
    free_handles_ = handle;
  }

  std::vector<WorkloadInfo*> pinned_;
  std::vector<Entry> heap_;
  std::vector<uint32_t> heap_pos_;     // handle -> position in heap_
  uint32_t free_handles_ = kNoHandle;  // the first handle not in use
  // Parked workloads in no order (WorkloadInfo::slot_index is the position):
  // nothing pops from here, so parking and unparking need no ordered insert.
  std::vector<WorkloadInfo*> inadmissible_;
  std::set<Entry> backoff_;  // by requeue_at (in `time`, priority 0)
};

}  // namespace kuota::engine
