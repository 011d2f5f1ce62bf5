// SqliteObjectStore: the ObjectStore behind ObjectStore::Open. Writes go
// through GroupCommit (concurrent writers share one transaction and one
// fsync); each caller plans its write against the last commit, so the batch
// leader mostly checks versions and writes rows. The leader and watch
// catch-up use StoreDatabase's write connection behind its mutex; GET and
// LIST read on its read-only connection; committed events fan out through
// WatchHub.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
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
  Result<EventPtr> CreateShared(const std::string& resource, Json object) override;
  Result<EventPtr> UpdateShared(const std::string& resource, Json object,
                                const UpdateOptions& options = {}) override;
  Result<Json> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                      const DeleteOptions& options = {}) override;
  // One group-commit unit: the batch is never split across transactions.
  std::vector<Result<Json>> WriteBatch(std::vector<BatchWrite> writes) override;
  Result<std::unique_ptr<Watcher>> Watch(const std::string& resource, const std::string& ns,
                                         int64_t from_resource_version) override;
  int64_t CurrentResourceVersion() override;
  // The resourceVersion of the last committed write to `resource` (0 when
  // none since the store opened).
  int64_t WriteVersion(std::string_view resource) override;

  // Live watch subscriptions (for tests and metrics).
  size_t watcher_count() const { return hub_->subscriber_count(); }

  // Committed write transactions and the writes they carried (their ratio
  // is how well group commit is batching), and the batch leader's time in
  // them: every writer waits on that serial path, so wall time well above
  // CPU time says the writer is waiting (on fsync, or for a core).
  struct WriteStats {
    int64_t transactions = 0;
    int64_t writes = 0;
    double transaction_seconds = 0;      // wall, BEGIN through COMMIT
    double commit_seconds = 0;           // wall, the COMMIT (WAL, fsync, checkpoints)
    double transaction_cpu_seconds = 0;  // the leader thread's CPU in them
  };
  WriteStats write_stats();

 private:
  SqliteObjectStore(const StoreOptions& options, const StoreTuning& tuning,
                    std::shared_ptr<StoreDatabase> db);

  // What a create or an update comes to, worked out by its caller against
  // the last committed row, off the batch leader: the leader only checks
  // that the row is still the one planned from (else it plans again), then
  // sets the resourceVersion and writes `text`.
  struct WritePlan {
    int64_t based_on_rv = 0;  // the stored row's version (update)
    std::string uid;          // the new object's uid (create)
    // An error or the stored object unchanged (write == false), or the
    // object to write, its resourceVersion the placeholder `text` holds.
    Result<Json> outcome = Status::Internal("write was not planned");
    bool write = false;
    std::string text;
    EventType type = EventType::kModified;
  };
  // One write between Prepare and its answer.
  struct Pending {
    BatchWrite* write = nullptr;
    ObjectMetaFields meta;
    std::optional<WritePlan> plan;
    // Set by the leader when the write logged an event: the answer, made by
    // the caller instead of the leader (Create/Update/WriteBatch copy its
    // object; CreateShared/UpdateShared hand the event itself).
    EventPtr event;
  };

  // Plans an update of the stored `row` to `object` from that row alone (the
  // batch leader checks the preconditions): an error, the stored object
  // unchanged, or the object to write.
  static WritePlan PlanUpdate(const std::string& resource, const ObjectRow& row, const Json& object,
                              bool status_only);
  // The same, against the stored object already parsed (`stored`, at
  // version `rv`, with `uid`).
  static WritePlan PlanUpdate(Json stored, int64_t rv, const std::string& uid, const Json& object,
                              bool status_only);
  // Checks `p.write` as Create/Update/Delete do before queueing it, plans it
  // where it can, and returns what the batch leader runs; `p` must outlive
  // the returned function.
  Result<GroupCommit::Apply> Prepare(Pending& p);
  // Prepares the one write `w` into `p` and waits for its batch (Create,
  // Update and Delete); the leader's result, or Prepare's error.
  Result<Json> SubmitOne(BatchWrite& w, Pending& p);
  // The answer of a write once its batch is done.
  static Result<Json> Answer(Result<Json> result, const Pending& p);
  // The same, as the event the write logged (SharedAnswer where it logged none).
  static Result<EventPtr> SharedAnswerOf(Result<Json> result, const Pending& p);
  // GroupCommit's batch runner: ApplyBatch, then publish what committed.
  void RunBatch(std::span<GroupCommit::Write* const> batch);
  // Runs the batch in one transaction; returns the events it committed.
  std::vector<EventPtr> ApplyBatch(std::span<GroupCommit::Write* const> batch);
  Result<Json> ApplyCreate(WriteTxn& txn, Pending& p);
  Result<Json> ApplyUpdate(WriteTxn& txn, Pending& p);
  Result<Json> ApplyDelete(WriteTxn& txn, Pending& p);
  // Writes (or for kDeleted removes) `object` under `key` with the txn's
  // next resourceVersion, which replaces the placeholder in `text` (the
  // object serialized with RvPlaceholder()), and logs its event in `p`.
  Status Store(WriteTxn& txn, Pending& p, const ObjectMetaFields& key, Json object,
               std::string text, const std::string& uid, EventType type);

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
  // WriteVersion's answers: resource -> last committed write's version, set
  // after the commit and before its writers are answered.
  Mutex write_versions_mu_;
  std::map<std::string, int64_t, std::less<>> write_versions_ GUARDED_BY(write_versions_mu_);
  GroupCommit writes_;
};

}  // namespace kuota::store
