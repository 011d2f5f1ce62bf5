// EventRecorder over a real SQLite store: Events are written off the
// caller's thread in batches, repeats are coalesced into one Event's count
// (also across batches), an Event deleted meanwhile is created again, and
// nothing recorded is lost when the recorder is destroyed.
#include "control/event_recorder.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "store/sqlite_object_store.h"
#include "testing/sqlite_store_test.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

class EventRecorderTest : public testing::SqliteStoreTest {
 protected:
  void SetUp() override { OpenStore(&clock_); }

  std::vector<Json> Events() {
    auto list = store_->List("events", {});
    EXPECT_TRUE(list.ok());
    return list.ok() ? list->items : std::vector<Json>{};
  }

  static Json Workload(const std::string& name) {
    return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
            {"kind", "Workload"},
            {"metadata", {{"name", name}, {"namespace", "ns"}, {"uid", "uid-" + name}}}};
  }

  ManualClock clock_{Time::FromMillis(1767225600000)};
};

TEST_F(EventRecorderTest, RepeatsBecomeOneEventsCount) {
  EventRecorder recorder(*store_, clock_);
  recorder.Record(Workload("a"), "Normal", "QuotaReserved", "Quota reserved in cq");
  recorder.Record(Workload("a"), "Normal", "QuotaReserved", "Quota reserved in cq");
  clock_.Advance(Duration{5000});
  recorder.Record(Workload("a"), "Normal", "QuotaReserved", "Quota reserved in cq");
  recorder.Record(Workload("a"), "Warning", "Pending", "no quota");
  recorder.Record(Workload("b"), "Normal", "QuotaReserved", "Quota reserved in cq");
  ASSERT_TRUE(recorder.WaitIdle(std::chrono::seconds(10)));

  std::map<std::string, Json> by;  // "<object>/<reason>" -> Event
  for (const Json& ev : Events()) {
    by[ev["involvedObject"]["name"].get<std::string>() + "/" + ev["reason"].get<std::string>()] =
        ev;
  }
  ASSERT_EQ(by.size(), 3u);
  const Json& a = by["a/QuotaReserved"];
  EXPECT_EQ(a["count"], 3);
  EXPECT_EQ(a["firstTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(a["lastTimestamp"], "2026-01-01T00:00:05Z");
  EXPECT_EQ(a["involvedObject"]["uid"], "uid-a");
  EXPECT_EQ(a["source"]["component"], "kuota-controller");
  EXPECT_EQ(by["a/Pending"]["count"], 1);
  EXPECT_EQ(by["a/Pending"]["type"], "Warning");
  EXPECT_EQ(by["b/QuotaReserved"]["count"], 1);

  // A later repeat updates the same Event rather than making another.
  clock_.Advance(Duration{5000});
  recorder.Record(Workload("a"), "Normal", "QuotaReserved", "Quota reserved in cq");
  ASSERT_TRUE(recorder.WaitIdle(std::chrono::seconds(10)));
  std::vector<Json> after = Events();
  EXPECT_EQ(after.size(), 3u);
  int64_t count = 0;
  for (const Json& ev : after) {
    if (ev["metadata"]["name"] == a["metadata"]["name"]) {
      count = ev["count"];
      EXPECT_EQ(ev["lastTimestamp"], "2026-01-01T00:00:10Z");
    }
  }
  EXPECT_EQ(count, 4);
  EventRecorder::Stats stats = recorder.stats();
  EXPECT_EQ(stats.recorded, 6);
  EXPECT_EQ(stats.created, 3);
  EXPECT_EQ(stats.coalesced, 3);
  EXPECT_EQ(stats.dropped, 0);
}

TEST_F(EventRecorderTest, AnEventDeletedMeanwhileIsCreatedAgain) {
  EventRecorder recorder(*store_, clock_);
  recorder.Record(Workload("a"), "Normal", "Admitted", "Admitted by ClusterQueue cq");
  ASSERT_TRUE(recorder.WaitIdle(std::chrono::seconds(10)));
  std::vector<Json> first = Events();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(store_->Delete("events", "ns", first[0]["metadata"]["name"]).ok());
  recorder.Record(Workload("a"), "Normal", "Admitted", "Admitted by ClusterQueue cq");
  ASSERT_TRUE(recorder.WaitIdle(std::chrono::seconds(10)));
  std::vector<Json> second = Events();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0]["metadata"]["name"], first[0]["metadata"]["name"]);
  EXPECT_EQ(second[0]["count"], 1);
}

TEST_F(EventRecorderTest, ManyEventsFewTransactionsNoneLostAtDestruction) {
  const store::SqliteObjectStore::WriteStats before = store_->write_stats();
  {
    EventRecorder recorder(*store_, clock_);
    for (int i = 0; i < 500; ++i) {
      recorder.Record(Workload("w" + std::to_string(i)), "Normal", "Admitted", "admitted");
    }
  }  // destroyed: what was queued is written first
  EXPECT_EQ(Events().size(), 500u);
  const store::SqliteObjectStore::WriteStats after = store_->write_stats();
  EXPECT_EQ(after.writes - before.writes, 500);
  EXPECT_LT(after.transactions - before.transactions, 500);
}

TEST_F(EventRecorderTest, OverTheQueueLimitEventsAreDroppedAndCounted) {
  EventRecorderOptions options;
  options.max_queued = 0;
  EventRecorder recorder(*store_, clock_, options);
  recorder.Record(Workload("a"), "Normal", "Admitted", "admitted");
  ASSERT_TRUE(recorder.WaitIdle(std::chrono::seconds(10)));
  EXPECT_EQ(Events().size(), 0u);
  EXPECT_EQ(recorder.stats().dropped, 1);
}

}  // namespace
}  // namespace kuota::control
