// GpuPlacer: which free GPUs a gang of pods gets on one machine, by topology,
// with a sentence per pod saying why. The rule (best fit, as Slurm's and the
// NVIDIA device plugin's users expect):
//   - Groups, closest first: NVLink islands, then GPUs under one PCIe switch,
//     one CPU host bridge, one NUMA node, then the machine. A group at a wider
//     level joins the closer ones it links (single linkage), so they nest.
//   - A request for k GPUs goes to the closest level at which some group has
//     k free, and there to the group with the fewest free (best fit; ties: the
//     one whose wider groups have fewest free, then the lowest GPU), so large
//     holes stay whole. Inside it, no closer group holds k: it takes whole
//     closer groups, most free first, and the rest again by best fit. Inside
//     one NVLink island the PCIe levels alone decide (an NVSwitch island
//     spans NUMA nodes).
//   - A gang (the pods that start together) first gets a region: the group its
//     total GPUs go to by the same rule; then each pod, most GPUs first, gets
//     its own best fit inside that region.
//   - With nothing known of the topology, the lowest free indices.
// Thread-compatible: Place is const and keeps no state.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/gpu_topology.h"

namespace kuota::runtime {

struct GpuRequest {
  std::string owner;  // a pod's uid
  int count = 0;
};

struct GpuGrant {
  std::string owner;
  std::vector<int> indices;  // ascending
  // "GPUs 4,5 share NVLink island 4-7 (best fit: it had 3 free)".
  std::string reason;
};

class GpuPlacer {
 public:
  // `topology` must be valid (GpuTopology::Validate); one that is not is
  // treated as flat.
  explicit GpuPlacer(GpuTopology topology);

  // Grants for every request with a count > 0, in the order given, out of
  // the GPUs `free`. Unavailable when fewer are free (among this machine's
  // GPUs) than the counts add up to; Invalid for a negative count.
  Result<std::vector<GpuGrant>> Place(const std::set<int>& free,
                                      const std::vector<GpuRequest>& requests) const;

  const GpuTopology& topology() const { return topology_; }

 private:
  // One level of a hierarchy: a group number per position.
  struct Level {
    std::string name;  // "NVLink island", ...
    std::vector<int> group_of;
  };
  using Hierarchy = std::vector<Level>;  // closest first; the last is the machine
  using Pool = std::vector<int>;         // positions, ascending

  std::vector<Pool> Parts(const Hierarchy& h, size_t level, const Pool& pool) const;
  // The part of `parts` with the fewest members, ties as the rule says.
  size_t BestFit(const Hierarchy& h, size_t level, const std::vector<Pool>& parts,
                 const Pool& pool) const;
  Pool Pick(const Pool& pool, int k, size_t hierarchy) const;
  Pool Spread(const Pool& pool, int k, size_t hierarchy, size_t level) const;
  // The closest group of `h` of two or more GPUs holding all of `chosen`:
  // its level and all its members; h.size() - 1 when only the machine does.
  size_t Enclosing(const Hierarchy& h, const Pool& chosen, Pool* group) const;
  std::string Reason(const Pool& chosen, const Pool& pool) const;

  GpuTopology topology_;
  // [0]: NVLink and PCIe together; [1]: PCIe alone, inside an NVLink island.
  std::vector<Hierarchy> hierarchies_;
};

}  // namespace kuota::runtime
