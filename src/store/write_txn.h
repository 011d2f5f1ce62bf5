// WriteTxn: what one write sees while its group-commit batch's transaction is
// open: the database, the resourceVersions handed out so far, the events to
// publish once the batch commits, the time, and the random source for uids.
// Used only by the batch leader while it holds the database mutex.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "store/store_database.h"
#include "store/watch_hub.h"

namespace kuota::store {

class WriteTxn {
 public:
  WriteTxn(StoreDatabase& db, const Clock& clock, std::mt19937_64& rng, int64_t rv)
      : db_(db), clock_(clock), rng_(rng), rv_(rv) {}

  StoreDatabase& db() { return db_; }
  std::mt19937_64& rng() { return rng_; }
  Time Now() const { return clock_.Now(); }

  // The last resourceVersion handed out in this transaction (or before it).
  int64_t resource_version() const { return rv_; }
  // Hands out the next resourceVersion.
  int64_t NextResourceVersion() { return ++rv_; }

  // Appends the event for `object` (stored under `ns`/`name`, carrying the
  // transaction's latest resourceVersion) to the log table and keeps it for
  // publishing after commit; returns it.
  Result<EventPtr> Emit(EventType type, const std::string& resource, const std::string& ns,
                        const std::string& name, nlohmann::json object, std::string json_text) {
    EventRow row;
    row.rv = rv_;
    row.resource = resource;
    row.ns = ns;
    row.name = name;
    row.type = EventTypeName(type);
    row.json = std::move(json_text);
    db_.mu()->AssertHeld();
    KUOTA_RETURN_IF_ERROR(db_.AppendEvent(row));
    auto event = std::make_shared<WatchEvent>();
    event->type = type;
    event->resource = resource;
    event->object = std::move(object);
    event->resource_version = rv_;
    event->text = std::move(row.json);
    events_.push_back(event);
    return EventPtr(std::move(event));
  }

  const std::vector<EventPtr>& events() const { return events_; }
  std::vector<EventPtr> TakeEvents() { return std::move(events_); }

  // Forgets what a failed write did: back to `rv` and the first `events`.
  void Undo(int64_t rv, size_t events) {
    rv_ = rv;
    events_.resize(events);
  }

 private:
  StoreDatabase& db_;
  const Clock& clock_;
  std::mt19937_64& rng_;
  int64_t rv_;
  std::vector<EventPtr> events_;
};

}  // namespace kuota::store
