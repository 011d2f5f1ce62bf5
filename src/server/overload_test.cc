// No request may crash, exhaust or starve the API server (issue 15), over
// real HTTP on loopback: 64 open watches and 16 slow clients (a partial
// request, then silence) while creates keep p99 under 50 ms and /healthz
// answers; the cap on open streams (429); the health listener answering
// while every API thread is taken; silent, trickling and idle clients
// dropped on their deadlines; a watch from a future resourceVersion answered
// promptly with kube's 504 "Too large resource version"; a request line over
// httplib's limit answered 414.
// Under ASan/UBSan the latency bound is 250 ms: the sanitizers' slowdown says
// nothing about the server, and the test is there for correctness.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "server/raw_connection.h"
#include "server/test_server.h"
#include "store/sqlite_object_store.h"

namespace kuota::server {
namespace {

using SteadyClock = std::chrono::steady_clock;
using testing::RawConnection;

#if defined(KUOTA_SANITIZED)  // -DKUOTA_SANITIZE=ON, GCC or clang
constexpr double kCreateP99LimitMs = 250;
#else
constexpr double kCreateP99LimitMs = 50;
#endif

// A request cut off in the middle of its headers.
constexpr char kPartialRequest[] = "GET /api/v1/namespaces HTTP/1.1\r\nHost: kuota\r\nAcce";

double Ms(SteadyClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

size_t Watchers(store::ObjectStore& store) {
  return static_cast<store::SqliteObjectStore&>(store).watcher_count();
}

// Waits until the store has `n` watchers (the watch requests have arrived).
bool WaitForWatchers(store::ObjectStore& store, size_t n, milliseconds timeout) {
  const auto deadline = SteadyClock::now() + timeout;
  while (Watchers(store) < n) {
    if (SteadyClock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

using OverloadTest = ServerTest;

TEST_F(OverloadTest, WatchesAndSlowClientsDoNotStarveCreates) {
  constexpr int kWatches = 64, kSlowClients = 16, kCreates = 200;
  std::vector<std::unique_ptr<WatchReader>> watches;
  for (int i = 0; i < kWatches; ++i) {
    watches.push_back(std::make_unique<WatchReader>(port(), kWls + "?watch=true"));
  }
  ASSERT_TRUE(WaitForWatchers(*store_, kWatches, milliseconds(20000)));
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < kSlowClients; ++i) {
    slow.push_back(std::make_unique<RawConnection>(port()));
    ASSERT_TRUE(slow.back()->connected());
    ASSERT_TRUE(slow.back()->Send(kPartialRequest));
  }
  // More connections than the 16 threads kept ready are open now.
  EXPECT_EQ(Get("/healthz").status, 200);

  httplib::Client creator("127.0.0.1", port());
  creator.set_keep_alive(true);
  creator.set_tcp_nodelay(true);  // else its body waits for the server's delayed ACK
  creator.set_read_timeout(30, 0);
  std::vector<double> ms;
  for (int i = 0; i < kCreates; ++i) {
    const std::string body = Workload("default", "wl-" + std::to_string(i)).dump();
    const auto t0 = SteadyClock::now();
    auto res = creator.Post(kWls.c_str(), body, "application/json");
    ms.push_back(Ms(SteadyClock::now() - t0));
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    ASSERT_EQ(res->status, 201) << res->body;
  }
  std::sort(ms.begin(), ms.end());
  const double p50 = ms[ms.size() / 2], p99 = ms[ms.size() * 99 / 100 - 1];
  std::printf(
      "[ figures  ] %d creates beside %d watches + %d slow clients: p50 %.2f ms, "
      "p99 %.2f ms, max %.2f ms\n",
      kCreates, kWatches, kSlowClients, p50, p99, ms.back());
  EXPECT_LT(p99, kCreateP99LimitMs);

  // A fresh connection's /healthz answers too.
  httplib::Client fresh("127.0.0.1", port());
  fresh.set_read_timeout(5, 0);
  auto health = fresh.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok");

  // And every watch saw every create.
  for (auto& w : watches) {
    int added = 0;
    while (added < kCreates) {
      Json e = w->Next(milliseconds(10000));
      if (!e.is_object()) break;
      if (e["type"] == "ADDED") ++added;
    }
    EXPECT_EQ(added, kCreates);
  }
}

class StreamCapTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.max_long_requests = 2;
  }
};

TEST_F(StreamCapTest, StreamsPastTheCapAre429) {
  auto first = std::make_unique<WatchReader>(port(), kCqs + "?watch=true");
  WatchReader second(port(), kCqs + "?watch=true");
  ASSERT_TRUE(WaitForWatchers(*store_, 2, milliseconds(10000)));
  httplib::Client client("127.0.0.1", port());
  client.set_read_timeout(10, 0);
  auto res = client.Get((kCqs + "?watch=true").c_str());
  ASSERT_TRUE(res);
  Reply r = testing::ToReply(res);
  testing::ExpectStatus(r, 429, "TooManyRequests");
  EXPECT_EQ(res->get_header_value("Retry-After"), "1");
  EXPECT_EQ(r.body["details"]["retryAfterSeconds"], 1);
  // Short requests still go through.
  EXPECT_EQ(Get(kCqs).status, 200);

  // A closed watch gives its slot back (once the server notices the client
  // is gone: within about a second).
  first.reset();
  int status = 0;
  for (int i = 0; i < 50 && status != 200; ++i) {
    auto again = client.Get((kCqs + "?watch=true&timeoutSeconds=1").c_str());
    status = again ? again->status : -1;
    if (status != 200) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(status, 200);
}

class SlowClientTest : public ServerTest {
 protected:
  // What `c` reads until the server closes it, which it does within `timeout`.
  static std::string ReadUntilClosed(RawConnection& c, milliseconds timeout) {
    bool closed = false;
    std::string reply = c.ReadUntilClosed(timeout, &closed);
    EXPECT_TRUE(closed);
    return reply;
  }
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.read_timeout_ms = 300;
    server.request_read_timeout_ms = 1000;
    server.keep_alive_timeout_ms = 500;
  }
};

TEST_F(SlowClientTest, SilentClientIsDroppedAfterTheReadTimeout) {
  RawConnection c(port());
  ASSERT_TRUE(c.Send(kPartialRequest));
  const auto t0 = SteadyClock::now();
  ReadUntilClosed(c, milliseconds(5000));
  EXPECT_LT(SteadyClock::now() - t0, milliseconds(3000));
}

TEST_F(SlowClientTest, TricklingClientIsDroppedAtTheRequestDeadline) {
  RawConnection c(port());
  ASSERT_TRUE(c.Send("GET /api/v1/namespaces HTTP/1.1\r\nHost: kuota\r\nX-Slow: "));
  const auto t0 = SteadyClock::now();
  // A byte every 100 ms never trips the 300 ms read timeout.
  bool sent = true;
  while (sent && SteadyClock::now() - t0 < milliseconds(5000)) {
    std::this_thread::sleep_for(milliseconds(100));
    sent = c.Send("x");
  }
  ReadUntilClosed(c, milliseconds(2000));
  EXPECT_LT(SteadyClock::now() - t0, milliseconds(4000));
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(SlowClientTest, IdleConnectionIsClosedAfterTheKeepAliveTimeout) {
  RawConnection c(port());
  ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\nHost: kuota\r\n\r\n"));
  const auto t0 = SteadyClock::now();
  std::string reply = ReadUntilClosed(c, milliseconds(5000));
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_LT(SteadyClock::now() - t0, milliseconds(3000));
}

TEST_F(SlowClientTest, PipelinedRequestsAreAllAnswered) {
  RawConnection c(port());
  ASSERT_TRUE(
      c.Send("GET /healthz HTTP/1.1\r\nHost: kuota\r\n\r\n"
             "GET /version HTTP/1.1\r\nHost: kuota\r\nConnection: close\r\n\r\n"));
  std::string reply = ReadUntilClosed(c, milliseconds(5000));
  EXPECT_NE(reply.find("ok"), std::string::npos) << reply;
  EXPECT_NE(reply.find("gitVersion"), std::string::npos) << reply;
}

class HealthListenerTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.threads = 1;
    server.max_threads = 2;
    server.health_port = 0;
  }
};

TEST_F(HealthListenerTest, AnswersWhileEveryApiThreadIsTaken) {
  ASSERT_GT(server_->health_port(), 0);
  ASSERT_NE(server_->health_port(), port());
  RawConnection a(port()), b(port());
  ASSERT_TRUE(a.Send(kPartialRequest));
  ASSERT_TRUE(b.Send(kPartialRequest));
  std::this_thread::sleep_for(milliseconds(100));  // both API threads are reading them

  httplib::Client health("127.0.0.1", server_->health_port());
  health.set_read_timeout(2, 0);
  for (const char* path : {"/healthz", "/readyz", "/livez"}) {
    const auto t0 = SteadyClock::now();
    auto res = health.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->body, "ok");
    EXPECT_LT(SteadyClock::now() - t0, milliseconds(1000));
  }
  // It serves nothing else.
  testing::ExpectStatus(testing::ToReply(health.Get("/api/v1/namespaces")), 404, "NotFound");
}

class FutureVersionTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.future_resource_version_wait_ms = 1000;
  }
};

TEST_F(FutureVersionTest, WatchFromAFutureVersionIsKubesTimeoutError) {
  const int64_t current = store_->CurrentResourceVersion();
  const int64_t future = current + 100;
  const auto t0 = SteadyClock::now();
  Reply r = Get(kCqs + "?watch=true&resourceVersion=" + std::to_string(future));
  const auto took = SteadyClock::now() - t0;
  EXPECT_GE(took, milliseconds(900));  // it waited for the version first
  EXPECT_LT(took, milliseconds(5000));
  ASSERT_EQ(r.status, 200);  // as kube-apiserver: a stream with one ERROR event
  Json event = Json::parse(r.raw, nullptr, false);
  ASSERT_TRUE(event.is_object()) << r.raw;
  EXPECT_EQ(event["type"], "ERROR");
  const Json& status = event["object"];
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["code"], 504);
  EXPECT_EQ(status["reason"], "Timeout");
  EXPECT_EQ(status["message"], "Timeout: Too large resource version: " + std::to_string(future) +
                                   ", current: " + std::to_string(current));
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "ResourceVersionTooLarge");
  EXPECT_EQ(status["details"]["causes"][0]["message"], "Too large resource version");
  EXPECT_EQ(status["details"]["retryAfterSeconds"], 1);
}

TEST_F(FutureVersionTest, VersionReachedWhileWaitingStartsTheWatch) {
  const int64_t next = store_->CurrentResourceVersion() + 1;
  WatchReader watch(port(), kCqs + "?watch=true&resourceVersion=" + std::to_string(next));
  std::this_thread::sleep_for(milliseconds(100));
  ASSERT_EQ(Post(kCqs, ClusterQueue("reaches-it")).status, 201);  // resourceVersion `next`
  ASSERT_EQ(Post(kCqs, ClusterQueue("after-it")).status, 201);
  Json e = watch.Next();
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["type"], "ADDED");
  EXPECT_EQ(e["object"]["metadata"]["name"], "after-it");
}

TEST_F(OverloadTest, RequestLineOverTheLimitIs414) {
  Reply r = Get("/api/v1/namespaces?labelSelector=" + std::string(9000, 'a'));
  testing::ExpectStatus(r, 414, "RequestURITooLong");
  EXPECT_NE(r.body.value("message", "").find("8192"), std::string::npos) << r.raw;
  // The connection and the server carry on.
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(OverloadTest, HeaderOverTheLimitIs400) {
  // httplib 0.11 reads a header line over its limit as a bad request (no 431).
  auto res = client_->Get("/healthz", {{"X-Big", std::string(9000, 'b')}});
  ASSERT_TRUE(res);
  testing::ExpectStatus(testing::ToReply(res), 400, "BadRequest");
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(OverloadTest, ConnectionsPastFdSetSizeAreServed) {
  // The listener polls; select() could not watch descriptors past 1023.
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < 1200) {
    GTEST_SKIP() << "needs 1200 open files (ulimit -n)";
  }
  std::vector<int> fds;
  for (int i = 0; i < 1100; ++i) fds.push_back(::dup(0));
  httplib::Client client("127.0.0.1", port());
  auto res = client.Get("/healthz");
  for (int fd : fds) ::close(fd);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "ok");
}

}  // namespace
}  // namespace kuota::server
