#include "runtime/group_terminator.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "runtime/process_group.h"
#include "runtime/runtime_test_util.h"
#include "runtime/spawn.h"

namespace kuota::runtime {
namespace {

using testing::ReadFileOrEmpty;
using testing::WaitFor;

class GroupTerminatorTest : public testing::SpawnFixture {
 protected:
  // Spawns a command that ignores SIGTERM, once it has set its trap.
  void SpawnIgnoringSigterm(ProcessSpec& spec, ProcessHandle& h) {
    spec = Spec({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"});
    auto spawned = Spawn(spec);
    ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
    h = *spawned;
    ASSERT_TRUE(WaitFor([&] { return ReadFileOrEmpty(spec.log_path) == "ready\n"; }));
  }
};

TEST_F(GroupTerminatorTest, SigtermStopsSleepQuicklyAndIsRecorded) {
  ProcessSpec spec = Spec({"sleep", "30"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(CountLiveProcessesInGroup(h->pgid), 1);
  auto start = std::chrono::steady_clock::now();
  ProcessState st = TerminateGroup(*h, spec.exit_path, Duration{5000}, Duration{3000});
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.phase, ProcessPhase::kKilled) << st.ToString();
  EXPECT_EQ(st.signal, SIGTERM);
  EXPECT_LT(elapsed, std::chrono::seconds(2));  // no wait for the 5 s grace
  EXPECT_EQ(ReadFileOrEmpty(spec.exit_path), "signal 15\n");
  EXPECT_EQ(CountLiveProcessesInGroup(h->pgid), 0);
}

TEST_F(GroupTerminatorTest, CommandIgnoringSigtermGetsSigkillAfterGrace) {
  ProcessSpec spec;
  ProcessHandle h;
  ASSERT_NO_FATAL_FAILURE(SpawnIgnoringSigterm(spec, h));

  ManualClock clock(Time::FromSeconds(1000));
  GroupTerminator t(h, spec.exit_path, Duration{30000}, clock);
  TerminationProgress p = t.Poll();  // SIGTERM
  EXPECT_FALSE(p.done);
  EXPECT_FALSE(p.escalated);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  p = t.Poll();
  EXPECT_FALSE(p.done) << "SIGTERM should have been ignored";
  EXPECT_EQ(p.state.phase, ProcessPhase::kRunning);
  EXPECT_FALSE(p.escalated);
  EXPECT_GE(CountLiveProcessesInGroup(h.pgid), 1);

  clock.Advance(Duration{30000});  // grace over
  p = t.Poll();
  EXPECT_TRUE(p.escalated);
  ASSERT_TRUE(WaitFor([&] {
    p = t.Poll();
    return p.done;
  }));
  EXPECT_EQ(p.state.phase, ProcessPhase::kKilled) << p.state.ToString();
  EXPECT_EQ(p.state.signal, SIGKILL);
  EXPECT_EQ(ReadFileOrEmpty(spec.exit_path), "signal 9\n");
  EXPECT_EQ(CountLiveProcessesInGroup(h.pgid), 0);
}

TEST_F(GroupTerminatorTest, RealClockGraceIsWaitedBeforeSigkill) {
  ProcessSpec spec;
  ProcessHandle h;
  ASSERT_NO_FATAL_FAILURE(SpawnIgnoringSigterm(spec, h));
  auto start = std::chrono::steady_clock::now();
  ProcessState st = TerminateGroup(h, spec.exit_path, Duration{300}, Duration{3000});
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.ToString(), "killed by signal 9 (Killed)");
  EXPECT_GE(elapsed, std::chrono::milliseconds(300));
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST_F(GroupTerminatorTest, ProcessesLeftBehindByAnExitedCommandAreKilled) {
  // The shell exits at once, leaving `sleep 30` in its group.
  ProcessSpec spec = Spec({"sh", "-c", "sleep 30 & exit 0"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_TRUE(WaitFor([&] { return Inspect(*h, spec.exit_path).finished(); }));
  EXPECT_EQ(Inspect(*h, spec.exit_path).ToString(), "exited 0");
  EXPECT_EQ(CountLiveProcessesInGroup(h->pgid), 1);
  ProcessState st = TerminateGroup(*h, spec.exit_path, Duration{0}, Duration{3000});
  EXPECT_EQ(st.ToString(), "exited 0");
  EXPECT_EQ(CountLiveProcessesInGroup(h->pgid), 0);
  // Nothing of ours is left to signal.
  EXPECT_EQ(SignalGroup(*h, SIGKILL).code(), StatusCode::kNotFound);
}

TEST_F(GroupTerminatorTest, AlreadyFinishedCommandIsDoneAtOnce) {
  ProcessSpec spec = Spec({"true"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_TRUE(WaitFor([&] { return Inspect(*h, spec.exit_path).finished(); }));
  RealClock clock;
  GroupTerminator t(*h, spec.exit_path, Duration{1000}, clock);
  TerminationProgress p = t.Poll();
  EXPECT_TRUE(p.done);
  EXPECT_FALSE(p.escalated);
  EXPECT_EQ(p.state.ToString(), "exited 0");
}

TEST_F(GroupTerminatorTest, SignalGroupRejectsBadSignals) {
  ProcessHandle h;
  h.pgid = 12345;
  EXPECT_EQ(SignalGroup(h, 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(SignalGroup(h, 1000).code(), StatusCode::kInvalid);
  h.pgid = 1;
  EXPECT_EQ(SignalGroup(h, SIGTERM).code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace kuota::runtime
