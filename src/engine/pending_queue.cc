#include "engine/pending_queue.h"

#include "engine/workload_info.h"

namespace kuota::engine {

PendingQueue::HeapKey PendingQueue::KeyOf(const WorkloadInfo* wl) {
  return {-static_cast<int64_t>(wl->priority), wl->queue_order_time.unix_ms, wl->key};
}

void PendingQueue::Push(WorkloadInfo* wl) {
  auto it = where_.find(wl->key);
  if (it != where_.end()) {
    if (it->second.where == Where::kHeap) return;
    Remove(wl);
  }
  HeapKey k = KeyOf(wl);
  heap_.emplace(k, wl);
  where_[wl->key] = Slot{Where::kHeap, std::move(k), 0};
}

void PendingQueue::PushInadmissible(WorkloadInfo* wl) {
  Remove(wl);
  inadmissible_.emplace(wl->key, wl);
  where_[wl->key] = Slot{Where::kInadmissible, {}, 0};
}

void PendingQueue::PushBackoff(WorkloadInfo* wl) {
  Remove(wl);
  int64_t at = wl->requeue_at ? wl->requeue_at->unix_ms : 0;
  backoff_.emplace(std::make_pair(at, wl->key), wl);
  where_[wl->key] = Slot{Where::kBackoff, {}, at};
}

bool PendingQueue::Remove(WorkloadInfo* wl) {
  auto it = where_.find(wl->key);
  if (it == where_.end()) return false;
  switch (it->second.where) {
    case Where::kHeap: heap_.erase(it->second.heap_key); break;
    case Where::kInadmissible: inadmissible_.erase(wl->key); break;
    case Where::kBackoff: backoff_.erase({it->second.backoff_at, wl->key}); break;
  }
  where_.erase(it);
  return true;
}

bool PendingQueue::Contains(const WorkloadInfo* wl) const { return where_.count(wl->key) > 0; }

bool PendingQueue::IsInadmissible(const WorkloadInfo* wl) const {
  auto it = where_.find(wl->key);
  return it != where_.end() && it->second.where == Where::kInadmissible;
}

WorkloadInfo* PendingQueue::Head() const {
  return heap_.empty() ? nullptr : heap_.begin()->second;
}

WorkloadInfo* PendingQueue::Pop() {
  if (heap_.empty()) return nullptr;
  WorkloadInfo* wl = heap_.begin()->second;
  heap_.erase(heap_.begin());
  where_.erase(wl->key);
  return wl;
}

int PendingQueue::QueueInadmissible() {
  int n = 0;
  while (!inadmissible_.empty()) {
    WorkloadInfo* wl = inadmissible_.begin()->second;
    Push(wl);  // removes from inadmissible_
    ++n;
  }
  return n;
}

void PendingQueue::ReleaseExpiredBackoff(Time now) {
  while (!backoff_.empty() && backoff_.begin()->first.first <= now.unix_ms) {
    WorkloadInfo* wl = backoff_.begin()->second;
    wl->requeue_at.reset();
    Push(wl);
  }
}

bool PendingQueue::NextBackoff(Time* when) const {
  if (backoff_.empty()) return false;
  *when = Time{backoff_.begin()->first.first};
  return true;
}

std::vector<WorkloadInfo*> PendingQueue::Ordered() const {
  std::vector<WorkloadInfo*> out;
  out.reserve(size());
  for (const auto& [k, wl] : heap_) out.push_back(wl);
  // Inadmissible ones in heap order too.
  std::map<HeapKey, WorkloadInfo*> parked;
  for (const auto& [k, wl] : inadmissible_) parked.emplace(KeyOf(wl), wl);
  for (const auto& [k, wl] : parked) out.push_back(wl);
  for (const auto& [k, wl] : backoff_) out.push_back(wl);
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
