// SqliteConnection: one SQLite connection with a cache of prepared statements,
// and SQLite result codes turned into Kuota Status values. Statement borrows a
// cached prepared statement for one execution. Not thread-safe: the owner
// (StoreDatabase) serializes every call behind its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/result.h"
#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kuota::store {

class SqliteConnection;

// A prepared statement borrowed from the connection's cache; reset and
// unbound when it goes out of scope. Must not outlive its connection.
class Statement {
 public:
  Statement(SqliteConnection& conn, sqlite3_stmt* stmt) : conn_(&conn), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // Parameters are 1-based, as in SQLite. A bind error is reported by Step.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view text);

  // Advances: true with a row to read, false when done.
  Result<bool> Step();
  // Steps to completion (for statements that return no rows).
  Status Run();

  int64_t ColumnInt(int index) const;
  std::string ColumnText(int index) const;
  bool ColumnIsNull(int index) const;

 private:
  SqliteConnection* conn_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;
};

class SqliteConnection {
 public:
  // Opens (creating when missing) the file at `path`. Errors name the path.
  static Result<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                        int busy_timeout_ms);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // Runs SQL text with no parameters (pragmas, DDL, BEGIN/COMMIT).
  Status Exec(std::string_view sql);
  // Returns the cached prepared statement for `sql`, preparing it once.
  Result<Statement> Prepare(std::string_view sql);
  // Runs a statement returning one text value (e.g. "PRAGMA journal_mode=WAL").
  Result<std::string> QueryText(std::string_view sql);

  // A Status for SQLite result code `rc`, naming what failed and SQLite's
  // message: NOTADB and CORRUPT are Invalid (the file is not a usable Kuota
  // database), BUSY, I/O, FULL and permission errors Unavailable, others Internal.
  Status Error(int rc, std::string_view what) const;

  bool autocommit() const;
  // The primary result code of the last error Error() reported (0: none).
  int last_error_code() const { return last_error_ & 0xff; }

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
  mutable int last_error_ = 0;
};

}  // namespace kuota::store
