// SqliteObjectStore: the ObjectStore behind ObjectStore::Open. Writes go
// through GroupCommit (concurrent writers share one transaction and one
// fsync); reads and the batch leader share the single SQLite connection
// behind StoreDatabase's mutex; committed events fan out through WatchHub.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "base/clock.h"
#include "store/group_commit.h"
#include "store/object_metadata.h"
#include "store/object_store.h"
#include "store/store_database.h"
#include "store/thread_annotations.h"
#include "store/watch_hub.h"
#include "store/write_txn.h"

namespace kuota::store {

// Internal knobs, with defaults for production; tests shrink them.
struct StoreTuning {
  size_t max_batch = 256;              // writes grouped into one transaction
  size_t ring_capacity = 4096;         // recent events kept in memory for watches
  size_t watcher_queue_limit = 10000;  // events a watcher may lag before it is closed
  int64_t catchup_page_size = 500;     // events read from SQLite per page
  int busy_timeout_ms = 5000;          // waiting for another process' lock at open
};

class SqliteObjectStore final : public ObjectStore {
 public:
  static Result<std::unique_ptr<SqliteObjectStore>> Open(const StoreOptions& options,
                                                         const StoreTuning& tuning = {});
  ~SqliteObjectStore() override;
  SqliteObjectStore(const SqliteObjectStore&) = delete;
  SqliteObjectStore& operator=(const SqliteObjectStore&) = delete;

  Result<Json> Create(const std::string& resource, Json object) override;
  Result<Json> Get(const std::string& resource, const std::string& ns,
                   const std::string& name) override;
  Result<ListResult> List(const std::string& resource, const ListOptions& options) override;
  Result<Json> Update(const std::string& resource, Json object,
                      const UpdateOptions& options = {}) override;
  Result<Json> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                      const DeleteOptions& options = {}) override;
  // One group-commit unit: the batch is never split across transactions.
  std::vector<Result<Json>> WriteBatch(std::vector<BatchWrite> writes) override;
  Result<std::unique_ptr<Watcher>> Watch(const std::string& resource, const std::string& ns,
                                         int64_t from_resource_version) override;
  int64_t CurrentResourceVersion() override;

  // Live watch subscriptions (for tests and metrics).
  size_t watcher_count() const { return hub_->subscriber_count(); }

  // Committed write transactions and the writes they carried; their ratio
  // is how well group commit is batching.
  struct WriteStats {
    int64_t transactions = 0;
    int64_t writes = 0;
  };
  WriteStats write_stats();

 private:
  SqliteObjectStore(const StoreOptions& options, const StoreTuning& tuning,
                    std::shared_ptr<StoreDatabase> db);

  // Checks `write` as Create/Update/Delete do before queueing it and returns
  // what the batch leader runs; `write` must outlive the returned function.
  Result<GroupCommit::Apply> Prepare(BatchWrite& write);
  // GroupCommit's batch runner: ApplyBatch, then publish what committed.
  void RunBatch(std::span<GroupCommit::Write* const> batch);
  // Runs the batch in one transaction; returns the events it committed.
  std::vector<EventPtr> ApplyBatch(std::span<GroupCommit::Write* const> batch);
  Result<Json> ApplyCreate(WriteTxn& txn, const std::string& resource, Json object,
                           const ObjectMetaFields& meta);
  Result<Json> ApplyUpdate(WriteTxn& txn, const std::string& resource, Json object,
                           const ObjectMetaFields& meta, bool status_only);
  Result<Json> ApplyDelete(WriteTxn& txn, const std::string& resource, const std::string& ns,
                           const std::string& name, const DeleteOptions& options);
  // Writes (or for kDeleted removes) `object`, whose resourceVersion is the
  // txn's latest, under `key`, and logs its event.
  Status Store(WriteTxn& txn, const std::string& resource, const ObjectMetaFields& key,
               const Json& object, const std::string& uid, EventType type);

  const StoreOptions options_;
  const StoreTuning tuning_;
  RealClock real_clock_;
  const Clock& clock_;
  // Shared with watchers, which hold it weakly to read the event log while
  // the store exists.
  const std::shared_ptr<StoreDatabase> db_;
  // Shared with watchers, which unsubscribe through it when destroyed.
  const std::shared_ptr<WatchHub> hub_;
  // For uids and generateName; used by the batch leader.
  std::mt19937_64 rng_ GUARDED_BY(db_->mu());
  WriteStats stats_ GUARDED_BY(db_->mu());
  GroupCommit writes_;
};

}  // namespace kuota::store
