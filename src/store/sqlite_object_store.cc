#include "store/sqlite_object_store.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <random>
#include <utility>
#include <vector>

#include "store/continue_token.h"
#include "store/list_field_selector.h"
#include "store/list_label_selector.h"
#include "store/row_upgrade.h"
#include "store/store_watcher.h"

namespace kuota::store {
namespace {

// CPU time of the calling thread.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Parses a stored row; a row that is not JSON means the file was damaged.
Result<Json> ParseStored(const std::string& resource, const ObjectRow& row) {
  Json obj = Json::parse(row.json, nullptr, /*allow_exceptions=*/false);
  if (!obj.is_object()) {
    return Status::Internal("stored object " + resource + " " + row.ns + "/" + row.name +
                            " is not valid JSON");
  }
  return obj;
}

// The version and uid of a caller's copy of the stored object (what Get
// returned) when it names the row `meta` names; nullopt when it cannot be
// planned against.
std::optional<RowVersion> VersionOfCopy(const Json& copy, const ObjectMetaFields& meta) {
  Result<ObjectMetaFields> at = ReadMetaFields(copy);
  if (!at.ok() || at->ns != meta.ns || at->name != meta.name || at->uid.empty()) {
    return std::nullopt;
  }
  Result<int64_t> rv = ParseResourceVersion(at->resource_version, "resourceVersion");
  if (!rv.ok()) return std::nullopt;
  return RowVersion{*rv, at->uid};
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

// The resourceVersion a planned object is serialized with, until the batch
// leader knows the real one: random per process, so no stored text holds it
// by chance.
const std::string& RvPlaceholder() {
  static const std::string placeholder = [] {
    std::mt19937_64 rng = SeededEngine();
    char buf[48];
    std::snprintf(buf, sizeof buf, "kuota-rv-%016llx%016llx",
                  static_cast<unsigned long long>(rng()), static_cast<unsigned long long>(rng()));
    return std::string(buf);
  }();
  return placeholder;
}

// Serializes `object` with the placeholder as its resourceVersion.
Result<std::string> DumpPlanned(Json& object) {
  object["metadata"]["resourceVersion"] = RvPlaceholder();
  return DumpObject(object);
}

// Sets what a create gives a new object's metadata (all but its
// resourceVersion) and serializes it with the placeholder.
Result<std::string> StampCreated(Json& object, const std::string& name, const std::string& uid,
                                 Time now) {
  Json& m = object["metadata"];
  m["name"] = name;
  m["uid"] = uid;
  m["creationTimestamp"] = MetadataTimestamp(now);
  m["generation"] = 1;
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  return DumpPlanned(object);
}

// Puts `rv` where DumpPlanned put the placeholder.
Status SpliceResourceVersion(std::string& text, int64_t rv) {
  const std::string& placeholder = RvPlaceholder();
  const size_t at = text.find(placeholder);
  if (at == std::string::npos) {
    return Status::Internal("planned object lacks its resourceVersion placeholder");
  }
  text.replace(at, placeholder.size(), std::to_string(rv));
  return Status::Ok();
}

}  // namespace

SqliteObjectStore::WritePlan SqliteObjectStore::PlanUpdate(const std::string& resource,
                                                           const ObjectRow& row, const Json& object,
                                                           bool status_only) {
  Result<Json> parsed = ParseStored(resource, row);
  if (!parsed.ok()) {
    WritePlan plan;
    plan.based_on_rv = row.rv;
    plan.outcome = parsed.status();
    return plan;
  }
  return PlanUpdate(std::move(parsed).value(), row.rv, row.uid, object, status_only);
}

SqliteObjectStore::WritePlan SqliteObjectStore::PlanUpdate(Json stored, int64_t rv,
                                                           const std::string& uid,
                                                           const Json& object, bool status_only) {
  WritePlan plan;
  plan.based_on_rv = rv;
  Json next;
  if (status_only) {
    // The status subresource: everything but .status comes from the stored
    // object (parsed for this plan, so ours to change); .status is copied,
    // as the leader may have to plan again from `object`.
    auto status = object.find("status");
    auto had = stored.find("status");
    const bool same =
        status == object.end() ? had == stored.end() : had != stored.end() && *had == *status;
    if (same) {  // nothing changed: no write, no event
      plan.outcome = std::move(stored);
      return plan;
    }
    // Deletion follows finalizers, which a status write cannot change.
    plan.type = HasDeletionTimestamp(stored) && Finalizers(stored).empty() ? EventType::kDeleted
                                                                           : EventType::kModified;
    next = std::move(stored);
    if (status == object.end()) {
      next.erase("status");
    } else {
      next["status"] = *status;
    }
  } else {
    next = object;
    const Json& stored_meta = stored["metadata"];
    Json& m = next["metadata"];
    m["uid"] = uid;
    KeepField(stored_meta, m, "creationTimestamp");
    KeepField(stored_meta, m, "deletionTimestamp");
    KeepField(stored_meta, m, "deletionGracePeriodSeconds");
    if (HasDeletionTimestamp(stored)) {
      std::vector<std::string> had = Finalizers(stored);
      for (const std::string& f : Finalizers(next)) {
        if (std::find(had.begin(), had.end(), f) == had.end()) {
          plan.outcome = Status::Invalid(
              "metadata.finalizers: Forbidden: no new "
              "finalizers can be added if the object "
              "is being deleted, found new finalizer \"" +
              f + "\"");
          return plan;
        }
      }
    }
    m["generation"] = Generation(stored) + (GenerationChanges(stored, next) ? 1 : 0);
    m["resourceVersion"] = std::to_string(rv);
    if (next == stored) {  // nothing changed: no write, no event
      plan.outcome = std::move(stored);
      return plan;
    }
    // The last finalizer removed from an object being deleted: delete it now.
    plan.type = HasDeletionTimestamp(stored) && Finalizers(next).empty() ? EventType::kDeleted
                                                                         : EventType::kModified;
  }
  Result<std::string> text = DumpPlanned(next);
  if (!text.ok()) {
    plan.outcome = text.status();
    return plan;
  }
  plan.text = std::move(text).value();
  plan.write = true;
  plan.outcome = std::move(next);
  return plan;
}

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
  KUOTA_RETURN_IF_ERROR(UpgradeRows(*db, options));
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
  if (!committed.empty()) {
    MutexLock lock(&write_versions_mu_);
    for (const EventPtr& e : committed) write_versions_[e->resource] = e->resource_version;
  }
  // Outside the database mutex, so readers need not wait for watchers to be
  // woken; GroupCommit runs one batch at a time, so events still reach the
  // hub in commit order, and before any writer in the batch is answered.
  hub_->Publish(committed);
}

std::vector<EventPtr> SqliteObjectStore::ApplyBatch(std::span<GroupCommit::Write* const> batch) {
  MutexLock lock(db_->mu());
  const auto started = std::chrono::steady_clock::now();
  const double cpu_started = ThreadCpuSeconds();
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
  const auto commit_started = std::chrono::steady_clock::now();
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
  stats_.commit_seconds += SecondsSince(commit_started);
  stats_.transaction_seconds += SecondsSince(started);
  stats_.transaction_cpu_seconds += ThreadCpuSeconds() - cpu_started;
  return txn.TakeEvents();
}

Status SqliteObjectStore::Store(WriteTxn& txn, Pending& p, const ObjectMetaFields& key, Json object,
                                std::string text, const std::string& uid, EventType type) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  const int64_t rv = txn.NextResourceVersion();
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  KUOTA_RETURN_IF_ERROR(SpliceResourceVersion(text, rv));
  const std::string& resource = p.write->resource;
  if (type == EventType::kDeleted) {
    KUOTA_RETURN_IF_ERROR(db.DeleteObject(resource, key.ns, key.name));
  } else {
    ObjectRow row;
    row.ns = key.ns;
    row.name = key.name;
    row.uid = uid;
    row.rv = rv;
    row.json = std::move(text);
    KUOTA_RETURN_IF_ERROR(db.PutObject(resource, row));
    text = std::move(row.json);  // on to the event log, not copied
  }
  KUOTA_ASSIGN_OR_RETURN(
      p.event, txn.Emit(type, resource, key.ns, key.name, std::move(object), std::move(text)));
  return Status::Ok();
}

Result<Json> SqliteObjectStore::Answer(Result<Json> result, const Pending& p) {
  // The leader left the object in the event it logged; copy it out here.
  if (result.ok() && p.event) return Json(p.event->object);
  return result;
}

Result<EventPtr> SqliteObjectStore::SharedAnswerOf(Result<Json> result, const Pending& p) {
  if (!result.ok()) return result.status();
  if (p.event) return p.event;
  // Only an update that changed nothing logs no event.
  return SharedAnswer(EventType::kModified, p.write->resource, std::move(result).value());
}

// ---- Create ----------------------------------------------------------------

Result<Json> SqliteObjectStore::Create(const std::string& resource, Json object) {
  KUOTA_ASSIGN_OR_RETURN(EventPtr created, CreateShared(resource, std::move(object)));
  return Json(created->object);
}

Result<EventPtr> SqliteObjectStore::CreateShared(const std::string& resource, Json object) {
  BatchWrite w;
  w.op = BatchWrite::Op::kCreate;
  w.resource = resource;
  w.object = std::move(object);
  Pending p;
  return SharedAnswerOf(SubmitOne(w, p), p);
}

Result<Json> SqliteObjectStore::SubmitOne(BatchWrite& w, Pending& p) {
  p.write = &w;
  KUOTA_ASSIGN_OR_RETURN(GroupCommit::Apply apply, Prepare(p));
  return writes_.Submit(std::move(apply));
}

Result<GroupCommit::Apply> SqliteObjectStore::Prepare(Pending& p) {
  BatchWrite& w = *p.write;
  switch (w.op) {
    case BatchWrite::Op::kCreate: {
      KUOTA_ASSIGN_OR_RETURN(p.meta, ReadMetaFields(w.object));
      DropNullMetaFields(w.object);
      if (p.meta.name.empty() && p.meta.generate_name.empty()) {
        return Status::Invalid("metadata.name: Required value: name or generateName is required");
      }
      if (!p.meta.name.empty()) {
        // Named: everything but the resourceVersion is known now.
        thread_local std::mt19937_64 rng = SeededEngine();
        WritePlan plan;
        plan.uid = NewUid(rng);
        Json object = std::move(w.object);
        KUOTA_ASSIGN_OR_RETURN(plan.text,
                               StampCreated(object, p.meta.name, plan.uid, clock_.Now()));
        plan.outcome = std::move(object);
        plan.write = true;
        plan.type = EventType::kAdded;
        p.plan = std::move(plan);
      }
      return GroupCommit::Apply([this, &p](WriteTxn& txn) { return ApplyCreate(txn, p); });
    }
    case BatchWrite::Op::kUpdate: {
      KUOTA_ASSIGN_OR_RETURN(p.meta, ReadMetaFields(w.object));
      DropNullMetaFields(w.object);
      if (p.meta.name.empty()) {
        return Status::Invalid("metadata.name: Required value: name is required");
      }
      if (!p.meta.resource_version.empty()) {
        KUOTA_RETURN_IF_ERROR(
            ParseResourceVersion(p.meta.resource_version, "metadata.resourceVersion").status());
      }
      // Planned against the last commit; the leader plans again only when
      // the row changed since (or could not be read here). The caller's
      // copy of the stored object, when it gave one for this row, saves the
      // read.
      const std::shared_ptr<Json> copy = std::move(w.update.current);
      const std::optional<RowVersion> copy_at =
          copy ? VersionOfCopy(*copy, p.meta) : std::optional<RowVersion>();
      std::optional<ObjectRow> row;
      if (!copy_at) {
        Result<std::optional<ObjectRow>> read = db_->ReadObject(w.resource, p.meta.ns, p.meta.name);
        if (read.ok()) row = std::move(read).value();
      }
      if (copy_at || row) {
        try {
          p.plan = copy_at ? PlanUpdate(std::move(*copy), copy_at->rv, copy_at->uid, w.object,
                                        w.update.status_only)
                           : PlanUpdate(w.resource, *row, w.object, w.update.status_only);
        } catch (const std::exception&) {
          p.plan.reset();  // the leader plans again and reports what failed
        }
      }
      return GroupCommit::Apply([this, &p](WriteTxn& txn) { return ApplyUpdate(txn, p); });
    }
    case BatchWrite::Op::kDelete:
      return GroupCommit::Apply([this, &p](WriteTxn& txn) { return ApplyDelete(txn, p); });
  }
  return Status::Invalid("unknown write");
}

std::vector<Result<Json>> SqliteObjectStore::WriteBatch(std::vector<BatchWrite> writes) {
  std::vector<Result<Json>> results(writes.size(), Status::Internal("write was not run"));
  std::vector<Pending> pending(writes.size());  // never reallocated: the applies point into it
  std::vector<GroupCommit::Apply> applies;
  std::vector<size_t> queued;  // index in `writes` of each of `applies`
  for (size_t i = 0; i < writes.size(); ++i) {
    pending[i].write = &writes[i];
    Result<GroupCommit::Apply> apply = Prepare(pending[i]);
    if (!apply.ok()) {
      results[i] = apply.status();
      continue;
    }
    applies.push_back(std::move(apply).value());
    queued.push_back(i);
  }
  std::vector<Result<Json>> done = writes_.SubmitAll(std::move(applies));
  for (size_t j = 0; j < queued.size() && j < done.size(); ++j) {
    results[queued[j]] = Answer(std::move(done[j]), pending[queued[j]]);
  }
  return results;
}

Result<Json> SqliteObjectStore::ApplyCreate(WriteTxn& txn, Pending& p) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  const std::string& resource = p.write->resource;
  if (p.plan) {
    KUOTA_ASSIGN_OR_RETURN(std::optional<RowVersion> taken,
                           db.GetRowVersion(resource, p.meta.ns, p.meta.name));
    if (taken) return AlreadyExistsError(resource, p.meta.name);
    WritePlan& plan = *p.plan;
    KUOTA_RETURN_IF_ERROR(Store(txn, p, p.meta, std::move(plan.outcome).value(),
                                std::move(plan.text), plan.uid, EventType::kAdded));
    return Json();  // Answer copies the object out of the event
  }
  // generateName: the name is found here, where no other write can take it.
  // kube-apiserver gives up on a generated name that is taken; a few
  // retries make that practically impossible.
  std::string name;
  constexpr int kAttempts = 8;
  for (int i = 0; i < kAttempts; ++i) {
    std::string candidate = p.meta.generate_name + GenerateNameSuffix(txn.rng());
    KUOTA_ASSIGN_OR_RETURN(std::optional<RowVersion> taken,
                           db.GetRowVersion(resource, p.meta.ns, candidate));
    if (!taken) {
      name = std::move(candidate);
      break;
    }
    if (i + 1 == kAttempts) return AlreadyExistsError(resource, candidate);
  }
  const std::string uid = NewUid(txn.rng());
  Json object = std::move(p.write->object);
  KUOTA_ASSIGN_OR_RETURN(std::string text, StampCreated(object, name, uid, txn.Now()));
  ObjectMetaFields key = p.meta;
  key.name = name;
  KUOTA_RETURN_IF_ERROR(
      Store(txn, p, key, std::move(object), std::move(text), uid, EventType::kAdded));
  return Json();
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
  KUOTA_ASSIGN_OR_RETURN(EventPtr updated, UpdateShared(resource, std::move(object), options));
  return Json(updated->object);
}

Result<EventPtr> SqliteObjectStore::UpdateShared(const std::string& resource, Json object,
                                                 const UpdateOptions& options) {
  BatchWrite w;
  w.op = BatchWrite::Op::kUpdate;
  w.resource = resource;
  w.object = std::move(object);
  w.update = options;
  Pending p;
  return SharedAnswerOf(SubmitOne(w, p), p);
}

Result<Json> SqliteObjectStore::ApplyUpdate(WriteTxn& txn, Pending& p) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  const std::string& resource = p.write->resource;
  const ObjectMetaFields& meta = p.meta;
  KUOTA_ASSIGN_OR_RETURN(std::optional<RowVersion> current,
                         db.GetRowVersion(resource, meta.ns, meta.name));
  if (!current) return NotFoundError(resource, meta.name);
  if (!meta.resource_version.empty() && meta.resource_version != std::to_string(current->rv)) {
    return ModifiedConflictError(resource, meta.name);
  }
  if (!meta.uid.empty() && meta.uid != current->uid) {
    return PreconditionConflictError(resource, meta.name, "UID", meta.uid, current->uid);
  }
  if (!p.plan || p.plan->based_on_rv != current->rv) {
    // Planned from an older version (or not at all): plan again on the
    // object as it is now.
    KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> row,
                           db.GetObject(resource, meta.ns, meta.name));
    if (!row) return NotFoundError(resource, meta.name);
    p.plan = PlanUpdate(resource, *row, p.write->object, p.write->update.status_only);
  }
  WritePlan& plan = *p.plan;
  if (!plan.write) return std::move(plan.outcome);  // an error, or nothing changed
  KUOTA_RETURN_IF_ERROR(Store(txn, p, meta, std::move(plan.outcome).value(), std::move(plan.text),
                              current->uid, plan.type));
  return Json();  // Answer copies the object out of the event
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
  Pending p;
  return Answer(SubmitOne(w, p), p);
}

Result<Json> SqliteObjectStore::ApplyDelete(WriteTxn& txn, Pending& p) {
  StoreDatabase& db = txn.db();
  db.mu()->AssertHeld();  // the batch leader holds it for the whole transaction
  const BatchWrite& w = *p.write;
  const std::string& resource = w.resource;
  const std::string& name = w.name;
  const DeleteOptions& options = w.del;
  KUOTA_ASSIGN_OR_RETURN(std::optional<ObjectRow> row, db.GetObject(resource, w.ns, name));
  if (!row) return NotFoundError(resource, name);
  ObjectMetaFields key;
  key.ns = w.ns;
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
  EventType type = EventType::kDeleted;
  if (!Finalizers(stored).empty()) {
    // Finalizers hold the object: mark it and leave it to their controllers.
    if (HasDeletionTimestamp(stored)) return stored;
    Json& m = stored["metadata"];
    m["deletionTimestamp"] = MetadataTimestamp(txn.Now());
    m["deletionGracePeriodSeconds"] = 0;
    m["generation"] = Generation(stored) + 1;
    type = EventType::kModified;
  }
  KUOTA_ASSIGN_OR_RETURN(std::string text, DumpPlanned(stored));
  KUOTA_RETURN_IF_ERROR(Store(txn, p, key, std::move(stored), std::move(text), row->uid, type));
  return Json();  // Answer copies the object out of the event
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

int64_t SqliteObjectStore::WriteVersion(std::string_view resource) {
  MutexLock lock(&write_versions_mu_);
  auto it = write_versions_.find(resource);
  return it == write_versions_.end() ? 0 : it->second;
}

int64_t SqliteObjectStore::CurrentResourceVersion() {
  MutexLock lock(db_->mu());
  return db_->resource_version();
}

}  // namespace kuota::store
