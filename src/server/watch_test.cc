// Watch over HTTP: initial state, live events, resumption, 410 Gone, selector
// transitions, Table watches, bookmarks and timeouts.
#include <chrono>
#include <string>

#include "server/test_server.h"

namespace kuota::server {
namespace {

using WatchTest = ServerTest;

TEST_F(WatchTest, InitialStateThenLiveEvents) {
  ASSERT_EQ(Post(kCqs, ClusterQueue("b")).status, 201);
  ASSERT_EQ(Post(kCqs, ClusterQueue("a")).status, 201);
  WatchReader watch(port(), kCqs + "?watch=true&timeoutSeconds=20");
  Json e1 = watch.Next(), e2 = watch.Next();
  ASSERT_TRUE(e1.is_object() && e2.is_object());
  EXPECT_EQ(e1["type"], "ADDED");
  EXPECT_EQ(EventName(e1), "a");  // sorted
  EXPECT_EQ(EventName(e2), "b");

  ASSERT_EQ(Post(kCqs, ClusterQueue("c")).status, 201);
  Json added = watch.Next();
  ASSERT_TRUE(added.is_object());
  EXPECT_EQ(added["type"], "ADDED");
  EXPECT_EQ(EventName(added), "c");

  ASSERT_EQ(MergePatch(kCqs + "/c", R"({"spec":{"cohort":"x"}})").status, 200);
  Json modified = watch.Next();
  ASSERT_TRUE(modified.is_object());
  EXPECT_EQ(modified["type"], "MODIFIED");
  EXPECT_EQ(modified["object"]["spec"]["cohort"], "x");

  Reply del = Delete(kCqs + "/c");
  ASSERT_EQ(del.status, 200);
  Json deleted = watch.Next();
  ASSERT_TRUE(deleted.is_object());
  EXPECT_EQ(deleted["type"], "DELETED");
  EXPECT_EQ(EventName(deleted), "c");
  // The DELETED event carries the deletion's resourceVersion.
  EXPECT_GT(std::stoll(deleted["object"]["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(modified["object"]["metadata"]["resourceVersion"].get<std::string>()));
}

TEST_F(WatchTest, ResumesFromResourceVersion) {
  Reply a = Post(kCqs, ClusterQueue("a"));
  ASSERT_EQ(a.status, 201);
  std::string rv = a.body["metadata"]["resourceVersion"];
  ASSERT_EQ(Post(kCqs, ClusterQueue("b")).status, 201);
  WatchReader watch(port(), kCqs + "?watch=1&resourceVersion=" + rv + "&timeoutSeconds=20");
  Json e = watch.Next();
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["type"], "ADDED");
  EXPECT_EQ(EventName(e), "b");  // a is not replayed
  EXPECT_TRUE(watch.Next(milliseconds(300)).is_null());
}

TEST_F(WatchTest, LegacyWatchPathAndSingleObject) {
  ASSERT_EQ(Post(kWls, Workload("default", "w1")).status, 201);
  ASSERT_EQ(Post(kWls, Workload("default", "w2")).status, 201);
  WatchReader watch(
      port(), std::string(kKueue) + "/watch/namespaces/default/workloads/w2?timeoutSeconds=20");
  Json e = watch.Next();
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(EventName(e), "w2");
  EXPECT_TRUE(watch.Next(milliseconds(300)).is_null());
}

TEST_F(WatchTest, SelectorTransitionsBecomeAddedAndDeleted) {
  ASSERT_EQ(Post(kWls, Workload("default", "w", {{"team", "a"}})).status, 201);
  WatchReader watch(port(), kWls + "?watch=true&labelSelector=team%3Da&timeoutSeconds=20");
  ASSERT_NO_FATAL_FAILURE(ExpectEvent(watch.Next(), "ADDED", "w"));
  ASSERT_EQ(MergePatch(kWls + "/w", R"({"metadata":{"labels":{"team":"b"}}})").status, 200);
  ASSERT_NO_FATAL_FAILURE(ExpectEvent(watch.Next(), "DELETED", "w"));
  ASSERT_EQ(Post(kWls, Workload("default", "other", {{"team", "b"}})).status, 201);
  ASSERT_EQ(MergePatch(kWls + "/w", R"({"metadata":{"labels":{"team":"a"}}})").status, 200);
  ASSERT_NO_FATAL_FAILURE(ExpectEvent(watch.Next(), "ADDED", "w"));
}

TEST_F(WatchTest, TableWatchSendsOneRowTables) {
  ASSERT_EQ(Post(kCqs, ClusterQueue("cq", "all")).status, 201);
  WatchReader watch(port(), kCqs + "?watch=true&timeoutSeconds=20",
                    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  Json first = watch.Next();
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["object"]["kind"], "Table");
  EXPECT_EQ(first["object"]["columnDefinitions"][0]["name"], "Name");
  ASSERT_EQ(first["object"]["rows"].size(), 1u);
  EXPECT_EQ(first["object"]["rows"][0]["cells"][0], "cq");
  EXPECT_EQ(first["object"]["rows"][0]["cells"][1], "all");
  EXPECT_EQ(first["object"]["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  ASSERT_EQ(Post(kCqs, ClusterQueue("cq2")).status, 201);
  Json second = watch.Next();
  ASSERT_TRUE(second.is_object());
  EXPECT_EQ(second["object"]["rows"][0]["cells"][0], "cq2");
  EXPECT_TRUE(second["object"]["columnDefinitions"].empty());
}

TEST_F(WatchTest, TimeoutEndsTheStream) {
  WatchReader watch(port(), kCqs + "?watch=true&timeoutSeconds=1");
  EXPECT_EQ(watch.Wait(milliseconds(5000)), 200);
}

TEST_F(WatchTest, StopEndsOpenWatches) {
  auto watch = std::make_unique<WatchReader>(port(), kCqs + "?watch=true");
  ASSERT_EQ(Post(kCqs, ClusterQueue("a")).status, 201);
  ASSERT_TRUE(watch->Next().is_object());
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_EQ(watch->Wait(milliseconds(10000)), 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
}

class BookmarkTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.watch_bookmark_interval_ms = 200;
  }
};

TEST_F(BookmarkTest, BookmarksWhenAllowed) {
  Reply a = Post(kCqs, ClusterQueue("a"));
  ASSERT_EQ(a.status, 201);
  WatchReader watch(port(), kCqs + "?watch=true&allowWatchBookmarks=true&resourceVersion=" +
                                a.body["metadata"]["resourceVersion"].get<std::string>() +
                                "&timeoutSeconds=20");
  Json e = watch.Next(milliseconds(5000));
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["type"], "BOOKMARK");
  EXPECT_EQ(e["object"]["kind"], "ClusterQueue");
  EXPECT_EQ(e["object"]["metadata"]["resourceVersion"], a.body["metadata"]["resourceVersion"]);
}

class GoneTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions& store, ServerOptions&) override { store.event_log_size = 3; }
};

TEST_F(GoneTest, TooOldResourceVersionIsAnErrorEvent) {
  Reply first = Post(kCqs, ClusterQueue("cq-0"));
  ASSERT_EQ(first.status, 201);
  for (int i = 1; i < 20; ++i) {
    ASSERT_EQ(Post(kCqs, ClusterQueue("cq-" + std::to_string(i))).status, 201);
  }
  WatchReader watch(port(), kCqs + "?watch=true&resourceVersion=" +
                                first.body["metadata"]["resourceVersion"].get<std::string>());
  Json e = watch.Next();
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["type"], "ERROR");
  EXPECT_EQ(e["object"]["kind"], "Status");
  EXPECT_EQ(e["object"]["code"], 410);
  EXPECT_EQ(e["object"]["reason"], "Expired");
  EXPECT_EQ(watch.Wait(milliseconds(5000)), 200);
}

}  // namespace
}  // namespace kuota::server
