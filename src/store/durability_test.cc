// Reopening, damaged files, and the file lock.
#include "store/object_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "store/store_test_env.h"

namespace kuota::store {
namespace {

class DurabilityTest : public testing::StoreTest {
 protected:
  Result<std::unique_ptr<SqliteObjectStore>> TryOpen(const std::string& path) {
    StoreOptions o = Options();
    o.path = path;
    StoreTuning tuning;
    tuning.busy_timeout_ms = 50;
    return SqliteObjectStore::Open(o, tuning);
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void WriteFile(const std::string& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
  }

  // Runs SQL on a file with the plain SQLite API (as another tool would).
  static void RawSql(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }

  // A closed store with `n` ConfigMaps, checkpointed into the main file.
  void MakeStore(int n) {
    OpenStore();
    for (int i = 0; i < n; ++i) {
      MustCreate(kConfigMaps,
                 ConfigMap("ns", "c" + std::to_string(i), {{"payload", std::string(500, 'x')}}));
    }
    store_.reset();
  }

  void ExpectOpenFails(const std::string& path, StatusCode code, const std::string& part) {
    auto r = TryOpen(path);
    ASSERT_FALSE(r.ok()) << "opened " << path;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(part), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(path), std::string::npos) << r.status().ToString();
  }
};

TEST_F(DurabilityTest, ReopenKeepsEverythingAndVersionsKeepRising) {
  OpenStore();
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  cq["spec"]["cohort"] = "b";
  cq = *store_->Update(kClusterQueues, cq);
  Json w = Workload("team-a", "w");
  w["metadata"]["finalizers"] = {"f"};
  MustCreate(kWorkloads, w);
  Json terminating = *store_->Delete(kWorkloads, "team-a", "w");
  MustCreate(kConfigMaps, ConfigMap("ns", "gone"));
  ASSERT_TRUE(store_->Delete(kConfigMaps, "ns", "gone").ok());
  const int64_t rv = store_->CurrentResourceVersion();
  ASSERT_EQ(rv, 6);
  ListResult before = *store_->List(kWorkloads, {});

  OpenStore();
  EXPECT_EQ(store_->CurrentResourceVersion(), rv);
  EXPECT_EQ(*store_->Get(kClusterQueues, "", "cq"), cq);
  EXPECT_EQ(*store_->Get(kWorkloads, "team-a", "w"), terminating);
  EXPECT_EQ(store_->Get(kConfigMaps, "ns", "gone").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->List(kWorkloads, {})->items, before.items);
  Json next = MustCreate(kConfigMaps, ConfigMap("ns", "next"));
  EXPECT_EQ(Rv(next), rv + 1);
  // Optimistic concurrency still holds across the restart.
  Json stale = cq;
  stale["metadata"]["resourceVersion"] = "1";
  EXPECT_EQ(store_->Update(kClusterQueues, stale).status().code(), StatusCode::kConflict);
  OpenStore();
  EXPECT_EQ(store_->CurrentResourceVersion(), rv + 1);
}

TEST_F(DurabilityTest, EmptyFileBecomesAStore) {
  WriteFile(Path(), "");
  OpenStore();
  MustCreate(kConfigMaps, ConfigMap("ns", "a"));
}

TEST_F(DurabilityTest, TextFileIsNotADatabaseAndIsLeftAlone) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "apiVersion: v1\nkind: ConfigMap\n";
  WriteFile(Path("notes.yaml"), text);
  ExpectOpenFails(Path("notes.yaml"), StatusCode::kInvalid,
                  "not a Kuota store: the file is not an SQLite database");
  EXPECT_EQ(ReadFile(Path("notes.yaml")), text);
  EXPECT_FALSE(std::filesystem::exists(Path("notes.yaml-wal")));
}

TEST_F(DurabilityTest, OtherSqliteDatabaseIsRefused) {
  RawSql(Path("other.db"), "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES('x');");
  ExpectOpenFails(Path("other.db"), StatusCode::kInvalid,
                  "is an SQLite database but not a Kuota store");
  RawSql(Path("app.db"), "PRAGMA application_id=42;");
  ExpectOpenFails(Path("app.db"), StatusCode::kInvalid, "application_id 42");
}

TEST_F(DurabilityTest, NewerSchemaIsRefused) {
  MakeStore(1);
  RawSql(Path(), "UPDATE kuota_meta SET value = 99 WHERE key = 'schema_version';");
  ExpectOpenFails(Path(), StatusCode::kInvalid, "store schema version 99 is newer");
  RawSql(Path(), "DELETE FROM kuota_meta WHERE key = 'schema_version';");
  ExpectOpenFails(Path(), StatusCode::kInvalid, "kuota_meta has no schema_version row");
}

TEST_F(DurabilityTest, TruncatedDatabaseGivesAClearError) {
  MakeStore(300);
  std::string data = ReadFile(Path());
  ASSERT_GT(data.size(), 40000u);
  WriteFile(Path(), data.substr(0, data.size() / 2));
  ExpectOpenFails(Path(), StatusCode::kInvalid, "the database is corrupt");
}

TEST_F(DurabilityTest, GarbageInsideTheDatabaseGivesAClearError) {
  MakeStore(300);
  std::string data = ReadFile(Path());
  std::mt19937 rng(7);
  for (size_t i = 8192; i < 8192 + 16384 && i < data.size(); ++i)
    data[i] = static_cast<char>(rng());
  WriteFile(Path(), data);
  ExpectOpenFails(Path(), StatusCode::kInvalid, "the database is corrupt");
}

TEST_F(DurabilityTest, GarbageHeaderIsNotADatabase) {
  MakeStore(10);
  std::string data = ReadFile(Path());
  for (size_t i = 0; i < 100; ++i) data[i] = static_cast<char>('A' + i % 26);
  WriteFile(Path(), data);
  ExpectOpenFails(Path(), StatusCode::kInvalid, "the file is not an SQLite database");
}

TEST_F(DurabilityTest, SecondOpenOfTheSameFileIsRefused) {
  OpenStore();
  MustCreate(kConfigMaps, ConfigMap("ns", "a"));
  ExpectOpenFails(Path(), StatusCode::kUnavailable, "locked by another process");
  store_.reset();
  auto again = TryOpen(Path());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->CurrentResourceVersion(), 1);
}

// GET and LIST read the last committed state on their own connection: they
// see nothing uncommitted, and they do not wait for a store write that is
// stuck inside its batch (here behind another connection's write lock, with
// the store's write mutex held).
TEST_F(DurabilityTest, ReadsDoNotWaitForAWriterAndSeeOnlyCommittedState) {
  OpenStore();
  MustCreate(kConfigMaps, ConfigMap("ns", "a", {{"k", "committed"}}));
  const int64_t committed_rv = store_->CurrentResourceVersion();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(Path().c_str(), &raw), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(raw,
                         "BEGIN IMMEDIATE; UPDATE objects SET json = '{\"uncommitted\":1}' "
                         "WHERE name = 'a';",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  // This create waits in its batch for the raw connection's lock (the
  // store's busy timeout is 5 s), holding the store's write mutex.
  std::optional<Result<Json>> created;
  std::thread writer([&] { created = store_->Create(kConfigMaps, ConfigMap("ns", "b")); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  const auto start = std::chrono::steady_clock::now();
  Result<Json> got = store_->Get(kConfigMaps, "ns", "a");
  ListOptions page;
  page.limit = 1;
  page.count_remaining = true;
  Result<ListResult> listed = store_->List(kConfigMaps, page);
  const auto took = std::chrono::steady_clock::now() - start;
  // Behind the write mutex they would wait for the stuck writer (~5 s).
  EXPECT_LT(took, std::chrono::seconds(2));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["data"]["k"], "committed");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items[0]["data"]["k"], "committed");
  EXPECT_EQ(listed->resource_version, committed_rv);
  EXPECT_EQ(listed->remaining, 0);

  EXPECT_EQ(sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, &err), SQLITE_OK);
  sqlite3_close(raw);
  writer.join();
  ASSERT_TRUE(created.has_value());
  EXPECT_TRUE(created->ok()) << created->status().ToString();
  EXPECT_TRUE(store_->Get(kConfigMaps, "ns", "b").ok());  // seen once committed
}

TEST_F(DurabilityTest, MissingDirectory) {
  ExpectOpenFails(Path("no/such/dir/kuota.db"), StatusCode::kUnavailable, "unable to open");
}

TEST_F(DurabilityTest, NegativeEventLogSizeIsInvalid) {
  StoreOptions o = Options();
  o.event_log_size = -1;
  auto r = SqliteObjectStore::Open(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
}

TEST_F(DurabilityTest, EventLogIsTrimmedOnDisk) {
  StoreOptions o = Options();
  o.event_log_size = 10;
  OpenStore(o);
  for (int i = 0; i < 50; ++i) MustCreate(kConfigMaps, ConfigMap("ns", "c" + std::to_string(i)));
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Path().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "SELECT count(*), min(rv), max(rv) FROM events", -1, &stmt, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(stmt, 0), 10);
  EXPECT_EQ(sqlite3_column_int64(stmt, 1), 41);
  EXPECT_EQ(sqlite3_column_int64(stmt, 2), 50);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

}  // namespace
}  // namespace kuota::store
