#include "runtime/cgroup_manager.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <set>
#include <sstream>

#include "runtime/cgroup_fs.h"
#include "runtime/os_files.h"
#include "runtime/scoped_fd.h"

namespace kuota::runtime {
namespace {

// Writes `content` with one write(2); returns 0 or the errno.
int WriteErrno(const std::string& path, const std::string& content) {
  ScopedFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return errno;
  ssize_t n;
  do {
    n = write(fd.get(), content.data(), content.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno;
  return static_cast<size_t>(n) == content.size() ? 0 : EIO;
}

std::set<std::string> Tokens(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  std::string t;
  while (in >> t) out.insert(t);
  return out;
}

// Gives children of `dir` the cpu and memory controllers; 0 or the errno.
int EnableControllers(const std::string& dir) {
  auto current = ReadWholeFile(dir + "/cgroup.subtree_control");
  if (current.ok()) {
    std::set<std::string> have = Tokens(*current);
    if (have.count("cpu") && have.count("memory")) return 0;
  }
  return WriteErrno(dir + "/cgroup.subtree_control", "+cpu +memory");
}

bool OnlyThisProcess(const std::string& dir) {
  auto procs = ReadWholeFile(dir + "/cgroup.procs");
  if (!procs.ok()) return false;
  std::set<std::string> pids = Tokens(*procs);
  return pids.size() == 1 && pids.count(std::to_string(getpid())) == 1;
}

Status ValidatePodId(const std::string& pod_id) {
  if (pod_id.empty() || pod_id.size() > 200 || pod_id[0] == '.') {
    return Status::Invalid("cgroup pod id \"" + pod_id +
                           "\": must be 1-200 characters and not start with '.'");
  }
  for (char c : pod_id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::Invalid("cgroup pod id \"" + pod_id +
                             "\": only letters, digits, '.', '_' and '-' are allowed");
    }
  }
  return Status::Ok();
}

std::string CpuMaxValue(int64_t cpu_millis) {
  if (cpu_millis <= 0 || cpu_millis > INT64_MAX / 100) return "max 100000";
  return std::to_string(std::max<int64_t>(cpu_millis * 100, 1000)) + " 100000";
}

}  // namespace

CgroupManager CgroupManager::Detect(const CgroupOptions& options) {
  CgroupManager m;
  auto not_enforced = [&m](std::string why) {
    m.reason_ = std::move(why);
    return m;
  };
  OwnCgroups own = FindOwnCgroups();
  std::string base = options.parent_dir;
  if (base.empty()) {
    if (own.v2_mount.empty()) {
      return not_enforced(
          "no cgroup2 filesystem is mounted (/sys/fs/cgroup is " +
          (own.sys_fs_cgroup_type.empty() ? std::string("not mounted") : own.sys_fs_cgroup_type) +
          ": a cgroup v1 host)");
    }
    if (own.v2_dir.empty()) {
      return not_enforced("no cgroup v2 entry (0::) in /proc/self/cgroup");
    }
    base = own.v2_dir;
    // A restarted daemon already moved into its leaf: use the leaf's parent.
    if (BaseName(base) == options.daemon_leaf_name && base.size() > own.v2_mount.size()) {
      struct stat st;
      std::string parent = DirName(base);
      if (stat((parent + "/" + options.subtree_name).c_str(), &st) == 0) base = parent;
    }
  }
  struct statfs fs;
  if (statfs(base.c_str(), &fs) != 0) {
    return not_enforced("cannot stat " + base + ": " + ErrnoText(errno));
  }
  if (fs.f_type != CGROUP2_SUPER_MAGIC) {
    return not_enforced(base + " is not on a cgroup2 filesystem");
  }
  auto controllers = ReadWholeFile(base + "/cgroup.controllers");
  if (!controllers.ok()) return not_enforced(controllers.status().message());
  std::set<std::string> have = Tokens(*controllers);
  if (!have.count("cpu") || !have.count("memory")) {
    std::string list;
    for (const std::string& c : have) list += (list.empty() ? "" : " ") + c;
    bool hybrid = !own.v1_cpu_dir.empty() || !own.v1_memory_dir.empty();
    return not_enforced("cgroup " + base + " offers controllers [" + list +
                        "], need cpu and memory" +
                        (hybrid ? " (on this hybrid host they are bound to cgroup v1)" : ""));
  }
  if (access(base.c_str(), W_OK) != 0) {
    return not_enforced("no write access to " + base + " (not delegated to uid " +
                        std::to_string(getuid()) + ")");
  }
  int err = EnableControllers(base);
  if (err == EBUSY && options.move_self_to_leaf && OnlyThisProcess(base)) {
    std::string leaf = base + "/" + options.daemon_leaf_name;
    if (mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) {
      return not_enforced("cannot create " + leaf + ": " + ErrnoText(errno));
    }
    if (int e = WriteErrno(leaf + "/cgroup.procs", std::to_string(getpid())); e != 0) {
      return not_enforced("cannot move kuotad into " + leaf + ": " + ErrnoText(e));
    }
    err = EnableControllers(base);
  }
  if (err != 0) {
    std::string why =
        "cannot enable cpu and memory for children of " + base + ": " + ErrnoText(err);
    if (err == EBUSY) {
      why +=
          " (cgroup v2 \"no internal processes\" rule: it holds other processes; run kuotad in"
          " its own cgroup, e.g. systemd-run -p Delegate=yes, or give a delegated parent)";
    }
    return not_enforced(why);
  }
  std::string subtree = base + "/" + options.subtree_name;
  if (mkdir(subtree.c_str(), 0755) != 0 && errno != EEXIST) {
    return not_enforced("cannot create " + subtree + ": " + ErrnoText(errno));
  }
  if (int e = EnableControllers(subtree); e != 0) {
    return not_enforced("cannot enable cpu and memory for children of " + subtree + ": " +
                        ErrnoText(e));
  }
  // Probe: a pod cgroup must take both limits.
  std::string probe = subtree + "/.probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) {
    return not_enforced("cannot create " + probe + ": " + ErrnoText(errno));
  }
  int e1 = WriteErrno(probe + "/cpu.max", "max 100000");
  int e2 = WriteErrno(probe + "/memory.max", "max");
  rmdir(probe.c_str());
  if (e1 != 0 || e2 != 0) {
    return not_enforced("cannot write cpu.max/memory.max in " + probe + ": " +
                        ErrnoText(e1 != 0 ? e1 : e2));
  }
  m.enforced_ = true;
  m.subtree_ = subtree;
  return m;
}

Result<CgroupPlacement> CgroupManager::Create(const std::string& pod_id, int64_t cpu_millis,
                                              int64_t memory_bytes) const {
  KUOTA_RETURN_IF_ERROR(ValidatePodId(pod_id));
  CgroupPlacement p;
  if (!enforced_) {
    p.note = "not enforced: " + reason_;
    return p;
  }
  std::string dir = subtree_ + "/" + pod_id;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Unavailable("cannot create cgroup " + dir + ": " + ErrnoText(errno));
  }
  KUOTA_RETURN_IF_ERROR(WriteControlFile(dir + "/cpu.max", CpuMaxValue(cpu_millis)));
  KUOTA_RETURN_IF_ERROR(WriteControlFile(dir + "/memory.max",
                                         memory_bytes > 0 ? std::to_string(memory_bytes) : "max"));
  // Kill the whole pod on OOM, as the kubelet does; older kernels lack it.
  (void)WriteErrno(dir + "/memory.oom.group", "1");
  p.enforced = true;
  p.dir = dir;
  return p;
}

Status CgroupManager::Remove(const std::string& pod_id) const {
  KUOTA_RETURN_IF_ERROR(ValidatePodId(pod_id));
  if (!enforced_) return Status::Ok();
  std::string dir = subtree_ + "/" + pod_id;
  if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  if (errno == EBUSY) {
    return Status::Unavailable("cgroup " + dir +
                               " is busy: processes remain; retry after they exit");
  }
  return Status::Unavailable("cannot remove cgroup " + dir + ": " + ErrnoText(errno));
}

}  // namespace kuota::runtime
