#include "runtime/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <string_view>

#include "runtime/os_files.h"
#include "runtime/proc_stat.h"
#include "runtime/scoped_fd.h"

extern char** environ;

namespace kuota::runtime {
namespace {

// What the keeper and the command report to Spawn through a CLOEXEC pipe:
// the command's pid, or the step that failed and its errno. A successful exec
// closes the command's end; the keeper closes its own after forking.
enum class Stage : int32_t { kChildPid = 1, kFork, kCgroup, kChdir, kExec };
struct Report {
  int32_t stage;
  int32_t value;  // the pid for kChildPid, else errno
};

// Everything the keeper and the command use, built before fork.
struct Prepared {
  std::string exe;  // what execve gets
  std::vector<std::string> argv_store;
  std::vector<char*> argv;
  std::vector<std::string> env_store;
  std::vector<char*> envp;
  std::string working_dir;
  std::string cgroup_procs;  // "<cgroup_dir>/cgroup.procs" or ""
  std::string exit_path;
  std::string exit_tmp;
  int max_fd = 1024;
};

// ---- Async-signal-safe helpers (used between fork and exec) ----

void WriteReport(int fd, Stage stage, int value) {
  Report r{static_cast<int32_t>(stage), static_cast<int32_t>(value)};
  ssize_t n;
  do {
    n = write(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
}

// Decimal digits of v into buf (at least 24 bytes); returns the length.
size_t FormatInt(long v, char* buf) {
  char tmp[24];
  size_t n = 0;
  bool neg = v < 0;
  unsigned long u = neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    tmp[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  size_t len = 0;
  if (neg) buf[len++] = '-';
  while (n > 0) buf[len++] = tmp[--n];
  return len;
}

bool WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

void CloseRange(int first, int last, int max_fd) {
  if (first > last) return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(first), static_cast<unsigned>(last), 0) == 0) {
    return;
  }
#endif
  for (int fd = first; fd <= last && fd <= max_fd; ++fd) close(fd);
}

[[noreturn]] void Fail(int report_fd, Stage stage, int err) {
  WriteReport(report_fd, stage, err);
  _exit(127);
}

// The command: own process group, default signals, cgroup, directory, exec.
[[noreturn]] void RunCommand(const Prepared& p, int report_fd) {
  setpgid(0, 0);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!p.cgroup_procs.empty()) {
    int fd = open(p.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) Fail(report_fd, Stage::kCgroup, errno);
    char buf[24];
    size_t len = FormatInt(getpid(), buf);
    if (!WriteAll(fd, buf, len)) Fail(report_fd, Stage::kCgroup, errno);
    close(fd);
  }
  if (!p.working_dir.empty() && chdir(p.working_dir.c_str()) != 0) {
    Fail(report_fd, Stage::kChdir, errno);
  }
  execve(p.exe.c_str(), p.argv.data(), p.envp.data());
  Fail(report_fd, Stage::kExec, errno);
}

// The keeper: new session, stdio to log, forks and waits for the command,
// writes the exit file, reaps the command and exits.
[[noreturn]] void RunKeeper(const Prepared& p, int log_fd, int null_fd, int report_fd) {
  setsid();
  struct sigaction ign = {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGTERM, &ign, nullptr);
  sigaction(SIGINT, &ign, nullptr);
  sigaction(SIGHUP, &ign, nullptr);
  sigaction(SIGPIPE, &ign, nullptr);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  // Move the descriptors we keep above 2, then set up 0/1/2 and close every
  // other descriptor the daemon had (other keepers must not hold them).
  int log2 = fcntl(log_fd, F_DUPFD_CLOEXEC, 3);
  int null2 = fcntl(null_fd, F_DUPFD_CLOEXEC, 3);
  int report2 = fcntl(report_fd, F_DUPFD_CLOEXEC, 3);
  if (log2 < 0 || null2 < 0 || report2 < 0) Fail(report_fd, Stage::kFork, errno);
  if (dup2(null2, 0) < 0 || dup2(log2, 1) < 0 || dup2(log2, 2) < 0) {
    Fail(report2, Stage::kFork, errno);
  }
  CloseRange(3, report2 - 1, p.max_fd);
  CloseRange(report2 + 1, INT_MAX, p.max_fd);
  prctl(PR_SET_NAME, "kuota-keeper", 0, 0, 0);

  pid_t child = fork();
  if (child < 0) Fail(report2, Stage::kFork, errno);
  if (child == 0) RunCommand(p, report2);
  setpgid(child, child);  // also done by the child; whichever runs first
  WriteReport(report2, Stage::kChildPid, child);
  close(report2);
  if (chdir("/") != 0) {
    // Keep going: the keeper only pins the daemon's directory.
  }

  siginfo_t info = {};
  while (waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) != 0) {
    if (errno != EINTR) _exit(3);
  }
  char rec[40];
  size_t len = 0;
  auto append = [&](const char* s) {
    while (*s != '\0') rec[len++] = *s++;
  };
  if (info.si_code == CLD_EXITED) {
    append("exit ");
  } else {
    append("signal ");
  }
  len += FormatInt(info.si_status, rec + len);
  rec[len++] = '\n';
  bool ok = false;
  int fd = open(p.exit_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ok = WriteAll(fd, rec, len) && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(p.exit_tmp.c_str(), p.exit_path.c_str()) == 0;
  }
  // Reap the command only now: until here its pid (the group id) cannot be
  // reused, so the daemon never signals a stranger's group.
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  _exit(ok ? 0 : 1);
}

// ---- Preparation (ordinary code, before fork) ----

bool IsExecutableFile(const std::string& path, bool* exists) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  *exists = true;
  return access(path.c_str(), X_OK) == 0;
}

Result<std::string> ResolveExecutable(const std::string& name, const std::string& path_env,
                                      const std::string& working_dir) {
  if (name.find('/') != std::string::npos) return name;
  std::string_view rest(path_env);
  std::string not_executable;
  for (;;) {
    size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    if (dir[0] != '/' && !working_dir.empty()) dir = working_dir + "/" + dir;
    std::string candidate = dir + "/" + name;
    bool exists = false;
    if (IsExecutableFile(candidate, &exists)) return candidate;
    if (exists && not_executable.empty()) not_executable = candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (!not_executable.empty()) {
    return Status::Invalid("executable \"" + name + "\" found at " + not_executable +
                           " but it is not executable (permission denied)");
  }
  return Status::Invalid("executable \"" + name + "\" not found in PATH (" + path_env + ")");
}

Result<Prepared> Prepare(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return Status::Invalid("argv: a command is required");
  }
  if (spec.exit_path.empty()) return Status::Invalid("exit_path: required");
  Prepared p;
  // Environment: the daemon's, then the additions on top.
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  for (size_t i = 0; i < spec.env.size(); ++i) {
    const EnvVar& v = spec.env[i];
    if (v.name.empty() || v.name.find('=') != std::string::npos ||
        v.name.find('\0') != std::string::npos) {
      return Status::Invalid("env[" + std::to_string(i) + "].name \"" + v.name +
                             "\": must be non-empty and hold no '='");
    }
    std::string prefix = v.name + "=";
    std::string entry = prefix + v.value;
    bool replaced = false;
    for (std::string& existing : env) {
      if (existing.compare(0, prefix.size(), prefix) == 0) {
        existing = entry;
        replaced = true;
      }
    }
    if (!replaced) env.push_back(std::move(entry));
  }
  std::string path_env = "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& e : env) {
    if (e.compare(0, 5, "PATH=") == 0) path_env = e.substr(5);
  }
  KUOTA_ASSIGN_OR_RETURN(p.exe, ResolveExecutable(spec.argv[0], path_env, spec.working_dir));
  p.env_store = std::move(env);
  for (std::string& e : p.env_store) p.envp.push_back(e.data());
  p.envp.push_back(nullptr);
  p.argv_store = spec.argv;
  for (std::string& a : p.argv_store) p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  p.working_dir = spec.working_dir;
  if (!spec.cgroup_dir.empty()) p.cgroup_procs = spec.cgroup_dir + "/cgroup.procs";
  p.exit_path = spec.exit_path;
  p.exit_tmp = spec.exit_path + ".tmp";
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    p.max_fd = static_cast<int>(std::min<rlim_t>(rl.rlim_cur, 1 << 20));
  }
  return p;
}

Result<ScopedFd> OpenLog(const std::string& path) {
  if (path.empty()) {
    ScopedFd fd(open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) return Status::Unavailable("/dev/null: " + ErrnoText(errno));
    return fd;
  }
  std::string dir = DirName(path);
  if (!dir.empty()) KUOTA_RETURN_IF_ERROR(MakeDirs(dir).WithContext("log_path"));
  ScopedFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644));
  if (fd.valid()) {
    fchmod(fd.get(), 0644);  // whatever the umask
    return fd;
  }
  if (errno == EEXIST) fd = ScopedFd(open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!fd.valid()) {
    return Status::Unavailable("log_path: cannot open " + path + ": " + ErrnoText(errno));
  }
  return fd;
}

Status DescribeFailure(const ProcessSpec& spec, const Prepared& p, Stage stage, int err) {
  switch (stage) {
    case Stage::kCgroup:
      return Status::Invalid("cannot join cgroup " + spec.cgroup_dir + ": " + ErrnoText(err));
    case Stage::kChdir:
      return Status::Invalid("working directory \"" + spec.working_dir + "\": " + ErrnoText(err));
    case Stage::kExec:
      if (err == ENOENT) {
        return Status::Invalid("executable \"" + p.exe + "\" not found");
      }
      if (err == EACCES) {
        return Status::Invalid("executable \"" + p.exe + "\": permission denied");
      }
      return Status::Invalid("exec \"" + p.exe + "\": " + ErrnoText(err));
    case Stage::kFork:
    case Stage::kChildPid:
      break;
  }
  return Status::Unavailable("starting \"" + spec.argv[0] + "\": fork: " + ErrnoText(err));
}

void WaitForKeeper(pid_t keeper) {
  while (waitpid(keeper, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Result<ProcessHandle> Spawn(const ProcessSpec& spec) {
  KUOTA_ASSIGN_OR_RETURN(Prepared p, Prepare(spec));
  std::string exit_dir = DirName(spec.exit_path);
  if (!exit_dir.empty()) KUOTA_RETURN_IF_ERROR(MakeDirs(exit_dir).WithContext("exit_path"));
  if (unlink(spec.exit_path.c_str()) != 0 && errno != ENOENT) {
    return Status::Unavailable("exit_path: cannot remove stale " + spec.exit_path + ": " +
                               ErrnoText(errno));
  }
  unlink(p.exit_tmp.c_str());
  KUOTA_ASSIGN_OR_RETURN(ScopedFd log_fd, OpenLog(spec.log_path));
  ScopedFd null_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_fd.valid()) return Status::Unavailable("/dev/null: " + ErrnoText(errno));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::Unavailable("pipe: " + ErrnoText(errno));
  ScopedFd report_read(fds[0]);
  ScopedFd report_write(fds[1]);

  pid_t keeper = fork();
  if (keeper < 0) return Status::Unavailable("fork: " + ErrnoText(errno));
  if (keeper == 0) RunKeeper(p, log_fd.get(), null_fd.get(), report_write.get());
  report_write.Reset();
  log_fd.Reset();
  null_fd.Reset();

  // Read reports until every writer is gone: the keeper closes its end after
  // forking, the command's end closes on a successful exec.
  pid_t child = 0;
  bool failed = false;
  Stage fail_stage = Stage::kFork;
  int fail_errno = 0;
  Report r;
  size_t have = 0;
  for (;;) {
    ssize_t n = read(report_read.get(), reinterpret_cast<char*>(&r) + have, sizeof r - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    if (have < sizeof r) continue;
    have = 0;
    if (r.stage == static_cast<int32_t>(Stage::kChildPid)) {
      child = r.value;
    } else if (!failed) {
      failed = true;
      fail_stage = static_cast<Stage>(r.stage);
      fail_errno = r.value;
    }
  }
  if (failed || child <= 0) {
    // The command (if any) has exited with 127; the keeper records it and
    // exits at once. Reap it and remove what it wrote.
    WaitForKeeper(keeper);
    unlink(spec.exit_path.c_str());
    unlink(p.exit_tmp.c_str());
    if (!failed)
      return Status::Internal("keeper " + std::to_string(keeper) +
                              " died before starting the command");
    return DescribeFailure(spec, p, fail_stage, fail_errno);
  }

  ProcessHandle h;
  h.keeper_pid = keeper;
  h.pgid = child;
  // The keeper is our unreaped child, so its /proc entry is there.
  auto keeper_stat = ReadProcStat(keeper);
  if (!keeper_stat) {
    return Status::Internal("cannot read /proc/" + std::to_string(keeper) + "/stat of keeper");
  }
  h.keeper_start_time = keeper_stat->start_time;
  // The command stays visible (perhaps a zombie) until the keeper exits.
  if (auto child_stat = ReadProcStat(child); child_stat && child_stat->ppid == keeper) {
    h.pgid_start_time = child_stat->start_time;
  }
  return h;
}

}  // namespace kuota::runtime
