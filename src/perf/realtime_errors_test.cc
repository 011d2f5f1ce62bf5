// Real-time mode's failures against real sockets and real processes: bad
// URLs, nothing listening, a server that is not a Kueue API, a kuotad binary
// that is missing or dies at start.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "perf/api_client.h"
#include "perf/kuotad_process.h"
#include "perf/perf_config.h"
#include "perf/realtime_runner.h"

namespace kuota::perf {
namespace {

// `url` parses to `host`:`port`, over TLS or not, and is written back whole.
void ExpectAddress(const std::string& url, const std::string& host, int port, bool tls) {
  auto a = ParseServerUrl(url);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, host);
  EXPECT_EQ(a->port, port);
  EXPECT_EQ(a->tls, tls);
  EXPECT_EQ(a->url, std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(port));
}

TEST(ServerUrlTest, AcceptsHttpHostPort) {
  ExpectAddress("http://127.0.0.1:8080/", "127.0.0.1", 8080, false);
  ExpectAddress("http://localhost", "localhost", 80, false);
}

TEST(ServerUrlTest, AcceptsHttps) {
  ExpectAddress("https://127.0.0.1:8443", "127.0.0.1", 8443, true);
  ExpectAddress("https://localhost", "localhost", 443, true);
}

TEST(ServerUrlTest, RefusesOtherForms) {
  for (const char* bad : {"127.0.0.1:8080", "https://", "http://", "http://x:0", "http://x:99999",
                          "http://x:80/api", "http://a b:1", "ftp://x"}) {
    auto a = ParseServerUrl(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_NE(a.status().message().find(std::string("\"") + bad + "\""), std::string::npos)
        << a.status().message();
  }
}

Plan TinyPlan() {
  auto c = ParsePerfConfig(
      "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 1\n"
      "    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n      workloads:\n"
      "      - className: w\n        request: 1\n");
  EXPECT_TRUE(c.ok());
  return *BuildPlan(*c);
}

// A port nothing listens on: bound, then closed.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(RealTimeErrorsTest, UnreachableServer) {
  const Plan plan = TinyPlan();
  RealTimeOptions o;
  o.server = *ParseServerUrl("http://127.0.0.1:" + std::to_string(ClosedPort()));
  auto r = RunRealTime(plan, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot reach kuotad at " + o.server.url), std::string::npos)
      << r.status().message();
}

TEST(RealTimeErrorsTest, ServerThatIsNotKueue) {
  httplib::Server srv;
  srv.Get(".*", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("404 page not found", "text/plain");
  });
  const int port = srv.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread t([&] { srv.listen_after_bind(); });
  const Plan plan = TinyPlan();
  RealTimeOptions o;
  o.server = *ParseServerUrl("http://127.0.0.1:" + std::to_string(port));
  auto r = RunRealTime(plan, o);
  srv.stop();
  t.join();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not serve the kueue.x-k8s.io/v1beta2 API: HTTP 404"),
            std::string::npos)
      << r.status().message();
}

class KuotadProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kuota-perf-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Script(const std::string& body) {
    const std::string path = (dir_ / "fake-kuotad").string();
    std::ofstream(path) << "#!/bin/sh\n" << body;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(KuotadProcessTest, MissingBinary) {
  KuotadSpawnOptions o;
  o.binary = (dir_ / "no-such-kuotad").string();
  auto p = KuotadProcess::Start(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("cannot run kuotad at " + o.binary), std::string::npos)
      << p.status().message();
}

TEST_F(KuotadProcessTest, DiesAtStartQuotesItsLog) {
  KuotadSpawnOptions o;
  o.binary = Script("echo \"kuotad: port taken\" >&2\nexit 1\n");
  o.log_path = (dir_ / "kuotad.log").string();
  auto p = KuotadProcess::Start(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("kuotad exited before it served anything"), std::string::npos)
      << p.status().message();
  EXPECT_NE(p.status().message().find("kuotad: port taken"), std::string::npos)
      << p.status().message();
}

TEST_F(KuotadProcessTest, NoKubeconfigInTimeIsStopped) {
  KuotadSpawnOptions o;
  o.binary = Script("exec sleep 30\n");
  o.start_timeout = std::chrono::milliseconds(300);
  auto p = KuotadProcess::Start(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("wrote no kubeconfig"), std::string::npos)
      << p.status().message();
}

TEST_F(KuotadProcessTest, ReadsTheUrlFromTheKubeconfigAndStops) {
  // A stand-in that writes a kubeconfig like kuotad's and waits for SIGTERM.
  KuotadSpawnOptions o;
  o.binary = Script(
      "while [ \"$1\" != \"--kubeconfig-out\" ]; do shift; done\n"
      "printf 'clusters:\\n- cluster:\\n    server: \"http://127.0.0.1:4242\"\\n' > \"$2\"\n"
      "exec sleep 30\n");
  auto p = KuotadProcess::Start(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->url(), "http://127.0.0.1:4242");
  EXPECT_TRUE((*p)->Running());
  ServerCost cost = (*p)->Stop();
  EXPECT_TRUE(cost.measured);
  EXPECT_FALSE((*p)->Running());
}

}  // namespace
}  // namespace kuota::perf
