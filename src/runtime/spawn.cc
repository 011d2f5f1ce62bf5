#include "runtime/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/exit_file.h"
#include "runtime/os_files.h"
#include "runtime/proc_stat.h"
#include "runtime/scoped_fd.h"

extern char** environ;

namespace kuota::runtime {
namespace {

// What the keeper and the command report to the daemon through a CLOEXEC
// pipe: the command's pid (from the keeper, after forking it), that the
// command waits for "go" (from the command, its cgroup joined and directory
// entered), or the step that failed and its errno (the user change and the
// user's directory come after "go"). A successful exec closes the command's
// end; the keeper closes its own after forking.
enum class Stage : int32_t {
  kChildPid = 1,
  kFork,
  kCgroup,
  kChdir,
  kExec,
  kReady,
  kSetGroups,
  kSetGid,
  kSetUid,
};
struct Report {
  int32_t stage;
  int32_t value;  // the pid for kChildPid, 0 for kReady, else errno
};

// The system calls that change credentials, with 32-bit ids (on 32-bit x86
// and arm the plain names are the old 16-bit calls).
#ifdef SYS_setgroups32
constexpr long kSysSetGroups = SYS_setgroups32;
constexpr long kSysSetGid = SYS_setgid32;
constexpr long kSysSetUid = SYS_setuid32;
#else
constexpr long kSysSetGroups = SYS_setgroups;
constexpr long kSysSetGid = SYS_setgid;
constexpr long kSysSetUid = SYS_setuid;
#endif
static_assert(sizeof(uid_t) == 4 && sizeof(gid_t) == 4, "32-bit user and group ids");

// The byte the daemon sends the keeper, and the keeper the command, to let
// the command exec. Anything else (end of file included) means "never".
constexpr char kGo = 'g';

// Everything the keeper and the command use, built before fork.
struct Prepared {
  std::string exe;  // what execve gets
  std::vector<std::string> argv_store;
  std::vector<char*> argv;
  std::vector<std::string> env_store;
  std::vector<char*> envp;
  std::string working_dir;   // as given (entered before "go"); may be empty
  std::string cgroup_procs;  // "<cgroup_dir>/cgroup.procs" or ""
  // run_as: the directory entered after "go" ("" when none), and whether
  // "/" is the fallback when it cannot be entered (it is run_as's home).
  std::string user_dir;
  bool user_dir_fallback = false;
  // run_as with another uid than the daemon's: the identity to drop to.
  bool change_ids = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string exit_path;
  std::string exit_tmp;
  std::string lock_path;
  int max_fd = 1024;
};

// The descriptors the keeper inherits from the daemon.
struct KeeperFds {
  int log;     // the command's stdout and stderr
  int null;    // its stdin
  int report;  // write end of the report pipe
  int go;      // the keeper's end of the daemon's "go" socket
  int lock;    // the start's lock, held (flock) until the keeper exits
};

// ---- Async-signal-safe helpers (used between fork and exec) ----

void WriteReport(int fd, Stage stage, int value) {
  Report r{static_cast<int32_t>(stage), static_cast<int32_t>(value)};
  ssize_t n;
  do {
    n = write(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
}

// One byte from `fd`, or -1 at end of file or on error.
int ReadByte(int fd) {
  char b = 0;
  ssize_t n;
  do {
    n = read(fd, &b, 1);
  } while (n < 0 && errno == EINTR);
  return n == 1 ? static_cast<unsigned char>(b) : -1;
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

// Closes every descriptor above 2 except the `n` in `keep` (which it sorts).
void CloseAllExcept(int* keep, int n, int max_fd) {
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) std::swap(keep[j - 1], keep[j]);
  }
  int next = 3;
  for (int i = 0; i < n; ++i) {
    CloseRange(next, keep[i] - 1, max_fd);
    next = keep[i] + 1;
  }
  CloseRange(next, INT_MAX, max_fd);
}

// Writes the exit record durably: temporary file, fsync, rename.
bool WriteExitRecord(const Prepared& p, const char* rec, size_t len) {
  int fd = open(p.exit_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = WriteAll(fd, rec, len) && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  return ok && rename(p.exit_tmp.c_str(), p.exit_path.c_str()) == 0;
}

[[noreturn]] void Fail(int report_fd, Stage stage, int err) {
  WriteReport(report_fd, stage, err);
  _exit(127);
}

// The command: own process group, default signals, cgroup, directory; then
// it waits for the keeper's "go" and execs.
[[noreturn]] void RunCommand(const Prepared& p, int report_fd, int release_fd) {
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
  WriteReport(report_fd, Stage::kReady, 0);
  if (ReadByte(release_fd) != kGo) {
    // The keeper died without releasing us (it holds the other end until it
    // exits): the command never ran. Say so, as the keeper cannot. (Still
    // the daemon's user here: the exit file's directory is its alone.)
    WriteExitRecord(p, kAbortedBeforeExec.data(), kAbortedBeforeExec.size());
    _exit(126);
  }
  if (p.change_ids) {
    // Raw system calls: they change this thread's credentials only, which in
    // this single-threaded child are the process's, without glibc's setxid
    // broadcast (not async-signal-safe). Supplementary groups first, then
    // the group, then the user, while we still may.
    if (syscall(kSysSetGroups, p.groups.size(), p.groups.data()) != 0) {
      Fail(report_fd, Stage::kSetGroups, errno);
    }
    if (syscall(kSysSetGid, p.gid) != 0) Fail(report_fd, Stage::kSetGid, errno);
    if (syscall(kSysSetUid, p.uid) != 0) Fail(report_fd, Stage::kSetUid, errno);
    uid_t r, e, s;
    if (getresuid(&r, &e, &s) != 0 || r != p.uid || e != p.uid || s != p.uid) {
      Fail(report_fd, Stage::kSetUid, EPERM);
    }
  }
  if (!p.user_dir.empty() && chdir(p.user_dir.c_str()) != 0) {
    if (!p.user_dir_fallback || chdir("/") != 0) Fail(report_fd, Stage::kChdir, errno);
  }
  execve(p.exe.c_str(), p.argv.data(), p.envp.data());
  Fail(report_fd, Stage::kExec, errno);
}

// The keeper: new session, stdio to log, forks the command and waits for the
// daemon's "go". With it, releases the command, waits for it and records its
// exit; without it (the daemon closed its end: aborted, or died), kills the
// waiting command and records that it never ran. Then reaps the command and
// exits, releasing the start's lock.
[[noreturn]] void RunKeeper(const Prepared& p, const KeeperFds& in) {
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
  int log2 = fcntl(in.log, F_DUPFD_CLOEXEC, 3);
  int null2 = fcntl(in.null, F_DUPFD_CLOEXEC, 3);
  int report2 = fcntl(in.report, F_DUPFD_CLOEXEC, 3);
  int go2 = fcntl(in.go, F_DUPFD_CLOEXEC, 3);
  int lock2 = fcntl(in.lock, F_DUPFD_CLOEXEC, 3);
  if (log2 < 0 || null2 < 0 || report2 < 0 || go2 < 0 || lock2 < 0) {
    Fail(in.report, Stage::kFork, errno);
  }
  if (dup2(null2, 0) < 0 || dup2(log2, 1) < 0 || dup2(log2, 2) < 0) {
    Fail(report2, Stage::kFork, errno);
  }
  int keep[] = {report2, go2, lock2};
  CloseAllExcept(keep, 3, p.max_fd);
  prctl(PR_SET_NAME, "kuota-keeper", 0, 0, 0);

  // The command waits on `release` for our word; it sees end of file only
  // if we die first.
  int release[2];
  if (pipe2(release, O_CLOEXEC) != 0) Fail(report2, Stage::kFork, errno);
  pid_t child = fork();
  if (child < 0) Fail(report2, Stage::kFork, errno);
  if (child == 0) {
    close(release[1]);
    close(go2);
    RunCommand(p, report2, release[0]);
  }
  close(release[0]);
  setpgid(child, child);  // also done by the child; whichever runs first
  WriteReport(report2, Stage::kChildPid, child);
  close(report2);
  if (chdir("/") != 0) {
    // Keep going: the keeper only pins the daemon's directory.
  }

  const bool go = ReadByte(go2) == kGo;
  close(go2);
  if (go) {
    WriteAll(release[1], &kGo, 1);
    close(release[1]);
  } else {
    // Keep `release` open: the command must die by this signal, never see
    // end of file and write the record itself.
    kill(child, SIGKILL);
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
  if (!go) {
    append(kAbortedBeforeExec.data());
  } else {
    append(info.si_code == CLD_EXITED ? "exit " : "signal ");
    len += FormatInt(info.si_status, rec + len);
    rec[len++] = '\n';
  }
  const bool ok = WriteExitRecord(p, rec, len);
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
  // Environment: the daemon's, then the user's HOME, USER and LOGNAME, then
  // the additions on top.
  std::vector<EnvVar> additions;
  if (spec.run_as) {
    const std::string home = spec.run_as->home.empty() ? "/" : spec.run_as->home;
    additions = {
        {"HOME", home}, {"USER", spec.run_as->user_name}, {"LOGNAME", spec.run_as->user_name}};
  }
  for (size_t i = 0; i < spec.env.size(); ++i) {
    const EnvVar& v = spec.env[i];
    if (v.name.empty() || v.name.find('=') != std::string::npos ||
        v.name.find('\0') != std::string::npos) {
      return Status::Invalid("env[" + std::to_string(i) + "].name \"" + v.name +
                             "\": must be non-empty and hold no '='");
    }
    additions.push_back(v);
  }
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  for (const EnvVar& v : additions) {
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
  if (spec.run_as) {
    p.user_dir = spec.working_dir.empty() ? spec.run_as->home : spec.working_dir;
    p.user_dir_fallback = spec.working_dir.empty();
    p.change_ids = spec.run_as->uid != geteuid();
    p.uid = static_cast<uid_t>(spec.run_as->uid);
    p.gid = static_cast<gid_t>(spec.run_as->gid);
    p.groups.assign(spec.run_as->groups.begin(), spec.run_as->groups.end());
    if (p.uid == static_cast<uid_t>(-1) || p.gid == static_cast<gid_t>(-1)) {
      return Status::Invalid("run_as: uid and gid must not be -1");
    }
  }
  const std::string& lookup_dir = spec.working_dir.empty() ? p.user_dir : spec.working_dir;
  KUOTA_ASSIGN_OR_RETURN(p.exe, ResolveExecutable(spec.argv[0], path_env, lookup_dir));
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
  p.lock_path = spec.exit_path + ".lock";
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
  if (!dir.empty()) KUOTA_RETURN_IF_ERROR(MakeDirs(dir, 0700).WithContext("log_path"));
  ScopedFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) {
    return Status::Unavailable("log_path: cannot open " + path + ": " + ErrnoText(errno));
  }
  // Owner-only whatever the umask, also for a log an older kuotad made 0644:
  // logs are served by the API to the users allowed to read them.
  fchmod(fd.get(), 0600);
  return fd;
}

// What went wrong in the keeper or the command, for the caller.
// `user`: "uid 1001 (alice)" when the command was to change user, else "".
Status DescribeFailure(const std::string& argv0, const std::string& exe,
                       const std::string& working_dir, const std::string& cgroup_dir,
                       const std::string& user, int32_t stage, int err) {
  const std::string as_user = user.empty() ? "" : " (as " + user + ")";
  switch (static_cast<Stage>(stage)) {
    case Stage::kCgroup:
      return Status::Invalid("cannot join cgroup " + cgroup_dir + ": " + ErrnoText(err));
    case Stage::kChdir:
      return Status::Invalid("working directory \"" + working_dir + "\"" + as_user + ": " +
                             ErrnoText(err));
    case Stage::kSetGroups:
      return Status::Invalid("cannot run as " + user + ": setgroups: " + ErrnoText(err));
    case Stage::kSetGid:
      return Status::Invalid("cannot run as " + user + ": setgid: " + ErrnoText(err));
    case Stage::kSetUid:
      return Status::Invalid("cannot run as " + user + ": setuid: " + ErrnoText(err));
    case Stage::kExec:
      if (err == ENOENT) {
        return Status::Invalid("executable \"" + exe + "\" not found");
      }
      if (err == EACCES) {
        return Status::Invalid("executable \"" + exe + "\"" + as_user + ": permission denied");
      }
      return Status::Invalid("exec \"" + exe + "\": " + ErrnoText(err));
    case Stage::kFork:
    case Stage::kChildPid:
    case Stage::kReady:
      break;
  }
  return Status::Unavailable("starting \"" + argv0 + "\": fork: " + ErrnoText(err));
}

// Reads one whole report; false at end of file (every writer gone).
bool ReadReport(int fd, Report* r) {
  size_t have = 0;
  while (have < sizeof *r) {
    ssize_t n = read(fd, reinterpret_cast<char*>(r) + have, sizeof *r - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    have += static_cast<size_t>(n);
  }
  return true;
}

bool IsFailure(const Report& r) {
  return r.stage != static_cast<int32_t>(Stage::kChildPid) &&
         r.stage != static_cast<int32_t>(Stage::kReady);
}

void WaitForKeeper(pid_t keeper) {
  while (waitpid(keeper, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

// The daemon's side of a start between BeginSpawn and Release or Abort.
struct PendingStart::State {
  pid_t keeper = 0;  // our unreaped child
  ScopedFd go;       // our end of the "go" socket; closing it unreleased aborts
  ScopedFd report;   // read end of the report pipe
  ScopedFd lock;     // our copy of the locked "<exit_path>.lock"
  std::string exit_path, exit_tmp;
  // For error messages.
  std::string argv0, exe, working_dir, cgroup_dir, user;

  // Waits for the keeper to exit and removes what it wrote.
  void ReapAndClean() {
    WaitForKeeper(keeper);
    unlink(exit_path.c_str());
    unlink(exit_tmp.c_str());
  }
  Status Describe(const Report& r) const {
    return DescribeFailure(argv0, exe, working_dir, cgroup_dir, user, r.stage, r.value);
  }
};

PendingStart::PendingStart(std::unique_ptr<State> state) : state_(std::move(state)) {}
PendingStart::~PendingStart() { Abort(); }
PendingStart::PendingStart(PendingStart&& other) noexcept
    : state_(std::move(other.state_)), handle_(std::move(other.handle_)) {}
PendingStart& PendingStart::operator=(PendingStart&& other) noexcept {
  if (this != &other) {
    Abort();
    state_ = std::move(other.state_);
    handle_ = std::move(other.handle_);
  }
  return *this;
}

void PendingStart::Abort() {
  if (!state_) return;
  std::unique_ptr<State> st = std::move(state_);
  st->go.Reset();  // end of file: the keeper kills the waiting command and exits
  st->ReapAndClean();
}

Result<ProcessHandle> PendingStart::Release() {
  if (!state_) return Status::Internal("PendingStart::Release: not pending");
  std::unique_ptr<State> st = std::move(state_);
  ssize_t n;
  do {
    n = send(st->go.get(), &kGo, 1, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  const int send_err = n == 1 ? 0 : errno;
  st->go.Reset();
  if (send_err != 0) {
    // The keeper closed its end unread: it died, and the command, never
    // released, records that it never ran.
    WaitForKeeper(st->keeper);
    return Status::Unavailable("keeper " + std::to_string(st->keeper) +
                               " died before the command was released (" + ErrnoText(send_err) +
                               "); the command never ran");
  }
  // Read reports until every writer is gone: the keeper closed its end after
  // forking, the command's end closes on a successful exec.
  Report r;
  while (ReadReport(st->report.get(), &r)) {
    if (IsFailure(r)) {
      // The command has exited with 127; the keeper records it and exits at
      // once. Reap it and remove what it wrote.
      st->ReapAndClean();
      return st->Describe(r);
    }
  }
  return handle_;
}

Result<PendingStart> BeginSpawn(const ProcessSpec& spec) {
  KUOTA_ASSIGN_OR_RETURN(Prepared p, Prepare(spec));
  std::string exit_dir = DirName(spec.exit_path);
  if (!exit_dir.empty()) KUOTA_RETURN_IF_ERROR(MakeDirs(exit_dir, 0700).WithContext("exit_path"));
  // The lock first: a keeper of an earlier start still holding it could
  // otherwise write its exit record over ours.
  ScopedFd lock(open(p.lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid()) {
    return Status::Unavailable("exit_path: cannot create lock file " + p.lock_path + ": " +
                               ErrnoText(errno));
  }
  if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return Status::Unavailable("exit_path: a keeper of an earlier start of " + spec.exit_path +
                                 " is still running (it holds " + p.lock_path + ")");
    }
    return Status::Unavailable("exit_path: cannot lock " + p.lock_path + ": " + ErrnoText(errno));
  }
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
  // A socket rather than a pipe: send(MSG_NOSIGNAL) to a dead keeper fails
  // instead of raising SIGPIPE in the daemon.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Status::Unavailable("socketpair: " + ErrnoText(errno));
  }
  ScopedFd go_daemon(fds[0]);
  ScopedFd go_keeper(fds[1]);

  pid_t keeper = fork();
  if (keeper < 0) return Status::Unavailable("fork: " + ErrnoText(errno));
  if (keeper == 0) {
    RunKeeper(p, {log_fd.get(), null_fd.get(), report_write.get(), go_keeper.get(), lock.get()});
  }
  report_write.Reset();
  log_fd.Reset();
  null_fd.Reset();
  go_keeper.Reset();

  auto state = std::make_unique<PendingStart::State>();
  state->keeper = keeper;
  state->go = std::move(go_daemon);
  state->report = std::move(report_read);
  state->lock = std::move(lock);
  state->exit_path = p.exit_path;
  state->exit_tmp = p.exit_tmp;
  state->argv0 = spec.argv[0];
  state->exe = p.exe;
  state->working_dir = spec.working_dir.empty() ? p.user_dir : spec.working_dir;
  state->cgroup_dir = spec.cgroup_dir;
  if (p.change_ids) {
    state->user = "uid " + std::to_string(spec.run_as->uid);
    if (!spec.run_as->user_name.empty()) state->user += " (" + spec.run_as->user_name + ")";
  }
  const int report_fd = state->report.get();
  PendingStart pending(std::move(state));  // aborts on every early return

  // Wait until the command is ready to exec (or failed, or the keeper died).
  pid_t child = 0;
  bool ready = false;
  Report r;
  while (child <= 0 || !ready) {
    if (!ReadReport(report_fd, &r)) {
      pending.Abort();
      return Status::Internal("keeper " + std::to_string(keeper) +
                              " died before starting the command");
    }
    if (IsFailure(r)) {
      Status failure = pending.state_->Describe(r);
      pending.Abort();
      return failure;
    }
    if (r.stage == static_cast<int32_t>(Stage::kChildPid)) child = r.value;
    if (r.stage == static_cast<int32_t>(Stage::kReady)) ready = true;
  }

  // Both wait for us (the keeper for "go", the command for the keeper), so
  // their /proc entries are there.
  ProcessHandle& h = pending.handle_;
  h.keeper_pid = keeper;
  h.pgid = child;
  h.boot_id = ReadBootId();
  auto keeper_stat = ReadProcStat(keeper);
  auto child_stat = ReadProcStat(child);
  if (!keeper_stat || !child_stat || child_stat->ppid != keeper) {
    pending.Abort();
    return Status::Internal("cannot read /proc/<pid>/stat of keeper " + std::to_string(keeper) +
                            " or its command " + std::to_string(child));
  }
  h.keeper_start_time = keeper_stat->start_time;
  h.pgid_start_time = child_stat->start_time;
  return pending;
}

Result<ProcessHandle> Spawn(const ProcessSpec& spec) {
  KUOTA_ASSIGN_OR_RETURN(PendingStart pending, BeginSpawn(spec));
  return pending.Release();
}

Result<bool> StartInProgress(const std::string& exit_path) {
  const std::string lock_path = exit_path + ".lock";
  ScopedFd fd(open(lock_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return false;  // no keeper was ever started for it
    return Status::Unavailable("cannot open " + lock_path + ": " + ErrnoText(errno));
  }
  if (flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return false;  // closing fd unlocks
  if (errno == EWOULDBLOCK) return true;
  return Status::Unavailable("cannot lock " + lock_path + ": " + ErrnoText(errno));
}

}  // namespace kuota::runtime
