// Where this process's cgroups live on disk (from /proc/self/cgroup and
// /proc/self/mountinfo), for cgroup v2 and, on hybrid hosts, the v1 cpu and
// memory hierarchies; and parsers for the limit files. Used by machine
// discovery and CgroupManager. Thread-safe (reads /proc only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kuota::runtime {

struct OwnCgroups {
  std::string v2_mount;  // where cgroup2 is mounted ("" if nowhere)
  std::string v2_dir;    // our cgroup v2 directory ("" if unknown)
  std::string v1_cpu_mount;
  std::string v1_cpu_dir;  // our v1 cpu cgroup directory, if cpu is on v1
  std::string v1_memory_mount;
  std::string v1_memory_dir;
  std::string sys_fs_cgroup_type;  // fstype mounted at /sys/fs/cgroup ("cgroup2", "tmpfs", "")
};

// Reads /proc/self/cgroup and /proc/self/mountinfo. Fields stay empty where
// nothing is found; never fails.
OwnCgroups FindOwnCgroups();

// Same, from the given file texts (for tests and other processes).
OwnCgroups ParseOwnCgroups(std::string_view proc_cgroup, std::string_view mountinfo);

// cpu.max ("max 100000" or "150000 100000") -> millicores; nullopt when
// unlimited or malformed.
std::optional<int64_t> ParseCpuMax(std::string_view text);

// memory.max ("max" or bytes) or v1 memory.limit_in_bytes -> bytes; nullopt
// when unlimited (including v1's "no limit" values near 2^63) or malformed.
std::optional<int64_t> ParseMemoryMax(std::string_view text);

}  // namespace kuota::runtime
