#include "store/watch_hub.h"

#include <algorithm>

namespace kuota::store {

bool Subscription::Selects(const WatchEvent& e) const {
  if (!ResourceSelected(resource, e.resource)) return false;
  if (ns.empty()) return true;
  auto meta = e.object.find("metadata");
  if (meta == e.object.end() || !meta->is_object()) return false;
  auto it = meta->find("namespace");
  return it != meta->end() && it->is_string() && it->get_ref<const std::string&>() == ns;
}

WatchHub::WatchHub(size_t ring_capacity, size_t queue_limit, int64_t current_rv)
    : ring_capacity_(ring_capacity),
      queue_limit_(std::max<size_t>(queue_limit, 1)),
      ring_floor_(current_rv),
      last_rv_(current_rv) {}

std::shared_ptr<Subscription> WatchHub::Subscribe(const std::string& resource,
                                                  const std::string& ns, int64_t* from_rv) {
  auto sub = std::make_shared<Subscription>(resource, ns);
  MutexLock lock(&mu_);
  if (*from_rv == 0) *from_rv = last_rv_;
  const int64_t from = *from_rv;
  {
    MutexLock sub_lock(&sub->mu);
    sub->after_rv = from;
    if (closed_) {
      sub->end = SubscriptionEnd::kStoreClosed;
      return sub;
    }
    if (from >= ring_floor_) {
      // The ring is ordered: skip what the watcher has seen, copy the rest.
      auto first = std::upper_bound(ring_.begin(), ring_.end(), from,
                                    [](int64_t rv, const EventPtr& e) {
                                      return rv < e->resource_version;
                                    });
      for (auto it = first; it != ring_.end(); ++it) {
        if (sub->Selects(**it)) sub->live.push_back(*it);
      }
      // What the ring handed over does not count against the lag allowed.
      sub->live_limit = queue_limit_ + sub->live.size();
    } else {
      sub->catchup_after = from;
      sub->catchup_up_to = last_rv_;
      sub->live_limit = queue_limit_;
    }
  }
  subs_.push_back(sub);
  return sub;
}

void WatchHub::Unsubscribe(const Subscription* sub) {
  MutexLock lock(&mu_);
  subs_.remove_if([sub](const std::shared_ptr<Subscription>& s) { return s.get() == sub; });
}

void WatchHub::Publish(const std::vector<EventPtr>& events) {
  if (events.empty()) return;
  MutexLock lock(&mu_);
  for (const EventPtr& e : events) {
    ring_.push_back(e);
    last_rv_ = e->resource_version;
  }
  while (ring_.size() > ring_capacity_) {
    ring_floor_ = ring_.front()->resource_version;
    ring_.pop_front();
  }
  if (ring_capacity_ == 0) ring_floor_ = last_rv_;

  for (auto it = subs_.begin(); it != subs_.end();) {
    Subscription& sub = **it;
    // The selection is immutable: most watchers are skipped without a lock.
    bool selects_any = false;
    for (const EventPtr& e : events) selects_any = selects_any || sub.Selects(*e);
    if (!selects_any) {
      ++it;
      continue;
    }
    bool drop = false;
    bool added = false;
    {
      MutexLock sub_lock(&sub.mu);
      for (const EventPtr& e : events) {
        if (sub.end != SubscriptionEnd::kNone) break;
        if (e->resource_version <= sub.after_rv || !sub.Selects(*e)) continue;
        if (sub.live.size() >= sub.live_limit) {
          // Too far behind: end it (the client re-watches from the last
          // resourceVersion it saw) rather than hold events without bound.
          sub.end = SubscriptionEnd::kTooSlow;
          sub.live.clear();
          sub.catchup.clear();
          break;
        }
        sub.live.push_back(e);
        added = true;
      }
      drop = sub.end != SubscriptionEnd::kNone;
    }
    if (added || drop) sub.cv.SignalAll();
    it = drop ? subs_.erase(it) : std::next(it);
  }
  // After the queues are filled (all under mu_): a waiter sees both.
  published_.SignalAll();
}

void WatchHub::CloseAll() {
  MutexLock lock(&mu_);
  closed_ = true;
  published_.SignalAll();
  for (const auto& sub : subs_) {
    MutexLock sub_lock(&sub->mu);
    if (sub->end == SubscriptionEnd::kNone) sub->end = SubscriptionEnd::kStoreClosed;
    sub->cv.SignalAll();
  }
  subs_.clear();
}

bool WatchHub::WaitPublished(int64_t rv, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(&mu_);
  while (last_rv_ < rv && !closed_) {
    if (!published_.WaitUntil(deadline) && std::chrono::steady_clock::now() >= deadline) {
      return last_rv_ >= rv || closed_;
    }
  }
  return true;
}

int64_t WatchHub::last_resource_version() const {
  MutexLock lock(&mu_);
  return last_rv_;
}

size_t WatchHub::subscriber_count() const {
  MutexLock lock(&mu_);
  return subs_.size();
}

}  // namespace kuota::store
