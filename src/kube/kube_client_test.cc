// KubeClient against recorded kube-apiserver exchanges served over loopback
// HTTP (replay_server_test_util.h): the requests it sends (bearer token,
// User-Agent, Accept, bodies) and how it maps the server's Status bodies to
// Status codes; streamed watches read line by line and cut short.
#include "kube/kube_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kube/replay_server_test_util.h"

namespace kuota::kube {
namespace {

constexpr const char* kWorkload =
    "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/job-sample-job-7f9c2";
constexpr const char* kWorkloads = "/apis/kueue.x-k8s.io/v1beta2/workloads";

TEST(KubeClientTest, SendsBearerTokenUserAgentAndAccept) {
  ReplayServer server;
  server.Add("get_workload");
  ClientOptions options;
  options.user_agent = "kuotad-test/9.9 (kubernetes-driver)";
  KubeClient client(TargetOf(server, "s3cr3t.token-value"), options);

  Result<Json> got = client.Request("GET", kWorkload, nullptr);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["metadata"]["name"], "job-sample-job-7f9c2");
  EXPECT_EQ((*got)["metadata"]["resourceVersion"], "4711");
  // managedFields come back untouched.
  ASSERT_TRUE((*got)["metadata"]["managedFields"].is_array());
  EXPECT_EQ((*got)["metadata"]["managedFields"][0]["manager"], "kueue");
  EXPECT_EQ((*got)["metadata"]["managedFields"][0]["fieldsType"], "FieldsV1");

  std::vector<RecordedRequest> reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].path, kWorkload);
  EXPECT_EQ(reqs[0].Header("Authorization"), "Bearer s3cr3t.token-value");
  EXPECT_EQ(reqs[0].Header("User-Agent"), "kuotad-test/9.9 (kubernetes-driver)");
  EXPECT_EQ(reqs[0].Header("Accept"), "application/json");
  EXPECT_TRUE(server.Unmatched().empty());
}

TEST(KubeClientTest, NoTokenSendsNoAuthorization) {
  ReplayServer server;
  server.Add("get_workload");
  KubeClient client(TargetOf(server), ClientOptions{});
  ASSERT_TRUE(client.Request("GET", kWorkload, nullptr).ok());
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0].Header("Authorization"), "");
  EXPECT_EQ(server.Requests()[0].Header("User-Agent"), ClientOptions{}.user_agent);
}

TEST(KubeClientTest, SendsBodyWithContentType) {
  ReplayServer server;
  server.Add("create_workload");
  server.Handle("PATCH", kWorkload, [](const RecordedRequest&) {
    return Reply::Json(200, {{"kind", "Workload"}, {"metadata", {{"resourceVersion", "4713"}}}});
  });
  KubeClient client(TargetOf(server), ClientOptions{});

  const Json object = {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                       {"kind", "Workload"},
                       {"metadata", {{"name", "wl-new"}, {"namespace", "team-a"}}},
                       {"spec", {{"queueName", "main"}}}};
  Result<Json> created =
      client.Request("POST", "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads", &object);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)["metadata"]["uid"], "6b1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f");

  const Json patch = {{"metadata", {{"labels", {{"a", "b"}}}}}};
  Result<Json> patched = client.Request("PATCH", kWorkload, &patch, "application/merge-patch+json");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();

  std::vector<RecordedRequest> reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].Header("Content-Type"), "application/json");
  EXPECT_EQ(reqs[0].Json(), object);
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[1].Header("Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(reqs[1].Json(), patch);
}

struct ErrorCase {
  const char* exchange;
  StatusCode code;
  const char* message;  // a part of the Status message
};

TEST(KubeClientTest, MapsStatusBodiesToCodes) {
  const ErrorCase cases[] = {
      {"get_workload_not_found", StatusCode::kNotFound,
       "workloads.kueue.x-k8s.io \"missing\" not found"},
      {"create_workload_already_exists", StatusCode::kAlreadyExists,
       "workloads.kueue.x-k8s.io \"job-sample-job-7f9c2\" already exists"},
      {"update_workload_conflict", StatusCode::kConflict,
       "Operation cannot be fulfilled on workloads.kueue.x-k8s.io \"job-sample-job-7f9c2\": the "
       "object has been modified; please apply your changes to the latest version and try again"},
      {"delete_workload_precondition_failed", StatusCode::kConflict,
       "Precondition failed: UID in precondition"},
      {"create_workload_invalid", StatusCode::kInvalid,
       "Workload.kueue.x-k8s.io \"bad\" is invalid: spec.podSets: Required value"},
      {"list_jobs_continue_expired", StatusCode::kGone,
       "The provided continue parameter is too old"},
      {"internal_error", StatusCode::kUnavailable,
       "Internal error occurred: etcdserver: request timed out"},
      {"service_unavailable", StatusCode::kUnavailable,
       "the server is currently unable to handle the request"},
      {"too_many_requests", StatusCode::kUnavailable, "Too many requests"},
      {"unauthorized", StatusCode::kInvalid, "Unauthorized"},
  };
  ReplayServer server;
  for (const ErrorCase& c : cases) server.Add(c.exchange);
  KubeClient client(TargetOf(server), ClientOptions{});
  const Json body = {{"kind", "Workload"}};
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.exchange);
    const testing::Exchange ex = LoadExchange(c.exchange);
    std::string target = ex.path;
    for (const auto& [k, v] : ex.query) target += (target == ex.path ? "?" : "&") + k + "=" + v;
    const bool with_body = ex.method == "POST" || ex.method == "PUT";
    Result<Json> r = client.Request(ex.method, target, with_body ? &body : nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(server.Unmatched().empty());
  EXPECT_EQ(server.Requests().size(), std::size(cases));
}

TEST(KubeClientTest, ConnectionRefusedIsUnavailableNamingTheServer) {
  std::string url;
  {
    ReplayServer gone;  // a port that was just listening and is now closed
    url = gone.url();
  }
  ClusterTarget t;
  t.url = url;
  KubeClient client(t, ClientOptions{});
  Result<Json> r = client.Request("GET", kWorkloads, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
  EXPECT_NE(r.status().message().find("cannot reach the API server at " + url), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("connection refused"), std::string::npos)
      << r.status().message();
}

TEST(KubeClientTest, NonJsonSuccessIsInternal) {
  ReplayServer server;
  server.Handle("GET", kWorkloads, [](const RecordedRequest&) {
    Reply r;
    r.content_type = "text/html";
    r.body = "<html>proxy login</html>";
    return r;
  });
  KubeClient client(TargetOf(server), ClientOptions{});
  Result<Json> r = client.Request("GET", kWorkloads, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("not JSON"), std::string::npos) << r.status().message();
}

TEST(KubeClientTest, UnknownMethodSendsNothing) {
  ReplayServer server;
  KubeClient client(TargetOf(server), ClientOptions{});
  Result<Json> r = client.Request("TRACE", kWorkloads, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_TRUE(server.Requests().empty());
}

TEST(KubeClientTest, RateLimitPacesRequestsAfterTheBurst) {
  ReplayServer server;
  server.Handle("GET", kWorkloads, [](const RecordedRequest&) {
    return Reply::Json(200, {{"kind", "WorkloadList"}, {"items", Json::array()}});
  });
  ClientOptions options;
  options.qps = 10;
  options.burst = 2;
  KubeClient client(TargetOf(server), options);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client.Request("GET", kWorkloads, nullptr).ok());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // 2 at once, then 3 more at 10 per second: about 300 ms.
  EXPECT_GE(elapsed, milliseconds(250));
  EXPECT_LT(elapsed, milliseconds(3000));
  std::vector<RecordedRequest> reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_GE(reqs[4].at - reqs[2].at, milliseconds(150));
}

// ---- Watch ----

// The lines of `text` that are not empty.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Watches `path`, counting the lines that come in `lines`; after each the
// callback answers `more`.
template <class Counter>
Status WatchCounting(KubeClient& client, const std::string& path, WatchCanceller& canceller,
                     Counter& lines, bool more = true) {
  return client.Watch(
      path,
      [&](std::string_view) {
        ++lines;
        return more;
      },
      canceller);
}

TEST(KubeClientTest, WatchReassemblesLinesSplitAcrossChunks) {
  ReplayServer server;
  testing::Exchange ex = LoadExchange("watch_workloads_bookmark");
  ex.reply.chunk_bytes = 7;  // every line split, mostly mid-token
  ex.reply.body.pop_back();  // and the last event without its newline
  const std::vector<std::string> want = Lines(ex.reply.body);
  ASSERT_EQ(want.size(), 3u);
  server.Add(ex);
  KubeClient client(TargetOf(server, "watch-token"), ClientOptions{});
  WatchCanceller canceller;
  std::vector<std::string> got;
  Status st = client.Watch(
      std::string(kWorkloads) + "?watch=1&allowWatchBookmarks=true",
      [&](std::string_view line) {
        got.emplace_back(line);
        return true;
      },
      canceller);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(got, want);
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0].Header("Authorization"), "Bearer watch-token");
  EXPECT_EQ(server.Requests()[0].Param("allowWatchBookmarks"), "true");
}

TEST(KubeClientTest, WatchHttp410IsGone) {
  ReplayServer server;
  server.Add("watch_workloads_expired_http410");
  KubeClient client(TargetOf(server), ClientOptions{});
  WatchCanceller canceller;
  int lines = 0;
  Status st = WatchCounting(client, std::string(kWorkloads) + "?watch=1&resourceVersion=1",
                            canceller, lines);
  EXPECT_EQ(st.code(), StatusCode::kGone) << st.ToString();
  EXPECT_NE(st.message().find("too old resource version: 1 (5)"), std::string::npos)
      << st.message();
  EXPECT_EQ(lines, 0);  // an error body is not handed over as events
}

TEST(KubeClientTest, WatchEndsWhenTheCallbackSaysSo) {
  ReplayServer server;
  testing::Exchange ex = LoadExchange("watch_workloads_bookmark");
  ex.reply.hold = std::chrono::seconds(30);
  server.Add(ex);
  KubeClient client(TargetOf(server), ClientOptions{});
  WatchCanceller canceller;
  int lines = 0;
  const auto start = std::chrono::steady_clock::now();
  Status st = WatchCounting(client, std::string(kWorkloads) + "?watch=1", canceller, lines, false);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(lines, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
}

TEST(KubeClientTest, CancelEndsAnIdleWatchPromptly) {
  ReplayServer server;
  testing::Exchange ex = LoadExchange("watch_workloads_bookmark");
  ex.reply.hold = std::chrono::seconds(30);  // open and silent after its events
  server.Add(ex);
  KubeClient client(TargetOf(server), ClientOptions{});
  WatchCanceller canceller;
  std::atomic<int> lines{0};
  Status st;
  std::thread watching(
      [&] { st = WatchCounting(client, std::string(kWorkloads) + "?watch=1", canceller, lines); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (lines < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_EQ(lines, 3);
  std::this_thread::sleep_for(milliseconds(50));  // idle in the read now
  const auto start = std::chrono::steady_clock::now();
  canceller.Cancel();
  watching.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(canceller.cancelled());
}

TEST(KubeClientTest, WatchOfUnreachableServerIsUnavailable) {
  std::string url;
  {
    ReplayServer gone;
    url = gone.url();
  }
  ClusterTarget t;
  t.url = url;
  KubeClient client(t, ClientOptions{});
  WatchCanceller canceller;
  Status st = client.Watch(
      std::string(kWorkloads) + "?watch=1", [](std::string_view) { return true; }, canceller);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find(url), std::string::npos) << st.message();
}

}  // namespace
}  // namespace kuota::kube
