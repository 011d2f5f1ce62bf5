// A watch's initial state is read and sent a page at a time (issue 15).
// With tiny pages: every object arrives once, in list order, selectors and
// Tables still apply; and while writers change the collection between pages,
// each watch still gives a history that is whole and in order per object and
// ends in the store's state (checked over many watches opened at different
// moments of a burst of writes, with and without sendInitialEvents).
#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "server/test_server.h"

namespace kuota::server {
namespace {

int64_t Rv(const Json& object) {
  return std::stoll(object["metadata"]["resourceVersion"].get<std::string>());
}

class WatchPagesTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.watch_page_size = 2;
  }
};

TEST_F(WatchPagesTest, EveryObjectOnceInListOrderThenLiveEvents) {
  for (const char* name : {"e", "c", "a", "g", "b", "f", "d"}) {
    ASSERT_EQ(Post(kCqs, ClusterQueue(name)).status, 201);
  }
  WatchReader watch(port(), kCqs + "?watch=true");
  for (const char* want : {"a", "b", "c", "d", "e", "f", "g"}) {
    Json e = watch.Next();
    ASSERT_TRUE(e.is_object());
    EXPECT_EQ(e["type"], "ADDED");
    EXPECT_EQ(EventName(e), want);
  }
  ASSERT_EQ(Post(kCqs, ClusterQueue("h")).status, 201);
  Json e = watch.Next();
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["type"], "ADDED");
  EXPECT_EQ(EventName(e), "h");
  EXPECT_TRUE(watch.Next(milliseconds(300)).is_null());  // nothing twice
}

TEST_F(WatchPagesTest, SelectorsApplyAcrossPages) {
  for (int i = 0; i < 9; ++i) {
    Json labels = {{"team", i % 3 == 0 ? "a" : "b"}};
    ASSERT_EQ(Post(kWls, Workload("default", "wl-" + std::to_string(i), labels)).status, 201);
  }
  WatchReader watch(port(), kWls + "?watch=true&labelSelector=team%3Da");
  for (const char* want : {"wl-0", "wl-3", "wl-6"}) {
    Json e = watch.Next();
    ASSERT_TRUE(e.is_object());
    EXPECT_EQ(EventName(e), want);
  }
  // The object that stops matching leaves as DELETED.
  ASSERT_EQ(MergePatch(kWls + "/wl-3", R"({"metadata":{"labels":{"team":"b"}}})").status, 200);
  ExpectEvent(watch.Next(), "DELETED", "wl-3");
}

TEST_F(WatchPagesTest, TableWatchAcrossPages) {
  for (const char* name : {"a", "b", "c"}) ASSERT_EQ(Post(kCqs, ClusterQueue(name)).status, 201);
  WatchReader watch(port(), kCqs + "?watch=true",
                    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  for (const char* want : {"a", "b", "c"}) {
    Json e = watch.Next();
    ASSERT_TRUE(e.is_object());
    EXPECT_EQ(e["object"]["kind"], "Table");
    EXPECT_EQ(e["object"]["rows"][0]["cells"][0], want);
  }
}

// A client's view of one watch: the objects it holds, checked as events come.
struct ClientView {
  std::map<std::string, int64_t> objects;  // name -> resourceVersion held
  std::vector<std::string> errors;
  int64_t bookmark = -1;  // the initial-events-end bookmark's version

  void Apply(const Json& e) {
    const std::string type = e["type"];
    if (type == "BOOKMARK") {
      if (e["object"]["metadata"].contains("annotations")) {
        bookmark = std::stoll(e["object"]["metadata"]["resourceVersion"].get<std::string>());
      }
      return;
    }
    const std::string name = EventName(e);
    const int64_t rv = Rv(e["object"]);
    auto it = objects.find(name);
    if (bookmark < 0 && rv > max_before_bookmark) max_before_bookmark = rv;
    if (type == "ADDED") {
      if (it != objects.end()) errors.push_back("ADDED twice: " + name);
      objects[name] = rv;
    } else if (it == objects.end()) {
      errors.push_back(type + " of an object not held: " + name);
    } else if (rv <= it->second) {
      errors.push_back(type + " out of order: " + name);
    } else if (type == "DELETED") {
      objects.erase(it);
    } else {
      it->second = rv;
    }
  }
  int64_t max_before_bookmark = 0;
};

class WatchPagesUnderWritesTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.watch_page_size = 1;
  }
};

TEST_F(WatchPagesUnderWritesTest, HistoryIsWholeAndEndsInTheStoresState) {
  constexpr int kNames = 40, kWatches = 12;
  auto name = [](int i) { return "cq-" + std::to_string(100 + i); };
  for (int i = 0; i < kNames; i += 2) ASSERT_EQ(Post(kCqs, ClusterQueue(name(i))).status, 201);

  // Creates, updates and deletes at random until told to stop.
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    httplib::Client c("127.0.0.1", port());
    c.set_tcp_nodelay(true);
    std::mt19937 rng(7);
    for (int n = 0; !stop; ++n) {
      const std::string cq = name(static_cast<int>(rng() % kNames));
      switch (rng() % 3) {
        case 0:
          c.Post(kCqs.c_str(), ClusterQueue(cq).dump(), "application/json");
          break;
        case 1:
          c.Patch((kCqs + "/" + cq).c_str(),
                  R"({"spec":{"cohort":"c)" + std::to_string(n) + R"("}})",
                  "application/merge-patch+json");
          break;
        default:
          c.Delete((kCqs + "/" + cq).c_str());
      }
    }
  });
  std::vector<std::unique_ptr<WatchReader>> watches;
  for (int i = 0; i < kWatches; ++i) {
    std::string path = kCqs + "?watch=true";
    if (i % 2 == 1) path += "&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersion=";
    watches.push_back(std::make_unique<WatchReader>(port(), path));
    std::this_thread::sleep_for(milliseconds(40));
  }
  stop = true;
  writer.join();
  // A last write that every watch must reach.
  ASSERT_EQ(Post(kCqs, ClusterQueue("zz-end")).status, 201);
  Reply list = Get(kCqs);
  ASSERT_EQ(list.status, 200);
  std::map<std::string, int64_t> want;
  for (const Json& item : list.body["items"]) want[item["metadata"]["name"]] = Rv(item);

  for (int i = 0; i < kWatches; ++i) {
    SCOPED_TRACE("watch " + std::to_string(i));
    ClientView view;
    // A watch connects on a thread of its own, so it may start after zz-end
    // was written and list it in its last page while events for keys on its
    // earlier pages (newer than those pages) are still to come. A watch with
    // bookmarks is read to the bookmark that says it holds its pages' state;
    // a plain watch has no such marker, so it is read until it holds the
    // store's state (a lost event stalls it).
    const bool wants_bookmark = i % 2 == 1;
    auto caught_up = [&] {
      return wants_bookmark ? view.objects.count("zz-end") && view.bookmark >= 0
                            : view.objects == want;
    };
    while (!caught_up()) {
      Json e = watches[static_cast<size_t>(i)]->Next(milliseconds(10000));
      ASSERT_TRUE(e.is_object()) << "the watch stalled holding " << view.objects.size()
                                 << " objects, " << want.size() << " wanted";
      view.Apply(e);
    }
    EXPECT_TRUE(view.errors.empty()) << view.errors.front();
    EXPECT_EQ(view.objects, want);
    if (wants_bookmark) {
      // The initial-events-end bookmark came, and nothing before it was newer.
      EXPECT_GT(view.bookmark, 0);
      EXPECT_LE(view.max_before_bookmark, view.bookmark);
    }
  }
}

}  // namespace
}  // namespace kuota::server
