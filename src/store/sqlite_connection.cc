#include "store/sqlite_connection.h"

#include <sqlite3.h>

#include <cerrno>
#include <climits>
#include <utility>

namespace kuota::store {

Statement::~Statement() {
  if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

Statement::Statement(Statement&& other) noexcept
    : conn_(other.conn_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      bind_error_(other.bind_error_) {}

Statement& Statement::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::Bind(int index, std::string_view text) {
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    if (bind_error_ == 0) bind_error_ = SQLITE_TOOBIG;
    return *this;
  }
  int rc =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Result<bool> Statement::Step() {
  if (bind_error_ != 0) return conn_->Error(bind_error_, "bind");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return conn_->Error(rc, sqlite3_sql(stmt_));
}

Status Statement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

int64_t Statement::ColumnInt(int index) const { return sqlite3_column_int64(stmt_, index); }

std::string Statement::ColumnText(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  int n = sqlite3_column_bytes(stmt_, index);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n));
}

bool Statement::ColumnIsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

Result<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                 int busy_timeout_ms) {
  if (path.empty()) return Status::Invalid("store path: must not be empty");
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status::Unavailable("open " + path + ": " + msg);
  }
  std::unique_ptr<SqliteConnection> conn(new SqliteConnection(db));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return conn;
}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  cache_.clear();
  sqlite3_close(db_);
}

Status SqliteConnection::Exec(std::string_view sql) {
  std::string text(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) return Error(rc, text);
  return Status::Ok();
}

Result<Statement> SqliteConnection::Prepare(std::string_view sql) {
  std::string key(sql);
  auto it = cache_.find(key);
  if (it != cache_.end()) return Statement(*this, it->second);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, key.data(), static_cast<int>(key.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, key);
  }
  cache_.emplace(std::move(key), stmt);
  return Statement(*this, stmt);
}

Result<std::string> SqliteConnection::QueryText(std::string_view sql) {
  KUOTA_ASSIGN_OR_RETURN(Statement stmt, Prepare(sql));
  KUOTA_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::string();
  return stmt.ColumnText(0);
}

Status SqliteConnection::Error(int rc, std::string_view what) const {
  last_error_ = rc;
  std::string msg(what);
  msg += ": ";
  // sqlite3_errmsg describes the most recent failure on this connection;
  // fall back to the generic text when it does not belong to `rc`.
  if (sqlite3_extended_errcode(db_) == rc) {
    msg += sqlite3_errmsg(db_);
  } else {
    msg += sqlite3_errstr(rc);
  }
  // A write that met ENOSPC can surface as an I/O error (WAL, shm) too.
  if ((rc & 0xff) == SQLITE_IOERR && sqlite3_system_errno(db_) == ENOSPC) rc = SQLITE_FULL;
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
      return Status::Invalid(std::move(msg));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
      return Status::NoSpace(
          "no space left on the database's disk (writes resume when "
          "space is freed): " +
          msg);
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_PROTOCOL:
    case SQLITE_NOMEM:
      return Status::Unavailable(std::move(msg));
    case SQLITE_TOOBIG:
      return Status::TooLarge(std::move(msg));
    default:
      return Status::Internal(std::move(msg));
  }
}

bool SqliteConnection::autocommit() const { return sqlite3_get_autocommit(db_) != 0; }

}  // namespace kuota::store
