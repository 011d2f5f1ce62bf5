// Spawn with run_as: the command runs as another user (uid, gid, groups
// dropped just before exec), with HOME, USER, LOGNAME and its directory set,
// while the keeper's files stay the daemon's and owner-only. Real processes;
// the user change needs root, as CI runs these tests (a non-root run fails,
// saying so, rather than skip).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/process_group.h"
#include "runtime/process_state.h"
#include "runtime/runtime_test_util.h"
#include "runtime/spawn.h"
#include "runtime/user_lookup.h"
#include "testing/piped_child.h"

namespace kuota::runtime {
namespace {

using testing::ReadFileOrEmpty;
using testing::WaitFor;

constexpr uint32_t kNobody = 65534;
constexpr uint32_t kExtraGroup = 4242;  // a supplementary group no one else uses

// The "Name:\tvalue" lines of /proc/<pid>/status.
std::map<std::string, std::string> ProcStatus(pid_t pid) {
  std::map<std::string, std::string> out;
  std::istringstream in(ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1);
    out[line.substr(0, colon)] = value;
  }
  return out;
}

// NAME=value entries of /proc/<pid>/environ.
std::map<std::string, std::string> ProcEnviron(pid_t pid) {
  std::map<std::string, std::string> out;
  std::string all = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/environ");
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    std::string entry = all.substr(start, end - start);
    size_t eq = entry.find('=');
    if (eq != std::string::npos) out[entry.substr(0, eq)] = entry.substr(eq + 1);
    start = end + 1;
  }
  return out;
}

std::string Cwd(pid_t pid) {
  char buf[4096];
  std::string link = "/proc/" + std::to_string(pid) + "/cwd";
  ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

class SpawnRunAsTest : public testing::SpawnFixture {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u)
        << "SpawnRunAsTest needs root: it runs commands as uid 65534 (nobody), "
           "which only root may do (CI runs the tests as root; run them with sudo)";
    testing::SpawnFixture::SetUp();
    // The temporary directory is 0700: let other users through to their
    // homes and working directories below it.
    ASSERT_EQ(chmod(dir_.c_str(), 0711), 0);
  }

  // A directory owned by the user, as a home is.
  std::string UserDir(const std::string& name) {
    std::string d = Path(name);
    EXPECT_EQ(mkdir(d.c_str(), 0700), 0);
    EXPECT_EQ(chown(d.c_str(), kNobody, kNobody), 0);
    return d;
  }

  // As nobody, with a supplementary group, in a home of its own.
  ProcessSpec Spec(std::vector<std::string> argv) {
    ProcessSpec spec = SpawnFixture::Spec(std::move(argv));
    spec.run_as = RunAs{kNobody, kNobody, {kNobody, kExtraGroup}, UserDir("home"), "nobody"};
    return spec;
  }
};

TEST_F(SpawnRunAsTest, CommandRunsAsTheUserWithItsGroupsHomeAndEnvironment) {
  ProcessSpec spec = Spec({"sleep", "30"});
  spec.env = {{"KUOTA_TEST_VAR", "x"}};
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  // Released: the command has exec'd, so /proc shows what sleep runs with.
  std::map<std::string, std::string> st = ProcStatus(h->pgid);
  EXPECT_EQ(st["Name"], "sleep");
  EXPECT_EQ(st["Uid"], "65534\t65534\t65534\t65534");  // real, effective, saved, fs
  EXPECT_EQ(st["Gid"], "65534\t65534\t65534\t65534");
  EXPECT_EQ(st["Groups"], "4242 65534");  // the kernel keeps them sorted
  EXPECT_EQ(st["CapEff"], "0000000000000000");
  EXPECT_EQ(st["CapPrm"], "0000000000000000");
  EXPECT_EQ(Cwd(h->pgid), spec.run_as->home);
  std::map<std::string, std::string> env = ProcEnviron(h->pgid);
  EXPECT_EQ(env["HOME"], spec.run_as->home);
  EXPECT_EQ(env["USER"], "nobody");
  EXPECT_EQ(env["LOGNAME"], "nobody");
  EXPECT_EQ(env["KUOTA_TEST_VAR"], "x");

  // The keeper stays the daemon's: it writes the exit file.
  EXPECT_EQ(ProcStatus(h->keeper_pid)["Uid"], "0\t0\t0\t0");
  ASSERT_TRUE(SignalGroup(*h, SIGKILL).ok());
  ProcessState done = WaitFinished(*h, spec.exit_path);
  EXPECT_EQ(done.phase, ProcessPhase::kKilled) << done.ToString();

  // The daemon's files: its own, owner-only.
  for (const std::string& f : {spec.log_path, spec.exit_path, spec.exit_path + ".lock"}) {
    struct stat sb;
    ASSERT_EQ(stat(f.c_str(), &sb), 0) << f;
    EXPECT_EQ(sb.st_uid, 0u) << f;
    EXPECT_EQ(sb.st_mode & 0777, 0600u) << f;
  }
  for (const std::string& d : {Path("logs"), Path("state")}) {
    struct stat sb;
    ASSERT_EQ(stat(d.c_str(), &sb), 0) << d;
    EXPECT_EQ(sb.st_mode & 0777, 0700u) << d;
  }
}

TEST_F(SpawnRunAsTest, TheUserWritesItsLogThroughTheDescriptorsItGets) {
  ProcessSpec spec = Spec({"sh", "-c", "id -u; id -G; pwd; echo \"$HOME $USER\"; echo err >&2"});
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(WaitFinished(*h, spec.exit_path).ToString(), "exited 0");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path), "65534\n65534 4242\n" + spec.run_as->home + "\n" +
                                                spec.run_as->home + " nobody\nerr\n");
}

TEST_F(SpawnRunAsTest, WorkingDirectoryWinsOverHomeAndEnvOverridesHome) {
  ProcessSpec spec = Spec({"sleep", "30"});
  spec.working_dir = UserDir("work");
  spec.env = {{"HOME", "/kuota-home"}};
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(Cwd(h->pgid), spec.working_dir);
  EXPECT_EQ(ProcEnviron(h->pgid)["HOME"], "/kuota-home");
  EXPECT_EQ(ProcStatus(h->pgid)["Uid"], "65534\t65534\t65534\t65534");
  (void)SignalGroup(*h, SIGKILL);
  WaitFinished(*h, spec.exit_path);
}

TEST_F(SpawnRunAsTest, AHomeThatCannotBeEnteredFallsBackToTheRoot) {
  // As login(1) does: nobody's home is often /nonexistent.
  ProcessSpec spec = Spec({"sh", "-c", "pwd; echo \"$HOME\""});
  spec.run_as->home = Path("no-such-home");
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(WaitFinished(*h, spec.exit_path).ToString(), "exited 0");
  EXPECT_EQ(ReadFileOrEmpty(spec.log_path), "/\n" + Path("no-such-home") + "\n");
}

TEST_F(SpawnRunAsTest, AWorkingDirectoryTheUserCannotEnterFailsTheStart) {
  // Root may enter it; the user may not: the start fails after the drop.
  std::string closed = Path("closed");
  ASSERT_EQ(mkdir(closed.c_str(), 0700), 0);
  ProcessSpec spec = Spec({"true"});
  spec.working_dir = closed;
  auto h = Spawn(spec);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(h.status().message(),
            "working directory \"" + closed + "\" (as uid 65534 (nobody)): Permission denied");
  EXPECT_NE(access(spec.exit_path.c_str(), F_OK), 0) << "exit file left behind";
}

TEST_F(SpawnRunAsTest, ADaemonThatIsNotRootCannotChangeUserAndNothingRuns) {
  // In a child that dropped to nobody itself (a non-root daemon), a start as
  // another uid fails at setgroups, before exec, and leaves nothing behind.
  std::string state = UserDir("daemon-state");
  pid_t child = 0;
  int fd = -1;
  ASSERT_NO_FATAL_FAILURE(kuota::testing::ForkPiped(
      [&](int out) {
        std::string result;
        if (setgid(kNobody) != 0 || setuid(kNobody) != 0) {
          result = "cannot drop to nobody";
        } else {
          ProcessSpec spec;
          spec.argv = {"touch", state + "/ran"};
          spec.log_path = state + "/pod.log";
          spec.exit_path = state + "/pod.exit";
          spec.run_as = RunAs{1234, 1234, {1234}, "/", "alice"};
          auto h = Spawn(spec);
          result = h.ok() ? "started" : h.status().message();
          if (access(spec.exit_path.c_str(), F_OK) == 0) result += "; exit file left behind";
        }
        (void)!write(out, result.data(), result.size());
      },
      child, fd));
  std::string got = testing::ReadAllAndClose(fd);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(got, "cannot run as uid 1234 (alice): setgroups: Operation not permitted");
  EXPECT_NE(access((state + "/ran").c_str(), F_OK), 0) << "the command ran";
}

TEST_F(SpawnRunAsTest, RunAsTheDaemonsOwnUserChangesNoIdsButSetsTheEnvironment) {
  ProcessSpec spec = Spec({"sleep", "30"});
  spec.run_as = RunAs{0, 0, {}, Path("root-home"), "root"};
  ASSERT_EQ(mkdir(spec.run_as->home.c_str(), 0700), 0);
  const std::string groups_before = ProcStatus(getpid())["Groups"];
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  std::map<std::string, std::string> st = ProcStatus(h->pgid);
  EXPECT_EQ(st["Uid"], "0\t0\t0\t0");
  EXPECT_EQ(st["Groups"], groups_before);  // no setgroups: the daemon's groups
  EXPECT_EQ(Cwd(h->pgid), spec.run_as->home);
  EXPECT_EQ(ProcEnviron(h->pgid)["USER"], "root");
  (void)SignalGroup(*h, SIGKILL);
  WaitFinished(*h, spec.exit_path);
}

TEST(UserLookupTest, FindsRootAndNobodyAndNotAnUnknownUid) {
  auto root = LookUpUser(0);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->uid, 0u);
  EXPECT_EQ(root->gid, 0u);
  EXPECT_EQ(root->user_name, "root");
  EXPECT_FALSE(root->home.empty());
  EXPECT_NE(std::find(root->groups.begin(), root->groups.end(), 0u), root->groups.end())
      << "getgrouplist includes the primary group";
  auto nobody = LookUpUser(kNobody);
  ASSERT_TRUE(nobody.ok()) << nobody.status().ToString();
  EXPECT_EQ(nobody->user_name, "nobody");
  auto unknown = LookUpUser(3999999999u);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "no passwd entry for uid 3999999999");
}

}  // namespace
}  // namespace kuota::runtime
