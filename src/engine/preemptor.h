// Preemptor: chooses the workloads to evict so that an incoming workload fits,
// as Kueue does: classic preemption (withinClusterQueue, reclaimWithinCohort,
// borrowWithinCohort, hierarchical cohorts) or fair-sharing preemption
// (dominant resource share, LessThanOrEqualToFinalShare / LessThanInitialShare).
// Victim search simulates removals on the live quota tree and restores it;
// in a flat tree it first rules out, by arithmetic, attempts that cannot fit.
// Also serves as the FlavorAssigner's preemption oracle. Single-threaded.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>

#include "api/configuration.h"
#include "engine/flavor_assigner.h"
#include "engine/fr_id_set.h"
#include "engine/holder_order.h"
#include "engine/workload_info.h"

namespace kuota::engine {

struct PreemptionTarget {
  WorkloadInfo* workload = nullptr;  // borrowed
  std::string reason;  // InClusterQueue, InCohortReclamation, InCohortFairSharing, ...
};

using FrUsage = std::vector<std::pair<FrId, int64_t>>;

class Preemptor final : public PreemptionOracle {
 public:
  Preemptor(const FlavorResourceTable& frs, const api::FairSharingConfig& fair_sharing)
      : frs_(frs), fair_sharing_(fair_sharing) {}

  // Victims that let `wl` (assigned `usage`, needing preemption in `need`)
  // fit in `cq`; empty when no set of victims works.
  std::vector<PreemptionTarget> GetTargets(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                           const FrIdSet& need, const FrUsage& usage);

  FitMode SimulatePreemption(const ClusterQueueNode& cq, const WorkloadInfo& wl, FrId fr,
                             int64_t value, int* borrow_after) override;

  // Classic's dry run (on by default): an attempt that cannot fit even with
  // every candidate it may take removed is answered without simulating it.
  // Off, every attempt is simulated; tests compare the two.
  void set_dry_run(bool on) { dry_run_ = on; }

  // An extra condition for "the workload fits" while victims are removed
  // (topology placement); empty: none.
  void set_extra_fit(std::function<bool()> fit) { extra_fit_ = std::move(fit); }

  // The quota holders in candidate order; the scheduler freezes it while it
  // nominates, so each tree's list is built once per cycle.
  HolderOrder& holders() { return holders_; }

  // Minimum runtime before preemption (minimum_runtime.h): `on` when any
  // ClusterQueue or WorkloadPriorityClass asks for it; `now` the cycle's
  // instant. Off, no candidate is checked for it.
  void set_minimum_runtime(bool on, Time now) {
    minimum_runtime_on_ = on;
    now_ = now;
  }
  // After a GetTargets that found no victims: the protected workload whose
  // protection ends first among those it passed over for it (null when none
  // was), and when it ends.
  const WorkloadInfo* protected_victim() const { return protected_victim_; }
  Time protected_until() const { return protected_until_; }

 private:
  enum class Variant {
    kWithinCQ,
    kHierarchicalReclaim,
    kReclaimWithoutBorrowing,
    kReclaimWhileBorrowing
  };
  struct Candidate {
    WorkloadInfo* wl;
    Variant variant;
    const QuotaNode* lca;  // for cohort candidates: the ancestor it was found under
    int32_t cq;            // index of wl's ClusterQueue in the HolderOrder::View
  };
  struct Ancestor {
    const QuotaNode* node;
    bool adv;  // candidates found under it may be taken by hierarchical reclaim
  };
  struct CqInfo {
    bool eligible = false;  // gives cohort candidates
    bool adv = false;
    const QuotaNode* lca = nullptr;
  };

  // What Classic derives from a tree's usage for one `need` and one cohort
  // priority bound, the same for every head of the tree while the holders
  // are frozen (usage fixed): which ClusterQueues are within nominal quota on
  // `need` and, for a flat tree, the holders (by position bit, [evicted,
  // live]) of the others that use `need` within the bound.
  struct CohortMemo {
    const QuotaNode* root = nullptr;
    FrIdSet need;
    int64_t max_priority = 0;
    std::vector<uint8_t> within;  // per ClusterQueue of the view
    std::vector<uint64_t> bits;   // flat trees: 2 * words
    // Flat trees with exact holder bits and no evicted or negative holder:
    // for each ClusterQueue k not within nominal quota, what taking its
    // marked holders in order until it is within nominal quota on `need`
    // gives back to the root, per FrId: deltas[delta_begin[k],
    // delta_begin[k + 1]). Classic's dry run reads it (when `dry`).
    bool dry = false;
    std::vector<uint32_t> delta_begin;
    std::vector<std::pair<FrId, int64_t>> deltas;
  };
  // The memo for (view, need, max_priority), made on first use; null when the
  // holders are not frozen. `need_bits` and `exact_bits` are Classic's.
  const CohortMemo* MemoFor(const HolderOrder::View& view, const FrIdSet& need, uint64_t need_bits,
                            bool exact_bits, int64_t max_priority);

  // Classic preemption: whether victims were found; they are left in
  // victims_ (in GetTargets' order).
  bool Classic(const WorkloadInfo& wl, const ClusterQueueNode& cq, const FrIdSet& need,
               const FrUsage& usage);
  std::vector<PreemptionTarget> Fair(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                     const FrIdSet& need, const FrUsage& usage);

  bool CandidateValid(const Candidate& c, const ClusterQueueNode& cq, const FrIdSet& need,
                      bool borrow) const;
  static bool Fits(const ClusterQueueNode& cq, const FrUsage& usage, bool allow_borrowing);
  // Fits, and the extra condition.
  bool FitsAll(const ClusterQueueNode& cq, const FrUsage& usage, bool allow_borrowing) const {
    return Fits(cq, usage, allow_borrowing) && (!extra_fit_ || extra_fit_());
  }
  static bool CandidateBefore(const WorkloadInfo* a, const WorkloadInfo* b,
                              const ClusterQueueNode* own);
  std::vector<PreemptionTarget> FillBack(std::vector<PreemptionTarget> targets,
                                         const ClusterQueueNode& cq, const FrUsage& usage,
                                         bool allow_borrowing) const;
  void FillBackVictims(const ClusterQueueNode& cq, const FrUsage& usage, bool allow_borrowing);
  // The fill-back loop both serve: from the second-to-last victim down, put
  // each one's usage back and drop it when the workload still fits.
  template <class Victim, class WorkloadOf>
  void FillBackIn(std::vector<Victim>& victims, WorkloadOf workload_of, const ClusterQueueNode& cq,
                  const FrUsage& usage, bool allow_borrowing) const;
  static const char* ReasonOf(Variant v);
  // Whether `victim` is protected from `preemptor` by its minimum runtime;
  // notes the earliest end of protection seen.
  bool Protected(const WorkloadInfo& victim, const WorkloadInfo& preemptor);

  const FlavorResourceTable& frs_;
  const api::FairSharingConfig& fair_sharing_;
  HolderOrder holders_;
  bool dry_run_ = true;
  std::function<bool()> extra_fit_;
  bool minimum_runtime_on_ = false;
  Time now_;
  const WorkloadInfo* protected_victim_ = nullptr;
  Time protected_until_;
  // Scratch of Classic, kept to reuse its capacity.
  std::vector<std::pair<FrId, int64_t>> rem_;
  std::vector<Ancestor> ancestors_;
  std::vector<CqInfo> cq_info_;
  std::vector<uint64_t> group_bits_;    // per group, a bit per holder position: may be a candidate
  std::vector<uint64_t> attempt_bits_;  // an attempt's copy, less dead ClusterQueues' holders
  std::vector<Candidate> victims_;      // Classic's answer
  FrIdSet sim_need_;                    // SimulatePreemption's `need` and `usage`
  FrUsage sim_usage_;
  FrUsage removed_;  // the dry run's scratch (MemoFor, Classic): one ClusterQueue's removals
  std::vector<uint8_t> dead_;     // per ClusterQueue of the tree: no valid candidate left
  std::deque<CohortMemo> memos_;  // [0, memos_used_) made in generation memo_generation_
  size_t memos_used_ = 0;
  uint64_t memo_generation_ = 0;
};

// Removes / restores a workload's usage on the quota tree (what-if guards).
void RemoveWorkloadUsage(const WorkloadInfo& wl);
void AddWorkloadUsage(const WorkloadInfo& wl);

// Whether `wl` uses one of the flavor-resources in `need`.
bool UsesResources(const WorkloadInfo& wl, const FrIdSet& need);

}  // namespace kuota::engine
