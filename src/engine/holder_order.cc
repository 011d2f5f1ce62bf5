#include "engine/holder_order.h"

#include <algorithm>
#include <iterator>

#include "engine/quota_tree.h"

namespace kuota::engine {

namespace {

// ReservationOrderBefore's last two keys: UID, then name.
bool UidThenKeyBefore(const WorkloadInfo* a, const WorkloadInfo* b) {
  const int uid = a->uid().compare(b->uid());
  if (uid != 0) return uid < 0;
  return a->key < b->key;
}

}  // namespace

bool ReservationOrderBefore(const WorkloadInfo* a, const WorkloadInfo* b) {
  if (a->priority != b->priority) return a->priority < b->priority;
  if (a->quota_reserved_at != b->quota_reserved_at) {
    return a->quota_reserved_at > b->quota_reserved_at;
  }
  return UidThenKeyBefore(a, b);
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
    v->cqs.push_back(x);
    v->flat = v->flat && (x == root || x->parent() == root);
  });
  // The holders' records are cold (one cycle apart, among 100,000
  // workloads): fetch the record four holders ahead and its usage two ahead.
  walk_.clear();
  for (size_t k = 0; k < v->cqs.size(); ++k) {
    for (WorkloadInfo* w : v->cqs[k]->admitted()) walk_.emplace_back(w, static_cast<int32_t>(k));
  }
  const size_t n = walk_.size();
  v->holders.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (i + 4 < n) __builtin_prefetch(&walk_[i + 4].first->usage);
    if (i + 2 < n) __builtin_prefetch(walk_[i + 2].first->usage.data());
    const auto [w, index] = walk_[i];
    uint64_t frs = 0;
    for (const auto& [fr, value] : w->usage) {
      frs |= Bit(fr);
      v->exact_frs = v->exact_frs && fr >= 0 && fr < 64;
      v->any_negative = v->any_negative || value < 0;
    }
    v->holders.push_back(
        {w, index, w->priority, frs, w->evicted, w->holder_hint, w->quota_reserved_at.unix_ms});
    v->any_evicted = v->any_evicted || w->evicted;
  }
  // ReservationOrderBefore, its first two keys read from the copies (equal
  // copies: the workloads' own are equal too, so only UID and name remain).
  auto before = [](const Holder& a, const Holder& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.reserved_ms != b.reserved_ms) return a.reserved_ms > b.reserved_ms;
    return UidThenKeyBefore(a.wl, b.wl);
  };
  // From one cycle to the next a tree's holders change little: those with a
  // position from the last build are put back in that order, which is
  // checked (a key may have changed), and the others are sorted and merged
  // in. The hint decides nothing: the result is the one sorted order, and
  // a failed check sorts everything.
  auto& hs = v->holders;
  // The hinted holders by hint (unique within one build: a repeat sorts
  // everything), the fresh ones after them.
  uint32_t max_hint = 0;
  for (const Holder& h : hs) {
    if (h.hint != kNoHint) max_hint = std::max(max_hint, h.hint);
  }
  slot_.assign(hs.empty() ? 0 : size_t{max_hint} + 1, kNoHint);
  bool repeated = false;
  for (size_t i = 0; i < hs.size(); ++i) {
    if (hs[i].hint == kNoHint) continue;
    uint32_t& slot = slot_[hs[i].hint];
    repeated = repeated || slot != kNoHint;
    slot = static_cast<uint32_t>(i);
  }
  merged_.clear();
  if (!repeated) {
    for (uint32_t i : slot_) {
      if (i != kNoHint) merged_.push_back(hs[i]);
    }
  }
  const auto n_hinted = static_cast<ptrdiff_t>(merged_.size());
  for (const Holder& h : hs) {
    if (repeated || h.hint == kNoHint) merged_.push_back(h);
  }
  hs.swap(merged_);
  const auto fresh = hs.begin() + n_hinted;
  if (!std::is_sorted(hs.begin(), fresh, before)) {
    std::sort(hs.begin(), hs.end(), before);
  } else if (fresh != hs.end()) {
    std::sort(fresh, hs.end(), before);
    merged_.clear();
    std::merge(hs.begin(), fresh, fresh, hs.end(), std::back_inserter(merged_), before);
    hs.swap(merged_);
  }
  for (size_t i = 0; i < hs.size(); ++i) hs[i].wl->holder_hint = static_cast<uint32_t>(i);
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
