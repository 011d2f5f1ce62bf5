#include "engine/preemptor.h"
#include "engine/topology_assigner.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "engine/cohort_node.h"
#include "engine/fair_sharing.h"
#include "engine/holder_order.h"
#include "engine/quota_tree.h"

namespace kuota::engine {

void RemoveWorkloadUsage(const WorkloadInfo& wl) {
  for (const auto& [fr, v] : wl.usage) wl.admitted_in->RemoveUsage(fr, v);
  RemoveTopologyUsage(wl.tas_usage);
}

void AddWorkloadUsage(const WorkloadInfo& wl) {
  for (const auto& [fr, v] : wl.usage) wl.admitted_in->AddUsage(fr, v);
  AddTopologyUsage(wl.tas_usage);
}

bool UsesResources(const WorkloadInfo& wl, const FrIdSet& need) {
  for (const auto& [fr, v] : wl.usage) {
    if (need.count(fr)) return true;
  }
  return false;
}

namespace {

bool WithinNominal(const QuotaNode& node, const FrIdSet& need) {
  for (FrId fr : need) {
    if (node.usage(fr) > node.subtree_quota(fr)) return false;
  }
  return true;
}

bool SatisfiesWithin(api::WithinClusterQueuePolicy p, const WorkloadInfo& in,
                     const WorkloadInfo& cand) {
  switch (p) {
    case api::WithinClusterQueuePolicy::kNever:
      return false;
    case api::WithinClusterQueuePolicy::kLowerPriority:
      return in.priority > cand.priority;
    case api::WithinClusterQueuePolicy::kLowerOrNewerEqualPriority:
      return in.priority > cand.priority ||
             (in.priority == cand.priority && in.queue_order_time < cand.queue_order_time);
  }
  return false;
}

bool SatisfiesReclaim(api::ReclaimWithinCohortPolicy p, const WorkloadInfo& in,
                      const WorkloadInfo& cand) {
  switch (p) {
    case api::ReclaimWithinCohortPolicy::kNever:
      return false;
    case api::ReclaimWithinCohortPolicy::kLowerPriority:
      return in.priority > cand.priority;
    case api::ReclaimWithinCohortPolicy::kAny:
      return true;
  }
  return false;
}

bool IsEvicted(const WorkloadInfo& wl) { return wl.evicted; }

// Classic's dry run counts removals in plain arithmetic, as the tree's
// saturating one would only below this.
constexpr int64_t kDryMax = INT64_MAX / 4;

// The dry run's bookkeeping of one ClusterQueue: adds `w`'s usage to
// `removed` (per FrId); false when a value is past kDryMax.
bool AddRemoved(const WorkloadInfo& w, FrUsage& removed) {
  bool ok = true;
  for (const auto& [fr, v] : w.usage) {
    auto at = removed.begin();
    while (at != removed.end() && at->first != fr) ++at;
    if (at == removed.end()) at = removed.insert(removed.end(), {fr, 0});
    ok = ok && v <= kDryMax && at->second <= kDryMax;
    at->second += v;
  }
  return ok;
}

// WithinNominal(x, need) once `removed` is taken from x's usage.
bool WithinNominalAfter(const QuotaNode& x, const FrIdSet& need, const FrUsage& removed) {
  for (FrId fr : need) {
    int64_t r = 0;
    for (const auto& [f, v] : removed) {
      if (f == fr) r = v;
    }
    if (x.usage(fr) - r > x.subtree_quota(fr)) return false;
  }
  return true;
}

// What taking `removed` of `fr` from x gives back to its parent, as
// RemoveUsage would; nullopt past kDryMax.
std::optional<int64_t> GiveBack(const QuotaNode& x, FrId fr, int64_t removed) {
  const int64_t u = x.usage(fr);
  if (u > kDryMax || u < -kDryMax) return std::nullopt;
  return x.RemovedFromParent(fr, removed);
}

// Necessary condition for any victim set: even removing every candidate must
// leave room for `usage` in `cq` (freed capacity is at most their usage).
bool CouldFit(const ClusterQueueNode& cq, const FrUsage& usage,
              const std::vector<WorkloadInfo*>& cands) {
  for (const auto& [fr, v] : usage) {
    int64_t room = std::max<int64_t>(0, cq.Available(fr));
    for (const WorkloadInfo* w : cands) {
      if (room >= v) break;
      for (const auto& [wfr, wv] : w->usage) {
        if (wfr == fr) room = SatAdd(room, wv);
      }
    }
    if (room < v) return false;
  }
  return true;
}

// Child of `lca` on the path from `x` up to it (x itself when its parent is lca).
const QuotaNode* AlmostLca(const QuotaNode* x, const QuotaNode* lca) {
  while (x->parent() != nullptr && x->parent() != lca) x = x->parent();
  return x;
}

const QuotaNode* LowestCommonAncestor(const QuotaNode* a, const QuotaNode* b) {
  std::set<const QuotaNode*> path;
  for (const QuotaNode* n = a->parent(); n != nullptr; n = n->parent()) path.insert(n);
  for (const QuotaNode* n = b->parent(); n != nullptr; n = n->parent()) {
    if (path.count(n)) return n;
  }
  return nullptr;
}

}  // namespace

bool Preemptor::CandidateBefore(const WorkloadInfo* a, const WorkloadInfo* b,
                                const ClusterQueueNode* own) {
  bool ae = IsEvicted(*a), be = IsEvicted(*b);
  if (ae != be) return ae;
  bool a_own = a->admitted_in == own, b_own = b->admitted_in == own;
  if (a_own != b_own) return !a_own;
  return ReservationOrderBefore(a, b);
}

bool Preemptor::Fits(const ClusterQueueNode& cq, const FrUsage& usage, bool allow_borrowing) {
  for (const auto& [fr, v] : usage) {
    if (!allow_borrowing && SatAdd(cq.usage(fr), v) > cq.subtree_quota(fr)) return false;
    if (v > std::max<int64_t>(0, cq.Available(fr))) return false;
  }
  return true;
}

template <class Victim, class WorkloadOf>
void Preemptor::FillBackIn(std::vector<Victim>& victims, WorkloadOf workload_of,
                           const ClusterQueueNode& cq, const FrUsage& usage,
                           bool allow_borrowing) const {
  for (int i = static_cast<int>(victims.size()) - 2; i >= 0; --i) {
    const WorkloadInfo& w = *workload_of(victims[static_cast<size_t>(i)]);
    AddWorkloadUsage(w);
    if (FitsAll(cq, usage, allow_borrowing)) {
      victims[static_cast<size_t>(i)] = victims.back();
      victims.pop_back();
    } else {
      RemoveWorkloadUsage(w);
    }
  }
}

std::vector<PreemptionTarget> Preemptor::FillBack(std::vector<PreemptionTarget> targets,
                                                  const ClusterQueueNode& cq, const FrUsage& usage,
                                                  bool allow_borrowing) const {
  FillBackIn(
      targets, [](const PreemptionTarget& t) { return t.workload; }, cq, usage, allow_borrowing);
  return targets;
}

// FillBack on victims_ (classic preemption's candidates).
void Preemptor::FillBackVictims(const ClusterQueueNode& cq, const FrUsage& usage,
                                bool allow_borrowing) {
  FillBackIn(
      victims_, [](const Candidate& c) { return c.wl; }, cq, usage, allow_borrowing);
}

bool Preemptor::CandidateValid(const Candidate& c, const ClusterQueueNode& cq, const FrIdSet& need,
                               bool borrow) const {
  const ClusterQueueNode* x = c.wl->admitted_in;
  if (x == &cq) return true;
  if (borrow && c.variant == Variant::kReclaimWithoutBorrowing) return false;
  if (WithinNominal(*x, need)) return false;
  for (const QuotaNode* a = x->parent(); a != nullptr && a != c.lca; a = a->parent()) {
    if (WithinNominal(*a, need)) return false;
  }
  return true;
}

std::vector<PreemptionTarget> Preemptor::GetTargets(const WorkloadInfo& wl,
                                                    const ClusterQueueNode& cq, const FrIdSet& need,
                                                    const FrUsage& usage) {
  protected_victim_ = nullptr;
  if (need.empty()) return {};
  if (fair_sharing_.enable) return Fair(wl, cq, need, usage);
  std::vector<PreemptionTarget> targets;
  if (!Classic(wl, cq, need, usage)) return targets;
  targets.reserve(victims_.size());
  for (const Candidate& v : victims_) targets.push_back({v.wl, ReasonOf(v.variant)});
  return targets;
}

bool Preemptor::Protected(const WorkloadInfo& victim, const WorkloadInfo& preemptor) {
  const ClusterQueueNode* cq = victim.admitted_in;
  if (cq == nullptr) return false;
  const MinimumRuntime& mr = cq->minimum_runtime();
  const int64_t ms = victim.minimum_runtime_ms >= 0 ? victim.minimum_runtime_ms : mr.ms;
  if (ms <= 0) return false;
  if (mr.override_priority && preemptor.priority >= *mr.override_priority) return false;
  const Time until = victim.quota_reserved_at + Duration{ms};
  if (now_ >= until) return false;
  if (protected_victim_ == nullptr || until < protected_until_) {
    protected_victim_ = &victim;
    protected_until_ = until;
  }
  return true;
}

const char* Preemptor::ReasonOf(Variant v) {
  switch (v) {
    case Variant::kWithinCQ:
      return "InClusterQueue";
    case Variant::kReclaimWhileBorrowing:
      return "InCohortReclaimWhileBorrowing";
    default:
      return "InCohortReclamation";
  }
}

namespace {

// Clears ClusterQueue k's holders from `bits` in the group whose words
// start at `live` and in its evicted twin, three groups before it.
void ClearHolders(const HolderOrder::View& view, size_t k, size_t live,
                  std::vector<uint64_t>& bits) {
  const size_t evicted = live - 3 * ((view.holders.size() + 63) / 64);
  for (uint32_t i = view.position_begin[k]; i < view.position_begin[k + 1]; ++i) {
    const uint32_t pos = view.positions[i].pos;
    const uint64_t keep = ~(uint64_t{1} << (pos % 64));
    bits[live + pos / 64] &= keep;
    bits[evicted + pos / 64] &= keep;
  }
}

}  // namespace

const Preemptor::CohortMemo* Preemptor::MemoFor(const HolderOrder::View& view, const FrIdSet& need,
                                                uint64_t need_bits, bool exact_bits,
                                                int64_t max_priority) {
  if (!holders_.frozen()) return nullptr;
  if (memo_generation_ != holders_.generation()) {
    memo_generation_ = holders_.generation();
    memos_used_ = 0;
  }
  for (size_t i = 0; i < memos_used_; ++i) {
    const CohortMemo& m = memos_[i];
    if (m.root == view.root && m.max_priority == max_priority && m.need == need) return &m;
  }
  if (memos_used_ == memos_.size()) memos_.emplace_back();
  CohortMemo& m = memos_[memos_used_++];
  m.root = view.root;
  m.need = need;
  m.max_priority = max_priority;
  m.within.resize(view.cqs.size());
  const size_t n_words = (view.holders.size() + 63) / 64;
  m.bits.assign(view.flat ? 2 * n_words : 0, 0);
  m.dry = view.flat && exact_bits && !view.any_evicted && !view.any_negative;
  m.delta_begin.assign(view.cqs.size() + 1, 0);
  m.deltas.clear();
  for (size_t k = 0; k < view.cqs.size(); ++k) {
    m.delta_begin[k] = static_cast<uint32_t>(m.deltas.size());
    const ClusterQueueNode& x = *view.cqs[k];
    m.within[k] = WithinNominal(x, need);
    if (!view.flat || m.within[k]) continue;
    removed_.clear();
    bool x_within = false;
    for (uint32_t i = view.position_begin[k]; i < view.position_begin[k + 1]; ++i) {
      const HolderOrder::View::Position& h = view.positions[i];
      if ((h.frs & need_bits) == 0 || h.priority > max_priority) continue;
      const size_t base = view.any_evicted && view.holders[h.pos].evicted ? 0 : n_words;
      m.bits[base + h.pos / 64] |= uint64_t{1} << (h.pos % 64);
      if (!m.dry || x_within) continue;
      // The dry run's removals: this holder is taken unless x is within
      // nominal quota after those before it.
      x_within = WithinNominalAfter(x, need, removed_);
      if (!x_within) m.dry = AddRemoved(*view.holders[h.pos].wl, removed_) && m.dry;
    }
    for (const auto& [fr, r] : removed_) {
      if (!m.dry) break;
      const std::optional<int64_t> back = GiveBack(x, fr, r);
      if (!back) m.dry = false;
      if (back && *back != 0) m.deltas.emplace_back(fr, *back);
    }
  }
  m.delta_begin[view.cqs.size()] = static_cast<uint32_t>(m.deltas.size());
  return &m;
}

bool Preemptor::Classic(const WorkloadInfo& wl, const ClusterQueueNode& cq, const FrIdSet& need,
                        const FrUsage& usage) {
  victims_.clear();
  const auto& policy = cq.spec().preemption;
  const auto& bwc = policy.borrow_within_cohort;
  const bool forbidden = bwc.policy == api::BorrowWithinCohortPolicy::kNever;
  const bool within_on = policy.within_cluster_queue != api::WithinClusterQueuePolicy::kNever;
  const bool cohort_on =
      cq.has_parent() && policy.reclaim_within_cohort != api::ReclaimWithinCohortPolicy::kNever;
  // Every holder of the tree, in reservation order (built once per tree while
  // the scheduler nominates). Candidates are taken from it in that order, a
  // group of [evicted H][evicted P][evicted own][H][P][own] at a time, which
  // is Kueue's order with no sort.
  if (!within_on && !cohort_on) return false;
  const HolderOrder::View& view = holders_.For(QuotaTree::Root(&cq));
  // `need` as bits: a holder whose bits miss it uses none of `need`; one whose
  // bits meet it is checked exactly (bits are FrId % 64), unless the bits are
  // exact (every FrId of the holders and of `need` below 64).
  uint64_t need_bits = 0;
  bool exact_bits = view.exact_frs;
  for (FrId fr : need) {
    need_bits |= HolderOrder::Bit(fr);
    exact_bits = exact_bits && fr >= 0 && fr < 64;
  }
  // The highest priority a cohort candidate may have.
  const int64_t cohort_max_priority =
      policy.reclaim_within_cohort == api::ReclaimWithinCohortPolicy::kLowerPriority
          ? int64_t{wl.priority} - 1
          : INT64_MAX;
  const CohortMemo* memo = nullptr;
  if (cohort_on) {
    // Which ClusterQueues of the tree give cohort candidates: not within
    // nominal quota themselves, nor any cohort between them and the lowest
    // ancestor they share with `cq`; `adv` of that ancestor's level (the
    // hierarchical-reclaim flag as the walk up from `cq` sets it).
    ancestors_.clear();
    {
      bool adv = true;
      std::vector<std::pair<FrId, int64_t>>& rem = rem_;
      rem.clear();
      for (const auto& [fr, v] : usage) {
        if (SatAdd(cq.usage(fr), v) > cq.subtree_quota(fr)) adv = false;
        int64_t la = std::max<int64_t>(0, cq.guaranteed_quota(fr) - cq.usage(fr));
        rem.emplace_back(fr, std::max<int64_t>(0, v - la));
      }
      for (const CohortNode* a = cq.parent(); a != nullptr; a = a->parent()) {
        ancestors_.push_back({a, adv});
        bool fits = true;
        for (auto& [fr, v] : rem) {
          if (SatAdd(a->usage(fr), v) > a->subtree_quota(fr)) fits = false;
          int64_t la = std::max<int64_t>(0, a->guaranteed_quota(fr) - a->usage(fr));
          v = std::max<int64_t>(0, v - la);
        }
        adv = adv || fits;
      }
    }
    cq_info_.assign(view.cqs.size(), CqInfo{});
    memo = MemoFor(view, need, need_bits, exact_bits, cohort_max_priority);
    for (size_t k = 0; k < view.cqs.size(); ++k) {
      const ClusterQueueNode* x = view.cqs[k];
      if (x == &cq || (memo != nullptr ? memo->within[k] != 0 : WithinNominal(*x, need))) continue;
      const QuotaNode* c = x->parent();
      const Ancestor* lca = nullptr;
      bool ok = true;
      for (; c != nullptr; c = c->parent()) {
        auto it = std::find_if(ancestors_.begin(), ancestors_.end(),
                               [c](const Ancestor& a) { return a.node == c; });
        if (it != ancestors_.end()) {
          lca = &*it;
          break;
        }
        if (WithinNominal(*c, need)) ok = false;
      }
      if (!ok || lca == nullptr) continue;
      cq_info_[k] = CqInfo{true, lca->adv, lca->node};
    }
  }
  size_t own = 0;
  while (view.cqs[own] != &cq) ++own;
  auto uses = [&](const HolderOrder::Holder& h) {
    return (h.frs & need_bits) != 0 && (exact_bits || UsesResources(*h.wl, need));
  };
  // The holders that may be candidates at all, as a bit per position in the
  // holder order, one bit set per group of [evicted H][evicted P][evicted
  // own][H][P][own]: those of `cq` (within_on) and of the ClusterQueues that
  // give cohort candidates (cohort_on) whose bits meet `need` and whose
  // priority the policy allows (a superset of the candidates). A holder's
  // group follows from its ClusterQueue and its evicted flag alone, so it is
  // known here; classify below answers that group or -1. Every scan visits
  // only these bits, each group's in holder order.
  const size_t n_words = (view.holders.size() + 63) / 64;
  group_bits_.assign(6 * n_words, 0);
  auto mark = [&](size_t k, int64_t max_priority, int group) {
    uint64_t* live = group_bits_.data() + static_cast<size_t>(group) * n_words;
    // Evicted holders go three groups earlier.
    uint64_t* evicted = live - 3 * n_words;
    for (uint32_t i = view.position_begin[k]; i < view.position_begin[k + 1]; ++i) {
      const HolderOrder::View::Position& h = view.positions[i];
      if ((h.frs & need_bits) == 0 || h.priority > max_priority) continue;
      uint64_t* bits = view.any_evicted && view.holders[h.pos].evicted ? evicted : live;
      bits[h.pos / 64] |= uint64_t{1} << (h.pos % 64);
    }
  };
  if (within_on) {
    // SatisfiesWithin needs priority below the preemptor's, or equal to it.
    mark(own,
         policy.within_cluster_queue == api::WithinClusterQueuePolicy::kLowerPriority
             ? int64_t{wl.priority} - 1
             : int64_t{wl.priority},
         5);
  }
  if (cohort_on && memo != nullptr && view.flat) {
    // Flat tree: every candidate ClusterQueue's lca is the root, so all share
    // one group; the memo holds their marks, and those of `cq` itself.
    const size_t live = (ancestors_.back().adv ? 3 : 4) * n_words;
    const size_t evicted = live - 3 * n_words;
    std::copy_n(memo->bits.begin(), n_words, group_bits_.begin() + static_cast<ptrdiff_t>(evicted));
    std::copy_n(memo->bits.begin() + static_cast<ptrdiff_t>(n_words), n_words,
                group_bits_.begin() + static_cast<ptrdiff_t>(live));
    ClearHolders(view, own, live, group_bits_);
  } else if (cohort_on) {
    for (size_t k = 0; k < view.cqs.size(); ++k) {
      if (cq_info_[k].eligible) mark(k, cohort_max_priority, cq_info_[k].adv ? 3 : 4);
    }
  }
  // Calls fn on the holders whose bits are set in `bits` (one group's
  // words), in holder order, until it returns true; returns whether it did.
  auto each_in = [&](const uint64_t* bits, auto&& fn) {
    for (size_t w = 0; w < n_words; ++w) {
      for (uint64_t b = bits[w]; b != 0; b &= b - 1) {
        const size_t p = w * 64 + static_cast<size_t>(__builtin_ctzll(b));
        if (fn(view.holders[p])) return true;
      }
    }
    return false;
  };
  auto group = [&](int g) { return group_bits_.data() + static_cast<size_t>(g) * n_words; };
  const int32_t in_priority = wl.priority;
  const auto reclaim = policy.reclaim_within_cohort;
  // A holder's group in [evicted H][evicted P][evicted own][H][P][own]
  // (0..5), with the candidate it makes; -1 when it is none. Depends on no
  // usage, so it may be asked while victims are removed.
  auto classify = [&](const HolderOrder::Holder& h, Candidate* c) -> int {
    WorkloadInfo* w = h.wl;
    if (minimum_runtime_on_ && w != &wl && Protected(*w, wl)) return -1;
    if (view.cqs[static_cast<size_t>(h.cq)] == &cq) {
      if (!within_on || w == &wl || !uses(h) ||
          !SatisfiesWithin(policy.within_cluster_queue, wl, *w)) {
        return -1;
      }
      *c = {w, Variant::kWithinCQ, nullptr, h.cq};
    } else {
      if (!cohort_on) return -1;
      const CqInfo& info = cq_info_[static_cast<size_t>(h.cq)];
      if (!info.eligible) return -1;
      // SatisfiesReclaim on the copied priority.
      if (reclaim == api::ReclaimWithinCohortPolicy::kLowerPriority &&
          !(in_priority > h.priority)) {
        return -1;
      }
      if (!uses(h)) return -1;
      Variant v;
      if (info.adv) {
        v = Variant::kHierarchicalReclaim;
      } else if (forbidden || h.priority >= in_priority ||
                 (bwc.max_priority_threshold && h.priority > *bwc.max_priority_threshold)) {
        v = Variant::kReclaimWithoutBorrowing;
      } else {
        v = Variant::kReclaimWhileBorrowing;
      }
      *c = {w, v, info.lca, h.cq};
    }
    int g = c->variant == Variant::kHierarchicalReclaim ? 0
            : c->variant == Variant::kWithinCQ          ? 2
                                                        : 1;
    return (h.evicted ? 0 : 3) + g;
  };
  Candidate c;
  auto is_candidate = [&](const HolderOrder::Holder& h) { return classify(h, &c) >= 0; };
  // What the victim search needs to know first: whether there is any
  // candidate, and any from the cohort (groups 0, 1, 3, 4).
  bool any_other = false;
  for (int g : {0, 1, 3, 4}) any_other = any_other || each_in(group(g), is_candidate);
  const bool any = any_other || each_in(group(2), is_candidate) || each_in(group(5), is_candidate);
  if (!any) return false;
  bool under_nominal = true;
  for (FrId fr : need) {
    if (!(cq.usage(fr) < cq.quota(fr).nominal)) under_nominal = false;
  }
  // Whether there is a hierarchical candidate, only where it decides the
  // attempts.
  bool any_h = false;
  if (any_other && forbidden && under_nominal) {
    any_h = each_in(group(0), is_candidate) || each_in(group(3), is_candidate);
  }
  std::array<bool, 2> attempts{};
  int n_attempts = 2;
  if (!any_other || (forbidden && !under_nominal)) {
    attempts = {true, true};
    n_attempts = 1;
  } else if (forbidden && !any_h) {
    attempts = {false, true};
  } else {
    attempts = {true, false};
  }
  // CouldFit over the candidates the attempts may take: even removing them
  // all must leave room (removing usage u raises Available by at most u).
  // With borrowing forbidden and one attempt (it borrows), the P groups are
  // never taken (see the attempt loop).
  const bool p_skipped = forbidden && n_attempts == 1;
  for (const auto& need_fr : usage) {
    // Named copies: clang 14 cannot capture a structured binding.
    const FrId fr = need_fr.first;
    const int64_t v = need_fr.second;
    int64_t room = std::max<int64_t>(0, cq.Available(fr));
    for (int g = 0; g < 6 && room < v; ++g) {
      if (p_skipped && (g == 1 || g == 4)) continue;
      each_in(group(g), [&](const HolderOrder::Holder& h) {
        if (classify(h, &c) < 0) return false;
        for (const auto& [wfr, wv] : c.wl->usage) {
          if (wfr == fr) room = SatAdd(room, wv);
        }
        return room >= v;
      });
    }
    if (room < v) return false;
  }
  // A flat tree without evicted or negative holders: whether an attempt can
  // fit at all, found without touching the tree. Every candidate it may take
  // is counted as removed, each cohort ClusterQueue's in holder order until
  // it is within nominal quota (which depends on its own removals only, its
  // parent being the lca), and Fits is asked of the usage that leaves.
  // Removals only raise Available, so when that does not fit no prefix of
  // it does: the attempt fails, as trying every candidate would find.
  // Answers true when it may fit (or when it cannot tell).
  constexpr size_t kDryFrs = 8;
  std::array<FrId, kDryFrs> dry_frs{};
  size_t n_dry = 0;
  bool dry = dry_run_ && cohort_on && view.flat && !view.any_negative && !view.any_evicted &&
             cq.parent() == view.root;
  auto dry_index = [&](FrId fr) -> int {
    for (size_t j = 0; j < n_dry; ++j) {
      if (dry_frs[j] == fr) return static_cast<int>(j);
    }
    return -1;
  };
  auto dry_add = [&](FrId fr) {
    if (!dry || dry_index(fr) >= 0) return;
    if (n_dry == kDryFrs) {
      dry = false;
      return;
    }
    dry_frs[n_dry++] = fr;
  };
  for (const auto& u : usage) dry_add(u.first);
  for (FrId fr : need) dry_add(fr);
  auto may_fit = [&](bool borrow) -> bool {
    std::array<int64_t, kDryFrs> own_removed{}, root_removed{};
    const bool adv = ancestors_.back().adv;
    const uint64_t* own_bits = group(5);
    const uint64_t* cohort_bits = group(adv ? 3 : 4);
    // With borrowing forbidden, an attempt that borrows takes no P candidate.
    const bool cohort_skipped = !adv && forbidden && borrow;
    // The memo's per-ClusterQueue removals hold where no candidate is
    // skipped by its priority (H, or P with borrowing forbidden and not
    // borrowing) and the marks are the candidates (memo->dry: exact bits).
    const bool from_memo = memo != nullptr && memo->dry && (adv || forbidden);
    for (size_t k = 0; k < view.cqs.size(); ++k) {
      const bool is_own = k == own;
      if (!is_own && (!cq_info_[k].eligible || cohort_skipped)) continue;
      if (!is_own && from_memo) {
        for (uint32_t d = memo->delta_begin[k]; d < memo->delta_begin[k + 1]; ++d) {
          const int j = dry_index(memo->deltas[d].first);
          if (j >= 0) root_removed[static_cast<size_t>(j)] += memo->deltas[d].second;
        }
        continue;
      }
      const ClusterQueueNode* x = view.cqs[k];
      const uint64_t* bits = is_own ? own_bits : cohort_bits;
      FrUsage& removed = removed_;
      removed.clear();
      for (uint32_t i = view.position_begin[k]; i < view.position_begin[k + 1]; ++i) {
        const uint32_t pos = view.positions[i].pos;
        if (((bits[pos / 64] >> (pos % 64)) & 1) == 0) continue;
        if (classify(view.holders[pos], &c) < 0) continue;
        if (!is_own) {
          if (borrow && c.variant == Variant::kReclaimWithoutBorrowing) continue;
          if (WithinNominalAfter(*x, need, removed)) break;
        }
        if (!AddRemoved(*c.wl, removed)) return true;
      }
      for (const auto& [fr, r] : removed) {
        const int j = dry_index(fr);
        if (j < 0) continue;
        const std::optional<int64_t> back = GiveBack(*x, fr, r);
        if (!back) return true;
        root_removed[static_cast<size_t>(j)] += *back;
        if (is_own) own_removed[static_cast<size_t>(j)] = r;
      }
    }
    const QuotaNode& root = *view.root;
    for (const auto& need_fr : usage) {
      const FrId fr = need_fr.first;
      const int64_t v = need_fr.second;
      const auto j = static_cast<size_t>(dry_index(fr));
      if (root.usage(fr) > kDryMax || root.usage(fr) < -kDryMax) return true;
      const int64_t u = cq.usage(fr) - own_removed[j];
      if (!borrow && SatAdd(u, v) > cq.subtree_quota(fr)) return false;
      const int64_t parent = root.AvailableGiven(fr, root.usage(fr) - root_removed[j], 0);
      if (v > std::max<int64_t>(0, cq.AvailableGiven(fr, u, parent))) return false;
    }
    return true;
  };
  // Groups are tried in order, each in holder order. A ClusterQueue found
  // dead (see below) has its holders' bits cleared from the attempt's copy,
  // so that later groups do not visit them.
  for (int a = 0; a < n_attempts; ++a) {
    const bool borrow = attempts[static_cast<size_t>(a)];
    std::vector<Candidate>& targets = victims_;
    targets.clear();
    if (dry && !may_fit(borrow)) continue;
    attempt_bits_.assign(group_bits_.begin(), group_bits_.end());
    // A ClusterQueue found within nominal quota (itself or a cohort up to
    // its lca) stays so while this attempt only removes usage (when no
    // holder has a negative usage): its later candidates are invalid too.
    dead_.assign(view.cqs.size(), 0);
    const auto own_index = static_cast<int32_t>(own);
    // Clears a dead cohort ClusterQueue's holders from the group it was
    // marked in (3 or 4) and from its evicted twin.
    auto bury = [&](int32_t k) {
      const auto at = static_cast<size_t>(k);
      ClearHolders(view, at, (cq_info_[at].adv ? 3 : 4) * n_words, attempt_bits_);
    };
    auto try_one = [&](const Candidate& x) {
      if (x.cq != own_index) {  // not in `cq` (CandidateValid's first test)
        if (borrow && x.variant == Variant::kReclaimWithoutBorrowing) return false;
        uint8_t& dead = dead_[static_cast<size_t>(x.cq)];
        if (dead) return false;
        if (!CandidateValid(x, cq, need, borrow)) {
          dead = !view.any_negative;
          if (dead) bury(x.cq);
          return false;
        }
      }
      RemoveWorkloadUsage(*x.wl);
      targets.push_back(x);
      return FitsAll(cq, usage, borrow);
    };
    for (int g = 0; g < 6; ++g) {
      // With borrowing forbidden every P candidate is ReclaimWithoutBorrowing,
      // which an attempt that borrows skips (try_one's first test).
      if (borrow && forbidden && (g == 1 || g == 4)) continue;
      const bool fit =
          each_in(attempt_bits_.data() + static_cast<size_t>(g) * n_words,
                  [&](const HolderOrder::Holder& h) { return classify(h, &c) >= 0 && try_one(c); });
      if (fit) {
        FillBackVictims(cq, usage, borrow);
        for (const Candidate& t : targets) AddWorkloadUsage(*t.wl);
        return true;
      }
    }
    for (const Candidate& t : targets) AddWorkloadUsage(*t.wl);
  }
  victims_.clear();
  return false;
}

namespace {

// The fair-sharing tournament that picks the next ClusterQueue to take a
// victim from: the child with the highest share at each level of the tree.
class TargetOrdering {
 public:
  using Lists = std::map<const ClusterQueueNode*, std::deque<WorkloadInfo*>>;
  TargetOrdering(const ClusterQueueNode& q, Lists& lists, const FlavorResourceTable& frs)
      : q_(q), lists_(lists), frs_(frs) {
    for (const QuotaNode* n = q.parent(); n != nullptr; n = n->parent()) q_path_.insert(n);
  }

  const ClusterQueueNode* Next() {
    if (!q_.has_parent()) return lists_[&q_].empty() ? nullptr : &q_;
    const auto* root = static_cast<const CohortNode*>(QuotaTree::Root(&q_));
    if (pruned_.count(root)) return nullptr;
    return NextIn(root);
  }

 private:
  const ClusterQueueNode* NextIn(const CohortNode* cohort) {
    while (true) {
      const ClusterQueueNode* best_cq = nullptr;
      Share best_cq_share;
      for (const ClusterQueueNode* x : cohort->child_cluster_queues()) {
        if (pruned_.count(x)) continue;
        Share s = DominantResourceShare(*x, frs_);
        auto it = lists_.find(x);
        if ((x != &q_ && s.IsZero()) || it == lists_.end() || it->second.empty()) {
          pruned_.insert(x);
          continue;
        }
        int cmp = best_cq ? CompareShare(s, best_cq_share) : 1;
        if (cmp > 0 ||
            (cmp == 0 && ReservationOrderBefore(it->second.front(), lists_[best_cq].front()))) {
          best_cq = x;
          best_cq_share = s;
        }
      }
      const CohortNode* best_co = nullptr;
      Share best_co_share;
      for (const CohortNode* c : cohort->child_cohorts()) {
        if (pruned_.count(c)) continue;
        Share s = DominantResourceShare(*c, frs_);
        if (s.IsZero() && q_path_.count(c) == 0) {
          pruned_.insert(c);
          continue;
        }
        if (!best_co || CompareShare(s, best_co_share) >= 0) {
          best_co = c;
          best_co_share = s;
        }
      }
      if (!best_cq && !best_co) {
        pruned_.insert(cohort);
        return nullptr;
      }
      if (best_co && (!best_cq || CompareShare(best_co_share, best_cq_share) >= 0)) {
        if (const ClusterQueueNode* t = NextIn(best_co)) return t;
        continue;
      }
      return best_cq;
    }
  }

  const ClusterQueueNode& q_;
  Lists& lists_;
  const FlavorResourceTable& frs_;
  std::set<const QuotaNode*> q_path_;
  std::set<const QuotaNode*> pruned_;
};

bool StrategyAllows(api::FairSharingStrategy s, const Share& preemptor, const Share& target_old,
                    const Share& target_new) {
  if (s == api::FairSharingStrategy::kLessThanOrEqualToFinalShare) {
    return CompareShare(preemptor, target_new) <= 0;
  }
  return CompareShare(preemptor, target_old) < 0;
}

}  // namespace

std::vector<PreemptionTarget> Preemptor::Fair(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                              const FrIdSet& need, const FrUsage& usage) {
  const auto& policy = cq.spec().preemption;
  std::vector<WorkloadInfo*> cands;
  if (policy.within_cluster_queue != api::WithinClusterQueuePolicy::kNever) {
    for (WorkloadInfo* w : cq.admitted()) {
      if (w != &wl && UsesResources(*w, need) &&
          SatisfiesWithin(policy.within_cluster_queue, wl, *w) &&
          !(minimum_runtime_on_ && Protected(*w, wl))) {
        cands.push_back(w);
      }
    }
  }
  if (cq.has_parent() && policy.reclaim_within_cohort != api::ReclaimWithinCohortPolicy::kNever) {
    QuotaTree::ForEachClusterQueue(QuotaTree::Root(&cq), [&](ClusterQueueNode* x) {
      if (x == &cq) return;
      bool borrowing = false;
      for (FrId fr : need) borrowing = borrowing || x->usage(fr) > x->subtree_quota(fr);
      if (!borrowing) return;
      for (WorkloadInfo* w : x->admitted()) {
        if (UsesResources(*w, need) && SatisfiesReclaim(policy.reclaim_within_cohort, wl, *w) &&
            !(minimum_runtime_on_ && Protected(*w, wl))) {
          cands.push_back(w);
        }
      }
    });
  }
  if (cands.empty() || !CouldFit(cq, usage, cands)) return {};
  std::stable_sort(cands.begin(), cands.end(), [&](const WorkloadInfo* a, const WorkloadInfo* b) {
    return CandidateBefore(a, b, &cq);
  });
  TargetOrdering::Lists lists;
  for (WorkloadInfo* w : cands) lists[w->admitted_in].push_back(w);

  auto& q = const_cast<ClusterQueueNode&>(cq);
  for (const auto& [fr, v] : usage) q.AddUsage(fr, v);
  bool within_nominal = true;
  for (FrId fr : need) {
    if (q.usage(fr) > q.quota(fr).nominal) within_nominal = false;
  }
  std::vector<PreemptionTarget> targets;
  bool fits = false;
  auto check_fit = [&]() {
    for (const auto& [fr, v] : usage) q.RemoveUsage(fr, v);
    fits = FitsAll(cq, usage, true);
    for (const auto& [fr, v] : usage) q.AddUsage(fr, v);
  };
  const auto& strategies = fair_sharing_.preemption_strategies;
  const api::FairSharingStrategy first =
      strategies.empty() ? api::FairSharingStrategy::kLessThanOrEqualToFinalShare : strategies[0];
  TargetOrdering::Lists retry;
  {
    TargetOrdering ordering(cq, lists, frs_);
    while (!fits) {
      const ClusterQueueNode* t = ordering.Next();
      if (t == nullptr) break;
      auto& list = lists[t];
      if (t == &cq || within_nominal) {
        WorkloadInfo* w = list.front();
        list.pop_front();
        RemoveWorkloadUsage(*w);
        targets.push_back({w, t == &cq ? "InClusterQueue" : "InCohortReclamation"});
        check_fit();
        continue;
      }
      const QuotaNode* lca = LowestCommonAncestor(&cq, t);
      const QuotaNode* qa = AlmostLca(&cq, lca);
      const QuotaNode* ta = AlmostLca(t, lca);
      Share p = DominantResourceShare(*qa, frs_);
      Share told = DominantResourceShare(*ta, frs_);
      if (p.infinite && !told.infinite) {
        for (WorkloadInfo* w : list) retry[t].push_back(w);
        list.clear();
        continue;
      }
      bool taken = false;
      while (!list.empty()) {
        WorkloadInfo* w = list.front();
        list.pop_front();
        RemoveWorkloadUsage(*w);
        Share tnew = DominantResourceShare(*ta, frs_);
        if (StrategyAllows(first, p, told, tnew)) {
          targets.push_back({w, "InCohortFairSharing"});
          taken = true;
          break;
        }
        AddWorkloadUsage(*w);
        retry[t].push_back(w);
      }
      if (taken) check_fit();
    }
  }
  if (!fits && strategies.size() > 1) {
    TargetOrdering ordering(cq, retry, frs_);
    while (!fits) {
      const ClusterQueueNode* t = ordering.Next();
      if (t == nullptr) break;
      auto& list = retry[t];
      const QuotaNode* lca = LowestCommonAncestor(&cq, t);
      const QuotaNode* qa = lca ? AlmostLca(&cq, lca) : &cq;
      const QuotaNode* ta = lca ? AlmostLca(t, lca) : t;
      Share p = DominantResourceShare(*qa, frs_);
      Share told = DominantResourceShare(*ta, frs_);
      WorkloadInfo* w = list.front();
      RemoveWorkloadUsage(*w);
      Share tnew = DominantResourceShare(*ta, frs_);
      if (StrategyAllows(strategies[1], p, told, tnew)) {
        targets.push_back({w, "InCohortFairSharing"});
        check_fit();
      } else {
        AddWorkloadUsage(*w);
      }
      list.clear();  // at most one victim per ClusterQueue in this pass
    }
  }
  for (const auto& [fr, v] : usage) q.RemoveUsage(fr, v);
  if (fits) targets = FillBack(std::move(targets), cq, usage, true);
  for (const auto& t : targets) AddWorkloadUsage(*t.workload);
  if (!fits) return {};
  return targets;
}

FitMode Preemptor::SimulatePreemption(const ClusterQueueNode& cq, const WorkloadInfo& wl, FrId fr,
                                      int64_t value, int* borrow_after) {
  // What GetTargets would answer, without building its reasons (classic) and
  // with `need` and `usage` kept between calls (no allocation per call).
  if (sim_need_.size() != 1 || *sim_need_.begin() != fr) {
    sim_need_.clear();
    sim_need_.insert(fr);
  }
  sim_usage_.assign(1, {fr, value});
  // With the victims' usage removed: the borrowing height after, and whether
  // any victim is the ClusterQueue's own (Preempt) or all are others' (Reclaim).
  auto mode_after = [&](const auto& victims, auto workload_of) {
    bool own = false;
    for (const auto& t : victims) {
      RemoveWorkloadUsage(*workload_of(t));
      own = own || workload_of(t)->admitted_in == &cq;
    }
    *borrow_after = QuotaTree::BorrowingHeight(cq, fr, value, nullptr);
    for (const auto& t : victims) AddWorkloadUsage(*workload_of(t));
    return own ? FitMode::kPreempt : FitMode::kReclaim;
  };
  if (!fair_sharing_.enable) {
    if (!Classic(wl, cq, sim_need_, sim_usage_)) return FitMode::kNoCandidates;
    return mode_after(victims_, [](const Candidate& c) { return c.wl; });
  }
  auto targets = GetTargets(wl, cq, sim_need_, sim_usage_);
  if (targets.empty()) return FitMode::kNoCandidates;
  return mode_after(targets, [](const PreemptionTarget& t) { return t.workload; });
}

}  // namespace kuota::engine
