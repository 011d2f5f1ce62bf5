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
  std::vector<int32_t> out = full_;
  for (size_t i = full_.size(); i-- > 0 && budget > 0;) {
    int64_t cut = std::min<int64_t>(delta_[i], budget);
    out[i] = static_cast<int32_t>(full_[i] - cut);
    budget -= cut;
  }
  return out;
}

std::optional<std::vector<int32_t>> PodSetReducer::Reduce(const CountsFit& fits) const {
  if (total_delta_ == 0) return std::nullopt;
  // The full counts were tried by the caller: search budgets 1..total for the
  // smallest that fits (fitting is monotonic in the budget).
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
  std::vector<int32_t> counts = CountsForBudget(found);
  GiveBack(counts, fits);
  return counts;
}

void PodSetReducer::GiveBack(std::vector<int32_t>& counts, const CountsFit& fits) const {
  int reduced = 0;
  for (size_t i = 0; i < counts.size(); ++i) reduced += counts[i] < full_[i] ? 1 : 0;
  // One shrunk pod set: growing it means a budget the search already refused.
  if (reduced < 2) return;
  std::vector<int32_t> trial = counts;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == full_[i]) continue;
    trial[i] = full_[i];
    if (fits(trial)) {
      counts[i] = full_[i];
      continue;
    }
    // The largest count strictly between the shrunk and the full one that fits.
    int32_t lo = counts[i] + 1, hi = full_[i] - 1, best = counts[i];
    while (lo <= hi) {
      int32_t mid = lo + (hi - lo) / 2;
      trial[i] = mid;
      if (fits(trial)) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    counts[i] = best;
    trial[i] = best;
  }
}

}  // namespace kuota::engine
