// GpuTopology: how close each pair of this machine's GPUs is — NVLink between
// them, and their closest common PCIe ancestor (a PCIe switch, a CPU host
// bridge, a NUMA node, or only the machine). NVML (nvml_topology.h) and a
// declared spec (gpu_topology_spec.h) both produce one; GPU placement
// (gpu_placement.h) reads it. A plain value; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace kuota::runtime {

// The closest common PCIe ancestor of two GPUs, closest first. kSwitch covers
// NVML's INTERNAL, SINGLE and MULTIPLE (behind PCIe switches, no CPU between).
enum class PcieLevel { kSwitch = 1, kHostBridge = 2, kNumaNode = 3, kSystem = 4 };

// "PCIe switch", "PCIe host bridge", "NUMA node", "machine".
const char* PcieLevelName(PcieLevel level);

struct GpuTopology {
  std::vector<int> indices;  // the GPUs' device indices, ascending
  // By position in `indices`: nvlink[a][b] when a and b reach each other over
  // NVLink (a direct link, or both on NVSwitches); pcie[a][b] their closest
  // common PCIe ancestor (kSystem on the diagonal is never read).
  std::vector<std::vector<bool>> nvlink;
  std::vector<std::vector<PcieLevel>> pcie;
  // false: nothing is known of how the GPUs connect (all equally close).
  bool known = false;

  // `indices` (sorted, duplicates dropped), nothing known of their links.
  static GpuTopology Flat(std::vector<int> indices);
  // The position of device `index` in `indices`; -1 when it is not one.
  int PositionOf(int index) const;
  // Invalid when the matrices are not square over `indices`, not symmetric,
  // or `indices` is not strictly ascending.
  Status Validate() const;
};

// Groups of GPUs joined by a chain of pairs that are NVLinked (when `nvlink`)
// or whose common PCIe ancestor is at most `pcie` (when set): a group number
// per position, numbered 0, 1, ... in order of each group's first position.
std::vector<int> GpuComponents(const GpuTopology& topology, bool nvlink,
                               std::optional<PcieLevel> pcie);

// "0-3,6": ascending indices with runs of 3 or more as ranges ("4,5" stays).
std::string FormatGpuRanges(const std::vector<int>& indices);

}  // namespace kuota::runtime
