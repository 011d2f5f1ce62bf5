// The start handshake (BeginSpawn / Release / Abort, StartInProgress): a
// command runs only after "go", so a daemon that dies before sending it never
// leaves a command that ran behind a record that says it did not.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <sstream>
#include <thread>

#include "runtime/exit_file.h"
#include "runtime/proc_stat.h"
#include "runtime/process_group.h"
#include "runtime/process_state.h"
#include "runtime/runtime_test_util.h"
#include "runtime/spawn.h"

namespace kuota::runtime {
namespace {

using testing::ReadFileOrEmpty;
using testing::WaitFor;

std::string Serialize(const ProcessHandle& h) {
  std::ostringstream out;
  out << h.keeper_pid << " " << h.keeper_start_time << " " << h.pgid << " " << h.pgid_start_time
      << " " << h.boot_id;
  return out.str();
}

ProcessHandle Deserialize(const std::string& text) {
  ProcessHandle h;
  std::istringstream in(text);
  in >> h.keeper_pid >> h.keeper_start_time >> h.pgid >> h.pgid_start_time >> h.boot_id;
  return h;
}

class SpawnHandshakeTest : public testing::RuntimeTest {
 protected:
  // A command that appends one line to `ran` each time it runs.
  ProcessSpec Spec() {
    ProcessSpec spec;
    spec.argv = {"sh", "-c", "echo ran >> \"$1\"", "sh", Path("ran")};
    spec.log_path = Path("pod.log");
    spec.exit_path = Path("pod.exit");
    return spec;
  }
  std::string Ran() { return ReadFileOrEmpty(Path("ran")); }

  ProcessState WaitFinished(const ProcessHandle& h) {
    ProcessState st;
    WaitFor([&] {
      st = Inspect(h, Path("pod.exit"));
      return st.finished();
    });
    return st;
  }

  bool InProgress() {
    auto r = StartInProgress(Path("pod.exit"));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  }

  // Plays a daemon that runs `body` and is killed with SIGKILL (as kuotad
  // under kill -9: its descriptors close, its keepers live on) when `body`
  // calls SendAndDie. Returns what it sent.
  std::string DaemonThatDies(const std::function<void(int fd)>& body) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    pid_t daemon = fork();
    if (daemon == 0) {
      close(fds[0]);
      body(fds[1]);
      _exit(1);
    }
    close(fds[1]);
    std::string out = testing::ReadAllAndClose(fds[0]);
    int status = 0;
    EXPECT_EQ(waitpid(daemon, &status, 0), daemon);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    return out;
  }
  [[noreturn]] static void SendAndDie(int fd, const std::string& out) {
    if (write(fd, out.data(), out.size()) < 0) _exit(1);
    kill(getpid(), SIGKILL);
    _exit(1);
  }
};

TEST_F(SpawnHandshakeTest, CommandWaitsForReleaseAndItsIdentityIsKnownBefore) {
  auto pending = BeginSpawn(Spec());
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  const ProcessHandle h = pending->handle();
  EXPECT_GT(h.keeper_pid, 0);
  EXPECT_GT(h.keeper_start_time, 0u);
  EXPECT_GT(h.pgid, 0);
  EXPECT_GT(h.pgid_start_time, 0u);  // the command is there, waiting
  EXPECT_FALSE(h.boot_id.empty());
  EXPECT_EQ(h.boot_id, ReadBootId());
  auto cmd = ReadProcStat(h.pgid);
  ASSERT_TRUE(cmd.has_value());
  EXPECT_EQ(cmd->ppid, h.keeper_pid);
  EXPECT_EQ(cmd->start_time, h.pgid_start_time);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(Ran(), "") << "the command ran before it was released";
  EXPECT_EQ(Inspect(h, Path("pod.exit")).phase, ProcessPhase::kRunning);
  EXPECT_TRUE(InProgress());

  auto released = pending->Release();
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ(Serialize(*released), Serialize(h));
  EXPECT_EQ(WaitFinished(h).ToString(), "exited 0");
  EXPECT_EQ(Ran(), "ran\n");
  EXPECT_FALSE(InProgress());
  // Released once: a second Release is refused.
  EXPECT_FALSE(pending->Release().ok());
}

TEST_F(SpawnHandshakeTest, AbortNeverExecsAndLeavesNothing) {
  auto pending = BeginSpawn(Spec());
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  const ProcessHandle h = pending->handle();
  pending->Abort();
  EXPECT_EQ(Ran(), "");
  EXPECT_FALSE(InProgress());
  EXPECT_NE(access(Path("pod.exit").c_str(), F_OK), 0) << "exit file left behind";
  auto cmd = ReadProcStat(h.pgid);
  EXPECT_TRUE(!cmd || cmd->start_time != h.pgid_start_time) << "the command is still there";
  errno = 0;
  EXPECT_EQ(waitpid(h.keeper_pid, nullptr, WNOHANG), -1) << "keeper not reaped";
  pending->Abort();  // idempotent
  // Destroying an unreleased start aborts it too.
  {
    auto other = BeginSpawn(Spec());
    ASSERT_TRUE(other.ok()) << other.status().ToString();
  }
  EXPECT_FALSE(InProgress());
  EXPECT_EQ(Ran(), "");
}

// The daemon recorded the handle and died before "go": the keeper sees its
// end close, kills the waiting command and records that it never ran.
TEST_F(SpawnHandshakeTest, DaemonDeathBeforeGoIsRecordedAsNeverStarted) {
  ProcessSpec spec = Spec();
  ProcessHandle h = Deserialize(DaemonThatDies([&](int fd) {
    auto pending = BeginSpawn(spec);
    SendAndDie(fd, pending.ok() ? Serialize(pending->handle()) : "0 0 0 0 x");
  }));
  ASSERT_GT(h.keeper_pid, 0);
  ProcessState st = WaitFinished(h);
  EXPECT_EQ(st.phase, ProcessPhase::kNeverStarted) << st.ToString();
  EXPECT_EQ(st.ToString(), "never started (aborted before exec)");
  EXPECT_EQ(ReadFileOrEmpty(spec.exit_path), "aborted before exec\n");
  EXPECT_EQ(Ran(), "");
  EXPECT_FALSE(InProgress());
  EXPECT_EQ(CountLiveProcessesInGroup(h.pgid), 0);
  // So it may be started now, and then runs exactly once.
  auto again = Spawn(spec);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(WaitFinished(*again).ToString(), "exited 0");
  EXPECT_EQ(Ran(), "ran\n");
}

// The daemon died before it learned (or recorded) the handle: the lock alone
// says when no process of that start is left.
TEST_F(SpawnHandshakeTest, StartInProgressUntilTheOrphanedKeeperHasGone) {
  EXPECT_FALSE(InProgress()) << "no lock file yet";
  ProcessSpec spec = Spec();
  spec.argv = {"sh", "-c", "echo ran >> \"$1\"; sleep 0.3", "sh", Path("ran")};
  // A keeper that is running its command holds the lock too.
  auto running = Spawn(spec);
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  EXPECT_TRUE(InProgress());
  auto second = BeginSpawn(spec);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("is still running"), std::string::npos)
      << second.status().message();
  EXPECT_EQ(WaitFinished(*running).ToString(), "exited 0");
  EXPECT_FALSE(InProgress());
  EXPECT_EQ(Ran(), "ran\n");

  EXPECT_EQ(DaemonThatDies([&](int fd) {
              auto pending = BeginSpawn(spec);
              SendAndDie(fd, pending.ok() ? "ok" : pending.status().ToString());
            }),
            "ok");
  EXPECT_TRUE(WaitFor([&] { return !InProgress(); }));
  EXPECT_EQ(Ran(), "ran\n") << "an unreleased command ran";
  EXPECT_EQ(ReadFileOrEmpty(spec.exit_path), "aborted before exec\n");
}

// Killed alone, the keeper cannot release the command: it sees end of file,
// writes the record itself and exits without exec.
TEST_F(SpawnHandshakeTest, KeeperKilledBeforeGoLeavesACommandThatNeverRuns) {
  auto pending = BeginSpawn(Spec());
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  const ProcessHandle h = pending->handle();
  ASSERT_EQ(kill(h.keeper_pid, SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return ReadFileOrEmpty(Path("pod.exit")) != ""; }));
  auto released = pending->Release();
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(released.status().message().find("the command never ran"), std::string::npos)
      << released.status().message();
  EXPECT_EQ(ReadFileOrEmpty(Path("pod.exit")), "aborted before exec\n");
  EXPECT_EQ(Inspect(h, Path("pod.exit")).phase, ProcessPhase::kNeverStarted);
  EXPECT_TRUE(WaitFor([&] { return !InProgress(); }));
  EXPECT_EQ(Ran(), "");
}

TEST_F(SpawnHandshakeTest, FailuresBeforeExecAreReportedByBeginSpawn) {
  ProcessSpec spec = Spec();
  spec.working_dir = Path("no-such-dir");
  auto pending = BeginSpawn(spec);
  ASSERT_FALSE(pending.ok());
  EXPECT_EQ(pending.status().code(), StatusCode::kInvalid);
  EXPECT_NE(pending.status().message().find("working directory"), std::string::npos)
      << pending.status().message();
  EXPECT_FALSE(InProgress());
  EXPECT_NE(access(spec.exit_path.c_str(), F_OK), 0) << "exit file left behind";
}

TEST_F(SpawnHandshakeTest, HandleFromAnotherBootNamesNoProcess) {
  ProcessSpec spec = Spec();
  spec.argv = {"sleep", "30"};
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ProcessHandle old = *h;
  old.boot_id = "00000000-0000-0000-0000-000000000000";
  ProcessState st = Inspect(old, spec.exit_path);
  EXPECT_EQ(st.phase, ProcessPhase::kLost);
  EXPECT_NE(st.detail.find("earlier boot"), std::string::npos) << st.detail;
  EXPECT_EQ(SignalGroup(old, SIGKILL).code(), StatusCode::kNotFound);
  EXPECT_EQ(Inspect(*h, spec.exit_path).phase, ProcessPhase::kRunning);
  // Its exit file is still believed: it was written in that boot.
  (void)SignalGroup(*h, SIGKILL);
  EXPECT_EQ(WaitFinished(*h).ToString(), "killed by signal 9 (Killed)");
  EXPECT_EQ(Inspect(old, spec.exit_path).ToString(), "killed by signal 9 (Killed)");
}

TEST(ExitFileTest, AbortedBeforeExecRoundTrips) {
  auto r = ParseExitRecord("aborted before exec\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->never_started);
  EXPECT_EQ(FormatExitRecord(*r), "aborted before exec\n");
  EXPECT_TRUE(ParseExitRecord("aborted before exec").ok());
  EXPECT_FALSE(ParseExitRecord("aborted").ok());
}

}  // namespace
}  // namespace kuota::runtime
