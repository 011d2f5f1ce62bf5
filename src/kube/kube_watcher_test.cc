// KubeWatcher against recorded kube-apiserver watch streams served over
// loopback HTTP: several resources merged into one queue, bookmarks, resuming
// after a dropped connection from the last version seen, 410 Expired (as an
// ERROR event and as an HTTP reply) ending the watcher, and Stop() cutting
// streams that are open and idle.
#include "kube/kube_watcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/replay_server_test_util.h"

namespace kuota::kube {
namespace {

using std::chrono::seconds;

constexpr const char* kClusterQueuesKey = "clusterqueues.kueue.x-k8s.io";
constexpr const char* kWorkloadsPath = "/apis/kueue.x-k8s.io/v1beta2/workloads";
constexpr const char* kClusterQueuesPath = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues";

KubeWatchOptions FastBackoff() {
  KubeWatchOptions o;
  o.backoff_initial = milliseconds(100);
  o.backoff_max = milliseconds(400);
  return o;
}

// A recorded stream that stays open (and silent) after its events.
Exchange Held(const std::string& name) {
  Exchange ex = LoadExchange(name);
  ex.reply.hold = seconds(30);
  return ex;
}

// An open, silent watch stream for every later request of `path`.
void IdleAfterwards(ReplayServer& server, const std::string& path) {
  Exchange idle;
  idle.method = "GET";
  idle.path = path;
  idle.query["watch"] = "1";
  idle.reply = Reply::IdleStream(seconds(30));
  server.Add(idle, -1);
}

std::vector<RecordedRequest> Watches(const ReplayServer& server, const std::string& path) {
  std::vector<RecordedRequest> out;
  for (const RecordedRequest& r : server.Requests("GET", path)) {
    if (r.IsWatch()) out.push_back(r);
  }
  return out;
}

// Takes events until `n` arrived or `timeout` passed.
std::vector<store::WatchEvent> Take(store::Watcher& w, size_t n, milliseconds timeout) {
  std::vector<store::WatchEvent> out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  store::WatchEvent ev;
  while (out.size() < n) {
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !w.Next(&ev, left)) break;
    out.push_back(ev);
  }
  return out;
}

bool WaitUntil(const std::function<bool()>& done, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

// The server and a client of it; Watch starts the watcher once the server
// has what it replays (the watcher goes first, the server last).
class KubeWatcherTest : public ::testing::Test {
 protected:
  KubeWatcher& Watch(std::vector<WatchStreamSpec> streams, KubeWatchOptions o = FastBackoff()) {
    watcher_ = std::make_unique<KubeWatcher>(client_, std::move(streams), std::move(o));
    return *watcher_;
  }
  // Both recorded streams, held open after their events; watched from 5000.
  KubeWatcher& WatchBothHeld() {
    server.Add(Held("watch_workloads_bookmark"));
    server.Add(Held("watch_clusterqueues"));
    return Watch({{kWorkloadsKey, "", 5000}, {kClusterQueuesKey, "", 5000}});
  }
  // The recorded `exchange` ending the watch of workloads from version 1.
  KubeWatcher& WatchExpired(const std::string& exchange) {
    server.Add(exchange);
    IdleAfterwards(server, kWorkloadsPath);
    return Watch({{kWorkloadsKey, "", 1}});
  }

  ReplayServer server;

 private:
  KubeClient client_{TargetOf(server, "watch-token"), ClientOptions{}};
  std::unique_ptr<KubeWatcher> watcher_;
};

TEST_F(KubeWatcherTest, MergesTheStreamsOfSeveralResources) {
  KubeWatcher& watcher = WatchBothHeld();
  std::vector<store::WatchEvent> events = Take(watcher, 5, milliseconds(5000));
  ASSERT_EQ(events.size(), 5u);

  std::map<std::string, std::vector<int64_t>> versions;
  for (const store::WatchEvent& ev : events) versions[ev.resource].push_back(ev.resource_version);
  // Each stream's order is kept; both reach the one queue.
  EXPECT_EQ(versions[kWorkloadsKey], (std::vector<int64_t>{5001, 5003, 5010}));
  EXPECT_EQ(versions[kClusterQueuesKey], (std::vector<int64_t>{5002, 5004}));
  for (const store::WatchEvent& ev : events) {
    if (ev.resource != kClusterQueuesKey) continue;
    EXPECT_EQ(ev.object["kind"], "ClusterQueue");
    EXPECT_EQ(ev.object["metadata"]["name"], "cluster-queue");
  }
  EXPECT_TRUE(watcher.Alive());

  for (const char* path : {kWorkloadsPath, kClusterQueuesPath}) {
    SCOPED_TRACE(path);
    std::vector<RecordedRequest> w = Watches(server, path);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].Param("resourceVersion"), "5000");
    EXPECT_EQ(w[0].Param("allowWatchBookmarks"), "true");
    EXPECT_EQ(w[0].Param("timeoutSeconds"), "300");
    EXPECT_EQ(w[0].Header("Authorization"), "Bearer watch-token");
  }
}

TEST_F(KubeWatcherTest, BookmarkAdvancesTheResumeVersionWithoutAnObject) {
  server.Add("watch_workloads_bookmark");  // ends after the bookmark (server timeout)
  IdleAfterwards(server, kWorkloadsPath);
  std::mutex mu;
  std::vector<int64_t> seen;
  KubeWatchOptions o = FastBackoff();
  o.on_resource_version = [&](int64_t rv) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(rv);
  };
  KubeWatcher& watcher = Watch({{kWorkloadsKey, "", 5000}}, o);

  std::vector<store::WatchEvent> events = Take(watcher, 3, milliseconds(5000));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, store::EventType::kAdded);
  EXPECT_EQ(events[0].object["metadata"]["name"], "wl-a");
  EXPECT_EQ(events[1].type, store::EventType::kModified);
  EXPECT_EQ(events[1].resource_version, 5003);
  // The bookmark reaches the controller only as a version: no object to apply.
  EXPECT_EQ(events[2].type, store::EventType::kBookmark);
  EXPECT_EQ(events[2].resource_version, 5010);
  EXPECT_FALSE(events[2].object.is_object()) << events[2].object.dump();

  // The stream ended; the next one resumes after the bookmark.
  ASSERT_TRUE(server.WaitForRequests("GET", kWorkloadsPath, 2, milliseconds(5000), true));
  std::vector<RecordedRequest> w = Watches(server, kWorkloadsPath);
  EXPECT_EQ(w[0].Param("resourceVersion"), "5000");
  EXPECT_EQ(w[1].Param("resourceVersion"), "5010");
  EXPECT_EQ(w[1].Param("allowWatchBookmarks"), "true");
  EXPECT_TRUE(watcher.Alive());
  EXPECT_GE(watcher.reconnects(), 1);
  // Nothing more reached the queue.
  store::WatchEvent extra;
  EXPECT_FALSE(watcher.Next(&extra, milliseconds(100)));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen, (std::vector<int64_t>{5001, 5003, 5010}));
}

TEST_F(KubeWatcherTest, DroppedStreamResumesFromTheLastVersionSeen) {
  Exchange dropped = LoadExchange("watch_workloads_dropped");
  dropped.reply.chunk_bytes = 64;         // events split across chunks arriving over time,
  dropped.reply.pause = milliseconds(3);  // then the connection cut
  server.Add(dropped);
  IdleAfterwards(server, kWorkloadsPath);
  KubeWatcher& watcher = Watch({{kWorkloadsKey, "", 5000}});

  std::vector<store::WatchEvent> events = Take(watcher, 2, milliseconds(5000));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].object["metadata"]["name"], "wl-a");
  EXPECT_EQ(events[1].object["metadata"]["name"], "wl-b");
  EXPECT_EQ(events[1].resource_version, 5005);

  ASSERT_TRUE(server.WaitForRequests("GET", kWorkloadsPath, 2, milliseconds(5000), true));
  std::vector<RecordedRequest> w = Watches(server, kWorkloadsPath);
  EXPECT_EQ(w[1].Param("resourceVersion"), "5005");
  EXPECT_TRUE(watcher.Alive());
  EXPECT_GE(watcher.reconnects(), 1);
}

TEST_F(KubeWatcherTest, ExpiredErrorEventEndsTheWatcher) {
  KubeWatcher& watcher = WatchExpired("watch_workloads_expired");

  EXPECT_TRUE(WaitUntil([&] { return !watcher.Alive(); }, milliseconds(5000)));
  store::WatchEvent ev;
  EXPECT_FALSE(watcher.Next(&ev, milliseconds(300)));  // the ERROR is no event
  // It does not retry from the expired version: the controller lists again.
  EXPECT_EQ(Watches(server, kWorkloadsPath).size(), 1u);
  EXPECT_EQ(Watches(server, kWorkloadsPath)[0].Param("resourceVersion"), "1");
}

TEST_F(KubeWatcherTest, Http410EndsTheWatcher) {
  KubeWatcher& watcher = WatchExpired("watch_workloads_expired_http410");
  EXPECT_TRUE(WaitUntil([&] { return !watcher.Alive(); }, milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(300));  // longer than the back-off
  EXPECT_EQ(Watches(server, kWorkloadsPath).size(), 1u);
}

TEST_F(KubeWatcherTest, ServerErrorIsRetriedWithBackoffFromTheSameVersion) {
  Exchange unavailable = LoadExchange("service_unavailable");
  unavailable.path = kWorkloadsPath;
  unavailable.query["watch"] = "1";
  server.Add(unavailable, 2);
  IdleAfterwards(server, kWorkloadsPath);
  KubeWatcher& watcher = Watch({{kWorkloadsKey, "", 5000}});

  ASSERT_TRUE(server.WaitForRequests("GET", kWorkloadsPath, 3, milliseconds(5000), true));
  std::vector<RecordedRequest> w = Watches(server, kWorkloadsPath);
  for (const RecordedRequest& r : w) EXPECT_EQ(r.Param("resourceVersion"), "5000");
  // 100 ms after the first failure, 200 ms after the second.
  EXPECT_GE(w[1].at - w[0].at, milliseconds(90));
  EXPECT_GE(w[2].at - w[1].at, milliseconds(180));
  EXPECT_TRUE(watcher.Alive());
}

TEST_F(KubeWatcherTest, StopCutsOpenIdleStreamsPromptly) {
  KubeWatcher& watcher = WatchBothHeld();
  ASSERT_EQ(Take(watcher, 5, milliseconds(5000)).size(), 5u);
  std::this_thread::sleep_for(milliseconds(50));  // both streams open and silent

  const auto start = std::chrono::steady_clock::now();
  watcher.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  EXPECT_FALSE(watcher.Alive());
  store::WatchEvent ev;
  EXPECT_FALSE(watcher.Next(&ev, milliseconds(10)));
  EXPECT_EQ(Watches(server, kWorkloadsPath).size(), 1u);  // no reconnection after Stop
  EXPECT_EQ(Watches(server, kClusterQueuesPath).size(), 1u);
}

TEST_F(KubeWatcherTest, StopDuringBackoffIsPrompt) {
  // Nothing recorded: every watch gets 404.
  KubeWatchOptions o;
  o.backoff_initial = seconds(20);
  o.backoff_max = seconds(20);
  KubeWatcher& watcher = Watch({{kWorkloadsKey, "", 5000}}, o);
  ASSERT_TRUE(server.WaitForRequests("GET", kWorkloadsPath, 1, milliseconds(5000), true));
  std::this_thread::sleep_for(milliseconds(50));
  const auto start = std::chrono::steady_clock::now();
  watcher.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
}

}  // namespace
}  // namespace kuota::kube
