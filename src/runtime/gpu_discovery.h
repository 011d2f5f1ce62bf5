// GPU discovery for the local runtime: NVIDIA GPUs through NVML, loaded at
// run time with dlopen (no NVIDIA headers or libraries needed to build or
// run), with how they connect, or a declared count for machines without
// NVML (kuotad --gpus N) and for tests. Thread-safe (NVML is initialised and shut down per call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/gpu_topology.h"

namespace kuota::runtime {

struct GpuInfo {
  int index = 0;             // what CUDA_VISIBLE_DEVICES names
  std::string uuid;          // "GPU-..." from NVML, or "declared-<index>"
  std::string name;          // "NVIDIA H100 80GB HBM3"; "" when declared
  int64_t memory_bytes = 0;  // 0 when declared or unknown
};

struct GpuDiscovery {
  std::vector<GpuInfo> gpus;
  // How they connect (NVML's topology, nvml_topology.h); flat when declared.
  GpuTopology topology;
  std::string note;  // how they were found, or why there are none
};

inline constexpr char kNvmlLibrary[] = "libnvidia-ml.so.1";

// Lists the GPUs NVML reports. Never fails and never crashes when the library
// is absent: gpus is then empty and note says why, e.g.
// "NVML not found (libnvidia-ml.so.1): no GPUs", "nvmlInit failed: code 9".
// `library` is the name given to dlopen (tests pass other names).
GpuDiscovery DiscoverNvmlGpus(const std::string& library = kNvmlLibrary);

// `count` GPUs with index i and uuid "declared-i". Invalid when count < 0.
Result<GpuDiscovery> DeclaredGpus(int count);

}  // namespace kuota::runtime
