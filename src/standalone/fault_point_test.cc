#include "standalone/fault_point.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kuota::standalone {
namespace {

TEST(FaultInjectorTest, ParsesPointsAndPrefixes) {
  auto none = FaultInjector::Parse("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->armed());
  EXPECT_EQ(none->ToString(), "");
  for (const char* spec : {"before-starting", "after-starting", "after-fork", "after-started",
                           "after-go", "after-running", "after-go@j07-"}) {
    auto f = FaultInjector::Parse(spec);
    ASSERT_TRUE(f.ok()) << spec << ": " << f.status().ToString();
    EXPECT_TRUE(f->armed());
    EXPECT_EQ(f->ToString(), spec);
  }
  auto bad = FaultInjector::Parse("after-lunch");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_NE(bad.status().message().find("unknown fault point \"after-lunch\""), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("after-running"), std::string::npos);
}

// Reach in a child process; how the child ended.
int ReachInChild(const FaultInjector& f, FaultPoint point, const char* pod) {
  pid_t pid = fork();
  if (pid == 0) {
    f.Reach(point, pod);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

TEST(FaultInjectorTest, KillsItselfOnlyAtTheArmedPointForMatchingPods) {
  auto f = FaultInjector::Parse("after-fork@j07-");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(ReachInChild(*f, FaultPoint::kAfterFork, "j07-abcde"), SIGKILL);
  EXPECT_EQ(ReachInChild(*f, FaultPoint::kAfterFork, "j08-abcde"), 0);
  EXPECT_EQ(ReachInChild(*f, FaultPoint::kAfterGo, "j07-abcde"), 0);
  EXPECT_EQ(ReachInChild(FaultInjector(), FaultPoint::kAfterFork, "j07-abcde"), 0);
  auto any = FaultInjector::Parse("after-go");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(ReachInChild(*any, FaultPoint::kAfterGo, "x"), SIGKILL);
}

}  // namespace
}  // namespace kuota::standalone
