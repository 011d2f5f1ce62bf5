// StoreDatabase: the object store's SQLite schema (kuota_meta, objects,
// events) and the row operations ObjectStore builds on. Owns the write
// connection, which every method but ReadObject, ReadListPage and ReadEvents
// requires mu() for (the store's writers and watchers take it, so the connection is
// never used by two threads at once), and a read-only connection for GET and
// LIST: in WAL mode it reads the last committed state while a batch is being
// written and synced, so a read does not wait for a writer's fsync.
// A lock file (`<path>.lock`) keeps a second opener out.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "store/file_lock.h"
#include "store/mutex.h"
#include "store/sqlite_connection.h"
#include "store/thread_annotations.h"

namespace kuota::store {

// The schema this build writes; a newer one in the file is refused.
inline constexpr int64_t kStoreSchemaVersion = 1;
// PRAGMA application_id of a Kuota store: "KUOT".
inline constexpr int64_t kStoreApplicationId = 0x4B554F54;

struct ObjectRow {
  std::string ns;
  std::string name;
  std::string uid;
  int64_t rv = 0;
  std::string json;
};

// An object row's version and uid, without its JSON.
struct RowVersion {
  int64_t rv = 0;
  std::string uid;
};

struct EventRow {
  int64_t rv = 0;
  std::string resource;
  std::string ns;
  std::string name;
  std::string type;  // "ADDED", "MODIFIED", "DELETED"
  std::string json;
};

// Where a list page resumes: strictly after this (namespace, name).
struct ObjectKey {
  std::string ns;
  std::string name;
};

class StoreDatabase {
 public:
  struct Options {
    std::string path;
    bool sync = true;            // synchronous=FULL, else NORMAL
    int busy_timeout_ms = 5000;  // how long to wait for another process' lock
  };

  // Opens or creates the store at options.path and checks it: a file that is
  // not SQLite, an SQLite file that is not a Kuota store, a newer schema, or a
  // corrupt database gives Invalid; another process holding it, Unavailable.
  // The store holds `<path>.lock` while open.
  static Result<std::unique_ptr<StoreDatabase>> Open(const Options& options);

  Mutex* mu() RETURN_CAPABILITY(mu_) { return &mu_; }

  // The last committed (or, inside a transaction, assigned) resourceVersion.
  int64_t resource_version() const REQUIRES(mu_) { return rv_; }
  // Events with rv <= this were trimmed; watching from before it is Gone.
  int64_t compacted_resource_version() const REQUIRES(mu_) { return compacted_rv_; }

  // BEGIN IMMEDIATE / COMMIT / ROLLBACK. Rollback also restores the cached
  // resource versions; a failed Commit rolls back.
  Status Begin() REQUIRES(mu_);
  Status Commit() REQUIRES(mu_);
  void Rollback() REQUIRES(mu_);
  // A nested savepoint inside Begin()..Commit(), one write's worth.
  Status Savepoint() REQUIRES(mu_);
  Status ReleaseSavepoint() REQUIRES(mu_);
  Status RollbackToSavepoint() REQUIRES(mu_);

  Result<std::optional<ObjectRow>> GetObject(std::string_view resource, std::string_view ns,
                                             std::string_view name) REQUIRES(mu_);
  // The version and uid of a row (nullopt when absent): GetObject without
  // copying the JSON.
  Result<std::optional<RowVersion>> GetRowVersion(std::string_view resource, std::string_view ns,
                                                  std::string_view name) REQUIRES(mu_);
  // GetObject as of the last commit, on the read connection: needs no mu(),
  // and does not wait for a batch being written.
  Result<std::optional<ObjectRow>> ReadObject(std::string_view resource, std::string_view ns,
                                              std::string_view name) EXCLUDES(read_mu_);
  // Inserts or replaces the row keyed by (resource, namespace, name).
  Status PutObject(std::string_view resource, const ObjectRow& row) REQUIRES(mu_);
  Status DeleteObject(std::string_view resource, std::string_view ns, std::string_view name)
      REQUIRES(mu_);
  struct ListPage {
    int64_t resource_version = 0;  // the commit the page reflects
    // Rows of `resource` (in namespace `ns`, or all when empty) ordered by
    // (namespace, name), strictly after `after` when given; at most `limit`
    // rows (0: all).
    std::vector<ObjectRow> rows;
    // With count_rest and a full page: how many rows follow it; else -1.
    int64_t rest = -1;
  };
  // A page of objects as of the last commit, in one transaction on the read
  // connection: needs no mu(), and neither waits for nor holds up a batch
  // being written.
  Result<ListPage> ReadListPage(std::string_view resource, std::string_view ns,
                                const std::optional<ObjectKey>& after, int64_t limit,
                                bool count_rest) EXCLUDES(read_mu_);

  // One row of ScanObjects: the row's id (its insertion order) and resource.
  struct ScannedRow {
    int64_t id = 0;
    std::string resource;
    ObjectRow row;
  };
  // Up to `limit` object rows of every resource with id > after_id, by id.
  Result<std::vector<ScannedRow>> ScanObjects(int64_t after_id, int64_t limit) REQUIRES(mu_);
  // Replaces the JSON of the object row `id`, keeping its key, uid and rv.
  Status RewriteObjectJson(int64_t id, std::string_view json) REQUIRES(mu_);
  // A kuota_meta value (`absent` when there is no row for `key`), and its
  // write (inserted when absent).
  Result<int64_t> MetaValue(std::string_view key, int64_t absent) REQUIRES(mu_);
  Status SetMetaValue(std::string_view key, int64_t value) REQUIRES(mu_);

  Status AppendEvent(const EventRow& event) REQUIRES(mu_);
  // Inside a transaction: records `rv` as the current resourceVersion and
  // trims the event log to the newest `keep_events` resourceVersions.
  Status SetResourceVersion(int64_t rv, int64_t keep_events) REQUIRES(mu_);

  struct EventPage {
    std::vector<EventRow> rows;
    // Every event up to here was read (rows filtered by resource/namespace).
    int64_t read_through = 0;
  };
  // Events with after_rv < rv <= up_to_rv, oldest first, of the resources
  // the filter `resource` selects ("" all, "!R" all but R, else R;
  // ResourceSelected) in `ns` (all when empty); at most `limit` rows. Gone when
  // after_rv is older than the kept log. On the read connection, in one read
  // transaction with the compaction floor it checks (a compaction deletes
  // events and moves the floor in one commit), so a watcher catching up does
  // not hold the writer's mutex; up_to_rv must be committed.
  Result<EventPage> ReadEvents(std::string_view resource, std::string_view ns, int64_t after_rv,
                               int64_t up_to_rv, int64_t limit) EXCLUDES(read_mu_);

 private:
  // `read(connection)` on the read connection in one read transaction (one
  // commit's state), ended with COMMIT, or ROLLBACK when it failed.
  template <class T, class Read>
  Result<T> InReadTransaction(Read&& read) EXCLUDES(read_mu_);
  StoreDatabase(FileLock lock, std::unique_ptr<SqliteConnection> conn)
      : lock_(std::move(lock)), conn_(std::move(conn)) {}
  Status Initialize(const Options& options) REQUIRES(mu_);
  Status LoadOrCreateSchema(const std::string& path) REQUIRES(mu_);
  Result<int64_t> ReadMeta(std::string_view key) REQUIRES(mu_);
  Status WriteMeta(std::string_view key, int64_t value) REQUIRES(mu_);

  // Declared first: released after both connections are closed.
  FileLock lock_;
  Mutex mu_;
  const std::unique_ptr<SqliteConnection> conn_ PT_GUARDED_BY(mu_);
  Mutex read_mu_;
  // Set once by Open, before the store is shared.
  std::unique_ptr<SqliteConnection> read_conn_ PT_GUARDED_BY(read_mu_);
  int64_t rv_ GUARDED_BY(mu_) = 0;
  int64_t compacted_rv_ GUARDED_BY(mu_) = 0;
  // Values at Begin(), restored by Rollback().
  int64_t committed_rv_ GUARDED_BY(mu_) = 0;
  int64_t committed_compacted_rv_ GUARDED_BY(mu_) = 0;
};

// Gone status for a watch from `rv` when events up to `compacted` are gone.
Status TooOldResourceVersion(int64_t rv, int64_t compacted);

}  // namespace kuota::store
