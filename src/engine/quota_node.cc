#include "engine/quota_node.h"

#include <algorithm>

#include "engine/cohort_node.h"

namespace kuota::engine {

namespace {
const FrQuota kNoQuota{};
}

const FrQuota& QuotaNode::quota(FrId fr) const {
  if (!has_quota(fr)) return kNoQuota;
  return quota_[static_cast<size_t>(fr)];
}

bool QuotaNode::has_quota(FrId fr) const {
  return static_cast<size_t>(fr) < has_quota_.size() && has_quota_[static_cast<size_t>(fr)];
}

void QuotaNode::RefreshGuaranteed() {
  guaranteed_.assign(quota_.size(), 0);
  for (size_t i = 0; i < quota_.size(); ++i) {
    const auto fr = static_cast<FrId>(i);
    const FrQuota& q = quota(fr);
    if (q.lending_limit) {
      guaranteed_[i] = std::max<int64_t>(0, SatSub(subtree_quota(fr), *q.lending_limit));
    }
  }
}

int64_t QuotaNode::Available(FrId fr) const {
  return AvailableGiven(fr, usage(fr), has_parent() ? parent_->Available(fr) : 0);
}

int64_t QuotaNode::AvailableGiven(FrId fr, int64_t usage, int64_t parent_available) const {
  if (!has_parent()) return SatSub(subtree_quota(fr), usage);
  const int64_t guaranteed = guaranteed_quota(fr);
  const int64_t local_available = std::max<int64_t>(0, guaranteed - usage);
  const FrQuota& q = quota(fr);
  if (q.borrowing_limit) {
    const int64_t stored_in_parent = subtree_quota(fr) - guaranteed;
    const int64_t used_in_parent = std::max<int64_t>(0, usage - guaranteed);
    const int64_t with_max_from_parent =
        SatAdd(stored_in_parent - used_in_parent, *q.borrowing_limit);
    parent_available = std::min(with_max_from_parent, parent_available);
  }
  return SatAdd(local_available, parent_available);
}

int64_t QuotaNode::PotentialAvailable(FrId fr) const {
  if (!has_parent()) return subtree_quota(fr);
  int64_t available = SatAdd(guaranteed_quota(fr), parent_->PotentialAvailable(fr));
  const FrQuota& q = quota(fr);
  if (q.borrowing_limit) {
    available = std::min(SatAdd(subtree_quota(fr), *q.borrowing_limit), available);
  }
  return available;
}

void QuotaNode::AddUsage(FrId fr, int64_t value) {
  const int64_t local_available = std::max<int64_t>(0, guaranteed_quota(fr) - usage(fr));
  int64_t& u = Slot(usage_, fr);
  u = SatAdd(u, value);
  if (has_parent() && value > local_available) {
    parent_->AddUsage(fr, value - local_available);
  }
}

void QuotaNode::RemoveUsage(FrId fr, int64_t value) {
  const int64_t to_parent = RemovedFromParent(fr, value);
  int64_t& u = Slot(usage_, fr);
  u = SatSub(u, value);
  if (to_parent == 0 || !has_parent()) return;
  parent_->RemoveUsage(fr, to_parent);
}

}  // namespace kuota::engine
