#include "runtime/cgroup_fs.h"

#include <charconv>
#include <vector>

#include "runtime/os_files.h"

namespace kuota::runtime {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == '\n' || s.front() == ' ')) s.remove_prefix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    out.push_back(
        s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

bool HasToken(std::string_view list, std::string_view token) {
  for (std::string_view t : Split(list, ',')) {
    if (t == token) return true;
  }
  return false;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// The directory of cgroup `path` under a hierarchy mounted at `mount` whose
// mount root is `root`.
std::string Join(std::string_view mount, std::string_view root, std::string_view path) {
  if (root != "/" && path.substr(0, root.size()) == root) path.remove_prefix(root.size());
  std::string out(mount);
  if (!path.empty() && path != "/") {
    if (path.front() != '/') out += '/';
    out += path;
  }
  return out;
}

}  // namespace

OwnCgroups ParseOwnCgroups(std::string_view proc_cgroup, std::string_view mountinfo) {
  std::string_view v2_path, cpu_path, memory_path;
  bool have_v2 = false;
  for (std::string_view line : Split(proc_cgroup, '\n')) {
    // hierarchy-ID:controller-list:cgroup-path
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view id = line.substr(0, a);
    std::string_view controllers = line.substr(a + 1, b - a - 1);
    std::string_view path = line.substr(b + 1);
    if (id == "0" && controllers.empty()) {
      v2_path = path;
      have_v2 = true;
    }
    if (HasToken(controllers, "cpu")) cpu_path = path;
    if (HasToken(controllers, "memory")) memory_path = path;
  }
  OwnCgroups out;
  for (std::string_view line : Split(mountinfo, '\n')) {
    std::vector<std::string_view> f = Split(line, ' ');
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash < 5 || dash + 3 > f.size()) continue;
    std::string_view root = f[3], mount = f[4];
    std::string_view fstype = f[dash + 1], options = f[dash + 3];
    if (mount == "/sys/fs/cgroup") out.sys_fs_cgroup_type = std::string(fstype);
    if (fstype == "cgroup2" && (out.v2_mount.empty() || mount == "/sys/fs/cgroup")) {
      out.v2_mount = std::string(mount);
      out.v2_dir = have_v2 ? Join(mount, root, v2_path) : "";
    } else if (fstype == "cgroup") {
      if (HasToken(options, "cpu") && !cpu_path.empty() && out.v1_cpu_mount.empty()) {
        out.v1_cpu_mount = std::string(mount);
        out.v1_cpu_dir = Join(mount, root, cpu_path);
      }
      if (HasToken(options, "memory") && !memory_path.empty() && out.v1_memory_mount.empty()) {
        out.v1_memory_mount = std::string(mount);
        out.v1_memory_dir = Join(mount, root, memory_path);
      }
    }
  }
  return out;
}

OwnCgroups FindOwnCgroups() {
  auto cg = ReadWholeFile("/proc/self/cgroup");
  auto mi = ReadWholeFile("/proc/self/mountinfo");
  return ParseOwnCgroups(cg.ok() ? *cg : "", mi.ok() ? *mi : "");
}

std::optional<int64_t> ParseCpuMax(std::string_view text) {
  std::vector<std::string_view> f = Split(Trim(text), ' ');
  if (f.empty() || f[0] == "max") return std::nullopt;
  auto quota = ParseInt(f[0]);
  int64_t period = 100000;
  if (f.size() >= 2) {
    auto p = ParseInt(f[1]);
    if (!p || *p <= 0) return std::nullopt;
    period = *p;
  }
  if (!quota || *quota <= 0) return std::nullopt;
  return *quota * 1000 / period;
}

std::optional<int64_t> ParseMemoryMax(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "max") return std::nullopt;
  auto v = ParseInt(t);
  if (!v || *v <= 0 || *v >= (int64_t{1} << 62)) return std::nullopt;
  return v;
}

}  // namespace kuota::runtime
