// WatchEncoder sends a store event's stored text instead of serializing its
// object again (when the watch has no selectors, no Table and no storage
// version to convert): those lines must be byte for byte what the object
// gives, for events from the store's memory and from its SQLite event log.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/resource_info.h"
#include "server/watch_encoder.h"
#include "store/store_test_env.h"

namespace kuota::server {
namespace {

using nlohmann::json;
using store::testing::kWorkloads;

class WatchEncoderTest : public store::testing::StoreTest {
 protected:
  // Every event after `from_rv` (the store holds `count` of them).
  std::vector<store::EventPtr> EventsAfter(int64_t from_rv, size_t count) {
    std::vector<store::EventPtr> out;
    auto watcher = store_->Watch(kWorkloads, "", from_rv);
    EXPECT_TRUE(watcher.ok()) << watcher.status().ToString();
    if (!watcher.ok()) return out;
    store::EventPtr e;
    while (out.size() < count && (*watcher)->Next(&e, std::chrono::seconds(5))) out.push_back(e);
    return out;
  }

  // A Workload whose JSON needs escaping and has every kind of value.
  static json OddWorkload(const std::string& name) {
    json w = store::testing::Workload("team-a", name, {{"note", "quote \" slash \\ tab \t é ✓"}});
    w["spec"]["podSets"] = json::array(
        {{{"name", "main"},
          {"count", 3},
          {"template",
           {{"spec",
             {{"containers",
               json::array({{{"name", "c"},
                             {"resources", {{"requests", {{"cpu", "1500m"}}}}},
                             {"args", json::array({"--lr=0.5", "line\nbreak"})}}})}}}}}}});
    w["spec"]["active"] = true;
    w["spec"]["priority"] = -7;
    w["spec"]["ratio"] = 0.25;
    w["spec"]["nothing"] = nullptr;
    return w;
  }

  // Writes ADDED, MODIFIED (spec, status, deletionTimestamp) and DELETED
  // events for two workloads: resourceVersions 1 to 7.
  void WriteHistory() {
    json a = MustCreate(kWorkloads, OddWorkload("a"));
    json b = OddWorkload("b");
    b["metadata"]["finalizers"] = {"example.com/hold"};
    b = MustCreate(kWorkloads, b);
    a["spec"]["priority"] = 100;
    Result<json> a2 = store_->Update(kWorkloads, a);
    ASSERT_TRUE(a2.ok()) << a2.status().ToString();
    (*a2)["status"] = {{"conditions", json::array({{{"type", "QuotaReserved"},
                                                    {"status", "True"},
                                                    {"message", "Quota \"reserved\" ✓"}}})}};
    store::UpdateOptions status_only;
    status_only.status_only = true;
    ASSERT_TRUE(store_->Update(kWorkloads, *a2, status_only).ok());
    ASSERT_TRUE(store_->Delete(kWorkloads, "team-a", "a").ok());
    Result<json> terminating = store_->Delete(kWorkloads, "team-a", "b");  // deletionTimestamp
    ASSERT_TRUE(terminating.ok()) << terminating.status().ToString();
    (*terminating)["metadata"].erase("finalizers");
    ASSERT_TRUE(store_->Update(kWorkloads, *terminating).ok());  // DELETED
  }

  // The line from the stored text and the line from the object alone.
  static void ExpectSameLines(const std::vector<store::EventPtr>& events) {
    const ResourceInfo* workloads = FindResource("kueue.x-k8s.io", "v1beta2", "workloads");
    ASSERT_NE(workloads, nullptr);
    RealClock clock;
    WatchEncoder with_text(*workloads, clock, {});
    WatchEncoder without_text(*workloads, clock, {});
    ASSERT_TRUE(with_text.CopiesStoredText());
    for (const store::EventPtr& e : events) {
      ASSERT_FALSE(e->text.empty()) << "rv " << e->resource_version;
      store::WatchEvent bare = *e;
      bare.text.clear();
      std::string line = with_text.Translate(*e);
      EXPECT_EQ(line, without_text.Translate(bare)) << "rv " << e->resource_version;
      // And it is a watch line a client can read.
      json parsed = json::parse(line);
      EXPECT_EQ(parsed["type"], store::EventTypeName(e->type));
      EXPECT_EQ(parsed["object"]["metadata"]["resourceVersion"],
                std::to_string(e->resource_version));
    }
  }
};

TEST_F(WatchEncoderTest, StoredTextLinesMatchTheObjectsFromMemory) {
  OpenStore();
  ASSERT_NO_FATAL_FAILURE(WriteHistory());
  std::vector<store::EventPtr> events = EventsAfter(1, 6);  // the ring still holds them
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events.back()->type, store::EventType::kDeleted);
  ExpectSameLines(events);
}

TEST_F(WatchEncoderTest, StoredTextLinesMatchTheObjectsFromTheEventLog) {
  store::StoreTuning tuning;
  tuning.ring_capacity = 2;  // older events are read back from SQLite
  OpenStore(Options(), tuning);
  ASSERT_NO_FATAL_FAILURE(WriteHistory());
  std::vector<store::EventPtr> events = EventsAfter(1, 6);
  ASSERT_EQ(events.size(), 6u);
  ExpectSameLines(events);
}

}  // namespace
}  // namespace kuota::server
