// The pods/log subresource over real HTTP: plain reads with tailLines and
// limitBytes, kube-apiserver's errors, follows that end when the pod finishes
// or is deleted or the server stops, logs truncated or replaced while being
// followed, and the real kubectl (`kubectl logs`, `kubectl logs -f`).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "server/test_server.h"
#include "testing/find_on_path.h"

namespace kuota::server {
namespace {

using namespace std::chrono_literals;

Json Pod(const std::string& ns, const std::string& name, std::vector<std::string> containers) {
  Json list = Json::array();
  for (const std::string& c : containers) list.push_back({{"name", c}, {"image", "local"}});
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"namespace", ns}, {"name", name}}},
          {"spec", {{"containers", list}, {"restartPolicy", "Never"}}},
          {"status", {{"phase", "Running"}}}};
}

void Append(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << text;
}

void Overwrite(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc | std::ios::binary);
  out << text;
}

class PodLogsTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    server.pod_log_dir = dir_ + "/logs";
    server.threads = 4;
  }

  // Creates the pod in the store and returns its log file path for `container`.
  std::string CreatePod(const std::string& name, std::vector<std::string> containers = {"main"}) {
    auto created = store_->Create("pods", Pod("default", name, containers));
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (!created.ok()) return "";
    uid_ = (*created)["metadata"]["uid"].get<std::string>();
    std::filesystem::create_directories(dir_ + "/logs/" + uid_);
    return dir_ + "/logs/" + uid_ + "/" + containers[0] + ".log";
  }

  void SetPhase(const std::string& name, const std::string& phase) {
    auto pod = store_->Get("pods", "default", name);
    ASSERT_TRUE(pod.ok());
    (*pod)["status"]["phase"] = phase;
    ASSERT_TRUE(store_->Update("pods", *pod, {.status_only = true}).ok());
  }

  // Pod `name` with `text` in its log, followed with `query` until `text`
  // came: the log's file and the follow.
  struct Follow {
    std::string file;
    std::unique_ptr<StreamReader> reader;
  };
  Follow FollowPod(const std::string& name, const std::string& text,
                   const std::string& query = "?follow=true") {
    Follow f{CreatePod(name), nullptr};
    Overwrite(f.file, text);
    f.reader = std::make_unique<StreamReader>(port(), LogPath(name) + query);
    EXPECT_TRUE(f.reader->WaitFor(text)) << f.reader->body();
    return f;
  }

  static std::string LogPath(const std::string& name) {
    return "/api/v1/namespaces/default/pods/" + name + "/log";
  }

  std::string uid_;
};

TEST_F(PodLogsTest, ReadsTheLogWithTailAndLimit) {
  std::string file = CreatePod("p");
  Overwrite(file, "one\ntwo\nthree\n");
  Reply all = Get(LogPath("p"), "*/*");
  EXPECT_EQ(all.status, 200);
  EXPECT_EQ(all.raw, "one\ntwo\nthree\n");
  EXPECT_EQ(all.content_type.rfind("text/plain", 0), 0u) << all.content_type;
  EXPECT_EQ(Get(LogPath("p") + "?container=main").raw, "one\ntwo\nthree\n");
  EXPECT_EQ(Get(LogPath("p") + "?tailLines=2").raw, "two\nthree\n");
  EXPECT_EQ(Get(LogPath("p") + "?tailLines=0").raw, "");
  EXPECT_EQ(Get(LogPath("p") + "?tailLines=10").raw, "one\ntwo\nthree\n");
  EXPECT_EQ(Get(LogPath("p") + "?limitBytes=5").raw, "one\nt");
  EXPECT_EQ(Get(LogPath("p") + "?tailLines=1&limitBytes=3").raw, "thr");
  EXPECT_EQ(Get(LogPath("p") + "?timestamps=true").raw, "one\ntwo\nthree\n");
  EXPECT_EQ(Get(LogPath("p") + "?sinceSeconds=3600").raw, "one\ntwo\nthree\n");
  Overwrite(file, "a\nb\nunterminated");
  EXPECT_EQ(Get(LogPath("p") + "?tailLines=2").raw, "b\nunterminated");
  // A log last written before the window shows nothing of it.
  std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now() - 2h);
  EXPECT_EQ(Get(LogPath("p") + "?sinceSeconds=60").raw, "");
  // A big log in several chunks.
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "line " + std::to_string(i) + "\n";
  Overwrite(file, big);
  EXPECT_EQ(Get(LogPath("p")).raw, big);
  EXPECT_EQ(Get(LogPath("p") + "?tailLines=1").raw, "line 19999\n");
}

TEST_F(PodLogsTest, ErrorsAsKubeApiserverGivesThem) {
  Reply missing = Get(LogPath("nope"));
  ExpectStatus(missing, 404, "NotFound");
  EXPECT_EQ(missing.body["message"], "pods \"nope\" not found");

  CreatePod("two", {"a", "b"});
  Reply unnamed = Get(LogPath("two"));
  ExpectStatus(unnamed, 400, "BadRequest");
  EXPECT_EQ(unnamed.body["message"],
            "a container name must be specified for pod two, choose one of: [a b]");
  Reply unknown = Get(LogPath("two") + "?container=c");
  ExpectStatus(unknown, 400, "BadRequest");
  EXPECT_EQ(unknown.body["message"], "container c is not valid for pod two");

  // Not started yet: no log file.
  Reply waiting = Get(LogPath("two") + "?container=b");
  ExpectStatus(waiting, 400, "BadRequest");
  EXPECT_EQ(waiting.body["message"],
            "container \"b\" in pod \"two\" is waiting to start: ContainerCreating");

  std::string file = CreatePod("p");
  Overwrite(file, "x\n");
  Reply previous = Get(LogPath("p") + "?previous=true");
  ExpectStatus(previous, 400, "BadRequest");
  EXPECT_NE(previous.body["message"].get<std::string>().find("previous"), std::string::npos);
  ExpectStatus(Get(LogPath("p") + "?tailLines=-1"), 400, "BadRequest");
  ExpectStatus(Get(LogPath("p") + "?tailLines=x"), 400, "BadRequest");
  ExpectStatus(Get(LogPath("p") + "?limitBytes=0"), 400, "BadRequest");
  ExpectStatus(Get(LogPath("p") + "?follow=maybe"), 400, "BadRequest");
  ExpectStatus(Get(LogPath("p") + "?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z"), 400,
               "BadRequest");
  ExpectStatus(ToReply(client_->Post(LogPath("p").c_str(), "", "text/plain")), 405,
               "MethodNotAllowed");

  // A finished pod that never wrote a log has an empty one.
  CreatePod("quiet");
  SetPhase("quiet", "Failed");
  Reply quiet = Get(LogPath("quiet"));
  EXPECT_EQ(quiet.status, 200);
  EXPECT_EQ(quiet.raw, "");
}

TEST_F(PodLogsTest, FollowStreamsUntilThePodFinishes) {
  auto [file, follow] = FollowPod("p", "first\n");
  Append(file, "second\n");
  ASSERT_TRUE(follow->WaitFor("second\n")) << follow->body();
  EXPECT_FALSE(follow->WaitDone(300ms)) << "a running pod's follow stays open";
  // The last bytes are written just before the pod is marked finished.
  Append(file, "last\n");
  SetPhase("p", "Succeeded");
  ASSERT_TRUE(follow->WaitDone(3000ms));
  EXPECT_EQ(follow->status(), 200);
  EXPECT_EQ(follow->body(), "first\nsecond\nlast\n");
  EXPECT_EQ(follow->content_type().rfind("Text/plain", 0), 0u) << follow->content_type();
}

TEST_F(PodLogsTest, FollowWithTailAndLimit) {
  std::string file = CreatePod("p");
  Overwrite(file, "a\nb\nc\n");
  {
    StreamReader follow(port(), LogPath("p") + "?follow=true&tailLines=1");
    ASSERT_TRUE(follow.WaitFor("c\n"));
    Append(file, "d\n");
    ASSERT_TRUE(follow.WaitFor("d\n"));
    EXPECT_EQ(follow.body(), "c\nd\n");
  }
  StreamReader limited(port(), LogPath("p") + "?follow=true&limitBytes=10");
  ASSERT_TRUE(limited.WaitFor("a\nb\nc\nd\n"));
  Append(file, "eeee\n");
  ASSERT_TRUE(limited.WaitDone(3000ms)) << "the follow ends at limitBytes";
  EXPECT_EQ(limited.body(), "a\nb\nc\nd\nee");
}

TEST_F(PodLogsTest, FollowEndsWhenThePodIsDeletedOrTheContainerTerminates) {
  std::string file = CreatePod("p");
  Overwrite(file, "x\n");
  {
    StreamReader follow(port(), LogPath("p") + "?follow=1");
    ASSERT_TRUE(follow.WaitFor("x\n"));
    ASSERT_TRUE(store_->Delete("pods", "default", "p").ok());
    EXPECT_TRUE(follow.WaitDone(3000ms));
    EXPECT_EQ(follow.body(), "x\n");
  }
  std::string file2 = CreatePod("q");
  Overwrite(file2, "y\n");
  StreamReader follow(port(), LogPath("q") + "?follow=true");
  ASSERT_TRUE(follow.WaitFor("y\n"));
  auto pod = store_->Get("pods", "default", "q");
  ASSERT_TRUE(pod.ok());
  (*pod)["status"]["containerStatuses"] =
      Json::array({{{"name", "main"}, {"state", {{"terminated", {{"exitCode", 0}}}}}}});
  ASSERT_TRUE(store_->Update("pods", *pod, {.status_only = true}).ok());
  EXPECT_TRUE(follow.WaitDone(3000ms));
}

TEST_F(PodLogsTest, FollowSurvivesTruncationKeepingTheTail) {
  std::string file = CreatePod("p");
  std::string first;
  for (int i = 0; i < 100; ++i) first += "line " + std::to_string(i) + "\n";
  Overwrite(file, first);
  StreamReader follow(port(), LogPath("p") + "?follow=true");
  ASSERT_TRUE(follow.WaitFor("line 99\n"));
  // A size cap keeps the last lines, in place, then the pod writes more.
  std::string kept;
  for (int i = 90; i < 100; ++i) kept += "line " + std::to_string(i) + "\n";
  Overwrite(file, kept);
  Append(file, "line 100\nline 101\n");
  ASSERT_TRUE(follow.WaitFor("line 101\n")) << follow.body();
  // Truncated in place and already grown past where the follow was.
  std::string regrown = "line 101\n";
  for (int i = 102; i < 400; ++i) regrown += "line " + std::to_string(i) + "\n";
  Overwrite(file, regrown);
  ASSERT_TRUE(follow.WaitFor("line 399\n")) << follow.body();
  // Replaced by a new file (rename over the old one) that holds only new lines.
  Overwrite(file + ".tmp", "fresh 1\n");
  std::filesystem::rename(file + ".tmp", file);
  ASSERT_TRUE(follow.WaitFor("fresh 1\n")) << follow.body();
  SetPhase("p", "Failed");
  ASSERT_TRUE(follow.WaitDone(3000ms));
  std::string want;
  for (int i = 0; i < 400; ++i) want += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(follow.body(), want + "fresh 1\n");
}

TEST_F(PodLogsTest, FollowNoticesARewriteThatKeepsTheSize) {
  // The size alone cannot tell: the follow re-reads what it saw last with
  // each new read, so a file rewritten in place to the same length is new.
  auto [file, follow] = FollowPod("p", "old one\nold two\n");
  Overwrite(file, "new one\nnew two\n");
  ASSERT_TRUE(follow->WaitFor("new two\n")) << follow->body();
  SetPhase("p", "Succeeded");
  ASSERT_TRUE(follow->WaitDone(3000ms));
  EXPECT_EQ(follow->body(), "old one\nold two\nnew one\nnew two\n");
}

TEST_F(PodLogsTest, ServerStopEndsFollows) {
  auto [file, follow] = FollowPod("p", "x\n");
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_TRUE(follow->WaitDone(3000ms));
}

TEST_F(PodLogsTest, FollowOfAGoneClientFreesItsThread) {
  std::string file = CreatePod("p");
  Overwrite(file, "x\n");
  // The server has 4 threads: leave more follows than that behind.
  for (int i = 0; i < 6; ++i) {
    StreamReader follow(port(), LogPath("p") + "?follow=true");
    ASSERT_TRUE(follow.WaitFor("x\n")) << i;
  }
  // Each gone client's follow notices at its next idle probe; the server
  // answers again.
  Append(file, "y\n");
  httplib::Client c("127.0.0.1", port());
  c.set_read_timeout(10, 0);
  auto res = c.Get(LogPath("p").c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body, "x\ny\n");
}

class PodLogsWithoutDirTest : public ServerTest {};

TEST_F(PodLogsWithoutDirTest, LogsAreUnavailable) {
  ASSERT_TRUE(store_->Create("pods", Pod("default", "p", {"main"})).ok());
  Reply r = Get("/api/v1/namespaces/default/pods/p/log");
  ExpectStatus(r, 400, "BadRequest");
  EXPECT_NE(r.body["message"].get<std::string>().find("not available"), std::string::npos) << r.raw;
  ExpectStatus(Get("/api/v1/namespaces/default/pods/nope/log"), 404, "NotFound");
}

TEST_F(PodLogsWithoutDirTest, DiscoveryListsTheLogSubresource) {
  bool found = false;
  Reply v1 = Get("/api/v1");
  for (const Json& r : v1.body["resources"]) {
    if (r["name"] == "pods/log") {
      found = true;
      EXPECT_EQ(r["verbs"], Json::array({"get"}));
    }
  }
  EXPECT_TRUE(found);
}

// --- the real kubectl ---

using kuota::testing::FindOnPath;

// Runs `command` through the shell; stdout (stderr folded in) when it ends.
std::string Shell(const std::string& command, int* exit_code) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST_F(PodLogsTest, RealKubectlLogsAndFollow) {
  const std::string kubectl = FindOnPath("kubectl");
  ASSERT_FALSE(kubectl.empty()) << "kubectl was not found on PATH";
  const std::string base = "env -u KUBECONFIG HOME=" + dir_ + " " + kubectl +
                           " --server=http://127.0.0.1:" + std::to_string(port()) +
                           " --cache-dir=" + dir_ + "/cache --request-timeout=30s ";
  std::string file = CreatePod("p");
  Overwrite(file, "hello\nworld\n");
  int code = -1;
  EXPECT_EQ(Shell(base + "logs p", &code), "hello\nworld\n");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(Shell(base + "logs p --tail=1", &code), "world\n");
  EXPECT_EQ(code, 0);

  CreatePod("two", {"a", "b"});
  std::string err = Shell(base + "logs two -c zzz", &code);
  EXPECT_NE(code, 0);
  EXPECT_NE(err.find("container zzz is not valid for pod two"), std::string::npos) << err;
  err = Shell(base + "logs two -c b", &code);
  EXPECT_NE(code, 0);
  EXPECT_NE(err.find("is waiting to start: ContainerCreating"), std::string::npos) << err;

  // -f: lines appear while kubectl runs; it exits once the pod has finished.
  std::string followed;
  int follow_code = -1;
  std::thread kubectl_follow([&] { followed = Shell(base + "logs -f p", &follow_code); });
  std::this_thread::sleep_for(1500ms);
  Append(file, "more\n");
  std::this_thread::sleep_for(500ms);
  Append(file, "done\n");
  SetPhase("p", "Succeeded");
  kubectl_follow.join();
  EXPECT_EQ(follow_code, 0) << followed;
  EXPECT_EQ(followed, "hello\nworld\nmore\ndone\n");
}

}  // namespace
}  // namespace kuota::server
