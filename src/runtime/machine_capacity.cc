#include "runtime/machine_capacity.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>

#include "runtime/cgroup_fs.h"
#include "runtime/gpu_topology_spec.h"
#include "runtime/os_files.h"

namespace kuota::runtime {
namespace {

struct CpuSetFree {
  void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};

// CPUs in our affinity mask; 0 when it cannot be read.
int AffinityCpus() {
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 4) {
    std::unique_ptr<cpu_set_t, CpuSetFree> set(CPU_ALLOC(ncpus));
    if (!set) return 0;
    size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set.get());
    if (sched_getaffinity(0, size, set.get()) == 0) return CPU_COUNT_S(size, set.get());
    if (errno != EINVAL) return 0;
  }
  return 0;
}

std::string FormatBytes(int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  return buf;
}

// The lowest limit found in `file` from `dir` up to (and including) `mount`;
// `where` receives the directory that set it.
template <typename Parse>
std::optional<int64_t> LowestLimit(const std::string& mount, std::string dir,
                                   const std::string& file, Parse parse, std::string* where) {
  std::optional<int64_t> best;
  if (mount.empty() || dir.empty()) return best;
  for (;;) {
    auto text = ReadWholeFile(dir + "/" + file);
    if (text.ok()) {
      std::optional<int64_t> v = parse(*text);
      if (v && (!best || *v < *best)) {
        best = v;
        *where = dir + "/" + file;
      }
    }
    if (dir.size() <= mount.size()) break;
    dir = DirName(dir);
  }
  return best;
}

std::optional<int64_t> ParseV1CpuQuota(const std::string& dir) {
  auto quota = ReadWholeFile(dir + "/cpu.cfs_quota_us");
  auto period = ReadWholeFile(dir + "/cpu.cfs_period_us");
  if (!quota.ok() || !period.ok()) return std::nullopt;
  std::string text = *quota;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::string p = *period;
  while (!p.empty() && p.back() == '\n') p.pop_back();
  return ParseCpuMax(text + " " + p);  // "-1 100000" -> nullopt
}

int64_t MemTotal() {
  auto text = ReadWholeFile("/proc/meminfo");
  if (!text.ok()) return 0;
  std::string_view t(*text);
  size_t pos = t.find("MemTotal:");
  if (pos == std::string_view::npos) return 0;
  t.remove_prefix(pos + 9);
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  int64_t kb = 0;
  std::from_chars(t.data(), t.data() + t.size(), kb);
  return kb * 1024;
}

}  // namespace

MachineCapacity DiscoverMachine(const MachineDiscoveryOptions& options) {
  MachineCapacity m;
  OwnCgroups cg = FindOwnCgroups();

  // CPU.
  int cpus = AffinityCpus();
  if (cpus <= 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpus = online > 0 ? static_cast<int>(online) : 1;
    m.notes.push_back("cpu: affinity mask unreadable; " + std::to_string(cpus) + " CPUs online");
  } else {
    m.notes.push_back("cpu: " + std::to_string(cpus) + " CPUs in this process's affinity mask");
  }
  m.cpu_millis = int64_t{cpus} * 1000;
  std::string where;
  std::optional<int64_t> limit =
      LowestLimit(cg.v2_mount, cg.v2_dir, "cpu.max", ParseCpuMax, &where);
  if (!limit && !cg.v1_cpu_dir.empty()) {
    std::string dir = cg.v1_cpu_dir;
    for (;;) {
      std::optional<int64_t> v = ParseV1CpuQuota(dir);
      if (v && (!limit || *v < *limit)) {
        limit = v;
        where = dir + "/cpu.cfs_quota_us";
      }
      if (dir.size() <= cg.v1_cpu_mount.size()) break;
      dir = DirName(dir);
    }
  }
  if (limit && *limit < m.cpu_millis) {
    m.cpu_millis = std::max<int64_t>(*limit, 1);
    m.notes.push_back("cpu: limited to " + std::to_string(m.cpu_millis) + "m by cgroup " + where);
  }

  // Memory.
  m.memory_bytes = MemTotal();
  m.notes.push_back("memory: MemTotal " + FormatBytes(m.memory_bytes));
  where.clear();
  std::optional<int64_t> mem =
      LowestLimit(cg.v2_mount, cg.v2_dir, "memory.max", ParseMemoryMax, &where);
  if (!mem) {
    mem = LowestLimit(cg.v1_memory_mount, cg.v1_memory_dir, "memory.limit_in_bytes", ParseMemoryMax,
                      &where);
  }
  if (mem && (m.memory_bytes == 0 || *mem < m.memory_bytes)) {
    m.memory_bytes = *mem;
    m.notes.push_back("memory: limited to " + FormatBytes(*mem) + " by cgroup " + where);
  }

  // Hostname.
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;

  // GPUs.
  GpuDiscovery gpus;
  if (options.declared_gpus >= 0) {
    gpus = std::move(DeclaredGpus(options.declared_gpus).value());
  } else {
    gpus = DiscoverNvmlGpus(options.nvml_library);
  }
  m.gpus = std::move(gpus.gpus);
  m.gpu_topology = std::move(gpus.topology);
  std::string layout = FormatGpuTopologySpec(m.gpu_topology);
  m.notes.push_back("gpu: " + gpus.note + (layout.empty() ? "" : "; topology " + layout));
  return m;
}

}  // namespace kuota::runtime
