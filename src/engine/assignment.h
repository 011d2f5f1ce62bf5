// Assignment: the result of flavor assignment for one workload: per pod set
// the count and the flavor chosen for each resource, with the mode (Fit,
// Preempt, NoFit), the borrowing height and the reasons that become the
// pending message users read. Plain value type.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/flavor_resource.h"
#include "engine/fr_id_set.h"
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

struct PodSetAssignmentResult {
  std::string name;
  int32_t count = 0;
  // resource -> assignment; looked up by string_view too.
  std::map<std::string, ResourceAssignment, std::less<>> flavors;
  std::vector<std::string> reasons;
  bool failed = false;
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
