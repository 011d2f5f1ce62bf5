#include "runtime/cgroup_manager.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <iterator>
#include <set>
#include <sstream>

#include "runtime/cgroup_fs.h"
#include "runtime/process_state.h"
#include "runtime/runtime_test_util.h"
#include "runtime/spawn.h"

namespace kuota::runtime {
namespace {

using testing::ReadFileOrEmpty;
using testing::WaitFor;

// The whitespace-separated words of `text`.
std::set<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

class CgroupManagerTest : public testing::RuntimeTest {
 protected:
  // Runs `cat /proc/self/cgroup` in `cgroup_dir` and returns its output.
  std::string CgroupOfChild(const std::string& cgroup_dir) {
    ProcessSpec spec;
    spec.argv = {"cat", "/proc/self/cgroup"};
    spec.log_path = Path("cg.log");
    spec.exit_path = Path("cg.exit");
    spec.cgroup_dir = cgroup_dir;
    auto h = Spawn(spec);
    EXPECT_TRUE(h.ok()) << h.status().ToString();
    if (!h.ok()) return "";
    ProcessState st;
    WaitFor([&] {
      st = Inspect(*h, spec.exit_path);
      return st.finished();
    });
    EXPECT_EQ(st.ToString(), "exited 0");
    return ReadFileOrEmpty(spec.log_path);
  }
};

// Both branches assert: where limits can be enforced, a pod cgroup really has
// them and a spawned command runs in it; where not, the reason agrees with
// what the host shows and pods still run.
TEST_F(CgroupManagerTest, DetectedStateIsCoherentWithTheHost) {
  CgroupManager m = CgroupManager::Detect();
  OwnCgroups own = FindOwnCgroups();
  std::printf("  cgroups enforced=%d reason=\"%s\" subtree=\"%s\"\n", m.enforced(),
              m.reason().c_str(), m.subtree_dir().c_str());
  std::string pod = "kuota-test-" + std::to_string(getpid());
  if (m.enforced()) {
    EXPECT_TRUE(m.reason().empty());
    ASSERT_FALSE(own.v2_mount.empty());
    struct statfs fs;
    ASSERT_EQ(statfs(m.subtree_dir().c_str(), &fs), 0);
    EXPECT_EQ(fs.f_type, static_cast<decltype(fs.f_type)>(CGROUP2_SUPER_MAGIC));
    std::set<std::string> delegated =
        Words(ReadFileOrEmpty(m.subtree_dir() + "/cgroup.subtree_control"));
    EXPECT_TRUE(delegated.count("cpu") && delegated.count("memory"));

    auto p = m.Create(pod, 500, int64_t{64} << 20);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(p->enforced);
    EXPECT_EQ(p->dir, m.subtree_dir() + "/" + pod);
    EXPECT_EQ(ReadFileOrEmpty(p->dir + "/cpu.max"), "50000 100000\n");
    EXPECT_EQ(ReadFileOrEmpty(p->dir + "/memory.max"), "67108864\n");
    std::string rel = p->dir.substr(own.v2_mount.size());
    EXPECT_NE(CgroupOfChild(p->dir).find("0::" + rel + "\n"), std::string::npos);
    Status removed = m.Remove(pod);
    EXPECT_TRUE(removed.ok()) << removed.ToString();
    struct stat st;
    EXPECT_NE(stat(p->dir.c_str(), &st), 0);
    EXPECT_TRUE(m.Remove(pod).ok());  // already gone: fine
  } else {
    EXPECT_FALSE(m.reason().empty());
    EXPECT_TRUE(m.subtree_dir().empty());
    if (own.v2_mount.empty()) {
      EXPECT_NE(m.reason().find("no cgroup2 filesystem is mounted"), std::string::npos)
          << m.reason();
    } else if (!own.v2_dir.empty()) {
      std::set<std::string> have = Words(ReadFileOrEmpty(own.v2_dir + "/cgroup.controllers"));
      if (!have.count("cpu") || !have.count("memory")) {
        EXPECT_NE(m.reason().find("need cpu and memory"), std::string::npos) << m.reason();
      }
    }
    auto p = m.Create(pod, 500, int64_t{64} << 20);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_FALSE(p->enforced);
    EXPECT_TRUE(p->dir.empty());
    EXPECT_EQ(p->note, "not enforced: " + m.reason());
    EXPECT_TRUE(m.Remove(pod).ok());
    // Pods still run, without a cgroup of their own.
    EXPECT_NE(CgroupOfChild(p->dir), "");
  }
}

TEST_F(CgroupManagerTest, DelegatedParentOutsideCgroupfsIsNotEnforced) {
  CgroupOptions opts;
  opts.parent_dir = dir_;
  CgroupManager m = CgroupManager::Detect(opts);
  EXPECT_FALSE(m.enforced());
  EXPECT_EQ(m.reason(), dir_ + " is not on a cgroup2 filesystem");
  auto p = m.Create("pod", 1000, 0);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->note, "not enforced: " + dir_ + " is not on a cgroup2 filesystem");
  struct stat st;
  EXPECT_NE(stat((dir_ + "/kuota").c_str(), &st), 0) << "nothing is created";
}

TEST_F(CgroupManagerTest, BadPodIdsAreRejectedWhateverTheHost) {
  CgroupManager m = CgroupManager::Detect();
  for (std::string id : {"", "../x", "a/b", ".hidden", "sp ace"}) {
    SCOPED_TRACE(id);
    auto p = m.Create(id, 1000, 0);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
    EXPECT_NE(p.status().message().find("cgroup pod id \"" + id + "\""), std::string::npos)
        << p.status().message();
    EXPECT_EQ(m.Remove(id).code(), StatusCode::kInvalid);
  }
}

}  // namespace
}  // namespace kuota::runtime
