// A GPU topology written as text, for machines whose GPUs are declared
// (kuotad --gpus N / --fake-gpus N with --gpu-topology SPEC) and for showing a
// discovered one (the Node's kuota.dev/gpu-topology annotation):
//   nvlink=0-3,4-7;pcie=0-1,2-3,4-5,6-7;numa=0-3,4-7
// LEVEL=GROUPS parts joined by ';'. LEVEL is nvlink, pcie (a PCIe switch),
// hostbridge (a CPU host bridge) or numa; GROUPS are ','-separated groups of
// GPUs that share it, each a '+'-joined list of indices and ranges A-B
// ("0+2+4-5"). Every pair in one nvlink group is NVLinked; PCIe groups nest
// (each pcie group inside one hostbridge and one numa group, when those are
// given); a GPU named at no level shares nothing but the machine.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/gpu_topology.h"

namespace kuota::runtime {

// The topology `spec` declares over the GPUs `indices`. Invalid, naming the
// level and what is wrong, for: an empty spec or part, a part without '=',
// an unknown or repeated level, an empty group, an index or range that does
// not parse or runs backwards, a GPU not in `indices`, a GPU in two groups of
// one level, a PCIe group not inside one group of a wider level given.
Result<GpuTopology> ParseGpuTopologySpec(const std::string& spec, const std::vector<int>& indices);

// `topology` in the same form (groups of one GPU left out, a PCIe level left
// out when it groups exactly as the closer one); "" when nothing is known or
// no two GPUs share more than the machine.
std::string FormatGpuTopologySpec(const GpuTopology& topology);

}  // namespace kuota::runtime
