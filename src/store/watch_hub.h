// WatchHub: fans committed events out to the store's watchers. A bounded ring
// of recent events lets most watches resume without reading SQLite; each
// watcher gets its own bounded queue, filled at publish time with only the
// events it selects, and is closed (not waited for) when it falls behind.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "store/mutex.h"
#include "store/object_store.h"
#include "store/thread_annotations.h"

namespace kuota::store {

// Why a subscription stopped delivering.
enum class SubscriptionEnd { kNone, kStopped, kTooSlow, kStoreClosed, kLogError };

// One watcher's selection and queues. Shared by the hub (which fills it) and
// the watcher (which drains it); fields behind `mu`.
struct Subscription {
  Subscription(std::string resource_filter, std::string ns_filter)
      : resource(std::move(resource_filter)), ns(std::move(ns_filter)) {}

  bool Selects(const WatchEvent& e) const;

  const std::string resource;  // a filter (ResourceSelected): "", "!R" or R
  const std::string ns;        // empty: all namespaces

  Mutex mu;
  CondVar cv{&mu};
  // Only events newer than this are delivered (set once, by Subscribe).
  int64_t after_rv GUARDED_BY(mu) = 0;
  // Events read from the SQLite event log, delivered before `live`.
  std::deque<EventPtr> catchup GUARDED_BY(mu);
  // The log still holds events in (catchup_after, catchup_up_to] to read.
  int64_t catchup_after GUARDED_BY(mu) = 0;
  int64_t catchup_up_to GUARDED_BY(mu) = 0;
  // Events published after the subscription began (or copied from the ring
  // when it began), at most `live_limit` of them.
  std::deque<EventPtr> live GUARDED_BY(mu);
  size_t live_limit GUARDED_BY(mu) = 0;
  SubscriptionEnd end GUARDED_BY(mu) = SubscriptionEnd::kNone;
};

class WatchHub {
 public:
  // `ring_capacity`: recent events kept in memory; `queue_limit`: live events
  // a subscription may hold before it is closed as too slow;
  // `current_rv`: the store's resourceVersion when it opened.
  WatchHub(size_t ring_capacity, size_t queue_limit, int64_t current_rv);

  // Registers a subscription to events after `*from_rv` (0 becomes the last
  // published resourceVersion). When the ring still holds every such event it
  // is copied into `live` and the catch-up range is empty; otherwise
  // (catchup_after, catchup_up_to] must be read from the event log first.
  // Either way every later event reaches `live` exactly once.
  std::shared_ptr<Subscription> Subscribe(const std::string& resource, const std::string& ns,
                                          int64_t* from_rv) EXCLUDES(mu_);
  void Unsubscribe(const Subscription* sub) EXCLUDES(mu_);

  // Appends committed events (ascending resourceVersions, all newer than
  // anything published before) to the ring and to the subscriptions that
  // select them.
  void Publish(const std::vector<EventPtr>& events) EXCLUDES(mu_);

  // Ends every subscription (the store is closing) and refuses new ones.
  void CloseAll() EXCLUDES(mu_);

  // Waits until events up to `rv` have been published (or the hub closed),
  // at most `timeout`. Returns false on timeout.
  bool WaitPublished(int64_t rv, std::chrono::milliseconds timeout) EXCLUDES(mu_);

  int64_t last_resource_version() const EXCLUDES(mu_);
  size_t subscriber_count() const EXCLUDES(mu_);

 private:
  const size_t ring_capacity_;
  const size_t queue_limit_;

  mutable Mutex mu_;
  CondVar published_{&mu_};  // signalled when last_rv_ advances or the hub closes
  std::deque<EventPtr> ring_ GUARDED_BY(mu_);
  // The ring holds every event in (ring_floor_, last_rv_].
  int64_t ring_floor_ GUARDED_BY(mu_);
  int64_t last_rv_ GUARDED_BY(mu_);
  std::list<std::shared_ptr<Subscription>> subs_ GUARDED_BY(mu_);
  bool closed_ GUARDED_BY(mu_) = false;
};

}  // namespace kuota::store
