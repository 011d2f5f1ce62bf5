#include "runtime/machine_capacity.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sched.h>

#include "runtime/cgroup_fs.h"
#include "runtime/gpu_discovery.h"

namespace kuota::runtime {
namespace {

TEST(MachineCapacityTest, FindsCpuMemoryAndHostname) {
  MachineCapacity m = DiscoverMachine();
  EXPECT_GT(m.cpu_millis, 0);
  EXPECT_GT(m.memory_bytes, 0);
  EXPECT_FALSE(m.hostname.empty());
  ASSERT_GE(m.notes.size(), 3u);
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_LE(m.cpu_millis, CPU_COUNT(&set) * 1000);
  EXPECT_LE(m.memory_bytes, int64_t{1} << 50);
  for (const std::string& n : m.notes) std::printf("  %s\n", n.c_str());
}

TEST(MachineCapacityTest, DeclaredGpusReplaceNvml) {
  MachineDiscoveryOptions opts;
  opts.declared_gpus = 2;
  MachineCapacity m = DiscoverMachine(opts);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].index, 0);
  EXPECT_EQ(m.gpus[0].uuid, "declared-0");
  EXPECT_EQ(m.gpus[1].index, 1);
  EXPECT_EQ(m.gpus[1].uuid, "declared-1");
  EXPECT_EQ(m.notes.back(), "gpu: declared 2 GPU(s); NVML not consulted");
  auto none = DeclaredGpus(0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->gpus.empty());
  auto bad = DeclaredGpus(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "declared GPU count must be >= 0, got -1");
}

TEST(GpuDiscoveryTest, MissingNvmlGivesNoGpusAndANote) {
  GpuDiscovery d = DiscoverNvmlGpus("libkuota-no-such-nvml.so.1");
  EXPECT_TRUE(d.gpus.empty());
  EXPECT_EQ(d.note, "NVML not found (libkuota-no-such-nvml.so.1): no GPUs");
}

TEST(GpuDiscoveryTest, DefaultLibraryEitherListsGpusOrSaysWhyNot) {
  void* probe = dlopen(kNvmlLibrary, RTLD_NOW | RTLD_LOCAL);
  GpuDiscovery d = DiscoverNvmlGpus();
  if (probe == nullptr) {
    EXPECT_TRUE(d.gpus.empty());
    EXPECT_EQ(d.note, "NVML not found (libnvidia-ml.so.1): no GPUs");
  } else {
    dlclose(probe);
    // A machine with the driver: GPUs with NVML uuids, or an init failure.
    EXPECT_TRUE(d.note.rfind("NVML: ", 0) == 0 || d.note.rfind("nvmlInit failed: code ", 0) == 0)
        << d.note;
    for (size_t i = 0; i < d.gpus.size(); ++i) {
      EXPECT_EQ(d.gpus[i].uuid.rfind("GPU-", 0), 0u) << d.gpus[i].uuid;
      EXPECT_GT(d.gpus[i].memory_bytes, 0);
    }
  }
  std::printf("  %s\n", d.note.c_str());
}

TEST(GpuDiscoveryTest, LibraryWithoutNvmlSymbolsIsRefusedWithoutCrashing) {
  GpuDiscovery d = DiscoverNvmlGpus("libc.so.6");
  EXPECT_TRUE(d.gpus.empty());
  EXPECT_EQ(d.note, "NVML library libc.so.6 lacks nvmlInit_v2: no GPUs");
}

TEST(CgroupFsTest, ParsesLimitFiles) {
  EXPECT_EQ(ParseCpuMax("max 100000\n"), std::nullopt);
  EXPECT_EQ(ParseCpuMax("150000 100000\n"), 1500);
  EXPECT_EQ(ParseCpuMax("50000 50000"), 1000);
  EXPECT_EQ(ParseCpuMax("-1 100000"), std::nullopt);  // v1 "no quota"
  EXPECT_EQ(ParseCpuMax("garbage"), std::nullopt);
  EXPECT_EQ(ParseMemoryMax("max\n"), std::nullopt);
  EXPECT_EQ(ParseMemoryMax("1073741824\n"), 1073741824);
  EXPECT_EQ(ParseMemoryMax("9223372036854771712\n"), std::nullopt);  // v1 unlimited
  EXPECT_EQ(ParseMemoryMax("12x"), std::nullopt);
}

TEST(CgroupFsTest, FindsOwnCgroupsOnPureAndHybridHosts) {
  // Pure cgroup v2 (systemd), as in a container whose mount root is its cgroup.
  OwnCgroups v2 =
      ParseOwnCgroups("0::/system.slice/kuotad.service\n",
                      "24 18 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
  EXPECT_EQ(v2.v2_mount, "/sys/fs/cgroup");
  EXPECT_EQ(v2.v2_dir, "/sys/fs/cgroup/system.slice/kuotad.service");
  EXPECT_EQ(v2.sys_fs_cgroup_type, "cgroup2");
  EXPECT_TRUE(v2.v1_cpu_dir.empty());

  OwnCgroups nested =
      ParseOwnCgroups("0::/kubepods/pod1/c1\n",
                      "30 20 0:25 /kubepods/pod1 /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  EXPECT_EQ(nested.v2_dir, "/sys/fs/cgroup/c1");

  // Hybrid: v1 controllers, an empty cgroup2 at /sys/fs/cgroup/unified.
  OwnCgroups hybrid = ParseOwnCgroups(
      "4:memory:/process_api/abc\n1:cpu,cpuacct:/\n0::/\n",
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
  EXPECT_EQ(hybrid.sys_fs_cgroup_type, "tmpfs");
  EXPECT_EQ(hybrid.v2_mount, "/sys/fs/cgroup/unified");
  EXPECT_EQ(hybrid.v2_dir, "/sys/fs/cgroup/unified");
  EXPECT_EQ(hybrid.v1_cpu_dir, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(hybrid.v1_memory_dir, "/sys/fs/cgroup/memory/process_api/abc");

  OwnCgroups none = ParseOwnCgroups("", "");
  EXPECT_TRUE(none.v2_mount.empty());
  EXPECT_TRUE(none.v2_dir.empty());
}

}  // namespace
}  // namespace kuota::runtime
