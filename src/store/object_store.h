// ObjectStore: Kuota's durable object store for the standalone server. Keeps
// Kubernetes-style JSON objects in an embedded SQLite database (WAL, a write
// is acknowledged only after its transaction is committed and synced), keyed
// by resource ("clusterqueues.kueue.x-k8s.io", "jobs.batch", "pods"),
// namespace and name. Assigns uid, creationTimestamp, generation and a global,
// monotonically increasing resourceVersion; enforces optimistic concurrency;
// honours finalizers with deletionTimestamp; keeps a bounded event log so
// watches resume from a resourceVersion (Gone when it is too old).
// Thread-safe: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/result.h"

namespace kuota::store {

using Json = nlohmann::json;

struct StoreOptions {
  // SQLite database file; its directory must exist.
  std::string path;
  // Events kept for watch resumption; older resourceVersions get Gone.
  int64_t event_log_size = 100000;
  // PRAGMA synchronous=FULL (true) or NORMAL (false, for benchmarks only).
  bool sync = true;
  // Clock for creationTimestamp / deletionTimestamp; null = real time.
  const Clock* clock = nullptr;
  // Brings rows an older build wrote to the form this one stores (kuotad:
  // Kueue's kinds from v1beta1 to v1beta2, server/storage_upgrade.h). Given
  // a row's resource and object, the object to store instead, or nullopt
  // when the row is current; an error fails Open, naming the row. Open runs
  // it over every row, before the store serves, `upgrade_batch` rows per
  // transaction, unless the store records that `upgrade_level` was reached;
  // it is idempotent, so an Open interrupted midway (a crash, a kill)
  // finishes on the next. Unset: rows are served as stored. See row_upgrade.h.
  std::function<Result<std::optional<Json>>(const std::string& resource, const Json& object)>
      upgrade;
  int64_t upgrade_level = 0;  // > 0 with `upgrade`: the level it brings rows to
  int64_t upgrade_batch = 500;
  // Called after each committed upgrade batch with the rows rewritten so
  // far (kuotad's crash test kills itself here).
  std::function<void(int64_t rewritten)> after_upgrade_batch;
};

enum class EventType { kAdded, kModified, kDeleted, kBookmark };
const char* EventTypeName(EventType t);  // "ADDED", "MODIFIED", "DELETED", "BOOKMARK"

struct WatchEvent {
  EventType type = EventType::kAdded;
  std::string resource;
  Json object;  // the object after the change (before it, for DELETED)
  int64_t resource_version = 0;
  // `object` as the store wrote it (nlohmann::json::dump, metadata.
  // resourceVersion = resource_version), so a watch can send it without
  // serializing it again; empty where the store that made the event has none.
  std::string text;
};

// One event as a watcher hands it out: shared with the store's ring and every
// other watcher that selects it, so no watcher copies the object.
using EventPtr = std::shared_ptr<const WatchEvent>;

// An answer of ObjectStore::CreateShared/UpdateShared made from the object
// alone: an event of `type` and `resource` without text.
EventPtr SharedAnswer(EventType type, const std::string& resource, Json object);

// A watch's resource filter: "" selects every resource, "!R" every resource
// but R (kAllButEvents: what the in-process controllers watch — Events inform
// people, and a controller that received them would only drop them), any
// other value that one resource.
inline constexpr const char* kAllButEvents = "!events";
struct ResourceFilter {
  std::string_view resource;  // empty: every resource
  bool exclude = false;       // "!R": every resource but `resource`
};
ResourceFilter ParseResourceFilter(std::string_view filter);
bool ResourceSelected(const std::string& filter, const std::string& resource);

struct ListOptions {
  std::string ns;              // empty: all namespaces
  std::string label_selector;  // Kubernetes syntax: "a=b,c!=d,e in (x,y),!f,g"
  std::string field_selector;  // "metadata.name=x,metadata.namespace=y,status.phase=Running";
                               // any dotted JSON path with = / == / != is supported
  int64_t limit = 0;           // 0: no limit
  std::string continue_token;  // from a previous ListResult
  // With `limit`: count the items after the page (ListResult::remaining).
  // Counting reads the rest of the collection's index on every page; a
  // reader paging through everything turns it off and then gets a
  // continue_token whenever a page came back full (the next may be empty).
  bool count_remaining = true;
  // Hand the objects over as their stored JSON text (ListResult::texts)
  // instead of parsed (items), for readers that copy them out verbatim.
  // Only without selectors (else Invalid).
  bool as_text = false;
};

struct ListResult {
  std::vector<Json> items;         // ordered by namespace, then name
  std::vector<std::string> texts;  // with ListOptions::as_text, instead of items
  // The store's resourceVersion when this page was read (a later page of the
  // same list may be newer). Every event up to it has been handed to the
  // watchers open when List returns (List waits, up to a second, for the
  // batch that committed it to publish its events).
  int64_t resource_version = 0;
  std::string continue_token;  // non-empty when more items remain
  int64_t remaining = 0;       // items after this page (when continue_token is set)
};

struct UpdateOptions {
  // Update only .status (the status subresource): spec/metadata changes in
  // the given object are ignored, generation is not bumped.
  bool status_only = false;
  // The stored object exactly as Get returned it, when the caller has just
  // read it (a PATCH): a store may plan the update against it instead of
  // reading and parsing the row again, and takes it (moves from it). The
  // write still checks, in its transaction, that the row is at this
  // object's resourceVersion, and plans again from the row where it is not.
  std::shared_ptr<nlohmann::json> current = nullptr;
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
};

// One write of ObjectStore::WriteBatch: what Create, Update or Delete take.
struct BatchWrite {
  enum class Op { kCreate, kUpdate, kDelete };
  Op op = Op::kUpdate;
  std::string resource;
  Json object;           // kCreate, kUpdate
  UpdateOptions update;  // kUpdate
  std::string ns;        // kDelete
  std::string name;      // kDelete
  DeleteOptions del;     // kDelete
};

class Watcher {
 public:
  virtual ~Watcher() = default;
  // Waits up to `timeout` for the next event. Returns false on timeout or
  // after Stop(); `*event` is set only when it returns true. The event is
  // shared, not copied (hot consumers read it in place).
  virtual bool Next(EventPtr* event, std::chrono::milliseconds timeout) = 0;
  // The same, copying the event out.
  bool Next(WatchEvent* event, std::chrono::milliseconds timeout) {
    EventPtr shared;
    if (!Next(&shared, timeout)) return false;
    *event = *shared;
    return true;
  }
  // Wakes any Next() and makes it return false from now on.
  virtual void Stop() = 0;
  // False once the watch has ended (Stop(), store closed, or the watcher fell
  // too far behind): the client must list and watch again.
  virtual bool Alive() const = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Opens (creating if needed) the database. A database left by a crash is
  // recovered by SQLite; a file that is not a Kuota database is an error.
  static Result<std::unique_ptr<ObjectStore>> Open(const StoreOptions& options);

  // Creates `object` (metadata.name, or metadata.generateName + 5 random
  // [a-z0-9] chars). Sets uid, resourceVersion, creationTimestamp,
  // generation=1. AlreadyExists when the name is taken.
  virtual Result<Json> Create(const std::string& resource, Json object) = 0;
  // NotFound when absent.
  virtual Result<Json> Get(const std::string& resource, const std::string& ns,
                           const std::string& name) = 0;
  virtual Result<ListResult> List(const std::string& resource, const ListOptions& options) = 0;
  // Replaces the object named by object.metadata. If metadata.resourceVersion
  // is set and differs from the stored one: Conflict. Keeps uid and
  // creationTimestamp; bumps generation when .spec changed (not for status
  // updates). An object with deletionTimestamp whose finalizers become empty is
  // deleted. NotFound when absent.
  virtual Result<Json> Update(const std::string& resource, Json object,
                              const UpdateOptions& options = {}) = 0;
  // Deletes, or when finalizers are present sets deletionTimestamp (and
  // returns the updated object). NotFound when absent; Conflict when a
  // precondition fails.
  virtual Result<Json> Delete(const std::string& resource, const std::string& ns,
                              const std::string& name, const DeleteOptions& options = {}) = 0;

  // Create and Update answering with the write's watch event instead of a
  // copy of the object: its `object` is shared with the watchers (not
  // copied) and its `text`, where the store keeps one, is the object as
  // stored, byte for byte what dumping `object` gives, so a reply can send
  // it as is. An update that changed nothing answers with an event of the
  // unchanged object and no text. The defaults wrap Create and Update.
  virtual Result<EventPtr> CreateShared(const std::string& resource, Json object);
  virtual Result<EventPtr> UpdateShared(const std::string& resource, Json object,
                                        const UpdateOptions& options = {});

  // Applies `writes` in order as one transaction: they are committed (and
  // synced) together, so after a crash either every write of the batch that
  // succeeded is there or none is, and a watcher sees them in order. Each
  // write succeeds or fails on its own, as the single call would (a Conflict
  // undoes only that write), and sees the writes before it. Returns one
  // result per write, in order. The default runs them one call at a time (a
  // store without transactions).
  virtual std::vector<Result<Json>> WriteBatch(std::vector<BatchWrite> writes);

  // Streams changes to `resource` (a filter: "" every resource, "!R" all but
  // R, see ResourceSelected) in namespace `ns`
  // (empty: all) after `from_resource_version` (0: from now). A version older
  // than the kept event log gives a kGone status ("too old resource version").
  virtual Result<std::unique_ptr<Watcher>> Watch(const std::string& resource, const std::string& ns,
                                                 int64_t from_resource_version) = 0;

  virtual int64_t CurrentResourceVersion() = 0;

  // A version that changes whenever a write to `resource` commits, and is
  // changed before that write's caller is answered: a cache of `resource`
  // filled while it read V is current while it still reads V. -1 when the
  // store does not track it (nothing may be cached then).
  virtual int64_t WriteVersion(std::string_view resource);
};

}  // namespace kuota::store
