#include "engine/pending_queue.h"

#include <algorithm>

#include "engine/workload_info.h"

namespace kuota::engine {

bool PendingQueue::Entry::operator<(const Entry& o) const {
  if (priority != o.priority) return priority > o.priority;
  if (std::tie(time, seq) != std::tie(o.time, o.seq)) {
    return std::tie(time, seq) < std::tie(o.time, o.seq);
  }
  if (wl->key != o.wl->key) return wl->key < o.wl->key;
  return wl < o.wl;
}

PendingQueue::Entry PendingQueue::EntryOf(const WorkloadInfo* wl) const {
  return Entry{wl->priority, 0, wl->queue_order_time.unix_ms, wl->seq,
               const_cast<WorkloadInfo*>(wl)};
}

PendingQueue::Entry PendingQueue::SlotEntry(const WorkloadInfo* wl) const {
  return Entry{static_cast<int32_t>(wl->slot_priority), 0, wl->slot_time, wl->seq,
               const_cast<WorkloadInfo*>(wl)};
}

void PendingQueue::Place(size_t i, const Entry& e) {
  heap_[i] = e;
  heap_pos_[e.handle] = static_cast<uint32_t>(i);
}

uint32_t PendingQueue::NewHandle() {
  if (free_handles_ != kNoHandle) {
    const uint32_t h = free_handles_;
    free_handles_ = heap_pos_[h];
    return h;
  }
  heap_pos_.push_back(0);
  return static_cast<uint32_t>(heap_pos_.size() - 1);
}

void PendingQueue::SiftUp(size_t i) {
  const Entry e = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!(e < heap_[parent])) break;
    Place(i, heap_[parent]);
    i = parent;
  }
  Place(i, e);
}

void PendingQueue::SiftDown(size_t i) {
  const Entry e = heap_[i];
  const size_t n = heap_.size();
  while (true) {
    const size_t first = kArity * i + 1;
    if (first >= n) break;
    size_t child = first;
    const size_t end = std::min(n, first + kArity);
    for (size_t c = first + 1; c < end; ++c) {
      if (heap_[c] < heap_[child]) child = c;
    }
    if (!(heap_[child] < e)) break;
    Place(i, heap_[child]);
    i = child;
  }
  Place(i, e);
}

void PendingQueue::HeapPush(const Entry& e) {
  heap_.push_back(e);
  SiftUp(heap_.size() - 1);
}

void PendingQueue::HeapErase(size_t i) {
  const size_t last = heap_.size() - 1;
  if (i != last) {
    Place(i, heap_[last]);
    heap_.pop_back();
    if (i > 0 && heap_[i] < heap_[(i - 1) / kArity]) {
      SiftUp(i);
    } else {
      SiftDown(i);
    }
  } else {
    heap_.pop_back();
  }
}

void PendingQueue::Push(WorkloadInfo* wl) {
  if (wl->slot == QueueSlot::kHeap || wl->slot == QueueSlot::kPinned) return;
  Remove(wl);
  Entry e = EntryOf(wl);
  e.handle = NewHandle();
  HeapPush(e);
  wl->slot = QueueSlot::kHeap;
  wl->slot_index = e.handle;
  wl->slot_priority = e.priority;
  wl->slot_time = e.time;
}

void PendingQueue::PushInadmissible(WorkloadInfo* wl) {
  Remove(wl);
  Entry e = EntryOf(wl);
  wl->slot_index = inadmissible_.size();
  inadmissible_.push_back(wl);
  wl->slot = QueueSlot::kInadmissible;
  wl->slot_priority = e.priority;
  wl->slot_time = e.time;
}

void PendingQueue::PushBackoff(WorkloadInfo* wl) {
  Remove(wl);
  Entry e{0, 0, wl->requeue_at ? wl->requeue_at->unix_ms : 0, wl->seq, wl};
  backoff_.insert(e);
  wl->slot = QueueSlot::kBackoff;
  wl->slot_priority = 0;
  wl->slot_time = e.time;
}

void PendingQueue::PushPinned(WorkloadInfo* wl) {
  Remove(wl);
  pinned_.push_back(wl);
  wl->slot = QueueSlot::kPinned;
}

bool PendingQueue::Remove(WorkloadInfo* wl) {
  switch (wl->slot) {
    case QueueSlot::kNone:
      return false;
    case QueueSlot::kHeap: {
      const auto handle = static_cast<uint32_t>(wl->slot_index);
      HeapErase(heap_pos_[handle]);
      FreeHandle(handle);
      break;
    }
    case QueueSlot::kInadmissible: {
      WorkloadInfo* last = inadmissible_.back();
      inadmissible_[wl->slot_index] = last;
      last->slot_index = wl->slot_index;
      inadmissible_.pop_back();
      break;
    }
    case QueueSlot::kBackoff:
      backoff_.erase(SlotEntry(wl));
      break;
    case QueueSlot::kPinned:
      pinned_.erase(std::find(pinned_.begin(), pinned_.end(), wl));
      break;
  }
  wl->slot = QueueSlot::kNone;
  return true;
}

bool PendingQueue::Contains(const WorkloadInfo* wl) const { return wl->slot != QueueSlot::kNone; }

bool PendingQueue::IsInadmissible(const WorkloadInfo* wl) const {
  return wl->slot == QueueSlot::kInadmissible;
}

WorkloadInfo* PendingQueue::Head() const {
  if (!pinned_.empty()) return pinned_.front();
  return heap_.empty() ? nullptr : heap_.front().wl;
}

WorkloadInfo* PendingQueue::Pop() {
  WorkloadInfo* wl = PopLeavingRecord();
  if (wl != nullptr) Taken(wl);
  return wl;
}

WorkloadInfo* PendingQueue::PopLeavingRecord() {
  if (!pinned_.empty()) {
    WorkloadInfo* wl = pinned_.front();
    pinned_.erase(pinned_.begin());
    return wl;
  }
  if (heap_.empty()) return nullptr;
  // The top's place is known: its record is neither read nor written.
  WorkloadInfo* wl = heap_.front().wl;
  FreeHandle(heap_.front().handle);
  HeapErase(0);
  return wl;
}

void PendingQueue::Taken(WorkloadInfo* wl) { wl->slot = QueueSlot::kNone; }

int PendingQueue::QueueInadmissible() {
  int n = 0;
  while (!inadmissible_.empty()) {
    Push(inadmissible_.back());  // removes it from inadmissible_
    ++n;
  }
  return n;
}

void PendingQueue::ReleaseExpiredBackoff(Time now) {
  while (!backoff_.empty() && backoff_.begin()->time <= now.unix_ms) {
    WorkloadInfo* wl = backoff_.begin()->wl;
    wl->requeue_at.reset();
    Push(wl);
  }
}

bool PendingQueue::NextBackoff(Time* when) const {
  if (backoff_.empty()) return false;
  *when = Time{backoff_.begin()->time};
  return true;
}

std::vector<WorkloadInfo*> PendingQueue::Ordered() const {
  std::vector<WorkloadInfo*> out(pinned_.begin(), pinned_.end());
  out.reserve(size());
  std::vector<Entry> heap(heap_);
  std::sort(heap.begin(), heap.end());
  for (const auto& e : heap) out.push_back(e.wl);
  std::vector<Entry> parked;
  parked.reserve(inadmissible_.size());
  for (const WorkloadInfo* wl : inadmissible_) parked.push_back(SlotEntry(wl));
  std::sort(parked.begin(), parked.end());
  for (const auto& e : parked) out.push_back(e.wl);
  for (const auto& e : backoff_) out.push_back(e.wl);
  return out;
}

int PendingQueue::PositionOf(const WorkloadInfo* wl) const {
  auto ordered = Ordered();
  for (size_t i = 0; i < ordered.size(); ++i) {
    if (ordered[i] == wl) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace kuota::engine
