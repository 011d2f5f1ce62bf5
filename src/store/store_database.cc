#include "store/store_database.h"

#include <sqlite3.h>

#include <algorithm>
#include <utility>

#include "store/object_store.h"

namespace kuota::store {
namespace {

constexpr std::string_view kCreateSchema = R"sql(
CREATE TABLE kuota_meta(
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
CREATE TABLE objects(
  id INTEGER PRIMARY KEY,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  uid TEXT NOT NULL,
  rv INTEGER NOT NULL,
  json TEXT NOT NULL,
  UNIQUE(resource, namespace, name)
);
CREATE TABLE events(
  rv INTEGER PRIMARY KEY,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  json TEXT NOT NULL
);
INSERT INTO kuota_meta(key, value) VALUES
  ('schema_version', 1), ('resource_version', 0), ('compacted_resource_version', 0);
)sql";

constexpr std::string_view kSchemaVersionKey = "schema_version";
constexpr std::string_view kResourceVersionKey = "resource_version";
constexpr std::string_view kCompactedKey = "compacted_resource_version";

// Steps `stmt` to its end, appending read(stmt) for each row it returns.
// The SELECTs name their columns in the order of the row struct's fields.
template <typename Row, typename Read>
Status ReadRows(Statement& stmt, std::vector<Row>& out, Read read) {
  while (true) {
    KUOTA_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) return Status::Ok();
    out.push_back(read(stmt));
  }
}

}  // namespace

Status TooOldResourceVersion(int64_t rv, int64_t compacted) {
  return Status::Gone("too old resource version: " + std::to_string(rv) + " (" +
                      std::to_string(compacted) + ")");
}

namespace {

// The kuota_meta value of `key` (ReadMeta on either connection).
Result<int64_t> SelectMeta(SqliteConnection& conn, std::string_view key) {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         conn.Prepare("SELECT value FROM kuota_meta WHERE key = ?1"));
  stmt.Bind(1, key);
  KUOTA_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Invalid("kuota_meta has no " + std::string(key) + " row");
  return stmt.ColumnInt(0);
}

// `columns` of the objects row keyed (resource, namespace, name), stepped
// onto that row if there is one (*found).
Result<Statement> SelectByKey(SqliteConnection& conn, std::string_view columns,
                              std::string_view resource, std::string_view ns, std::string_view name,
                              bool* found) {
  KUOTA_ASSIGN_OR_RETURN(
      Statement stmt,
      conn.Prepare("SELECT " + std::string(columns) +
                   " FROM objects WHERE resource = ?1 AND namespace = ?2 AND name = ?3"));
  stmt.Bind(1, resource).Bind(2, ns).Bind(3, name);
  KUOTA_ASSIGN_OR_RETURN(*found, stmt.Step());
  return stmt;
}

// Rows of `SELECT uid, rv, json FROM objects WHERE (resource, namespace, name)`.
Result<std::optional<ObjectRow>> SelectObject(SqliteConnection& conn, std::string_view resource,
                                              std::string_view ns, std::string_view name) {
  bool found = false;
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         SelectByKey(conn, "uid, rv, json", resource, ns, name, &found));
  if (!found) return std::optional<ObjectRow>();
  ObjectRow row;
  row.ns = std::string(ns);
  row.name = std::string(name);
  row.uid = stmt.ColumnText(0);
  row.rv = stmt.ColumnInt(1);
  row.json = stmt.ColumnText(2);
  return std::optional<ObjectRow>(std::move(row));
}

}  // namespace

Result<std::unique_ptr<StoreDatabase>> StoreDatabase::Open(const Options& options) {
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> conn,
                         SqliteConnection::Open(options.path, options.busy_timeout_ms));
  Result<FileLock> file_lock = FileLock::Acquire(options.path + ".lock");
  if (!file_lock.ok()) return file_lock.status().WithContext("open store " + options.path);
  std::unique_ptr<StoreDatabase> db(
      new StoreDatabase(std::move(file_lock).value(), std::move(conn)));
  MutexLock lock(db->mu());
  Status st = db->Initialize(options);
  if (st.ok()) {
    // Opened after the schema exists and WAL is on; only reads.
    Result<std::unique_ptr<SqliteConnection>> reader =
        SqliteConnection::Open(options.path, options.busy_timeout_ms);
    st = reader.ok() ? (*reader)->Exec("PRAGMA query_only=1") : reader.status();
    if (st.ok()) {
      MutexLock read_lock(&db->read_mu_);
      db->read_conn_ = std::move(reader).value();
      return db;
    }
  }
  // Say what the SQLite error means for the file; keep SQLite's words too.
  const std::string sqlite_says = " (" + st.message() + ")";
  switch (db->conn_->last_error_code()) {
    case SQLITE_NOTADB:
      st = Status::Invalid("not a Kuota store: the file is not an SQLite database" + sqlite_says);
      break;
    case SQLITE_CORRUPT:
      st = Status::Invalid("the database is corrupt; restore it from a backup" + sqlite_says);
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      st = Status::Unavailable(
          "the file is locked by another process (is another kuotad "
          "using it?)" +
          sqlite_says);
      break;
    default:
      break;
  }
  return st.WithContext("open store " + options.path);
}

Status StoreDatabase::Initialize(const Options& options) {
  // Normal locking: the read connection reads beside the writer (WAL's
  // shared-memory index, `<path>-shm`); the lock file keeps other openers out.
  // The first statement that reads the file: a non-SQLite file fails here.
  KUOTA_ASSIGN_OR_RETURN(std::string mode, conn_->QueryText("PRAGMA journal_mode=WAL"));
  if (mode != "wal") {
    return Status::Unavailable("cannot use write-ahead logging (journal_mode is " + mode + ")");
  }
  KUOTA_RETURN_IF_ERROR(
      conn_->Exec(options.sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"));
  KUOTA_RETURN_IF_ERROR(LoadOrCreateSchema(options.path));
  // A truncated or overwritten file can still have a readable first page;
  // check every page now rather than fail (or lose data) on a later write.
  KUOTA_ASSIGN_OR_RETURN(std::string check, conn_->QueryText("PRAGMA quick_check"));
  if (check != "ok") return Status::Invalid("database is corrupt: " + check);
  return Status::Ok();
}

Status StoreDatabase::LoadOrCreateSchema(const std::string& path) {
  KUOTA_RETURN_IF_ERROR(conn_->Exec("BEGIN IMMEDIATE"));
  auto fail = [&](Status st) {
    mu_.AssertHeld();
    (void)conn_->Exec("ROLLBACK");
    return st;
  };
  Result<std::string> app_id = conn_->QueryText("PRAGMA application_id");
  if (!app_id.ok()) return fail(app_id.status());
  int64_t table_count = 0;
  bool has_meta = false;
  {
    Result<Statement> tables = conn_->Prepare(
        "SELECT count(*), coalesce(sum(name = 'kuota_meta'), 0) FROM sqlite_master "
        "WHERE type = 'table'");
    if (!tables.ok()) return fail(tables.status());
    Result<bool> row = tables->Step();
    if (!row.ok()) return fail(row.status());
    table_count = tables->ColumnInt(0);
    has_meta = tables->ColumnInt(1) > 0;
  }

  const std::string not_kuota = path + " is an SQLite database but not a Kuota store";
  if (*app_id != "0" && *app_id != std::to_string(kStoreApplicationId)) {
    return fail(Status::Invalid(not_kuota + " (application_id " + *app_id + ")"));
  }
  if (table_count == 0) {
    Status st = conn_->Exec(kCreateSchema);
    if (st.ok()) st = conn_->Exec("PRAGMA application_id=" + std::to_string(kStoreApplicationId));
    if (!st.ok()) return fail(st);
  } else if (!has_meta) {
    return fail(Status::Invalid(not_kuota + " (it has no kuota_meta table)"));
  }

  Result<int64_t> version = ReadMeta(kSchemaVersionKey);
  if (!version.ok()) return fail(version.status());
  if (*version > kStoreSchemaVersion) {
    return fail(Status::Invalid("store schema version " + std::to_string(*version) +
                                " is newer than this build of Kuota supports (" +
                                std::to_string(kStoreSchemaVersion) +
                                "); use a newer kuotad or another file"));
  }
  if (*version < 1) {
    return fail(
        Status::Invalid("store schema version " + std::to_string(*version) + " is not valid"));
  }
  Result<int64_t> rv = ReadMeta(kResourceVersionKey);
  if (!rv.ok()) return fail(rv.status());
  Result<int64_t> compacted = ReadMeta(kCompactedKey);
  if (!compacted.ok()) return fail(compacted.status());
  rv_ = *rv;
  compacted_rv_ = *compacted;
  // Defensive: the counter never goes below an rv already handed out.
  {
    Result<Statement> max_event = conn_->Prepare("SELECT max(rv) FROM events");
    if (!max_event.ok()) return fail(max_event.status());
    Result<bool> row = max_event->Step();
    if (!row.ok()) return fail(row.status());
    if (*row && !max_event->ColumnIsNull(0)) rv_ = std::max(rv_, max_event->ColumnInt(0));
  }
  committed_rv_ = rv_;
  committed_compacted_rv_ = compacted_rv_;
  return conn_->Exec("COMMIT");
}

Result<int64_t> StoreDatabase::ReadMeta(std::string_view key) { return SelectMeta(*conn_, key); }

Status StoreDatabase::WriteMeta(std::string_view key, int64_t value) {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         conn_->Prepare("UPDATE kuota_meta SET value = ?2 WHERE key = ?1"));
  stmt.Bind(1, key).Bind(2, value);
  return stmt.Run();
}

Result<std::vector<StoreDatabase::ScannedRow>> StoreDatabase::ScanObjects(int64_t after_id,
                                                                          int64_t limit) {
  KUOTA_ASSIGN_OR_RETURN(
      Statement stmt,
      conn_->Prepare("SELECT id, resource, namespace, name, uid, rv, json FROM objects "
                     "WHERE id > ?1 ORDER BY id LIMIT ?2"));
  stmt.Bind(1, after_id).Bind(2, limit);
  std::vector<ScannedRow> out;
  KUOTA_RETURN_IF_ERROR(ReadRows(stmt, out, [](Statement& s) {
    ScannedRow r;
    r.id = s.ColumnInt(0);
    r.resource = s.ColumnText(1);
    r.row.ns = s.ColumnText(2);
    r.row.name = s.ColumnText(3);
    r.row.uid = s.ColumnText(4);
    r.row.rv = s.ColumnInt(5);
    r.row.json = s.ColumnText(6);
    return r;
  }));
  return out;
}

Status StoreDatabase::RewriteObjectJson(int64_t id, std::string_view json) {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         conn_->Prepare("UPDATE objects SET json = ?2 WHERE id = ?1"));
  stmt.Bind(1, id).Bind(2, json);
  return stmt.Run();
}

Result<int64_t> StoreDatabase::MetaValue(std::string_view key, int64_t absent) {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         conn_->Prepare("SELECT value FROM kuota_meta WHERE key = ?1"));
  stmt.Bind(1, key);
  KUOTA_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.ColumnInt(0) : absent;
}

Status StoreDatabase::SetMetaValue(std::string_view key, int64_t value) {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         conn_->Prepare("INSERT INTO kuota_meta(key, value) VALUES (?1, ?2) "
                                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
  stmt.Bind(1, key).Bind(2, value);
  return stmt.Run();
}

Status StoreDatabase::Begin() {
  committed_rv_ = rv_;
  committed_compacted_rv_ = compacted_rv_;
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn_->Prepare("BEGIN IMMEDIATE"));
  return stmt.Run();
}

Status StoreDatabase::Commit() {
  Status st;
  {
    Result<Statement> stmt = conn_->Prepare("COMMIT");
    st = stmt.ok() ? stmt->Run() : stmt.status();
  }
  if (!st.ok()) {
    Rollback();
    return st;
  }
  committed_rv_ = rv_;
  committed_compacted_rv_ = compacted_rv_;
  return Status::Ok();
}

void StoreDatabase::Rollback() {
  rv_ = committed_rv_;
  compacted_rv_ = committed_compacted_rv_;
  // After some errors (e.g. SQLITE_FULL) SQLite has already rolled back.
  if (conn_->autocommit()) return;
  (void)conn_->Exec("ROLLBACK");
}

Status StoreDatabase::Savepoint() {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn_->Prepare("SAVEPOINT kuota_write"));
  return stmt.Run();
}

Status StoreDatabase::ReleaseSavepoint() {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn_->Prepare("RELEASE kuota_write"));
  return stmt.Run();
}

Status StoreDatabase::RollbackToSavepoint() {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn_->Prepare("ROLLBACK TO kuota_write"));
  KUOTA_RETURN_IF_ERROR(stmt.Run());
  return ReleaseSavepoint();
}

Result<std::optional<ObjectRow>> StoreDatabase::GetObject(std::string_view resource,
                                                          std::string_view ns,
                                                          std::string_view name) {
  return SelectObject(*conn_, resource, ns, name);
}

Result<std::optional<RowVersion>> StoreDatabase::GetRowVersion(std::string_view resource,
                                                               std::string_view ns,
                                                               std::string_view name) {
  bool found = false;
  KUOTA_ASSIGN_OR_RETURN(Statement stmt,
                         SelectByKey(*conn_, "uid, rv", resource, ns, name, &found));
  if (!found) return std::optional<RowVersion>();
  RowVersion v;
  v.uid = stmt.ColumnText(0);
  v.rv = stmt.ColumnInt(1);
  return std::optional<RowVersion>(std::move(v));
}

Result<std::optional<ObjectRow>> StoreDatabase::ReadObject(std::string_view resource,
                                                           std::string_view ns,
                                                           std::string_view name) {
  MutexLock lock(&read_mu_);
  return SelectObject(*read_conn_, resource, ns, name);
}

Status StoreDatabase::PutObject(std::string_view resource, const ObjectRow& row) {
  KUOTA_ASSIGN_OR_RETURN(
      Statement stmt,
      conn_->Prepare("INSERT INTO objects(resource, namespace, name, uid, rv, json) "
                     "VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
                     "ON CONFLICT(resource, namespace, name) DO UPDATE SET "
                     "uid = excluded.uid, rv = excluded.rv, json = excluded.json"));
  stmt.Bind(1, resource).Bind(2, row.ns).Bind(3, row.name).Bind(4, row.uid).Bind(5, row.rv);
  stmt.Bind(6, row.json);
  return stmt.Run();
}

Status StoreDatabase::DeleteObject(std::string_view resource, std::string_view ns,
                                   std::string_view name) {
  KUOTA_ASSIGN_OR_RETURN(
      Statement stmt,
      conn_->Prepare("DELETE FROM objects WHERE resource = ?1 AND namespace = ?2 AND name = ?3"));
  stmt.Bind(1, resource).Bind(2, ns).Bind(3, name);
  return stmt.Run();
}

namespace {

// Where a scan of one namespace resumes after `after`: all of it, after a
// name, or none of it.
enum class Resume { kAll, kAfterName, kNothing };

Resume ResumeIn(std::string_view ns, const std::optional<ObjectKey>& after) {
  if (!after || after->ns < ns) return Resume::kAll;
  return after->ns == ns ? Resume::kAfterName : Resume::kNothing;
}

// WHERE clause shared by SelectObjects and CountRows; parameters ?1
// resource, ?2 namespace, ?3/?4 the key to resume after. Within one
// namespace the resume point is `name > ?4`: with the row value
// (namespace, name) > (?3, ?4) beside namespace = ?2, SQLite reads the rest
// of the collection and sorts it for every page.
std::string ObjectFilter(std::string_view ns, const std::optional<ObjectKey>& after) {
  std::string sql = " WHERE resource = ?1";
  if (ns.empty()) {
    if (after) sql += " AND (namespace, name) > (?3, ?4)";
    return sql;
  }
  sql += " AND namespace = ?2";
  switch (ResumeIn(ns, after)) {
    case Resume::kAll:
      break;
    case Resume::kAfterName:
      sql += " AND name > ?4";
      break;
    case Resume::kNothing:
      sql += " AND 0";
      break;
  }
  return sql;
}

void BindObjectFilter(Statement& stmt, std::string_view resource, std::string_view ns,
                      const std::optional<ObjectKey>& after) {
  stmt.Bind(1, resource);
  if (!ns.empty()) stmt.Bind(2, ns);
  if (ns.empty() && after) stmt.Bind(3, after->ns);
  if (after && (ns.empty() || ResumeIn(ns, after) == Resume::kAfterName)) {
    stmt.Bind(4, after->name);
  }
}

Result<std::vector<ObjectRow>> SelectObjects(SqliteConnection& conn, std::string_view resource,
                                             std::string_view ns,
                                             const std::optional<ObjectKey>& after, int64_t limit) {
  std::string sql = "SELECT namespace, name, uid, rv, json FROM objects" + ObjectFilter(ns, after) +
                    " ORDER BY namespace, name LIMIT ?5";
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql));
  BindObjectFilter(stmt, resource, ns, after);
  stmt.Bind(5, limit > 0 ? limit : int64_t{-1});
  std::vector<ObjectRow> rows;
  KUOTA_RETURN_IF_ERROR(ReadRows(stmt, rows, [](Statement& st) {
    return ObjectRow{st.ColumnText(0), st.ColumnText(1), st.ColumnText(2), st.ColumnInt(3),
                     st.ColumnText(4)};
  }));
  return rows;
}

Result<int64_t> CountRows(SqliteConnection& conn, std::string_view resource, std::string_view ns,
                          const std::optional<ObjectKey>& after) {
  std::string sql = "SELECT count(*) FROM objects" + ObjectFilter(ns, after);
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql));
  BindObjectFilter(stmt, resource, ns, after);
  KUOTA_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.ColumnInt(0) : 0;
}

// The page ReadListPage returns, read inside the caller's read transaction.
Result<StoreDatabase::ListPage> SelectListPage(SqliteConnection& conn, std::string_view resource,
                                               std::string_view ns,
                                               const std::optional<ObjectKey>& after, int64_t limit,
                                               bool count_rest) {
  StoreDatabase::ListPage page;
  KUOTA_ASSIGN_OR_RETURN(page.resource_version, SelectMeta(conn, kResourceVersionKey));
  KUOTA_ASSIGN_OR_RETURN(page.rows, SelectObjects(conn, resource, ns, after, limit));
  if (count_rest && limit > 0 && static_cast<int64_t>(page.rows.size()) == limit) {
    ObjectKey last{page.rows.back().ns, page.rows.back().name};
    KUOTA_ASSIGN_OR_RETURN(page.rest, CountRows(conn, resource, ns, last));
  }
  return page;
}

}  // namespace

template <class T, class Read>
Result<T> StoreDatabase::InReadTransaction(Read&& read) {
  MutexLock lock(&read_mu_);
  KUOTA_RETURN_IF_ERROR(read_conn_->Exec("BEGIN"));
  Result<T> out = read(*read_conn_);
  Status ended = read_conn_->Exec(out.ok() ? "COMMIT" : "ROLLBACK");
  if (!out.ok()) return out.status();
  KUOTA_RETURN_IF_ERROR(ended);
  return out;
}

Result<StoreDatabase::ListPage> StoreDatabase::ReadListPage(std::string_view resource,
                                                            std::string_view ns,
                                                            const std::optional<ObjectKey>& after,
                                                            int64_t limit, bool count_rest) {
  // One read transaction: the rows, their count and the resourceVersion are
  // of the same commit.
  return InReadTransaction<ListPage>([&](SqliteConnection& conn) {
    return SelectListPage(conn, resource, ns, after, limit, count_rest);
  });
}

Status StoreDatabase::AppendEvent(const EventRow& event) {
  KUOTA_ASSIGN_OR_RETURN(
      Statement stmt,
      conn_->Prepare("INSERT INTO events(rv, resource, namespace, name, type, json) "
                     "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
  stmt.Bind(1, event.rv).Bind(2, event.resource).Bind(3, event.ns).Bind(4, event.name);
  stmt.Bind(5, event.type).Bind(6, event.json);
  return stmt.Run();
}

Status StoreDatabase::SetResourceVersion(int64_t rv, int64_t keep_events) {
  KUOTA_RETURN_IF_ERROR(WriteMeta(kResourceVersionKey, rv));
  rv_ = rv;
  int64_t floor = rv - std::max<int64_t>(keep_events, 0);
  if (floor > compacted_rv_) {
    KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn_->Prepare("DELETE FROM events WHERE rv <= ?1"));
    stmt.Bind(1, floor);
    KUOTA_RETURN_IF_ERROR(stmt.Run());
    KUOTA_RETURN_IF_ERROR(WriteMeta(kCompactedKey, floor));
    compacted_rv_ = floor;
  }
  return Status::Ok();
}

namespace {

// The page ReadEvents returns, read inside the caller's read transaction.
Result<StoreDatabase::EventPage> SelectEvents(SqliteConnection& conn, std::string_view resource,
                                              std::string_view ns, int64_t after_rv,
                                              int64_t up_to_rv, int64_t limit) {
  KUOTA_ASSIGN_OR_RETURN(int64_t compacted, SelectMeta(conn, kCompactedKey));
  if (after_rv < compacted) return TooOldResourceVersion(after_rv, compacted);
  std::string sql =
      "SELECT rv, resource, namespace, name, type, json FROM events "
      "WHERE rv > ?1 AND rv <= ?2";
  const ResourceFilter filter = ParseResourceFilter(resource);
  resource = filter.resource;
  if (!resource.empty()) sql += filter.exclude ? " AND resource != ?3" : " AND resource = ?3";
  if (!ns.empty()) sql += " AND namespace = ?4";
  sql += " ORDER BY rv LIMIT ?5";
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql));
  stmt.Bind(1, after_rv).Bind(2, up_to_rv);
  if (!resource.empty()) stmt.Bind(3, resource);
  if (!ns.empty()) stmt.Bind(4, ns);
  stmt.Bind(5, limit);
  StoreDatabase::EventPage page;
  KUOTA_RETURN_IF_ERROR(ReadRows(stmt, page.rows, [](Statement& st) {
    return EventRow{st.ColumnInt(0),  st.ColumnText(1), st.ColumnText(2),
                    st.ColumnText(3), st.ColumnText(4), st.ColumnText(5)};
  }));
  page.read_through =
      static_cast<int64_t>(page.rows.size()) < limit ? up_to_rv : page.rows.back().rv;
  return page;
}

}  // namespace

Result<StoreDatabase::EventPage> StoreDatabase::ReadEvents(std::string_view resource,
                                                           std::string_view ns, int64_t after_rv,
                                                           int64_t up_to_rv, int64_t limit) {
  // The compaction floor and the rows of the same commit.
  return InReadTransaction<EventPage>([&](SqliteConnection& conn) {
    return SelectEvents(conn, resource, ns, after_rv, up_to_rv, limit);
  });
}

}  // namespace kuota::store
