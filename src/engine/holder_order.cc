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
  ++generation_;
  // The lists are rebuilt next cycle; their buffers are kept (a few hundred
  // KiB for a large cluster) so that the rebuild allocates nothing.
  used_ = 0;
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
  v->any_negative = false;
  v->exact_frs = true;
  v->flat = true;
  QuotaTree::ForEachClusterQueue(root, [v, root](ClusterQueueNode* x) {
    const auto index = static_cast<int32_t>(v->cqs.size());
    v->cqs.push_back(x);
    v->flat = v->flat && (x == root || x->parent() == root);
    for (WorkloadInfo* w : x->admitted()) {
      uint64_t frs = 0;
      for (const auto& [fr, value] : w->usage) {
        frs |= Bit(fr);
        v->exact_frs = v->exact_frs && fr >= 0 && fr < 64;
        v->any_negative = v->any_negative || value < 0;
      }
      v->holders.push_back({w, index, w->priority, frs, w->evicted, w->quota_reserved_at.unix_ms});
      v->any_evicted = v->any_evicted || w->evicted;
    }
  });
  // ReservationOrderBefore, its first two keys read from the copies.
  std::sort(v->holders.begin(), v->holders.end(), [](const Holder& a, const Holder& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.reserved_ms != b.reserved_ms) return a.reserved_ms > b.reserved_ms;
    return ReservationOrderBefore(a.wl, b.wl);
  });
  // Each ClusterQueue's positions, by a counting sort on Holder::cq, filled
  // through a copy of the starts in holder order (so ascending).
  v->position_begin.assign(v->cqs.size() + 1, 0);
  for (const Holder& h : v->holders) ++v->position_begin[static_cast<size_t>(h.cq) + 1];
  for (size_t k = 1; k < v->position_begin.size(); ++k) {
    v->position_begin[k] += v->position_begin[k - 1];
  }
  v->positions.resize(v->holders.size());
  cursor_.assign(v->position_begin.begin(), v->position_begin.end() - 1);
  for (size_t i = 0; i < v->holders.size(); ++i) {
    const Holder& h = v->holders[i];
    v->positions[cursor_[static_cast<size_t>(h.cq)]++] = {static_cast<uint32_t>(i), h.priority,
                                                          h.frs};
  }
}

}  // namespace kuota::engine
