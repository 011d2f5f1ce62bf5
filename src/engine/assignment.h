// Assignment: the result of flavor assignment for one workload: per pod set
// the count and the flavor chosen for each resource, with the mode (Fit,
// Preempt, NoFit), the borrowing height and the reasons that become the
// pending message users read. Plain value type.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/flavor_resource.h"
#include "engine/fr_id_set.h"
#include "engine/topology_tree.h"
#include "engine/workload_info.h"

namespace kuota::engine {

// Granular fit of a flavor, worst first.
enum class FitMode {
  kNoFit = 0,
  kNoCandidates = 1,  // needs preemption but nothing can be preempted
  kPreempt = 2,       // needs preemption, some victims in the own ClusterQueue
  kReclaim = 3,       // needs preemption, victims only in other ClusterQueues
  kFit = 4,
};

// The coarse mode Kueue reports for a workload.
enum class Mode { kNoFit, kPreempt, kFit };
Mode CoarseMode(FitMode m);
const char* ModeName(Mode m);

struct ResourceAssignment {
  std::string flavor;
  FrId fr = -1;
  FitMode mode = FitMode::kFit;
  int borrow = 0;
  int64_t value = 0;  // milli-units for the whole pod set
};

// resource -> assignment, iterated in resource order as a std::map would
// be: a pod set requests a handful of resources, so a sorted vector (one
// allocation, no node per resource) is searched instead.
class ResourceAssignments {
 public:
  using Entry = std::pair<std::string, ResourceAssignment>;
  using const_iterator = std::vector<Entry>::const_iterator;

  const_iterator find(std::string_view resource) const {
    auto at = LowerBound(entries_, resource);
    return at != entries_.end() && at->first == resource ? at : entries_.end();
  }
  void insert_or_assign(const std::string& resource, ResourceAssignment ra) {
    auto at = LowerBound(entries_, resource);
    if (at != entries_.end() && at->first == resource) {
      at->second = std::move(ra);
    } else {
      entries_.emplace(at, resource, std::move(ra));
    }
  }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  // The first entry not before `resource`, in `entries` (const or not).
  template <typename Entries>
  static auto LowerBound(Entries& entries, std::string_view resource) -> decltype(entries.begin()) {
    return std::lower_bound(
        entries.begin(), entries.end(), resource,
        [](const Entry& e, std::string_view r) { return e.first.compare(r) < 0; });
  }
  std::vector<Entry> entries_;  // ascending by resource, no duplicates
};

// A pod set's topology placement: the assignment written to the Workload
// and what it uses on each leaf.
struct PodSetTopology {
  std::string flavor;
  api::TopologyAssignment assignment;
  std::vector<TasUse> usage;
  std::vector<const TopologyLeaf*> leaves;  // beside usage: the leaf of each entry
};

struct PodSetAssignmentResult {
  std::string name;
  int32_t count = 0;
  ResourceAssignments flavors;
  std::vector<std::string> reasons;
  bool failed = false;
  std::optional<PodSetTopology> topology;
};

struct Assignment {
  std::vector<PodSetAssignmentResult> pod_sets;
  int borrowing = 0;  // max borrowing height over all resources
  Mode mode = Mode::kFit;
  // Total usage per FrId of everything assigned.
  std::vector<std::pair<FrId, int64_t>> usage;

  // FrIds whose flavor needs preemption.
  FrIdSet NeedPreemption() const;
  // "couldn't assign flavors to pod set main: ...; ..." (empty when it fits),
  // with room for `extra` more characters.
  std::string Message(size_t extra = 0) const;
  bool Borrows() const { return borrowing > 0; }
};

}  // namespace kuota::engine
