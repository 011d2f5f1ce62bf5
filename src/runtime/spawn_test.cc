#include "runtime/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "runtime/exit_file.h"
#include "runtime/proc_stat.h"
#include "runtime/process_group.h"
#include "runtime/process_state.h"
#include "runtime/runtime_test_util.h"
#include "testing/piped_child.h"

namespace kuota::runtime {
namespace {

using testing::ReadFileOrEmpty;
using testing::WaitFor;
using testing::WriteFile;

// Children of this test process, zombies included.
int CountOurChildren() {
  int n = 0;
  for (const ProcStat& st : ListAllProcesses()) {
    if (st.ppid == getpid()) ++n;
  }
  return n;
}

class SpawnTest : public testing::SpawnFixture {
 protected:
  // Kills what a test left running.
  void Cleanup(const ProcessHandle& h) {
    (void)SignalGroup(h, SIGKILL);
    WaitFinished(h, Path("state/pod.exit"));
  }
};

TEST_F(SpawnTest, LogHoldsStdoutAndStderrAndExitCodeIsRecorded) {
  ProcessSpec spec = Spec({"sh", "-c", "echo hi; echo err >&2; exit 3"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_GT(h->keeper_pid, 0);
  EXPECT_NE(h->pgid, h->keeper_pid);  // the keeper is outside the command's group
  EXPECT_GT(h->keeper_start_time, 0u);

  ProcessState st = WaitFinished(*h, spec.exit_path);
  ASSERT_EQ(st.phase, ProcessPhase::kExited) << st.ToString();
  EXPECT_EQ(st.exit_code, 3);
  EXPECT_EQ(st.ToString(), "exited 3");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path), "hi\nerr\n");
  EXPECT_EQ(ReadFileOrEmpty(spec.exit_path), "exit 3\n");
  struct stat sb;
  ASSERT_EQ(stat(spec.log_path.c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 0777, 0600u);  // logs are their owner's alone
  // A second Inspect gives the same answer from the exit file.
  EXPECT_EQ(Inspect(*h, spec.exit_path).ToString(), "exited 3");
}

TEST_F(SpawnTest, KeeperIsReapedNotLeftAZombie) {
  ProcessSpec spec = Spec({"true"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(WaitFinished(*h, spec.exit_path).ToString(), "exited 0");
  // Inspect reaped the keeper: its pid is gone (or reused by another process).
  auto keeper = ReadProcStat(h->keeper_pid);
  EXPECT_TRUE(!keeper || keeper->start_time != h->keeper_start_time)
      << "keeper still present in state " << keeper->state;
  // The keeper reaped the command: no zombie child of the keeper's either.
  auto cmd = ReadProcStat(h->pgid);
  EXPECT_TRUE(!cmd || cmd->start_time != h->pgid_start_time);
  errno = 0;
  EXPECT_EQ(waitpid(h->keeper_pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(SpawnTest, EnvironmentAndWorkingDirectoryReachTheCommand) {
  std::string wd = Path("work dir");
  ASSERT_EQ(mkdir(wd.c_str(), 0755), 0);
  ProcessSpec spec =
      Spec({"sh", "-c", "echo \"$KUOTA_TEST_VAR\"; echo \"$HOME\"; pwd; echo \"$PATH\""});
  spec.env = {{"KUOTA_TEST_VAR", "first"}, {"HOME", "/kuota-home"}, {"KUOTA_TEST_VAR", "hello"}};
  spec.working_dir = wd;
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(WaitFinished(*h, spec.exit_path).ToString(), "exited 0");
  const char* path = std::getenv("PATH");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path),
            "hello\n/kuota-home\n" + wd + "\n" + std::string(path ? path : "") + "\n");
}

TEST_F(SpawnTest, RelativeCommandWithSlashRunsFromWorkingDirectory) {
  std::string wd = Path("wd");
  ASSERT_EQ(mkdir(wd.c_str(), 0755), 0);
  WriteFile(wd + "/run.sh", "#!/bin/sh\necho from-script\n");
  ASSERT_EQ(chmod((wd + "/run.sh").c_str(), 0755), 0);
  ProcessSpec spec = Spec({"./run.sh"});
  spec.working_dir = wd;
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(WaitFinished(*h, spec.exit_path).ToString(), "exited 0");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path), "from-script\n");
}

TEST_F(SpawnTest, LogIsAppendedAcrossRunsAndStaleExitFileRemoved) {
  ProcessSpec spec = Spec({"sh", "-c", "echo one"});
  auto h1 = Spawn(spec);
  ASSERT_TRUE(h1.ok()) << h1.status().ToString();
  ASSERT_EQ(WaitFinished(*h1, spec.exit_path).ToString(), "exited 0");
  spec.argv = {"sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done; echo two; exit 5", "sh",
               Path("go")};
  auto h2 = Spawn(spec);
  ASSERT_TRUE(h2.ok()) << h2.status().ToString();
  // The first run's exit file is gone, so the second is not mistaken for done.
  EXPECT_EQ(Inspect(*h2, spec.exit_path).phase, ProcessPhase::kRunning);
  EXPECT_EQ(ReadFileOrEmpty(spec.exit_path), "");
  WriteFile(Path("go"), "");
  ASSERT_EQ(WaitFinished(*h2, spec.exit_path).ToString(), "exited 5");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path), "one\ntwo\n");
}

TEST_F(SpawnTest, CommandSeesOnlyStdioEvenWhenTheDaemonLeaksDescriptors) {
  // A descriptor the daemon opened without O_CLOEXEC must not reach the pod.
  int leaky = open("/dev/null", O_RDONLY);
  ASSERT_GE(leaky, 3);
  ProcessSpec spec = Spec({"sh", "-c", "ls /proc/$$/fd; readlink /proc/$$/fd/0"});
  auto h = Spawn(spec);
  close(leaky);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(WaitFinished(*h, spec.exit_path).ToString(), "exited 0");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path), "0\n1\n2\n/dev/null\n");
  // The keeper holds nothing but its standard descriptors and its start's
  // lock either.
  ProcessSpec sleeper = Spec({"sleep", "30"});
  sleeper.exit_path = Path("state/sleeper.exit");
  auto s = Spawn(sleeper);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Until it has read the daemon's "go" and released the command, the keeper
  // also holds the "go" socket and the release pipe; wait for that to pass.
  const std::vector<std::string> want{sleeper.exit_path + ".lock"};
  std::vector<std::string> keeper_fds;
  for (int tries = 0; tries < 500; ++tries) {
    keeper_fds.clear();
    for (const auto& e :
         std::filesystem::directory_iterator("/proc/" + std::to_string(s->keeper_pid) + "/fd")) {
      if (e.path().filename().string().size() > 1 || e.path().filename().string() > "2") {
        keeper_fds.push_back(std::filesystem::read_symlink(e.path()).string());
      }
    }
    if (keeper_fds == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(keeper_fds, want);
  auto keeper = ReadProcStat(s->keeper_pid);
  ASSERT_TRUE(keeper.has_value());
  EXPECT_EQ(keeper->comm, "kuota-keeper");
  EXPECT_EQ(keeper->session, s->keeper_pid);  // its own session
  (void)SignalGroup(*s, SIGKILL);
  WaitFinished(*s, sleeper.exit_path);
}

TEST_F(SpawnTest, CommandNotInPathIsAClearErrorAndStartsNothing) {
  int before = CountOurChildren();
  ProcessSpec spec = Spec({"kuota-no-such-command", "x"});
  auto h = Spawn(spec);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
  EXPECT_NE(h.status().message().find("executable \"kuota-no-such-command\" not found in PATH"),
            std::string::npos)
      << h.status().message();
  EXPECT_EQ(CountOurChildren(), before);
  EXPECT_NE(access(spec.exit_path.c_str(), F_OK), 0);
}

TEST_F(SpawnTest, FailuresAfterForkComeBackAsErrorsAndLeaveNothingRunning) {
  WriteFile(Path("not-exec"), "#!/bin/sh\necho no\n");
  ASSERT_EQ(chmod(Path("not-exec").c_str(), 0644), 0);
  struct Case {
    std::string name;
    std::vector<std::string> argv;
    std::string working_dir;
    std::string cgroup_dir;
    std::string want;
  };
  std::vector<Case> cases = {
      {"missing absolute path",
       {"/nonexistent-dir/prog"},
       "",
       "",
       "executable \"/nonexistent-dir/prog\" not found"},
      {"not executable", {Path("not-exec")}, "", "", "permission denied"},
      {"bad working dir",
       {"true"},
       Path("no-such-dir"),
       "",
       "working directory \"" + Path("no-such-dir") + "\": No such file or directory"},
      {"bad cgroup",
       {"true"},
       "",
       Path("no-such-cgroup"),
       "cannot join cgroup " + Path("no-such-cgroup")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    int before = CountOurChildren();
    ProcessSpec spec = Spec(c.argv);
    spec.working_dir = c.working_dir;
    spec.cgroup_dir = c.cgroup_dir;
    auto h = Spawn(spec);
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
    EXPECT_NE(h.status().message().find(c.want), std::string::npos) << h.status().message();
    EXPECT_EQ(CountOurChildren(), before);
    EXPECT_NE(access(spec.exit_path.c_str(), F_OK), 0) << "exit file left behind";
    EXPECT_NE(access((spec.exit_path + ".tmp").c_str(), F_OK), 0);
  }
}

TEST_F(SpawnTest, BadSpecsAreRejectedBeforeStarting) {
  ProcessSpec spec = Spec({});
  EXPECT_EQ(Spawn(spec).status().code(), StatusCode::kInvalid);
  spec = Spec({"true"});
  spec.exit_path.clear();
  EXPECT_EQ(Spawn(spec).status().message(), "exit_path: required");
  spec = Spec({"true"});
  spec.env = {{"A=B", "x"}};
  auto r = Spawn(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("env[0].name \"A=B\""), std::string::npos)
      << r.status().message();
}

TEST_F(SpawnTest, KeeperIgnoresSigterm) {
  ProcessSpec spec = Spec({"sleep", "30"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(kill(h->keeper_pid, SIGTERM), 0);
  ASSERT_EQ(kill(h->keeper_pid, SIGHUP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(Inspect(*h, spec.exit_path).phase, ProcessPhase::kRunning);
  EXPECT_EQ(CountLiveProcessesInGroup(h->pgid), 1);
  Cleanup(*h);
}

TEST_F(SpawnTest, KilledKeeperAndGroupIsLost) {
  ProcessSpec spec = Spec({"sleep", "30"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(kill(h->keeper_pid, SIGKILL), 0);
  // The keeper is gone but the command still leads its group: still ours.
  ASSERT_TRUE(WaitFor([&] { return Inspect(*h, spec.exit_path).finished(); }));
  EXPECT_EQ(CountLiveProcessesInGroup(h->pgid), 1);
  Status s = SignalGroup(*h, SIGKILL);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(WaitFor([&] { return CountLiveProcessesInGroup(h->pgid) == 0; }));
  ProcessState st = Inspect(*h, spec.exit_path);
  EXPECT_EQ(st.phase, ProcessPhase::kLost);
  EXPECT_NE(st.detail.find("no exit file"), std::string::npos) << st.detail;
}

TEST_F(SpawnTest, HandleWithWrongStartTimeIsNotOurs) {
  ProcessSpec spec = Spec({"sleep", "30"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ProcessHandle stale = *h;
  stale.keeper_start_time += 1;
  stale.pgid_start_time += 1;
  ProcessState st = Inspect(stale, spec.exit_path);
  EXPECT_EQ(st.phase, ProcessPhase::kLost);
  EXPECT_NE(st.detail.find("now belongs to another process"), std::string::npos) << st.detail;
  Status s = SignalGroup(stale, SIGKILL);
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  // Nothing was signalled: the real handle still sees it running.
  EXPECT_EQ(Inspect(*h, spec.exit_path).phase, ProcessPhase::kRunning);
  EXPECT_EQ(CountLiveProcessesInGroup(h->pgid), 1);
  Cleanup(*h);
}

// A daemon that spawned and then died: a helper process spawns and exits; the
// test, which is not the keeper's parent, inspects with the saved handle.
TEST_F(SpawnTest, RestartedDaemonSeesRunningThenExitedFromHandleAlone) {
  ProcessSpec spec =
      Spec({"sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done; exit 4", "sh", Path("go")});
  pid_t helper = 0;
  int fd = -1;
  ASSERT_NO_FATAL_FAILURE(kuota::testing::ForkPiped(
      [&](int pipe_fd) {
        auto h = Spawn(spec);
        ProcessHandle out = h.ok() ? *h : ProcessHandle{};
        char text[256];
        int len = std::snprintf(text, sizeof text, "%d %llu %d %llu %s", out.keeper_pid,
                                static_cast<unsigned long long>(out.keeper_start_time), out.pgid,
                                static_cast<unsigned long long>(out.pgid_start_time),
                                out.boot_id.c_str());
        ssize_t n = write(pipe_fd, text, static_cast<size_t>(len));
        _exit(h.ok() && n == len ? 0 : 1);
      },
      helper, fd));
  char text[256] = {};
  ASSERT_GT(read(fd, text, sizeof text - 1), 0);
  close(fd);
  ProcessHandle h;
  unsigned long long keeper_start = 0, pgid_start = 0;
  char boot_id[64] = {};
  ASSERT_EQ(std::sscanf(text, "%d %llu %d %llu %63s", &h.keeper_pid, &keeper_start, &h.pgid,
                        &pgid_start, boot_id),
            5);
  h.keeper_start_time = keeper_start;
  h.pgid_start_time = pgid_start;
  h.boot_id = boot_id;
  int status = 0;
  ASSERT_EQ(waitpid(helper, &status, 0), helper);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(h.keeper_pid, 0);

  // We are not the keeper's parent.
  errno = 0;
  EXPECT_EQ(waitpid(h.keeper_pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(Inspect(h, spec.exit_path).phase, ProcessPhase::kRunning);
  WriteFile(Path("go"), "");
  ProcessState st;
  ASSERT_TRUE(WaitFor([&] {
    st = Inspect(h, spec.exit_path);
    return st.finished();
  }));
  EXPECT_EQ(st.ToString(), "exited 4");
}

TEST_F(SpawnTest, ConcurrentSpawnsFromThreadsAllComplete) {
  constexpr int kThreads = 4;
  constexpr int kEach = 5;
  std::vector<std::thread> threads;
  std::vector<std::string> results(kThreads * kEach);
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        int k = t * kEach + i;
        ProcessSpec spec;
        spec.argv = {"sh", "-c", "echo $0", std::to_string(k)};
        spec.log_path = Path("logs/" + std::to_string(k) + ".log");
        spec.exit_path = Path("state/" + std::to_string(k) + ".exit");
        auto h = Spawn(spec);
        if (!h.ok()) {
          results[k] = h.status().ToString();
          continue;
        }
        ProcessState st;
        WaitFor([&] {
          st = Inspect(*h, spec.exit_path);
          return st.finished();
        });
        results[k] = st.ToString() + " " + ReadFileOrEmpty(spec.log_path);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < kThreads * kEach; ++k) {
    EXPECT_EQ(results[k], "exited 0 " + std::to_string(k) + "\n");
  }
  // A keeper holding another spawn's report pipe would stall Spawn until
  // that keeper exits; all 20 finish well within a few seconds.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ExitFileTest, ParsesAndFormatsRecords) {
  auto e = ParseExitRecord("exit 3\n");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->signaled);
  EXPECT_EQ(e->value, 3);
  auto s = ParseExitRecord("signal 9");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->signaled);
  EXPECT_EQ(s->value, 9);
  EXPECT_EQ(FormatExitRecord(*s), "signal 9\n");
  EXPECT_FALSE(ParseExitRecord("").ok());
  EXPECT_FALSE(ParseExitRecord("exit ").ok());
  EXPECT_FALSE(ParseExitRecord("exit 3x").ok());
  EXPECT_FALSE(ParseExitRecord("done 0").ok());
}

TEST(ProcStatTest, ParsesCommandNamesWithSpacesAndParens) {
  std::string text =
      "1234 (a) (b c) S 1 1234 1234 0 -1 4194304 97 0 0 0 0 0 0 0 20 0 1 0 1061528 3133440 358 "
      "18446744073709551615\n";
  auto st = ParseProcStat(text);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->pid, 1234);
  EXPECT_EQ(st->comm, "a) (b c");
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->ppid, 1);
  EXPECT_EQ(st->pgid, 1234);
  EXPECT_EQ(st->start_time, 1061528u);
  EXPECT_FALSE(ParseProcStat("1234 (x) S 1").has_value());
  auto self = ReadProcStat(getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->pid, getpid());
  EXPECT_EQ(self->ppid, getppid());
}

}  // namespace
}  // namespace kuota::runtime
