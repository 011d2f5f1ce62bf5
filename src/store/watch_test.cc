#include "store/object_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "store/store_test_env.h"

namespace kuota::store {
namespace {

using namespace std::chrono_literals;

class WatchTest : public testing::OpenStoreTest {
 protected:
  std::unique_ptr<Watcher> MustWatch(const std::string& resource, const std::string& ns,
                                     int64_t from) {
    auto w = store_->Watch(resource, ns, from);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : nullptr;
  }

  // Reads events until `n` arrived or 2 s passed without one.
  static std::vector<WatchEvent> Drain(Watcher& w, size_t n) {
    std::vector<WatchEvent> out;
    WatchEvent e;
    while (out.size() < n && w.Next(&e, 2000ms)) out.push_back(e);
    return out;
  }

  static std::vector<int64_t> Versions(const std::vector<WatchEvent>& events) {
    std::vector<int64_t> out;
    for (const WatchEvent& e : events) out.push_back(e.resource_version);
    return out;
  }

  static std::vector<int64_t> Range(int64_t first, int64_t last) {
    std::vector<int64_t> out;
    for (int64_t v = first; v <= last; ++v) out.push_back(v);
    return out;
  }
};

TEST_F(WatchTest, FromZeroSeesOnlyNewEvents) {
  MustCreate(kConfigMaps, ConfigMap("ns", "before"));
  auto w = MustWatch(kConfigMaps, "", 0);
  Json cm = MustCreate(kConfigMaps, ConfigMap("ns", "c"));
  cm["data"]["k"] = "v";
  ASSERT_TRUE(store_->Update(kConfigMaps, cm).ok());
  ASSERT_TRUE(store_->Delete(kConfigMaps, "ns", "c").ok());

  std::vector<WatchEvent> events = Drain(*w, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kAdded);
  EXPECT_EQ(events[1].type, EventType::kModified);
  EXPECT_EQ(events[2].type, EventType::kDeleted);
  EXPECT_EQ(Versions(events), Range(2, 4));
  for (const WatchEvent& e : events) {
    EXPECT_EQ(e.resource, kConfigMaps);
    EXPECT_EQ(e.object["metadata"]["name"], "c");
    EXPECT_EQ(Rv(e.object), e.resource_version);  // DELETED carries the deletion's version
  }
  EXPECT_EQ(events[1].object["data"]["k"], "v");
  EXPECT_STREQ(EventTypeName(events[2].type), "DELETED");

  WatchEvent e;
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(w->Next(&e, 50ms));  // a timeout, not the end
  EXPECT_GE(std::chrono::steady_clock::now() - start, 45ms);
  EXPECT_TRUE(w->Alive());
}

TEST_F(WatchTest, FiltersByResourceAndNamespace) {
  auto all = MustWatch("", "", 0);
  auto cms = MustWatch(kConfigMaps, "", 0);
  auto team_a = MustWatch(kConfigMaps, "team-a", 0);
  auto anything_in_a = MustWatch("", "team-a", 0);
  MustCreate(kConfigMaps, ConfigMap("team-a", "x"));
  MustCreate(kConfigMaps, ConfigMap("team-b", "x"));
  MustCreate(kWorkloads, Workload("team-a", "x"));
  MustCreate(kClusterQueues, ClusterQueue("cq"));
  EXPECT_EQ(Versions(Drain(*all, 4)), Range(1, 4));
  EXPECT_EQ(Versions(Drain(*cms, 2)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Versions(Drain(*team_a, 1)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Versions(Drain(*anything_in_a, 2)), (std::vector<int64_t>{1, 3}));
  WatchEvent e;
  EXPECT_FALSE(cms->Next(&e, 20ms));
  EXPECT_FALSE(team_a->Next(&e, 20ms));
}

// "!R" selects every resource but R (what the in-process controllers watch:
// kAllButEvents), live and when catching up from the log in pages.
TEST_F(WatchTest, AllButOneResourceLiveAndFromTheLog) {
  EXPECT_TRUE(ResourceSelected("", kConfigMaps));
  EXPECT_TRUE(ResourceSelected(kConfigMaps, kConfigMaps));
  EXPECT_FALSE(ResourceSelected(kConfigMaps, kWorkloads));
  EXPECT_FALSE(ResourceSelected(std::string("!") + kConfigMaps, kConfigMaps));
  EXPECT_TRUE(ResourceSelected(std::string("!") + kConfigMaps, kWorkloads));
  EXPECT_FALSE(ResourceSelected(kAllButEvents, "events"));
  EXPECT_TRUE(ResourceSelected(kAllButEvents, "eventsx"));

  const std::string not_cms = std::string("!") + kConfigMaps;
  for (int i = 0; i < 10; ++i) {
    MustCreate(i % 2 ? kConfigMaps : kWorkloads, i % 2 ? ConfigMap("ns", "c" + std::to_string(i))
                                                       : Workload("ns", "w" + std::to_string(i)));
  }
  StoreTuning tuning;
  tuning.catchup_page_size = 2;
  OpenStore(Options(), tuning);  // the in-memory ring starts empty: the log is read
  auto logged = MustWatch(not_cms, "", 1);
  auto live = MustWatch(not_cms, "", 0);
  MustCreate(kConfigMaps, ConfigMap("ns", "live-cm"));
  MustCreate(kClusterQueues, ClusterQueue("cq"));
  // rv 1..10 alternate workload (odd rv) / ConfigMap (even rv); 11 a ConfigMap, 12 a CQ.
  EXPECT_EQ(Versions(Drain(*logged, 5)), (std::vector<int64_t>{3, 5, 7, 9, 12}));
  std::vector<WatchEvent> got = Drain(*live, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].resource, kClusterQueues);
  WatchEvent e;
  EXPECT_FALSE(logged->Next(&e, 20ms));
  EXPECT_FALSE(live->Next(&e, 20ms));
}

// Watchers share one copy of an event: the hub's, not one each.
TEST_F(WatchTest, WatchersShareTheEvent) {
  auto a = MustWatch(kConfigMaps, "", 0);
  auto b = MustWatch("", "", 0);
  MustCreate(kConfigMaps, ConfigMap("ns", "c"));
  EventPtr ea, eb;
  ASSERT_TRUE(a->Next(&ea, 2000ms));
  ASSERT_TRUE(b->Next(&eb, 2000ms));
  EXPECT_EQ(ea.get(), eb.get());
  EXPECT_EQ(ea->object["metadata"]["name"], "c");
}

TEST_F(WatchTest, ResumesFromAnOldVersion) {
  for (int i = 0; i < 10; ++i) MustCreate(kConfigMaps, ConfigMap("ns", "c" + std::to_string(i)));
  auto w = MustWatch(kConfigMaps, "", 3);
  MustCreate(kConfigMaps, ConfigMap("ns", "live"));
  std::vector<WatchEvent> events = Drain(*w, 8);
  EXPECT_EQ(Versions(events), Range(4, 11));
  EXPECT_EQ(events[0].object["metadata"]["name"], "c3");
  EXPECT_EQ(events.back().object["metadata"]["name"], "live");
}

TEST_F(WatchTest, ResumesFromTheLogAfterReopenInPages) {
  for (int i = 0; i < 30; ++i) {
    MustCreate(i % 2 ? kConfigMaps : kWorkloads, i % 2 ? ConfigMap("ns", "c" + std::to_string(i))
                                                       : Workload("ns", "w" + std::to_string(i)));
  }
  StoreTuning tuning;
  tuning.catchup_page_size = 4;
  OpenStore(Options(), tuning);  // the in-memory ring starts empty
  auto all = MustWatch("", "", 5);
  auto cms = MustWatch(kConfigMaps, "ns", 5);
  MustCreate(kConfigMaps, ConfigMap("ns", "live"));
  EXPECT_EQ(Versions(Drain(*all, 26)), Range(6, 31));
  std::vector<int64_t> want;
  for (int64_t v = 6; v <= 30; v += 2) want.push_back(v);  // odd i -> even rv
  want.push_back(31);
  EXPECT_EQ(Versions(Drain(*cms, want.size())), want);
}

TEST_F(WatchTest, TooOldVersionIsGone) {
  StoreOptions o = Options();
  o.event_log_size = 5;
  OpenStore(o);
  for (int i = 0; i < 20; ++i) MustCreate(kConfigMaps, ConfigMap("ns", "c" + std::to_string(i)));
  for (int64_t from : {1, 10, 14}) {
    auto w = store_->Watch(kConfigMaps, "", from);
    ASSERT_FALSE(w.ok()) << from;
    EXPECT_EQ(w.status().code(), StatusCode::kGone);
    EXPECT_EQ(w.status().message(), "too old resource version: " + std::to_string(from) + " (15)");
  }
  auto w = MustWatch(kConfigMaps, "", 15);
  EXPECT_EQ(Versions(Drain(*w, 5)), Range(16, 20));

  // The same after a reopen, when the log in SQLite serves the watch.
  OpenStore(o);
  EXPECT_EQ(store_->Watch(kConfigMaps, "", 14).status().code(), StatusCode::kGone);
  auto again = MustWatch(kConfigMaps, "", 15);
  EXPECT_EQ(Versions(Drain(*again, 5)), Range(16, 20));
}

TEST_F(WatchTest, NoEventLogMeansOnlyLiveWatches) {
  StoreOptions o = Options();
  o.event_log_size = 0;
  OpenStore(o);
  MustCreate(kConfigMaps, ConfigMap("ns", "a"));
  auto w = MustWatch(kConfigMaps, "", 1);
  MustCreate(kConfigMaps, ConfigMap("ns", "b"));
  EXPECT_EQ(Versions(Drain(*w, 1)), (std::vector<int64_t>{2}));
  OpenStore(o);
  EXPECT_EQ(store_->Watch(kConfigMaps, "", 1).status().code(), StatusCode::kGone);
}

TEST_F(WatchTest, FutureVersionWaitsForIt) {
  MustCreate(kConfigMaps, ConfigMap("ns", "a"));
  auto w = MustWatch(kConfigMaps, "", 3);
  for (int i = 0; i < 4; ++i) MustCreate(kConfigMaps, ConfigMap("ns", "b" + std::to_string(i)));
  EXPECT_EQ(Versions(Drain(*w, 2)), Range(4, 5));
}

TEST_F(WatchTest, StopWakesABlockedNext) {
  auto w = MustWatch("", "", 0);
  std::atomic<bool> returned{false};
  std::thread reader([&] {
    WatchEvent e;
    EXPECT_FALSE(w->Next(&e, 60s));
    returned = true;
  });
  std::this_thread::sleep_for(20ms);
  w->Stop();
  reader.join();
  EXPECT_TRUE(returned);
  EXPECT_FALSE(w->Alive());
  MustCreate(kConfigMaps, ConfigMap("ns", "after-stop"));
  WatchEvent e;
  EXPECT_FALSE(w->Next(&e, 10ms));
}

TEST_F(WatchTest, SlowWatcherIsClosedWithoutBlockingWriters) {
  StoreTuning tuning;
  tuning.watcher_queue_limit = 10;
  OpenStore(Options(), tuning);
  MustCreate(kConfigMaps, ConfigMap("ns", "first"));
  auto slow = MustWatch("", "", 0);  // from version 1, and never reads
  auto fast = MustWatch("", "", 0);
  std::vector<int64_t> fast_seen;
  for (int i = 0; i < 30; ++i) {
    MustCreate(kConfigMaps, ConfigMap("ns", "c" + std::to_string(i)));
    WatchEvent e;
    ASSERT_TRUE(fast->Next(&e, 1s));
    fast_seen.push_back(e.resource_version);
  }
  EXPECT_EQ(fast_seen, Range(2, 31));
  EXPECT_FALSE(slow->Alive());
  WatchEvent e;
  EXPECT_FALSE(slow->Next(&e, 0ms));
  EXPECT_TRUE(fast->Alive());
  EXPECT_EQ(store_->watcher_count(), 1u);
  // The client watches again from the last version it saw and misses nothing.
  auto again = MustWatch("", "", 1);
  EXPECT_EQ(Versions(Drain(*again, 30)), Range(2, 31));
}

TEST_F(WatchTest, StoreClosingEndsWatchers) {
  auto w = MustWatch("", "", 0);
  store_.reset();
  EXPECT_FALSE(w->Alive());
  WatchEvent e;
  EXPECT_FALSE(w->Next(&e, 10ms));
  w.reset();  // after the store: must not crash
}

TEST_F(WatchTest, ConcurrentWritersAndWatchersLoseAndRepeatNothing) {
  StoreTuning tuning;
  tuning.ring_capacity = 64;  // most resumes go through the SQLite log
  tuning.catchup_page_size = 16;
  StoreOptions o = Options();
  o.sync = false;
  OpenStore(o, tuning);
  constexpr int kWriters = 8, kPerWriter = 150;
  constexpr int64_t kTotal = int64_t{kWriters} * kPerWriter * 2;  // a create and an update each

  // Watchers started before, and at random points during, the burst.
  struct Seen {
    int64_t from = 0;
    std::vector<int64_t> rvs;
  };
  std::vector<Seen> seen(12);
  std::vector<std::thread> readers;
  auto read = [&](size_t idx, std::unique_ptr<Watcher> w, int64_t from) {
    seen[idx].from = from;
    WatchEvent e;
    while (static_cast<int64_t>(seen[idx].rvs.size()) < kTotal - from && w->Next(&e, 5s)) {
      seen[idx].rvs.push_back(e.resource_version);
    }
  };
  for (size_t i = 0; i < 4; ++i) {
    readers.emplace_back(read, i, MustWatch("", "", 0), 0);
  }
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerWriter; ++i) {
        auto r = store_->Create(kConfigMaps, WriterConfigMap(t, i));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        Json cm = *r;
        cm["data"]["i"] = std::to_string(i);
        ASSERT_TRUE(store_->Update(kConfigMaps, cm).ok());
      }
    });
  }
  for (size_t i = 4; i < seen.size(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * i));
    // Resume from a version seen a while ago, like a client reconnecting.
    int64_t now = store_->CurrentResourceVersion();
    int64_t from = std::max<int64_t>(1, now - static_cast<int64_t>(37 * i));  // 0 would mean "now"
    auto w = store_->Watch("", "", from);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    readers.emplace_back(read, i, std::move(w).value(), from);
  }
  for (auto& th : writers) th.join();
  for (auto& th : readers) th.join();
  ASSERT_EQ(store_->CurrentResourceVersion(), kTotal);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].rvs, Range(seen[i].from + 1, kTotal))
        << "watcher " << i << " from " << seen[i].from;
  }
}

}  // namespace
}  // namespace kuota::store
