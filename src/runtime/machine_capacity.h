// Machine capacity discovery: what this machine can give pods, as kuotad's
// local node — CPUs usable by this process (affinity mask, lowered by our
// cgroup's CPU limit), memory (MemTotal, lowered by our cgroup's memory
// limit), hostname and GPUs — with notes saying what limited each number.
// Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu_discovery.h"

namespace kuota::runtime {

struct MachineDiscoveryOptions {
  // >= 0: declare this many GPUs (kuotad --gpus N) instead of asking NVML.
  int declared_gpus = -1;
  // The library NVML is loaded from.
  std::string nvml_library = kNvmlLibrary;
};

struct MachineCapacity {
  int64_t cpu_millis = 0;    // > 0: at least 1000 (one CPU) unless a cgroup says less
  int64_t memory_bytes = 0;  // > 0 unless /proc/meminfo cannot be read
  std::string hostname;
  std::vector<GpuInfo> gpus;
  // How the GPUs connect: NVML's, or flat for declared ones (kuotad replaces
  // it with --gpu-topology's).
  GpuTopology gpu_topology;
  std::vector<std::string> notes;  // one line per finding, for logs and `kuota` output
};

MachineCapacity DiscoverMachine(const MachineDiscoveryOptions& options = {});

}  // namespace kuota::runtime
