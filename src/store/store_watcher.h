// StoreWatcher: the Watcher that ObjectStore::Watch returns. Delivers the
// events it must catch up on from the SQLite event log, a page at a time,
// then the live events its Subscription receives, each once and in order.
// Next() is for one consumer thread at a time; Stop() and Alive() may be
// called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "base/result.h"
#include "store/object_store.h"
#include "store/store_database.h"
#include "store/watch_hub.h"

namespace kuota::store {

// Decodes a row of the events table. Internal when the row is not valid.
Result<EventPtr> EventFromRow(EventRow row);

// Reads the next page of `sub`'s catch-up range from the event log into
// sub.catchup. Gone when the range was trimmed meanwhile. Takes db.mu() and
// sub.mu, never both at once.
Status ReadCatchupPage(StoreDatabase& db, Subscription& sub, int64_t page_size);

class StoreWatcher final : public Watcher {
 public:
  // `hub` and `sub` are shared with the store; `db` is the store's database,
  // which the watcher reads (while it still exists) to catch up.
  StoreWatcher(std::shared_ptr<WatchHub> hub, std::shared_ptr<Subscription> sub,
               std::weak_ptr<StoreDatabase> db, int64_t page_size);
  ~StoreWatcher() override;
  StoreWatcher(const StoreWatcher&) = delete;
  StoreWatcher& operator=(const StoreWatcher&) = delete;

  using Watcher::Next;
  bool Next(EventPtr* event, std::chrono::milliseconds timeout) override;
  void Stop() override;
  bool Alive() const override;

 private:
  const std::shared_ptr<WatchHub> hub_;
  const std::shared_ptr<Subscription> sub_;
  const std::weak_ptr<StoreDatabase> db_;
  const int64_t page_size_;
};

}  // namespace kuota::store
