// PodSetReducer: partial admission's search for the largest pod counts that
// can be admitted, between each pod set's minCount and count (Kueue's
// flavorassigner PodSetReducer, order-based policy). Pure function of its
// inputs and the `fits` callback; single-threaded like the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/workload_info.h"

namespace kuota::engine {

// Answers whether the workload can be admitted (or can preempt) at `counts`,
// one per pod set.
using CountsFit = std::function<bool(const std::vector<int32_t>& counts)>;

class PodSetReducer {
 public:
  explicit PodSetReducer(const std::vector<PodSetInfo>& pod_sets);

  // True when some pod set may shrink (has a minCount below its count).
  bool CanReduce() const { return total_delta_ > 0; }
  // CanReduce() of a reducer for `pod_sets`, without building one.
  static bool CanReduce(const std::vector<PodSetInfo>& pod_sets);

  // The counts to admit, or nullopt when not even every pod set at its
  // minCount fits. Shrinks pod sets from the last towards the first, moving to
  // an earlier one only once the later ones are at their minCount (a binary
  // search over the number of pods given up), then, when more than one pod set
  // was shrunk, gives back what that order cut needlessly: first to last, each
  // grows to the largest count that still fits with the others as they are.
  std::optional<std::vector<int32_t>> Reduce(const CountsFit& fits) const;

  // The counts after giving up `budget` pods from the last pod set backwards.
  std::vector<int32_t> CountsForBudget(int64_t budget) const;

 private:
  void GiveBack(std::vector<int32_t>& counts, const CountsFit& fits) const;

  std::vector<int32_t> full_;
  std::vector<int32_t> delta_;  // count - minCount (0 without minCount)
  int64_t total_delta_ = 0;
};

}  // namespace kuota::engine
