#include "store/store_watcher.h"

#include <utility>
#include <vector>

namespace kuota::store {

Result<EventPtr> EventFromRow(EventRow row) {
  auto event = std::make_shared<WatchEvent>();
  if (row.type == "ADDED") {
    event->type = EventType::kAdded;
  } else if (row.type == "MODIFIED") {
    event->type = EventType::kModified;
  } else if (row.type == "DELETED") {
    event->type = EventType::kDeleted;
  } else {
    return Status::Internal("event log: resourceVersion " + std::to_string(row.rv) +
                            " has unknown type \"" + row.type + "\"");
  }
  event->resource = row.resource;
  event->resource_version = row.rv;
  event->object = Json::parse(row.json, nullptr, /*allow_exceptions=*/false);
  if (event->object.is_discarded()) {
    return Status::Internal("event log: resourceVersion " + std::to_string(row.rv) +
                            " holds invalid JSON");
  }
  event->text = std::move(row.json);
  return EventPtr(std::move(event));
}

Status ReadCatchupPage(StoreDatabase& db, Subscription& sub, int64_t page_size) {
  int64_t after, up_to;
  {
    MutexLock lock(&sub.mu);
    after = sub.catchup_after;
    up_to = sub.catchup_up_to;
  }
  if (after >= up_to) return Status::Ok();
  // On the store's read connection: the writer goes on meanwhile.
  Result<StoreDatabase::EventPage> page =
      db.ReadEvents(sub.resource, sub.ns, after, up_to, page_size);
  if (!page.ok()) return page.status();
  std::vector<EventPtr> events;
  events.reserve(page->rows.size());
  for (EventRow& row : page->rows) {
    KUOTA_ASSIGN_OR_RETURN(EventPtr e, EventFromRow(std::move(row)));
    events.push_back(std::move(e));
  }
  MutexLock lock(&sub.mu);
  for (EventPtr& e : events) sub.catchup.push_back(std::move(e));
  sub.catchup_after = page->read_through;
  return Status::Ok();
}

StoreWatcher::StoreWatcher(std::shared_ptr<WatchHub> hub, std::shared_ptr<Subscription> sub,
                           std::weak_ptr<StoreDatabase> db, int64_t page_size)
    : hub_(std::move(hub)), sub_(std::move(sub)), db_(std::move(db)), page_size_(page_size) {}

StoreWatcher::~StoreWatcher() { hub_->Unsubscribe(sub_.get()); }

bool StoreWatcher::Next(EventPtr* event, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(&sub_->mu);
  while (true) {
    if (sub_->end != SubscriptionEnd::kNone) return false;
    if (!sub_->catchup.empty()) {
      *event = std::move(sub_->catchup.front());
      sub_->catchup.pop_front();
      return true;
    }
    if (sub_->catchup_after < sub_->catchup_up_to) {
      lock.Unlock();
      Status st = Status::Unavailable("the store is closed");
      SubscriptionEnd why = SubscriptionEnd::kStoreClosed;
      if (std::shared_ptr<StoreDatabase> db = db_.lock()) {
        st = ReadCatchupPage(*db, *sub_, page_size_);
        why =
            st.code() == StatusCode::kGone ? SubscriptionEnd::kTooSlow : SubscriptionEnd::kLogError;
      }
      lock.Lock();
      // The hub drops ended subscriptions on its next publish.
      if (!st.ok() && sub_->end == SubscriptionEnd::kNone) sub_->end = why;
      continue;
    }
    if (!sub_->live.empty()) {
      *event = std::move(sub_->live.front());
      sub_->live.pop_front();
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    sub_->cv.WaitUntil(deadline);
  }
}

void StoreWatcher::Stop() {
  MutexLock lock(&sub_->mu);
  if (sub_->end == SubscriptionEnd::kNone) sub_->end = SubscriptionEnd::kStopped;
  sub_->cv.SignalAll();
}

bool StoreWatcher::Alive() const {
  MutexLock lock(&sub_->mu);
  return sub_->end == SubscriptionEnd::kNone;
}

}  // namespace kuota::store
