// `kuota logs` as a real process against an in-process API server that serves
// pod logs from files: one pod, a Job's pods with prefixes, following a Job to
// its end, and a Job that has no pods yet.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_support.h"
#include "server/test_server.h"

namespace kuota::cli {
namespace {

using testing::Contains;
using testing::ProcessResult;
using namespace std::chrono_literals;

class LogsCommandTest : public server::testing::ServerTest {
 protected:
  void Configure(store::StoreOptions&, server::ServerOptions& server) override {
    server.pod_log_dir = dir_ + "/logs";
  }

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port()); }

  ProcessResult Kuota(std::vector<std::string> args) {
    args.insert(args.begin(), KUOTA_BIN);
    return testing::Run(args, {{"KUOTA_SERVER", Url()}});
  }

  // A pod (of Job `job` when not empty) with a log file; returns the file.
  std::string Pod(const std::string& name, const std::string& job, const std::string& log) {
    Json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"namespace", "default"}, {"name", name}}},
                {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "local"}}})}}},
                {"status", {{"phase", "Running"}}}};
    if (!job.empty()) pod["metadata"]["labels"] = {{"batch.kubernetes.io/job-name", job}};
    auto created = store_->Create("pods", pod);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (!created.ok()) return "";
    const std::string uid = (*created)["metadata"]["uid"];
    std::filesystem::create_directories(dir_ + "/logs/" + uid);
    const std::string file = dir_ + "/logs/" + uid + "/main.log";
    testing::WriteFile(file, log);
    return file;
  }

  void Job(const std::string& name, int parallelism) {
    Json job = server::testing::Job("default", name);
    job["spec"]["parallelism"] = parallelism;
    ASSERT_TRUE(store_->Create("jobs.batch", job).ok());
  }

  void Finish(const std::string& resource, const std::string& name, const Json& status) {
    auto obj = store_->Get(resource, "default", name);
    ASSERT_TRUE(obj.ok());
    (*obj)["status"] = status;
    ASSERT_TRUE(store_->Update(resource, *obj, {.status_only = true}).ok());
  }
};

TEST_F(LogsCommandTest, OnePod) {
  Pod("solo", "", "hello\nworld\n");
  ProcessResult r = Kuota({"logs", "solo"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello\nworld\n");
  EXPECT_EQ(Kuota({"logs", "solo", "--tail", "1"}).out, "world\n");
  EXPECT_EQ(Kuota({"logs", "solo", "--prefix"}).out, "[solo] hello\n[solo] world\n");
  ProcessResult bad = Kuota({"logs", "solo", "-c", "sidecar"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "kuota logs: container sidecar is not valid for pod solo\n");
}

TEST_F(LogsCommandTest, AJobsPodsArePrefixed) {
  Job("j", 2);
  Pod("j-0", "j", "a\n");
  Pod("j-1", "j", "b\nno newline");
  ProcessResult r = Kuota({"logs", "j"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[j-0] a\n[j-1] b\n[j-1] no newline\n");
}

TEST_F(LogsCommandTest, FollowAJobUntilItFinishes) {
  Job("j", 2);
  std::string f0 = Pod("j-0", "j", "start 0\n");
  testing::TempDir out;
  pid_t pid = testing::Spawn({KUOTA_BIN, "logs", "-f", "j"}, {{"KUOTA_SERVER", Url()}},
                             out.path() + "/out", out.path() + "/err");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return Contains(testing::ReadFile(out.path() + "/out"), "[j-0] start 0\n"); }));
  // A second pod appears later; both write more.
  std::string f1 = Pod("j-1", "j", "start 1\n");
  std::ofstream(f0, std::ios::app) << "more 0\n";
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return Contains(testing::ReadFile(out.path() + "/out"), "[j-1] start 1\n"); }));
  std::ofstream(f1, std::ios::app) << "end 1\n";
  Finish("pods", "j-0", {{"phase", "Succeeded"}});
  Finish("pods", "j-1", {{"phase", "Succeeded"}});
  Finish("jobs.batch", "j",
         {{"conditions", Json::array({{{"type", "Complete"}, {"status", "True"}}})}});
  int status = -1;
  ASSERT_TRUE(testing::WaitUntil([&] { return waitpid(pid, &status, WNOHANG) == pid; }, 10s));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << testing::ReadFile(out.path() + "/err");
  std::string text = testing::ReadFile(out.path() + "/out");
  EXPECT_TRUE(Contains(text, "[j-0] start 0\n")) << text;
  EXPECT_TRUE(Contains(text, "[j-0] more 0\n")) << text;
  EXPECT_TRUE(Contains(text, "[j-1] start 1\n")) << text;
  EXPECT_TRUE(Contains(text, "[j-1] end 1\n")) << text;
}

TEST_F(LogsCommandTest, AJobWithoutPods) {
  Job("waiting", 1);
  ProcessResult r = Kuota({"logs", "waiting"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "kuota logs: Job default/waiting has no pods yet (kuota why waiting)\n");
}

}  // namespace
}  // namespace kuota::cli
