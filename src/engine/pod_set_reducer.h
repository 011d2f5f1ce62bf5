// PodSetReducer: partial admission's search for the largest pod counts that
// can be admitted, between each pod set's minCount and count, as Kueue's
// flavorassigner PodSetReducer searches: all variable pod sets shrink together,
// each by the same fraction of its slack. Pure function of its inputs and the
// `fits` callback; single-threaded like the engine.
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
  // minCount fits: a binary search over step s in 1..T (T the pods all pod
  // sets may give up together) for the smallest that fits, each pod set
  // giving up floor(slack x s / T) pods. For 50 cpu, a fixed pod set of 20
  // and variable ones of 30 -> 10 and 15 -> 5: 20 / 20 / 10.
  std::optional<std::vector<int32_t>> Reduce(const CountsFit& fits) const;

  // The counts at step `budget` of 0..T.
  std::vector<int32_t> CountsForBudget(int64_t budget) const;

 private:
  std::vector<int32_t> full_;
  std::vector<int32_t> delta_;  // count - minCount (0 without minCount)
  int64_t total_delta_ = 0;
};

}  // namespace kuota::engine
