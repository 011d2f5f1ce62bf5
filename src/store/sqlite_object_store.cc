#include "store/sqlite_object_store.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <utility>
#include <vector>

#include "store/continue_token.h"
#include "store/list_field_selector.h"
#include "store/list_label_selector.h"
#include "store/store_watcher.h"

namespace kuota::store {
namespace {

// Parses a stored row; a row that is not JSON means the file was damaged.
Result<Json> ParseStored(const std::string& resource, const ObjectRow& row) {
  Json obj = Json::parse(row.json, nullptr, /*allow_exceptions=*/false);
  if (!obj.is_object()) {
    return Status::Internal("stored object " + resource + " " + row.ns + "/" + row.name +
                            " is not valid JSON");
  }
  return obj;
}

bool HasDeletionTimestamp(const Json& obj) {
  auto meta = obj.find("metadata");
  return meta != obj.end() && meta->is_object() && meta->contains("deletionTimestamp") &&
         !(*meta)["deletionTimestamp"].is_null();
}

int64_t Generation(const Json& obj) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return 0;
  auto gen = meta->find("generation");
  return gen != meta->end() && gen->is_number_integer() ? gen->get<int64_t>() : 0;
}

// Copies metadata[key] from `from` to `to`, or removes it when `from` lacks it.
void KeepField(const Json& from, Json& to, const char* key) {
  auto it = from.find(key);
  if (it == from.end()) {
    to.erase(key);
  } else {
    to[key] = *it;
  }
}

// Seeded with 256 bits, so uids from different processes do not repeat.
std::mt19937_64 SeededEngine() {
  std::random_device rd;
  std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
  return std::mt19937_64(seq);
}

}  // namespace

Result<std::unique_ptr<SqliteObjectStore>> SqliteObjectStore::Open(const StoreOptions& options,
                                                                   const StoreTuning& tuning) {
  if (options.event_log_size < 0) {
    return Status::Invalid("event_log_size: must not be negative");
  }
  StoreDatabase::Options db_options;
  db_options.path = options.path;
  db_options.sync = options.sync;
  db_options.busy_timeout_ms = tuning.busy_timeout_ms;
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<StoreDatabase> db, StoreDatabase::Open(db_options));
  return std::unique_ptr<SqliteObjectStore>(
      new SqliteObjectStore(options, tuning, std::shared_ptr<StoreDatabase>(std::move(db))));
}

SqliteObjectStore::SqliteObjectStore(const StoreOptions& options, const StoreTuning& tuning,
                                     std::shared_ptr<StoreDatabase> db)
    : options_(options),
      tuning_(tuning),
      clock_(options.clock != nullptr ? *options.clock : real_clock_),
      db_(std::move(db)),
      hub_([&] {
        MutexLock lock(db_->mu());
        // The ring reaches no further back than the event log (give or take
        // a batch being published), so a trimmed version is Gone either way.
        size_t ring =
            std::min<size_t>(tuning.ring_capacity, static_cast<size_t>(options.event_log_size));
        return std::make_shared<WatchHub>(ring, tuning.watcher_queue_limit,
                                          db_->resource_version());
      }()),
      rng_(SeededEngine()),
      writes_(tuning.max_batch,
              [this](std::span<GroupCommit::Write* const> batch) { RunBatch(batch); }) {}

SqliteObjectStore::~SqliteObjectStore() { hub_->CloseAll(); }

void SqliteObjectStore::RunBatch(std::span<GroupCommit::Write* const> batch) {
  std::vector<EventPtr> committed = ApplyBatch(batch);
  // Outside the database mutex, so readers need not wait for watchers to be
  // woken; GroupCommit runs one batch at a time, so events still reach the
  // hub in commit order, and before any writer in the batch is answered.
  hub_->Publish(committed);
}

std::vector<EventPtr> SqliteObjectStore::ApplyBatch(std::span<GroupCommit::Write* const> batch) {
  MutexLock lock(db_->mu());
  Status st = db_->Begin();
  if (!st.ok()) {
    for (GroupCommit::Write* w : batch) w->result = st;
    return {};
  }
  WriteTxn txn(*db_, clock_, rng_, db_->resource_version());
  size_t ran = 0;
  for (GroupCommit::Write* w : batch) {
    st = db_->Savepoint();
    if (!st.ok()) break;
    const int64_t rv_before = txn.resource_version();
    const size_t events_before = txn.events().size();
    try {
      w->result = w->apply(txn);
    } catch (const std::exception& e) {
      // nlohmann::json and the standard library may throw; the batch and
      // the writers queued behind it must go on.
      w->result = Status::Internal(std::string("write failed: ") + e.what());
    }
    ++ran;
    if (w->result.ok()) {
      st = db_->ReleaseSavepoint();
    } else {
      // Only this write's changes go; the rest of the batch stands.
      st = db_->RollbackToSavepoint();
      txn.Undo(rv_before, events_before);
    }
    if (!st.ok()) break;
  }
  if (st.ok() && txn.resource_version() != db_->resource_version()) {
    st = db_->SetResourceVersion(txn.resource_version(), options_.event_log_size);
  }
  if (st.ok()) st = db_->Commit();  // durable (synchronous=FULL) before anyone is told
  if (!st.ok()) {
    db_->Rollback();
    Status failed = st.WithContext("write not committed");
    for (size_t i = 0; i < batch.size(); ++i) {
      // Writes refused on their own merits (NotFound, Conflict, ...) keep
      // that answer; every other write in the batch was lost with it.
      if (i >= ran || batch[i]->result.ok()) batch[i]->result = failed;
    }
    return {};
  }
  ++stats_.transactions;
  stats_.writes += static_cast<int64_t>(batch.size());
  return txn.TakeEvents();
}

Status SqliteObjectStore::Store(WriteTxn& txn, const std::string& resource,
                                const ObjectMetaFields& key, const Json& object,
                                const std::string& uid, EventType type) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  KUOTA_ASSIGN_OR_RETURN(std::string text, DumpObject(object));
  if (type == EventType::kDeleted) {
    KUOTA_RETURN_IF_ERROR(db.DeleteObject(resource, key.ns, key.name));
  } else {
    ObjectRow row;
    row.ns = key.ns;
    row.name = key.name;
    row.uid = uid;
    row.rv = txn.resource_version();
    row.json = text;
    KUOTA_RETURN_IF_ERROR(db.PutObject(resource, row));
  }
  return txn.Emit(type, resource, key.ns, key.name, object, text);
}

// ---- Create ----------------------------------------------------------------

Result<Json> SqliteObjectStore::Create(const std::string& resource, Json object) {
  BatchWrite w;
  w.op = BatchWrite::Op::kCreate;
  w.resource = resource;
  w.object = std::move(object);
  KUOTA_ASSIGN_OR_RETURN(GroupCommit::Apply apply, Prepare(w));
  return writes_.Submit(std::move(apply));
}

Result<GroupCommit::Apply> SqliteObjectStore::Prepare(BatchWrite& w) {
  switch (w.op) {
    case BatchWrite::Op::kCreate: {
      KUOTA_ASSIGN_OR_RETURN(ObjectMetaFields meta, ReadMetaFields(w.object));
      DropNullMetaFields(w.object);
      if (meta.name.empty() && meta.generate_name.empty()) {
        return Status::Invalid("metadata.name: Required value: name or generateName is required");
      }
      return GroupCommit::Apply([this, &w, meta = std::move(meta)](WriteTxn& txn) {
        return ApplyCreate(txn, w.resource, std::move(w.object), meta);
      });
    }
    case BatchWrite::Op::kUpdate: {
      KUOTA_ASSIGN_OR_RETURN(ObjectMetaFields meta, ReadMetaFields(w.object));
      DropNullMetaFields(w.object);
      if (meta.name.empty()) {
        return Status::Invalid("metadata.name: Required value: name is required");
      }
      if (!meta.resource_version.empty()) {
        KUOTA_RETURN_IF_ERROR(
            ParseResourceVersion(meta.resource_version, "metadata.resourceVersion").status());
      }
      return GroupCommit::Apply([this, &w, meta = std::move(meta)](WriteTxn& txn) {
        return ApplyUpdate(txn, w.resource, std::move(w.object), meta, w.update.status_only);
      });
    }
    case BatchWrite::Op::kDelete:
      return GroupCommit::Apply(
          [this, &w](WriteTxn& txn) { return ApplyDelete(txn, w.resource, w.ns, w.name, w.del); });
  }
  return Status::Invalid("unknown write");
}

std::vector<Result<Json>> SqliteObjectStore::WriteBatch(std::vector<BatchWrite> writes) {
  std::vector<Result<Json>> results(writes.size(), Status::Internal("write was not run"));
  std::vector<GroupCommit::Apply> applies;
  std::vector<size_t> queued;  // index in `writes` of each of `applies`
  for (size_t i = 0; i < writes.size(); ++i) {
    Result<GroupCommit::Apply> apply = Prepare(writes[i]);
    if (!apply.ok()) {
      results[i] = apply.status();
      continue;
    }
    applies.push_back(std::move(apply).value());
    queued.push_back(i);
  }
  std::vector<Result<Json>> done = writes_.SubmitAll(std::move(applies));
  for (size_t j = 0; j < queued.size() && j < done.size(); ++j) {
    results[queued[j]] = std::move(done[j]);
  }
  return results;
}

Result<Json> SqliteObjectStore::ApplyCreate(WriteTxn& txn, const std::string& resource, Json object,
                                            const ObjectMetaFields& meta) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  std::string name = meta.name;
  if (name.empty()) {
    // kube-apiserver gives up on a generated name that is taken; a few
    // retries make that practically impossible.
    constexpr int kAttempts = 8;
    for (int i = 0; i < kAttempts; ++i) {
      std::string candidate = meta.generate_name + GenerateNameSuffix(txn.rng());
      KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> taken,
                             db.GetObject(resource, meta.ns, candidate));
      if (!taken) {
        name = std::move(candidate);
        break;
      }
      if (i + 1 == kAttempts) return AlreadyExistsError(resource, candidate);
    }
  } else {
    KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> taken, db.GetObject(resource, meta.ns, name));
    if (taken) return AlreadyExistsError(resource, name);
  }
  const int64_t rv = txn.NextResourceVersion();
  const std::string uid = NewUid(txn.rng());
  Json& m = object["metadata"];
  m["name"] = name;
  m["uid"] = uid;
  m["resourceVersion"] = std::to_string(rv);
  m["creationTimestamp"] = MetadataTimestamp(txn.Now());
  m["generation"] = 1;
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  ObjectMetaFields key = meta;
  key.name = name;
  KUOTA_RETURN_IF_ERROR(Store(txn, resource, key, object, uid, EventType::kAdded));
  return object;
}

// ---- Get / List
// --------------------------------------------------------------

Result<Json> SqliteObjectStore::Get(const std::string& resource, const std::string& ns,
                                    const std::string& name) {
  // The read connection: the last committed state, without waiting for a
  // batch being written (and synced) under mu().
  KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> row, db_->ReadObject(resource, ns, name));
  if (!row) return NotFoundError(resource, name);
  return ParseStored(resource, *row);
}

Result<ListResult> SqliteObjectStore::List(const std::string& resource,
                                           const ListOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(ListLabelSelector labels,
                         ListLabelSelector::Parse(options.label_selector));
  KUOTA_ASSIGN_OR_RETURN(ListFieldSelector fields,
                         ListFieldSelector::Parse(options.field_selector));
  if (options.limit < 0) return Status::Invalid("limit: Invalid value: must not be negative");
  std::optional<ObjectKey> after;
  if (!options.continue_token.empty()) {
    KUOTA_ASSIGN_OR_RETURN(ContinueToken token, ContinueToken::Decode(options.continue_token));
    after = ObjectKey{token.ns, token.name};
  }
  const bool filtered = !labels.empty() || !fields.empty();
  if (filtered && options.as_text) {
    return Status::Invalid("a list of stored JSON text takes no selectors");
  }

  ListResult out;
  std::vector<ObjectRow> rows;
  int64_t unread = 0;  // rows after `rows` (only counted when not filtering)
  {
    // On the read connection: a large list does not hold up writers.
    // Without selectors SQLite does the paging; with them every remaining
    // row is read, so the page and `remaining` count only matching objects.
    KUOTA_ASSIGN_OR_RETURN(
        StoreDatabase::ListPage page,
        db_->ReadListPage(resource, options.ns, after, filtered ? 0 : options.limit,
                          !filtered && options.count_remaining));
    out.resource_version = page.resource_version;
    rows = std::move(page.rows);
    if (!filtered && options.limit > 0 && static_cast<int64_t>(rows.size()) == options.limit) {
      // Counted, or at least "maybe one more".
      unread = options.count_remaining ? page.rest : 1;
    }
  }
  // The batch that committed out.resource_version may still be handing its
  // events to watchers; wait for it, so that a watch opened before this List
  // has every event up to that version queued once List returns.
  hub_->WaitPublished(out.resource_version, std::chrono::seconds(1));

  if (options.as_text) {
    out.texts.reserve(rows.size());
    for (ObjectRow& row : rows) out.texts.push_back(std::move(row.json));
    if (unread > 0 && !rows.empty()) {
      out.continue_token =
          ContinueToken{out.resource_version, rows.back().ns, rows.back().name}.Encode();
      if (options.count_remaining) out.remaining = unread;
    }
    return out;
  }

  const ObjectRow* last_returned = nullptr;
  for (const ObjectRow& row : rows) {
    const bool page_full =
        options.limit > 0 && static_cast<int64_t>(out.items.size()) == options.limit;
    if (page_full && !filtered) break;
    KUOTA_ASSIGN_OR_RETURN(Json obj, ParseStored(resource, row));
    if (filtered) {
      auto meta = obj.find("metadata");
      Json no_labels;
      const Json& obj_labels = meta != obj.end() && meta->is_object() && meta->contains("labels")
                                   ? (*meta)["labels"]
                                   : no_labels;
      if (!labels.Matches(obj_labels) || !fields.Matches(obj)) continue;
      if (page_full) {
        ++out.remaining;
        continue;
      }
    }
    out.items.push_back(std::move(obj));
    last_returned = &row;
  }
  if (!filtered) out.remaining = unread;
  if (out.remaining > 0 && last_returned != nullptr) {
    out.continue_token =
        ContinueToken{out.resource_version, last_returned->ns, last_returned->name}.Encode();
    if (!filtered && !options.count_remaining) out.remaining = 0;  // not counted
  } else {
    out.remaining = 0;
  }
  return out;
}

// ---- Update
// ------------------------------------------------------------------

Result<Json> SqliteObjectStore::Update(const std::string& resource, Json object,
                                       const UpdateOptions& options) {
  BatchWrite w;
  w.op = BatchWrite::Op::kUpdate;
  w.resource = resource;
  w.object = std::move(object);
  w.update = options;
  KUOTA_ASSIGN_OR_RETURN(GroupCommit::Apply apply, Prepare(w));
  return writes_.Submit(std::move(apply));
}

Result<Json> SqliteObjectStore::ApplyUpdate(WriteTxn& txn, const std::string& resource, Json object,
                                            const ObjectMetaFields& meta, bool status_only) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> row, db.GetObject(resource, meta.ns, meta.name));
  if (!row) return NotFoundError(resource, meta.name);
  KUOTA_ASSIGN_OR_RETURN(Json stored, ParseStored(resource, *row));
  if (!meta.resource_version.empty() && meta.resource_version != std::to_string(row->rv)) {
    return ModifiedConflictError(resource, meta.name);
  }
  if (!meta.uid.empty() && meta.uid != row->uid) {
    return PreconditionConflictError(resource, meta.name, "UID", meta.uid, row->uid);
  }
  const Json& stored_meta = stored["metadata"];

  Json next;
  if (status_only) {
    // The status subresource: everything but .status comes from the stored
    // object, which is ours to change (parsed for this write): no copy.
    auto status = object.find("status");
    auto had = stored.find("status");
    const bool same =
        status == object.end() ? had == stored.end() : had != stored.end() && *had == *status;
    if (same) return stored;  // nothing changed: no write, no event
    // Deletion follows finalizers, which a status write cannot change.
    const bool deleting = HasDeletionTimestamp(stored) && Finalizers(stored).empty();
    next = std::move(stored);
    if (status == object.end()) {
      next.erase("status");
    } else {
      next["status"] = std::move(*status);
    }
    txn.NextResourceVersion();
    next["metadata"]["resourceVersion"] = std::to_string(txn.resource_version());
    KUOTA_RETURN_IF_ERROR(Store(txn, resource, meta, next, row->uid,
                                deleting ? EventType::kDeleted : EventType::kModified));
    return next;
  } else {
    next = std::move(object);
    Json& m = next["metadata"];
    m["uid"] = row->uid;
    KeepField(stored_meta, m, "creationTimestamp");
    KeepField(stored_meta, m, "deletionTimestamp");
    KeepField(stored_meta, m, "deletionGracePeriodSeconds");
    if (HasDeletionTimestamp(stored)) {
      std::vector<std::string> had = Finalizers(stored);
      for (const std::string& f : Finalizers(next)) {
        if (std::find(had.begin(), had.end(), f) == had.end()) {
          return Status::Invalid(
              "metadata.finalizers: Forbidden: no new "
              "finalizers can be added if the object "
              "is being deleted, found new finalizer \"" +
              f + "\"");
        }
      }
    }
    m["generation"] = Generation(stored) + (GenerationChanges(stored, next) ? 1 : 0);
  }
  next["metadata"]["resourceVersion"] = std::to_string(row->rv);
  if (next == stored) return stored;  // nothing changed: no write, no event

  txn.NextResourceVersion();
  next["metadata"]["resourceVersion"] = std::to_string(txn.resource_version());
  // The last finalizer removed from an object being deleted: delete it now.
  const EventType type = HasDeletionTimestamp(stored) && Finalizers(next).empty()
                             ? EventType::kDeleted
                             : EventType::kModified;
  KUOTA_RETURN_IF_ERROR(Store(txn, resource, meta, next, row->uid, type));
  return next;
}

// ---- Delete
// ------------------------------------------------------------------

Result<Json> SqliteObjectStore::Delete(const std::string& resource, const std::string& ns,
                                       const std::string& name, const DeleteOptions& options) {
  BatchWrite w;
  w.op = BatchWrite::Op::kDelete;
  w.resource = resource;
  w.ns = ns;
  w.name = name;
  w.del = options;
  KUOTA_ASSIGN_OR_RETURN(GroupCommit::Apply apply, Prepare(w));
  return writes_.Submit(std::move(apply));
}

Result<Json> SqliteObjectStore::ApplyDelete(WriteTxn& txn, const std::string& resource,
                                            const std::string& ns, const std::string& name,
                                            const DeleteOptions& options) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> row, db.GetObject(resource, ns, name));
  if (!row) return NotFoundError(resource, name);
  ObjectMetaFields key;
  key.ns = ns;
  key.name = name;
  KUOTA_ASSIGN_OR_RETURN(Json stored, ParseStored(resource, *row));
  if (options.precondition_uid && *options.precondition_uid != row->uid) {
    return PreconditionConflictError(resource, name, "UID", *options.precondition_uid, row->uid);
  }
  const std::string stored_rv = std::to_string(row->rv);
  if (options.precondition_resource_version &&
      *options.precondition_resource_version != stored_rv) {
    return PreconditionConflictError(resource, name, "ResourceVersion",
                                     *options.precondition_resource_version, stored_rv);
  }
  if (!Finalizers(stored).empty()) {
    // Finalizers hold the object: mark it and leave it to their controllers.
    if (HasDeletionTimestamp(stored)) return stored;
    txn.NextResourceVersion();
    Json& m = stored["metadata"];
    m["deletionTimestamp"] = MetadataTimestamp(txn.Now());
    m["deletionGracePeriodSeconds"] = 0;
    m["generation"] = Generation(stored) + 1;
    m["resourceVersion"] = std::to_string(txn.resource_version());
    KUOTA_RETURN_IF_ERROR(Store(txn, resource, key, stored, row->uid, EventType::kModified));
    return stored;
  }
  txn.NextResourceVersion();
  stored["metadata"]["resourceVersion"] = std::to_string(txn.resource_version());
  KUOTA_RETURN_IF_ERROR(Store(txn, resource, key, stored, row->uid, EventType::kDeleted));
  return stored;
}

// ---- Watch
// -------------------------------------------------------------------

Result<std::unique_ptr<Watcher>> SqliteObjectStore::Watch(const std::string& resource,
                                                          const std::string& ns,
                                                          int64_t from_resource_version) {
  if (from_resource_version < 0) {
    return Status::Invalid("resourceVersion: Invalid value: " +
                           std::to_string(from_resource_version) + ": must not be negative");
  }
  int64_t from = from_resource_version;
  std::shared_ptr<Subscription> sub = hub_->Subscribe(resource, ns, &from);
  bool catch_up;
  {
    MutexLock lock(&sub->mu);
    catch_up = sub->catchup_after < sub->catchup_up_to;
  }
  if (catch_up) {
    // Read the first page now, so a version the log no longer holds fails
    // the Watch call itself with Gone.
    Status st = ReadCatchupPage(*db_, *sub, tuning_.catchup_page_size);
    if (!st.ok()) {
      hub_->Unsubscribe(sub.get());
      return st;
    }
  }
  return std::unique_ptr<Watcher>(std::make_unique<StoreWatcher>(
      hub_, std::move(sub), std::weak_ptr<StoreDatabase>(db_), tuning_.catchup_page_size));
}

SqliteObjectStore::WriteStats SqliteObjectStore::write_stats() {
  MutexLock lock(db_->mu());
  return stats_;
}

int64_t SqliteObjectStore::CurrentResourceVersion() {
  MutexLock lock(db_->mu());
  return db_->resource_version();
}

}  // namespace kuota::store
