// ObjectStore::WriteBatch: a batch is one transaction (one commit, however
// many writes and whatever max_batch), its writes apply in order and fail
// one by one, watchers see them in order, and a batch survives kill -9 as a
// whole or not at all.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "store/object_store.h"
#include "store/store_test_env.h"

namespace kuota::store {
namespace {

BatchWrite CreateOf(Json object) {
  BatchWrite w;
  w.op = BatchWrite::Op::kCreate;
  w.resource = kConfigMaps;
  w.object = std::move(object);
  return w;
}

BatchWrite UpdateOf(Json object, bool status_only = false) {
  BatchWrite w;
  w.op = BatchWrite::Op::kUpdate;
  w.resource = kConfigMaps;
  w.object = std::move(object);
  w.update.status_only = status_only;
  return w;
}

BatchWrite DeleteOf(const std::string& ns, const std::string& name) {
  BatchWrite w;
  w.op = BatchWrite::Op::kDelete;
  w.resource = kConfigMaps;
  w.ns = ns;
  w.name = name;
  return w;
}

class WriteBatchTest : public testing::StoreTest {};

TEST_F(WriteBatchTest, OneTransactionInOrderEachSeeingTheOnesBefore) {
  OpenStore();
  MustCreate(kConfigMaps, ConfigMap("ns", "gone"));
  const int64_t start = store_->CurrentResourceVersion();
  auto watch = store_->Watch(kConfigMaps, "", start);
  ASSERT_TRUE(watch.ok());
  const SqliteObjectStore::WriteStats before = store_->write_stats();

  std::vector<BatchWrite> writes;
  writes.push_back(CreateOf(ConfigMap("ns", "a", {{"v", "0"}})));
  writes.push_back(CreateOf(ConfigMap("ns", "b")));
  writes.push_back(UpdateOf(ConfigMap("ns", "a", {{"v", "1"}})));  // sees the create above
  Json status = ConfigMap("ns", "b");
  status["status"] = {{"phase", "Done"}};
  writes.push_back(UpdateOf(status, /*status_only=*/true));
  writes.push_back(DeleteOf("ns", "gone"));
  std::vector<Result<Json>> results = store_->WriteBatch(std::move(writes));

  ASSERT_EQ(results.size(), 5u);
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status().ToString();
    EXPECT_EQ(Rv(*results[i]), start + 1 + static_cast<int64_t>(i)) << i;
  }
  const SqliteObjectStore::WriteStats after = store_->write_stats();
  EXPECT_EQ(after.transactions - before.transactions, 1);
  EXPECT_EQ(after.writes - before.writes, 5);

  EXPECT_EQ((*store_->Get(kConfigMaps, "ns", "a"))["data"]["v"], "1");
  EXPECT_EQ((*store_->Get(kConfigMaps, "ns", "b"))["status"]["phase"], "Done");
  EXPECT_EQ(store_->Get(kConfigMaps, "ns", "gone").status().code(), StatusCode::kNotFound);

  const std::vector<std::pair<EventType, std::string>> want = {{EventType::kAdded, "a"},
                                                               {EventType::kAdded, "b"},
                                                               {EventType::kModified, "a"},
                                                               {EventType::kModified, "b"},
                                                               {EventType::kDeleted, "gone"}};
  for (size_t i = 0; i < want.size(); ++i) {
    WatchEvent ev;
    ASSERT_TRUE((*watch)->Next(&ev, std::chrono::seconds(5))) << i;
    EXPECT_EQ(ev.type, want[i].first) << i;
    EXPECT_EQ(ev.object["metadata"]["name"], want[i].second) << i;
    EXPECT_EQ(ev.resource_version, start + 1 + static_cast<int64_t>(i)) << i;
  }
}

// Writes are worked out by their callers against the last commit; a write
// whose object changed since (here, by an earlier write of the same batch)
// is worked out again by the batch leader, never applied over the old state.
TEST_F(WriteBatchTest, AWriteOverAnObjectChangedSinceItWasQueuedSeesTheChange) {
  OpenStore();
  MustCreate(kConfigMaps, ConfigMap("ns", "x", {{"v", "0"}}));
  const int64_t start = store_->CurrentResourceVersion();

  std::vector<BatchWrite> writes;
  writes.push_back(UpdateOf(ConfigMap("ns", "x", {{"v", "1"}})));
  Json status = ConfigMap("ns", "x");
  status.erase("data");
  status["status"] = {{"phase", "Done"}};
  writes.push_back(UpdateOf(status, /*status_only=*/true));  // keeps v=1 from the write before
  Json same = ConfigMap("ns", "x", {{"v", "1"}});
  same["status"] = {{"phase", "Done"}};
  writes.push_back(UpdateOf(same));  // by then, nothing to change: no write
  std::vector<Result<Json>> results = store_->WriteBatch(std::move(writes));

  ASSERT_EQ(results.size(), 3u);
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].status().ToString();
  }
  EXPECT_EQ(Rv(*results[0]), start + 1);
  EXPECT_EQ(Rv(*results[1]), start + 2);
  EXPECT_EQ(Rv(*results[2]), start + 2);
  EXPECT_EQ((*results[1])["data"]["v"], "1");
  EXPECT_EQ(store_->CurrentResourceVersion(), start + 2);
  Result<Json> stored = store_->Get(kConfigMaps, "ns", "x");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)["data"]["v"], "1");
  EXPECT_EQ((*stored)["status"]["phase"], "Done");
  // The stored text carries the version the leader gave it.
  EXPECT_EQ((*stored)["metadata"]["resourceVersion"], std::to_string(start + 2));
  EXPECT_EQ(*stored, *results[1]);
}

TEST_F(WriteBatchTest, AFailedWriteUndoesOnlyItself) {
  OpenStore();
  Json stale = MustCreate(kConfigMaps, ConfigMap("ns", "x"));
  Json bumped = stale;
  bumped["data"]["v"] = "2";
  ASSERT_TRUE(store_->Update(kConfigMaps, bumped).ok());  // now `stale` is out of date
  const SqliteObjectStore::WriteStats before = store_->write_stats();

  std::vector<BatchWrite> writes;
  writes.push_back(CreateOf(ConfigMap("ns", "first")));
  writes.push_back(CreateOf(ConfigMap("ns", "x")));  // AlreadyExists
  Json conflicting = stale;
  conflicting["data"]["v"] = "3";
  writes.push_back(UpdateOf(conflicting));  // Conflict: an older resourceVersion
  Json nameless = ConfigMap("ns", "");
  writes.push_back(CreateOf(nameless));  // Invalid before it is queued
  writes.push_back(CreateOf(ConfigMap("ns", "last")));
  std::vector<Result<Json>> results = store_->WriteBatch(std::move(writes));

  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(results[2].status().code(), StatusCode::kConflict);
  EXPECT_EQ(results[3].status().code(), StatusCode::kInvalid);
  ASSERT_TRUE(results[4].ok());
  EXPECT_EQ(Rv(*results[4]),
            Rv(*results[0]) + 1);  // the failed ones took no version
  EXPECT_EQ((*store_->Get(kConfigMaps, "ns", "x"))["data"]["v"], "2");
  EXPECT_TRUE(store_->Get(kConfigMaps, "ns", "first").ok());
  EXPECT_TRUE(store_->Get(kConfigMaps, "ns", "last").ok());
  EXPECT_EQ(store_->write_stats().transactions - before.transactions, 1);
}

TEST_F(WriteBatchTest, StatsTimeEachCommittedTransaction) {
  OpenStore();
  const SqliteObjectStore::WriteStats before = store_->write_stats();
  std::vector<BatchWrite> writes;
  for (const char* name : {"a", "b", "c"}) writes.push_back(CreateOf(ConfigMap("ns", name)));
  for (const Result<Json>& r : store_->WriteBatch(std::move(writes))) ASSERT_TRUE(r.ok());
  const SqliteObjectStore::WriteStats after = store_->write_stats();

  EXPECT_EQ(after.transactions - before.transactions, 1);
  EXPECT_EQ(after.writes - before.writes, 3);
  const double wall = after.transaction_seconds - before.transaction_seconds;
  const double commit = after.commit_seconds - before.commit_seconds;
  EXPECT_GT(commit, 0);
  EXPECT_GE(wall, commit);  // the COMMIT is part of the transaction
  EXPECT_LT(wall, 60);
  EXPECT_GT(after.transaction_cpu_seconds - before.transaction_cpu_seconds, 0);
}

TEST_F(WriteBatchTest, ABatchLargerThanMaxBatchIsStillOneTransaction) {
  StoreTuning tuning;
  tuning.max_batch = 4;
  OpenStore(Options(), tuning);
  const SqliteObjectStore::WriteStats before = store_->write_stats();
  std::vector<BatchWrite> writes;
  for (int i = 0; i < 10; ++i) writes.push_back(CreateOf(ConfigMap("ns", "w" + std::to_string(i))));
  std::vector<Result<Json>> results = store_->WriteBatch(std::move(writes));
  ASSERT_EQ(results.size(), 10u);
  for (const auto& r : results) EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(store_->write_stats().transactions - before.transactions, 1);
  EXPECT_TRUE(store_->WriteBatch({}).empty());
}

TEST_F(WriteBatchTest, ConcurrentBatchesAndSingleWritesAllLand) {
  StoreTuning tuning;
  tuning.max_batch = 8;
  OpenStore(Options(), tuning);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const std::string base = "t" + std::to_string(t) + "-" + std::to_string(i);
        if (i % 2 == 0) {
          std::vector<BatchWrite> writes;
          for (int k = 0; k < 5; ++k)
            writes.push_back(CreateOf(ConfigMap("ns", base + "-" + std::to_string(k))));
          for (const auto& r : store_->WriteBatch(std::move(writes))) EXPECT_TRUE(r.ok());
        } else {
          EXPECT_TRUE(store_->Create(kConfigMaps, ConfigMap("ns", base)).ok());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Result<ListResult> all = store_->List(kConfigMaps, {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 4u * (10 * 5 + 10));
}

// Child process: writes batches of kBatch ConfigMaps ("b<round>-<i>-<k>")
// until killed, reporting each acknowledged batch on `fd` as "<i>\n".
constexpr int kBatch = 8;

[[noreturn]] void WriteBatchesUntilKilled(const std::string& path, int round, int fd) {
  StoreOptions options;
  options.path = path;
  options.sync = true;
  auto opened = ObjectStore::Open(options);
  if (!opened.ok()) _exit(2);
  std::unique_ptr<ObjectStore> store = std::move(opened).value();
  for (int i = 0;; ++i) {
    std::vector<BatchWrite> writes;
    for (int k = 0; k < kBatch; ++k) {
      writes.push_back(
          CreateOf(ConfigMap("crash", "b" + std::to_string(round) + "-" + std::to_string(i) + "-" +
                                          std::to_string(k))));
    }
    for (const auto& r : store->WriteBatch(std::move(writes))) {
      if (!r.ok()) _exit(4);
    }
    char line[32];
    int n = std::snprintf(line, sizeof line, "%d\n", i);
    if (write(fd, line, static_cast<size_t>(n)) != n) _exit(3);
  }
}

TEST_F(WriteBatchTest, ABatchSurvivesKill9WholeOrNotAtAll) {
  for (int round = 0; round < 2; ++round) {
    const size_t kill_after = 40 + 40 * static_cast<size_t>(round);
    std::string data;
    ASSERT_NO_FATAL_FAILURE(testing::KillWriterAfter(
        kill_after, [&](int fd) { WriteBatchesUntilKilled(Path(), round, fd); }, data));
    std::set<int> acked;
    std::istringstream in(data);
    for (std::string line; std::getline(in, line);) acked.insert(std::stoi(line));
    ASSERT_GE(acked.size(), kill_after);

    OpenStore();
    Result<ListResult> all = store_->List(kConfigMaps, {});
    ASSERT_TRUE(all.ok());
    std::map<int, int> per_batch;  // batch -> objects stored
    const std::string prefix = "b" + std::to_string(round) + "-";
    for (const Json& item : all->items) {
      const std::string name = item["metadata"]["name"];
      if (name.rfind(prefix, 0) != 0) continue;
      per_batch[std::stoi(name.substr(prefix.size()))]++;
    }
    for (int i : acked) EXPECT_EQ(per_batch[i], kBatch) << "acknowledged batch " << i;
    for (const auto& [i, count] : per_batch) {
      EXPECT_EQ(count, kBatch) << "batch " << i << " is torn";
    }
    store_.reset();
  }
}

}  // namespace
}  // namespace kuota::store
