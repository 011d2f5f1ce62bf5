#include "engine/holder_order.h"

#include <algorithm>

#include "engine/quota_tree.h"

namespace kuota::engine {

bool ReservationOrderBefore(const WorkloadInfo* a, const WorkloadInfo* b) {
  if (a->priority != b->priority) return a->priority < b->priority;
  if (a->quota_reserved_at != b->quota_reserved_at) {
    return a->quota_reserved_at > b->quota_reserved_at;
  }
  if (a->uid() != b->uid()) return a->uid() < b->uid();
  return a->key < b->key;
}

void HolderOrder::Thaw() {
  frozen_ = false;
  used_ = 0;
  // Released, not kept for the next cycle: the lists are rebuilt then anyway,
  // and their memory serves the rest of the cycle.
  cached_.clear();
}

const HolderOrder::View& HolderOrder::For(const QuotaNode* root) {
  if (!frozen_) {
    Build(root, &scratch_);
    return scratch_;
  }
  for (size_t i = 0; i < used_; ++i) {
    if (cached_[i].root == root) return cached_[i];
  }
  if (used_ == cached_.size()) cached_.emplace_back();
  View& v = cached_[used_++];
  Build(root, &v);
  return v;
}

void HolderOrder::Build(const QuotaNode* root, View* v) {
  v->root = root;
  v->cqs.clear();
  v->holders.clear();
  v->any_evicted = false;
  QuotaTree::ForEachClusterQueue(root, [v](ClusterQueueNode* x) {
    const auto index = static_cast<int32_t>(v->cqs.size());
    v->cqs.push_back(x);
    for (WorkloadInfo* w : x->admitted()) {
      uint64_t frs = 0;
      for (const auto& [fr, value] : w->usage) frs |= Bit(fr);
      v->holders.push_back({w, index, w->priority, frs, w->evicted});
      v->any_evicted = v->any_evicted || w->evicted;
    }
  });
  std::sort(v->holders.begin(), v->holders.end(),
            [](const Holder& a, const Holder& b) { return ReservationOrderBefore(a.wl, b.wl); });
}

}  // namespace kuota::engine
