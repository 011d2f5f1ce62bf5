// Workload slices of an elastic job (Kueue's ElasticJobsViaWorkloadSlices,
// its job reconciler's EnsureWorkloadSlices): given the job's pod counts and
// its Workloads not finished, which Workload the job follows and what to
// write: nothing, the counts of a slice updated in place (a slice without
// quota, or a scale-down), or a new slice replacing the admitted one (a
// scale-up). Extra slices (a duplicate of a race, an evicted slice that a
// replacement stands for) are to be finished. Pure; thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kuota::control {

// One Workload of the job, as the controller sees it.
struct SliceState {
  std::string key;                        // namespace/name
  std::string replacement_for;            // kueue.x-k8s.io/workload-slice-replacement-for
  std::string slice_name;                 // kueue.x-k8s.io/workload-slice-name ("" if none)
  std::map<std::string, int32_t> counts;  // spec.podSets[].count by name
  bool holds_quota = false;
  bool evicted = false;  // Evicted condition True (its quota is on the way out)
};

struct SlicePlan {
  enum class Action {
    kNone,          // follow `selected` as it is
    kUpdateCounts,  // write the job's counts into `selected`, then follow it
    kCreate,        // create a slice (replacing `replaces` when not empty)
  };
  Action action = Action::kNone;
  std::string selected;  // for kNone / kUpdateCounts
  std::string replaces;  // for kCreate: the admitted slice the new one replaces
  std::string origin;    // for kCreate with `replaces`: the chain's slice name
  // Slices to finish, with Kueue's reason (WorkloadSliceReplaced for one a
  // later slice replaces, OutOfSync otherwise).
  std::vector<std::pair<std::string, std::string>> finish;
  // The pod sets differ in names (not only counts): no slicing applies.
  bool incompatible = false;
};

// `slices` are the job's Workloads not finished, oldest first.
SlicePlan PlanWorkloadSlices(const std::map<std::string, int32_t>& job_counts,
                             const std::vector<SliceState>& slices);

// Orders `slices` oldest first: by the given order (creation), a slice
// always after the one it replaces.
void OrderSlices(std::vector<SliceState>& slices);

}  // namespace kuota::control
