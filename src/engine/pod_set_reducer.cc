#include "engine/pod_set_reducer.h"

#include <algorithm>

namespace kuota::engine {

namespace {

// How many pods `ps` may give up: count - minCount when minCount is below it.
int32_t Slack(const PodSetInfo& ps) {
  return ps.min_count && *ps.min_count < ps.count ? ps.count - *ps.min_count : 0;
}

}  // namespace

PodSetReducer::PodSetReducer(const std::vector<PodSetInfo>& pod_sets) {
  for (const auto& ps : pod_sets) {
    full_.push_back(ps.count);
    delta_.push_back(std::max<int32_t>(0, Slack(ps)));
    total_delta_ += delta_.back();
  }
}

bool PodSetReducer::CanReduce(const std::vector<PodSetInfo>& pod_sets) {
  return std::any_of(pod_sets.begin(), pod_sets.end(),
                     [](const PodSetInfo& ps) { return Slack(ps) > 0; });
}

std::vector<int32_t> PodSetReducer::CountsForBudget(int64_t budget) const {
  // Every variable pod set gives up the same share of its slack, rounded
  // down: budget / total of it (Kueue's fillPodSetSizesForSearchIndex).
  std::vector<int32_t> out = full_;
  for (size_t i = 0; i < full_.size(); ++i) {
    out[i] = static_cast<int32_t>(full_[i] - int64_t{delta_[i]} * budget / total_delta_);
  }
  return out;
}

std::optional<std::vector<int32_t>> PodSetReducer::Reduce(const CountsFit& fits) const {
  if (total_delta_ == 0) return std::nullopt;
  // The full counts were tried by the caller: search steps 1..total for the
  // smallest that fits (fitting is monotonic in the step).
  int64_t lo = 1, hi = total_delta_, found = -1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (fits(CountsForBudget(mid))) {
      found = mid;
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  if (found < 0) return std::nullopt;
  return CountsForBudget(found);
}

}  // namespace kuota::engine
