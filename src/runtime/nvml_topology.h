// How NVML's GPUs connect, as a GpuTopology (gpu_topology.h): each pair's
// closest common PCIe ancestor (nvmlDeviceGetTopologyCommonAncestor) and
// NVLink between them (each active link's far end: a GPU, matched by PCI
// address, or an NVSwitch, which joins every GPU on one; else, on libraries
// without those calls, nvmlDeviceGetP2PStatus's NVLink answer). Whatever the
// library lacks or refuses is left unknown and said in the note; nothing
// fails. Not thread-safe (as NvmlApi); NVML must be initialised.
#pragma once

#include <string>
#include <vector>

#include "runtime/gpu_topology.h"
#include "runtime/nvml_api.h"

namespace kuota::runtime {

// What NVML said, by position among the GPUs read.
struct NvmlLinkReadings {
  // nvmlGpuTopologyLevel_t of each pair; -1 where unknown.
  std::vector<std::vector<int>> ancestor;
  // NVLink straight between the two (either side's link reaching the other).
  std::vector<std::vector<bool>> direct_nvlink;
  // Some active link of the GPU reaches an NVSwitch.
  std::vector<bool> on_nvswitch;
  std::string note;  // "" when all was read, else what was not
};

// Reads the links of `devices` (handles in the order of `indices`).
NvmlLinkReadings ReadNvmlLinks(const NvmlApi& nvml, const std::vector<NvmlApi::Device*>& devices);

// The topology those readings describe over `indices`: NVML's INTERNAL,
// SINGLE and MULTIPLE are a PCIe switch, HOSTBRIDGE a host bridge, NODE a
// NUMA node, SYSTEM and unknown only the machine; NVLinked are pairs with a
// direct link or both on NVSwitches. known unless nothing at all was read.
GpuTopology TopologyFromNvml(const std::vector<int>& indices, const NvmlLinkReadings& readings);

}  // namespace kuota::runtime
